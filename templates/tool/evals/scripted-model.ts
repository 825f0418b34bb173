/**
 * What a model that reads `{{toolName}}`'s description well would do: call it on the file, then
 * answer from its result. `test/evals.test.ts` runs the scenarios with it; `toolsmith eval --model
 * scripted:evals/scripted-model.ts` does too.
 */
import type { EvalModelRequest, ScriptedTurn } from "toolsmith-sdk/eval";

export default function script(request: EvalModelRequest, turn: number): ScriptedTurn {
	if (turn === 0) return { calls: [{ tool: "{{toolName}}", args: { path: "notes/todo.md" } }] };
	const last = request.messages[request.messages.length - 1];
	const text =
		last?.role === "tool"
			? last.results.flatMap((result) => result.content.map((block) => (block.type === "text" ? block.text : ""))).join("\n")
			: "";
	return { text: `notes/todo.md has ${/(\d+) lines/.exec(text)?.[1] ?? "an unknown number of"} lines.` };
}
