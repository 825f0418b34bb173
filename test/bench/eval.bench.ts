/**
 * Evals against the scripted OpenAI-compatible server on loopback (the integration tests' server,
 * streaming real SSE chunks): what the eval model adapter costs per turn beside the provider call
 * itself, and how many trials a second the loopback server allows.
 *
 * Per turn: `createEvalModel("openai-compatible/…").turn(request)` (history and tools converted,
 * the AI SDK's request, its SSE parsing, the calls and usage converted back) against a raw `fetch`
 * of the very body the AI SDK sent, to the same server, reading the whole streamed answer. The two
 * sides alternate, after warm-up rounds; the figure is the median per-turn difference, and the
 * ratio of the medians. A third side calls the AI SDK's `streamText` directly with the messages
 * and tools already converted, the way the adapter calls it: the adapter's time beyond it is
 * toolsmith's own share (the goal), the rest is the provider library's.
 *
 * Trials: the two turns of a description-led scenario (a tool call, then the final answer after
 * the tool's result): first the model side alone (the adapter, a fixed tool result), then whole
 * trials through `runEvals` (toolset, executor, a memory world, the matchers).
 * The adapter and `runEvals` come from the built package (`toolsmith-sdk/eval`, that is `dist/`).
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { jsonSchema, type ModelMessage, stepCountIs, streamText, type ToolSet } from "ai";
import { defineTool, Type } from "toolsmith-sdk";
import type { ToolResultMessage } from "../../src/contract/content.js";
import type {
	EvalMessage,
	EvalModel,
	EvalModelRequest,
	EvalModelTool,
	EvalReport,
	EvalRunOptions,
	EvalScenario,
} from "../../src/eval/types.js";
import { type ChatRequest, descriptionLedScript, startScriptedServer } from "../integration/eval/_openai-server.js";
import { finish, percentile, reportValue } from "./_measure.js";

type Factory = (spec: string, options: { baseUrl?: string }) => Promise<EvalModel>;
type RunEvals = (scenarios: readonly EvalScenario[], options: EvalRunOptions) => Promise<EvalReport>;

/** The built package's eval entry (`npm run bench` builds `dist/` first when it is stale). */
async function loadFactory(): Promise<{ createEvalModel: Factory; runEvals: RunEvals; from: string }> {
	const entry = "toolsmith-sdk/eval";
	const mod = (await import(entry)) as { createEvalModel: Factory; runEvals: RunEvals };
	return { createEvalModel: mod.createEvalModel, runEvals: mod.runEvals, from: "dist (toolsmith-sdk/eval)" };
}

const tools: EvalModelTool[] = [
	{
		name: "read_file",
		description: "Read a file. The path is relative to the project.",
		parameters: {
			type: "object",
			properties: { path: { type: "string" }, offset: { type: "integer" }, limit: { type: "integer" } },
			required: ["path"],
		},
	},
	{
		name: "write_file",
		description: "Write a file, creating folders as needed.",
		parameters: {
			type: "object",
			properties: { path: { type: "string" }, content: { type: "string" } },
			required: ["path", "content"],
		},
	},
	{
		name: "search",
		description: "Search the project for a pattern.",
		parameters: {
			type: "object",
			properties: { pattern: { type: "string" }, glob: { type: "string" } },
			required: ["pattern"],
		},
	},
];

const toolResult = (id: string): ToolResultMessage => ({
	role: "toolResult",
	toolCallId: id,
	toolName: "read_file",
	content: [{ type: "text", text: "export const answer = 42;\n".repeat(20) }],
	details: undefined,
	isError: false,
	timestamp: 0,
});

const history: EvalMessage[] = [
	{ role: "user", text: "Read src/a.ts and tell me what it exports." },
	{
		role: "assistant",
		text: "Reading it.",
		toolCalls: [{ type: "toolCall", id: "c0", name: "read_file", arguments: { path: "src/a.ts" } }],
	},
	{ role: "tool", results: [toolResult("c0")] },
	{ role: "user", text: "Now write a summary to notes.md and search for other exports." },
];

const { createEvalModel, runEvals, from } = await loadFactory();
console.log(`adapter: ${from}`);

// Per turn: a turn answering with two parallel tool calls whose arguments stream in pieces.
const server = await startScriptedServer(() => ({
	text: "Writing the summary and searching.",
	toolCalls: [
		{ name: "write_file", arguments: { path: "notes.md", content: "# Notes\n\nsrc/a.ts exports `answer`.\n" } },
		{ name: "search", arguments: { pattern: "export const", glob: "src/**/*.ts" } },
	],
	usage: { prompt_tokens: 812, completion_tokens: 64 },
}));
const model = await createEvalModel("openai-compatible/bench-model", { baseUrl: server.baseUrl });
const request: EvalModelRequest = { system: "You are a coding agent.", messages: history, tools };
await model.turn(request);
const sent = server.requests[0] as ChatRequest;
const rawBody = JSON.stringify(sent.body);
const url = `${server.baseUrl}/chat/completions`;

const viaAdapter = async (): Promise<number> => {
	const start = performance.now();
	const turn = await model.turn(request);
	if (turn.toolCalls.length !== 2) throw new Error("the adapter lost a tool call");
	return performance.now() - start;
};
const directModel = createOpenAICompatible({ name: "bench", baseURL: server.baseUrl, includeUsage: true }).chatModel(
	"bench-model",
);
// The same history in the AI SDK's own message shape, written out (the benchmark imports no source).
const readResult = "export const answer = 42;\n".repeat(20);
const directMessages: ModelMessage[] = [
	{ role: "user", content: "Read src/a.ts and tell me what it exports." },
	{
		role: "assistant",
		content: [
			{ type: "text", text: "Reading it." },
			{ type: "tool-call", toolCallId: "c0", toolName: "read_file", input: { path: "src/a.ts" } },
		],
	},
	{
		role: "tool",
		content: [
			{ type: "tool-result", toolCallId: "c0", toolName: "read_file", output: { type: "text", value: readResult } },
		],
	},
	{ role: "user", content: "Now write a summary to notes.md and search for other exports." },
];
const directTools: ToolSet = {};
for (const tool of tools) {
	const parameters = sent.body.tools?.find((t) => t.function.name === tool.name)?.function.parameters;
	directTools[tool.name] = {
		description: tool.description,
		inputSchema: jsonSchema(parameters as Record<string, unknown>),
	};
}
const viaLibrary = async (): Promise<number> => {
	const start = performance.now();
	const result = streamText({
		model: directModel,
		system: request.system,
		messages: directMessages,
		tools: directTools,
		stopWhen: stepCountIs(1),
		onError: () => {},
	});
	for await (const _part of result.fullStream) {
		// Consumed as the adapter consumes it.
	}
	const calls = await result.toolCalls;
	await result.usage;
	if (calls.length !== 2) throw new Error("the library lost a tool call");
	return performance.now() - start;
};
const viaFetch = async (): Promise<number> => {
	const start = performance.now();
	const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: rawBody });
	const text = await response.text();
	if (!text.includes("[DONE]")) throw new Error("the raw stream did not end");
	return performance.now() - start;
};

const WARMUP = 100;
const ROUNDS = 400;
for (let i = 0; i < WARMUP; i++) {
	await viaAdapter();
	await viaLibrary();
	await viaFetch();
}
const adapter: number[] = [];
const library: number[] = [];
const raw: number[] = [];
const ours: number[] = [];
const total: number[] = [];
const sides = [viaAdapter, viaLibrary, viaFetch] as const;
for (let round = 0; round < ROUNDS; round++) {
	// Each round runs the three sides in a rotated order, so a slow spell falls on all alike.
	const times = [0, 0, 0];
	for (let k = 0; k < 3; k++) {
		const side = (round + k) % 3;
		times[side] = await (sides[side] as () => Promise<number>)();
	}
	const [a = 0, l = 0, r = 0] = times;
	adapter.push(a);
	library.push(l);
	raw.push(r);
	ours.push(a - l);
	total.push(a - r);
}
await server.close();
const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
console.log(
	`per turn (2 parallel calls streamed in pieces, ${sent.body.messages.length} messages of history, 3 tools), medians: adapter ${us(percentile(adapter, 50))}, AI SDK streamText alone ${us(percentile(library, 50))}, raw fetch ${us(percentile(raw, 50))}; adapter over raw fetch ${us(percentile(total, 50))} (${(percentile(adapter, 50) / percentile(raw, 50)).toFixed(2)}×)`,
);
reportValue(
	"toolsmith's share of a turn (adapter over the AI SDK's streamText alone, loopback)",
	percentile(ours, 50) * 1000,
	500,
	"µs",
	`p90 ${us(percentile(ours, 90))}; the AI SDK's own share over a raw fetch ${us(percentile(library, 50) - percentile(raw, 50))}`,
);

/** A server whose model reads src/a.ts, led astray by a vague description 30% of the time (seeded). */
const readFileServer = (seed: number) =>
	startScriptedServer(
		descriptionLedScript({
			tool: "read_file",
			clear: /relative to the project/,
			right: { path: "src/a.ts" },
			wrong: { path: "/src/a.ts" },
			wrongRate: 0.3,
			seed,
			answer: "It exports `answer`.",
		}),
	);

// Trials per second: the model side of a two-turn trial against the loopback server.
const trialServer = await readFileServer(1);
const trialModel = await createEvalModel("openai-compatible/bench-model", { baseUrl: trialServer.baseUrl });
const trialTools = tools.map((tool) => ({ ...tool, description: "Read a file." }));
const trial = async (): Promise<boolean> => {
	const messages: EvalMessage[] = [{ role: "user", text: "What does src/a.ts export?" }];
	const first = await trialModel.turn({ system: "", messages, tools: trialTools });
	const call = first.toolCalls[0];
	if (call === undefined) return false;
	messages.push({ role: "assistant", text: first.text, toolCalls: first.toolCalls });
	messages.push({ role: "tool", results: [toolResult(call.id)] });
	const second = await trialModel.turn({ system: "", messages, tools: trialTools });
	return (call.arguments as { path?: string }).path === "src/a.ts" && /answer/.test(second.text);
};
for (let i = 0; i < 50; i++) await trial();
const TRIALS = 400;
let passed = 0;
const start = performance.now();
for (let i = 0; i < TRIALS; i++) if (await trial()) passed++;
const seconds = (performance.now() - start) / 1000;
await trialServer.close();
console.log(
	`trials (model side only, 2 turns each, one at a time): ${(TRIALS / seconds).toFixed(0)} trials/s, pass rate ${(passed / TRIALS).toFixed(2)} with the ambiguous description`,
);

// Whole trials through the runner (toolset, executor, memory world, matchers).
const readFile = defineTool({
	name: "read_file",
	label: "Read",
	description: "Read a file.",
	parameters: Type.Object({ path: Type.String() }),
	async execute(_id, { path }, _signal, _onUpdate, ctx) {
		const read = await ctx.env.readTextFile(path);
		if (!read.ok) throw read.error;
		return { content: [{ type: "text", text: read.value }], details: {} };
	},
});
const scenario: EvalScenario = {
	name: "read a.ts",
	prompt: "What does src/a.ts export?",
	world: { files: { "src/a.ts": "export const answer = 42;\n" } },
	tools: { definitions: [readFile] },
	expect: { calls: [{ tool: "read_file", args: { path: "src/a.ts" } }], order: "strict", answer: /answer/ },
};
const runServer = await readFileServer(2);
const runModel = await createEvalModel("openai-compatible/bench-model", { baseUrl: runServer.baseUrl });
await runEvals([scenario], { model: runModel, trials: 50 });
for (const concurrency of [1, 4]) {
	const RUN_TRIALS = 400;
	const runStart = performance.now();
	const report = await runEvals([scenario], { model: runModel, trials: RUN_TRIALS, concurrency });
	const runSeconds = (performance.now() - runStart) / 1000;
	console.log(
		`trials through runEvals (2 turns each, concurrency ${concurrency}): ${(RUN_TRIALS / runSeconds).toFixed(0)} trials/s, ${((runSeconds * 1000) / (RUN_TRIALS * 2)).toFixed(2)} ms per turn, pass rate ${report.scenarios[0]?.passRate.toFixed(2)}`,
	);
}
await runServer.close();

finish();
