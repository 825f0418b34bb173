/**
 * Replaying bash calls: the command is answered with its recorded output (or its recorded abort),
 * so only how our tool frames the answer is checked; a command that may write makes every file stale.
 */
import { commandFromBash } from "./_recorded-formats.js";
import { compare } from "./_replay-compare.js";
import { argsOf, type ReplayState, runTool, textOf, unknowable } from "./_replay-state.js";
import { commandMayWrite } from "./_shell-effects.js";
import type { RecordedCall } from "./session.js";
import type { SessionCallOutcome } from "./session-report.js";

export async function replayBash(state: ReplayState, call: RecordedCall): Promise<SessionCallOutcome> {
	const recorded = call.result!;
	const args = argsOf(call.toolCall);
	const command = typeof args?.command === "string" ? args.command : undefined;
	if (command === undefined) return compare(call, await runTool(state, call.toolCall), { formatOnly: true });
	const mayWrite = commandMayWrite(command);
	const answer = commandFromBash(textOf(recorded.content), recorded.isError);
	let outcome: SessionCallOutcome;
	if ("unknowable" in answer) {
		outcome = unknowable(call, answer.unknowable, answer.why);
	} else if (answer.aborted) {
		// Replay the abort: the output is written, then the batch's signal fires.
		const controller = new AbortController();
		state.files.env.scriptOnce(command, {
			run: async (_c, ctx) => {
				if (answer.output) ctx.stdout(answer.output);
				queueMicrotask(() => controller.abort());
				await new Promise<void>((resolve) => {
					if (ctx.signal.aborted) resolve();
					else ctx.signal.addEventListener("abort", () => resolve(), { once: true });
				});
				return undefined;
			},
		});
		outcome = compare(call, await runTool(state, call.toolCall, controller.signal), { formatOnly: true });
	} else {
		state.files.env.expect({ command, output: answer.output, exitCode: answer.exitCode });
		// The command is answered with its recorded output: only our framing is checked.
		outcome = compare(call, await runTool(state, call.toolCall), { formatOnly: true });
	}
	if (mayWrite) state.files.markAllStale(() => `the command ${JSON.stringify(shorten(command))} (call ${call.index})`);
	return outcome;
}

function shorten(text: string): string {
	const line = text.split("\n")[0] ?? "";
	return line.length > 60 || text.includes("\n") ? `${line.slice(0, 60)}…` : line;
}
