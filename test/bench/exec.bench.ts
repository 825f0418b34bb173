/**
 * `npm run bench exec`: argument validation against the reference's `validateToolArguments`, and
 * the executor's overhead against the reference's own tool execution.
 *
 * Validation: both validators get the same JSON Schema: ours is built with our TypeBox, the
 * peer's with the TypeBox version the peer uses, so each side takes its normal path.
 *
 * Executor: the same 10,000 calls (1,000 assistant messages of 10 calls each) of the same no-op
 * tool (same schema, same result object) on both sides, in the same process, interleaved.
 *
 * - The reference runs tool calls inside its agent loop (pi-agent-core's `runAgentLoop`, whose
 *   internal `executeToolCalls` prepares, validates, runs and finalizes them), so it is driven
 *   through that loop, as its users drive it: a scripted stream function answers at once with one
 *   assistant message holding the 10 calls, and `shouldStopAfterTurn` ends the run after that
 *   turn (no second model call). Its event sink is a no-op. The loop's own work is then taken out:
 *   the same run with an assistant message holding no tool call is timed in the same round and
 *   subtracted. What remains is the reference's tool execution and its appending the 10 results
 *   to the context.
 * - Our side does, per assistant message, what that loop step does with our executor: it takes
 *   the tool calls out of the scripted message, runs them with `executeToolCalls` (its event
 *   listener a no-op), emits `message_start` and `message_end` for each result to a no-op sink
 *   and awaits them as the reference does, and appends the results to the context.
 *
 * Each round times all three (ours, the reference with calls, the reference without) back to
 * back; the figure is the median over rounds of ours / (reference with − reference without).
 *
 * Our side is the built package (`toolsmith-sdk` and `toolsmith-sdk/runtime`, that is `dist/`), loaded by Node as a
 * user's process loads it; the reference is the pi-agent-core installed with the benchmark peers.
 */
import type { TSchema } from "@sinclair/typebox";
import { type AgentTool, Type } from "toolsmith-sdk";
import { executeToolCalls, type ToolCall, validateToolArguments } from "toolsmith-sdk/runtime";
import { finish, report } from "./_measure.js";
import { importPeer } from "./_peer.js";

interface PeerTypeBuilder {
	Object(properties: Record<string, unknown>, options?: Record<string, unknown>): unknown;
	String(options?: Record<string, unknown>): unknown;
	Integer(options?: Record<string, unknown>): unknown;
	Number(options?: Record<string, unknown>): unknown;
	Boolean(options?: Record<string, unknown>): unknown;
	Array(items: unknown, options?: Record<string, unknown>): unknown;
	Optional(schema: unknown): unknown;
	Union(members: unknown[], options?: Record<string, unknown>): unknown;
	Literal(value: string): unknown;
}
interface PeerValidation {
	validateToolArguments(tool: { name: string; parameters: unknown }, call: ToolCall): unknown;
}

/** The same parameter schema, written with a given TypeBox `Type`. */
function editLikeSchema(T: PeerTypeBuilder | typeof Type) {
	const t = T as PeerTypeBuilder;
	return t.Object({
		path: t.String({ description: "File to change" }),
		edits: t.Array(t.Object({ oldText: t.String({ minLength: 1 }), newText: t.String() }), { minItems: 1 }),
		offset: t.Optional(t.Integer({ minimum: 1 })),
		limit: t.Optional(t.Integer({ minimum: 1 })),
		dryRun: t.Optional(t.Boolean()),
		mode: t.Optional(t.Union([t.Literal("exact"), t.Literal("tolerant")])),
	});
}

const VALID: unknown[] = [
	{ path: "src/a.ts", edits: [{ oldText: "const a = 1;", newText: "const a = 2;" }] },
	{
		path: "src/b.ts",
		edits: [
			{ oldText: "x", newText: "y" },
			{ oldText: "foo()", newText: "bar()" },
		],
		offset: 10,
		limit: 50,
	},
	{ path: "README.md", edits: [{ oldText: "# Title", newText: "# New title" }], dryRun: true, mode: "exact" },
	{
		path: "lib/deep/c.js",
		edits: Array.from({ length: 8 }, (_, i) => ({ oldText: `line ${i}`, newText: `row ${i}` })),
		mode: "tolerant",
	},
];

const INVALID: unknown[] = [
	{ edits: [{ oldText: "a", newText: "b" }] },
	{ path: 5, edits: [] },
	{ path: "a", edits: [{ oldText: "", newText: 1 }], offset: 0 },
	{ path: "a", edits: "not an array", mode: "turbo", dryRun: "maybe" },
];

async function validationBench(): Promise<void> {
	const peerTypebox = await importPeer<{ Type: PeerTypeBuilder }>("typebox", "build/index.mjs");
	const peer = await importPeer<PeerValidation>("@mariozechner/pi-ai", "dist/utils/validation.js");
	const ourTool = { name: "edit", parameters: editLikeSchema(Type) as TSchema };
	const peerTool = { name: "edit", parameters: editLikeSchema(peerTypebox.Type) };

	// Both sides must agree on what is valid, or the comparison means nothing.
	for (const args of [...VALID, ...INVALID]) {
		const oursOk = validateToolArguments(ourTool, args).ok;
		let peerOk = true;
		try {
			peer.validateToolArguments(peerTool, { type: "toolCall", id: "x", name: "edit", arguments: args });
		} catch {
			peerOk = false;
		}
		if (oursOk !== peerOk)
			throw new Error(`validators disagree on ${JSON.stringify(args)}: ours ${oursOk}, peer ${peerOk}`);
	}

	const rounds = 5_000;
	for (const [label, inputs] of [
		["valid", VALID],
		["invalid", INVALID],
	] as const) {
		const calls = inputs.map((args, i) => ({ type: "toolCall" as const, id: `c${i}`, name: "edit", arguments: args }));
		const [oursTime, peerTime] = await interleaved(
			[
				async () => {
					for (let r = 0; r < rounds; r++) for (const args of inputs) validateToolArguments(ourTool, args);
				},
				async () => {
					for (let r = 0; r < rounds; r++) {
						for (const call of calls) {
							try {
								peer.validateToolArguments(peerTool, call);
							} catch {
								// invalid input: the peer reports by throwing
							}
						}
					}
				},
			],
			9,
			2,
		);
		if (!oursTime || !peerTime) return;
		const n = rounds * inputs.length;
		report(
			`validation, ${label} arguments (ours/peer time)`,
			oursTime.medianMs / peerTime.medianMs,
			0.5,
			`ours ${((n / oursTime.medianMs) * 1000).toFixed(0)}/s, peer ${((n / peerTime.medianMs) * 1000).toFixed(0)}/s`,
		);
	}
}

/** Median wall time of each function, sampled in alternation. */
async function interleaved(fns: readonly (() => Promise<void>)[], runs: number, warmup: number) {
	for (let i = 0; i < warmup; i++) for (const fn of fns) await fn();
	const samples = fns.map(() => [] as number[]);
	for (let i = 0; i < runs; i++) {
		for (const [index, fn] of fns.entries()) {
			const start = performance.now();
			await fn();
			samples[index]?.push(performance.now() - start);
		}
	}
	return samples.map((list) => ({ medianMs: median(list), samples: list }));
}

function median(values: readonly number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** The median of `a[i] / b[i]`: each pair ran back to back, so a burst of load hits both sides of it. */
function pairedRatio(a: readonly number[], b: readonly number[]): number {
	return median(a.map((value, i) => value / (b[i] ?? Number.NaN)));
}

/** The parts of pi-agent-core's agent loop (`dist/agent-loop.js`) this benchmark drives. */
interface PeerAgentLoop {
	runAgentLoop(
		prompts: unknown[],
		context: { systemPrompt: string; messages: unknown[]; tools: unknown[] },
		config: Record<string, unknown>,
		emit: (event: unknown) => Promise<void>,
		signal: AbortSignal | undefined,
		streamFn: (model: unknown, context: unknown, options: unknown) => unknown,
	): Promise<unknown[]>;
}

/** An assistant message holding `calls`, as a provider's stream would end with it. */
function assistantMessage(calls: readonly ToolCall[]) {
	return {
		role: "assistant" as const,
		content: [...calls],
		api: "scripted",
		provider: "scripted",
		model: "scripted",
		usage: {
			input: 0,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
		stopReason: calls.length > 0 ? ("toolUse" as const) : ("stop" as const),
		timestamp: 0,
	};
}

/** A stream function that answers at once with `message` (its only event is `done`). */
function scriptedStream(message: ReturnType<typeof assistantMessage>) {
	return () => ({
		async *[Symbol.asyncIterator]() {
			yield { type: "done", reason: message.stopReason, message };
		},
		result: async () => message,
	});
}

async function executorBench(): Promise<void> {
	const peerTypebox = await importPeer<{ Type: PeerTypeBuilder }>("typebox", "build/index.mjs");
	const peer = await importPeer<PeerAgentLoop>("@mariozechner/pi-agent-core", "dist/agent-loop.js");
	const schema = (T: PeerTypeBuilder | typeof Type) => {
		const t = T as PeerTypeBuilder;
		return t.Object({
			path: t.String(),
			offset: t.Integer(),
			limit: t.Integer(),
			recursive: t.Boolean(),
			pattern: t.String(),
		});
	};
	const result = { content: [{ type: "text" as const, text: "ok" }], details: undefined };
	const execute = async () => result;
	const ourTool: AgentTool = {
		name: "noop",
		label: "noop",
		description: "Does nothing.",
		parameters: schema(Type) as TSchema,
		execute,
	};
	const peerTool = {
		name: "noop",
		label: "noop",
		description: "Does nothing.",
		parameters: schema(peerTypebox.Type),
		execute,
	};
	const total = 10_000;
	const batchSize = 10;
	const messages = Array.from({ length: total / batchSize }, (_, b) =>
		assistantMessage(
			Array.from({ length: batchSize }, (_, i) => ({
				type: "toolCall" as const,
				id: `call_${b}_${i}`,
				name: "noop",
				arguments: { path: `src/file${i}.ts`, offset: i + 1, limit: 100, recursive: i % 2 === 0, pattern: "*.ts" },
			})),
		),
	);
	const withoutCalls = assistantMessage([]);
	const prompt = { role: "user", content: "go", timestamp: 0 };
	const noEvent = async (_event: unknown) => {};
	const peerConfig = {
		model: { provider: "scripted", id: "scripted" },
		convertToLlm: (list: unknown[]) => list,
		shouldStopAfterTurn: () => true,
	};

	/** One run of the reference's loop per message; checks that it returned what it should. */
	const peerRun = async (message: ReturnType<typeof assistantMessage>, expected: number) => {
		const context = { systemPrompt: "", messages: [] as unknown[], tools: [peerTool] };
		const added = await peer.runAgentLoop([prompt], context, peerConfig, noEvent, undefined, scriptedStream(message));
		// The prompt, the assistant message, then one result per call.
		if (added.length !== 2 + expected) throw new Error(`the reference returned ${added.length} messages`);
		const last = added[added.length - 1] as { isError?: boolean };
		if (expected > 0 && last.isError) throw new Error("the reference's call failed");
	};
	const peerWithCalls = async () => {
		for (const message of messages) await peerRun(message, batchSize);
	};
	const peerWithoutCalls = async () => {
		for (let i = 0; i < messages.length; i++) await peerRun(withoutCalls, 0);
	};
	const ours = async () => {
		for (const message of messages) {
			const context: unknown[] = [];
			const calls = message.content.filter((block) => block.type === "toolCall");
			const { results } = await executeToolCalls(calls, { tools: [ourTool], onEvent: noEvent });
			for (const toolResult of results) {
				await noEvent({ type: "message_start", message: toolResult });
				await noEvent({ type: "message_end", message: toolResult });
				context.push(toolResult);
			}
			if (results.length !== batchSize || results[0]?.isError) throw new Error("unexpected result");
		}
	};
	// Alternate the sides so load on a shared machine hits them alike, and compare each of our runs
	// with the reference's runs of the same round.
	const [oursTime, withCalls, withoutCallsTime] = await interleaved([ours, peerWithCalls, peerWithoutCalls], 101, 10);
	if (!oursTime || !withCalls || !withoutCallsTime) return;
	const peerToolTimes = withCalls.samples.map((value, i) => value - (withoutCallsTime.samples[i] ?? Number.NaN));
	report(
		"executor overhead, 10,000 no-op calls in messages of 10 (ours/the reference's tool execution)",
		pairedRatio(oursTime.samples, peerToolTimes),
		1.0,
		`ours ${oursTime.medianMs.toFixed(2)} ms; reference ${withCalls.medianMs.toFixed(2)} ms with the calls, ` +
			`${withoutCallsTime.medianMs.toFixed(2)} ms with messages holding none, so ${median(peerToolTimes).toFixed(2)} ms for the calls`,
	);
}

if (!process.env.SKIP_VALIDATION) await validationBench();
await executorBench();
finish();
