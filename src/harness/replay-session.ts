/**
 * Replaying a recorded session through our tools.
 *
 * Each recorded call runs through the executor with our tools on a recorded env (see
 * `_recorded-files.ts`) that knows only what the recording revealed. The call is then classified:
 *
 * - `match`: our result equals the recorded one (after the documented normalization rules);
 * - `mismatch`: it differs, and everything it depended on was known: a real difference;
 * - `unknowable`: it depended on something the recording does not hold (a region of a file no
 *   result ever showed, a change made outside the recorded calls, a call that never ran).
 *
 * Runtime-neutral.
 */
import { errorMessage } from "../contract/errors.js";
import type { ToolDefinition } from "../contract/tool.js";
import { RULE_SUMMARIES } from "./_normalize.js";
import { replayBash } from "./_replay-bash.js";
import { compare, withNestedCalls } from "./_replay-compare.js";
import { replayEdit, replayWrite } from "./_replay-edit.js";
import { replayRead, replaySearch } from "./_replay-read.js";
import { argsOf, baseOutcome, createReplayState, type ReplayState, runTool, unknowable } from "./_replay-state.js";
import { commandMayWrite } from "./_shell-effects.js";
import type { RecordedBatch, RecordedCall, RecordedSession } from "./session.js";
import { type SessionCallOutcome, type SessionReplayReport, summarizeOutcomes } from "./session-report.js";

/** Options for `replaySession`: the tools to replay with and how the world is rebuilt from the session. */
export interface ReplaySessionOptions {
	/**
	 * Tools to replay with, by name; they replace built-ins of the same name and add the others.
	 * Calls to a tool that is neither here nor built in are `unknowable` (`no-tool`).
	 */
	readonly tools?: readonly ToolDefinition[];
	/** Include the built-in tools, read, write, edit, bash, grep, find and ls (default true). */
	readonly builtins?: boolean;
	/**
	 * Whether the user may have changed files between turns (default true). When false, only
	 * shell commands that may write make files stale, so more disagreements count as mismatches.
	 */
	readonly userTurnsMayChangeFiles?: boolean;
	/**
	 * Called with each outcome as soon as it is known. May throw: the replay stops and rejects
	 * with that error.
	 */
	readonly onCall?: (outcome: SessionCallOutcome) => void;
}

/** Tools known not to change files, so a call to them needs no staleness when it cannot be replayed. */
const READ_ONLY_TOOLS = new Set(["read", "grep", "find", "ls"]);

/**
 * Replay every call of a recorded session through our tools and classify each one. Never rejects
 * for a problem with a single call (that call is reported); rejects only when `onCall` throws.
 */
export async function replaySession(
	session: RecordedSession,
	options: ReplaySessionOptions = {},
): Promise<SessionReplayReport> {
	const state = createReplayState(session.cwd, options.builtins !== false, options.tools ?? []);
	const outcomes: SessionCallOutcome[] = [];
	let lastTurn: number | undefined;
	for (const batch of session.batches) {
		// What the user did between the recorded calls may have changed files.
		if (lastTurn !== undefined && batch.turn !== lastTurn && options.userTurnsMayChangeFiles !== false) {
			state.files.markAllStale(`the user's turn before batch ${batch.index}`);
		}
		lastTurn = batch.turn;
		const writing = batch.userCommands.find(commandMayWrite);
		if (writing !== undefined) state.files.markAllStale(`the user's command ${JSON.stringify(writing)}`);
		for (const call of batch.calls) {
			let outcome = await replayCall(state, call, batch);
			// Only a match proves something; an outcome turned into another status drops the claim.
			if (outcome.status !== "match" && outcome.verifies !== undefined) {
				const { verifies: _verifies, ...rest } = outcome;
				outcome = rest;
			}
			outcomes.push(outcome);
			options.onCall?.(outcome);
		}
	}
	const figures = summarizeOutcomes(outcomes);
	return { cwd: session.cwd, figures, calls: outcomes, ok: figures.mismatch === 0 };
}

/** The ids and one-line descriptions of every rule, for reports and docs. */
export const NORMALIZATION_RULES: readonly { readonly id: string; readonly summary: string }[] = RULE_SUMMARIES;

/** Replays one call the way its tool needs; a call that cannot be replayed is `unknowable`. */
async function replayCall(state: ReplayState, call: RecordedCall, batch: RecordedBatch): Promise<SessionCallOutcome> {
	const name = call.toolCall.name;
	const definition = state.definitions.get(name);
	const ran = batch.stopReason !== "error" && batch.stopReason !== "aborted";
	if (!call.result) {
		// A call without a result in a message that ended normally may still have run.
		if (ran) assumeSideEffects(state, call, "a call whose result is missing");
		return unknowable(call, "no-result", "the recording holds no result (the call never ran)");
	}
	if (!definition) {
		assumeSideEffects(state, call, `the ${name} call`);
		return unknowable(call, "no-tool", `no tool named ${name} is being replayed`);
	}
	try {
		switch (name) {
			case "read":
				return await replayRead(state, call);
			case "edit":
				return await replayEdit(state, call);
			case "write":
				return await replayWrite(state, call);
			case "bash":
				return await replayBash(state, call);
			case "grep":
			case "find":
			case "ls":
				return await replaySearch(state, call);
			default: {
				const ours = await runTool(state, call.toolCall);
				const outcome = withNestedCalls(compare(call, ours), call.result.nestedCalls, ours.nestedCalls);
				state.files.markAllStale(`the ${name} call ${call.index}`);
				return outcome;
			}
		}
	} catch (error) {
		// Only a bug in the replay itself gets here; report it on the call rather than stop.
		return {
			...baseOutcome(call),
			status: "mismatch",
			message: `the replay failed: ${errorMessage(error)}`,
			seeded: false,
			rules: [],
		};
	}
}

/** After a call that cannot be replayed: the files it may have changed become stale. */
function assumeSideEffects(state: ReplayState, call: RecordedCall, what: string): void {
	const name = call.toolCall.name;
	if (READ_ONLY_TOOLS.has(name)) return;
	const args = argsOf(call.toolCall);
	const path = typeof args?.path === "string" ? state.files.resolve(args.path) : undefined;
	if ((name === "edit" || name === "write") && path) state.files.markStale(path, what);
	else if (name === "bash" && typeof args?.command === "string" && !commandMayWrite(args.command)) return;
	else state.files.markAllStale(what);
}
