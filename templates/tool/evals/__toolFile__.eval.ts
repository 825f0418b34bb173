/**
 * Does a model call `{{toolName}}` right? `{{run}} eval` runs this scenario against a real model
 * (with OPENAI_API_KEY set; another model: `{{run}} eval -- --model anthropic/claude-sonnet-4-5`),
 * and `test/evals.test.ts` runs it against the scripted model of `scripted-model.ts` on every
 * `{{test}}`, with no network. See toolsmith's docs/evals.md.
 */
import { defineEval } from "toolsmith-sdk/eval";

export default defineEval({
	name: "{{toolName}} sizes up a file",
	prompt: "How many lines does notes/todo.md have? Answer with the number.",
	world: { files: { "notes/todo.md": "- write the tool\n- test it\n- ship it\n" } },
	tools: { extensions: ["../src/index.ts"] },
	expect: {
		calls: [{ tool: "{{toolName}}", args: { path: /^(\.\/)?notes\/todo\.md$/ } }],
		maxCalls: 3,
		answer: /\b3\b/,
	},
	trials: 5,
	passRate: 0.8,
});
