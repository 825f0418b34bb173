/**
 * A tool that streams progress: each tick is sent through `onUpdate`, which `toolsmith dev` shows
 * while the call runs (only the final result reaches the model). It stops promptly when aborted
 * (Ctrl-C in `toolsmith dev`).
 */
import { defineTool, type ExtensionAPI, Type } from "toolsmith-sdk";

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(new Error("Countdown aborted"));
		const timer = setTimeout(() => {
			signal?.removeEventListener("abort", onAbort);
			resolve();
		}, ms);
		const onAbort = () => {
			clearTimeout(timer);
			reject(new Error("Countdown aborted"));
		};
		signal?.addEventListener("abort", onAbort, { once: true });
	});
}

const countdown = defineTool({
	name: "countdown",
	label: "Countdown",
	description:
		"Count down from a number to zero, one step per interval, reporting progress. Use it to try streaming updates.",
	parameters: Type.Object({
		from: Type.Integer({ minimum: 1, maximum: 100, description: "Where to start counting" }),
		intervalMs: Type.Optional(
			Type.Integer({ minimum: 0, maximum: 5000, description: "Pause between steps (default 200)" }),
		),
	}),
	async execute(_toolCallId, { from, intervalMs }, signal, onUpdate) {
		for (let remaining = from; remaining > 0; remaining--) {
			onUpdate?.({ content: [{ type: "text", text: `${remaining}…` }], details: { from, remaining } });
			await sleep(intervalMs ?? 200, signal);
		}
		return { content: [{ type: "text", text: `Counted down from ${from}.` }], details: { from, remaining: 0 } };
	},
	renderResult(result, { isPartial }, theme, context) {
		const first = result.content[0];
		// Renderers see error results too (a throw, an abort): their details are not ours.
		if (context?.isError) return theme.fg("error", first?.type === "text" ? first.text : "failed");
		if (!isPartial) return theme.fg("success", `liftoff (${first?.type === "text" ? first.text : ""})`);
		// `details` has the type `execute` returns; each update carries where the count started.
		const { from, remaining } = result.details;
		const width = 20;
		const filled = Math.round(((from - remaining) / Math.max(1, from)) * width);
		return `${theme.fg("accent", "#".repeat(filled))}${theme.fg("muted", ".".repeat(width - filled))} ${remaining} to go`;
	},
});

export default function (api: ExtensionAPI) {
	api.registerTool(countdown);
}
