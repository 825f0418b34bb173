/**
 * `npm run bench exec`: argument validation against the reference's `validateToolArguments`, and
 * the executor's overhead against a hand-written loop that validates and calls `execute`.
 *
 * Both validators get the same JSON Schema: ours is built with our TypeBox, the peer's with the
 * TypeBox version the peer uses, so each side takes its normal path. The hand-written loop checks
 * arguments with TypeBox's compiled check, as code without an executor would.
 *
 * Our side is the built package (`toolsmith-sdk`, that is `dist/index.js`), loaded by Node as a
 * user's process loads it.
 */
import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
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

async function executorBench(): Promise<void> {
	const parameters = Type.Object({
		path: Type.String(),
		offset: Type.Integer(),
		limit: Type.Integer(),
		recursive: Type.Boolean(),
		pattern: Type.String(),
	});
	const result = { content: [{ type: "text" as const, text: "ok" }], details: undefined };
	const tool: AgentTool = {
		name: "noop",
		label: "noop",
		description: "Does nothing.",
		parameters,
		execute: async () => result,
	};
	const total = 10_000;
	const batchSize = 10;
	const batches: ToolCall[][] = [];
	for (let b = 0; b < total / batchSize; b++) {
		batches.push(
			Array.from({ length: batchSize }, (_, i) => ({
				type: "toolCall" as const,
				id: `call_${b}_${i}`,
				name: "noop",
				arguments: { path: `src/file${i}.ts`, offset: i + 1, limit: 100, recursive: i % 2 === 0, pattern: "*.ts" },
			})),
		);
	}
	const checker = TypeCompiler.Compile(parameters);

	const message = (call: ToolCall, r: { content: unknown; details: unknown }, isError: boolean) => ({
		role: "toolResult",
		toolCallId: call.id,
		toolName: call.name,
		content: r.content,
		details: r.details,
		isError,
		timestamp: Date.now(),
	});
	const failed = (error: unknown) => ({ content: [{ type: "text", text: String(error) }], details: {}, failed: true });
	// The least a correct parallel batch needs: validate, launch every call, keep one throw from
	// losing the other results, and build the messages in source order.
	const handWritten = async () => {
		for (const batch of batches) {
			const running = batch.map((call) => {
				if (!checker.Check(call.arguments)) return Promise.resolve(failed("invalid"));
				return tool.execute(call.id, call.arguments as never).catch(failed);
			});
			const settled = await Promise.all(running);
			const messages = settled.map((r, i) => message(batch[i] as ToolCall, r, "failed" in r));
			if (messages.length !== batch.length) throw new Error("lost a result");
		}
	};
	// The bare minimum: validate and await each call in turn, no error handling (for reference).
	const bare = async () => {
		for (const batch of batches) {
			const messages = [];
			for (const call of batch) {
				if (!checker.Check(call.arguments)) throw new Error("invalid");
				messages.push(message(call, await tool.execute(call.id, call.arguments as never), false));
			}
			if (messages.length !== batch.length) throw new Error("lost a result");
		}
	};
	const executor = async () => {
		for (const batch of batches) {
			const { results } = await executeToolCalls(batch, { tools: [tool] });
			if (results.length !== batch.length || results[0]?.isError) throw new Error("unexpected result");
		}
	};
	// Alternate the sides so load on a shared machine hits them alike, and compare each executor run
	// with the hand-written run just before it; a run is only ~2 ms, so take enough of them for the
	// median of those ratios to settle (41 runs gave single-run figures from 0.98× to 1.48×).
	const [base, ours, minimum] = await interleaved([handWritten, executor, bare], 201, 20);
	if (!base || !ours || !minimum) return;
	report(
		"executor overhead, 10,000 no-op calls in batches of 10 (executor/hand-written parallel loop)",
		pairedRatio(ours.samples, base.samples),
		1.25,
		`executor ${ours.medianMs.toFixed(2)} ms, hand-written ${base.medianMs.toFixed(2)} ms; ` +
			`bare sequential loop without error handling ${minimum.medianMs.toFixed(2)} ms (${(ours.medianMs / minimum.medianMs).toFixed(2)}×)`,
	);
}

if (!process.env.SKIP_VALIDATION) await validationBench();
await executorBench();
finish();
