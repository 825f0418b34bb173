import { describe, expect, it } from "vitest";
import { type AgentTool, StringEnum, Type } from "../../../src/index.js";
import { executeToolCalls, type ToolCall } from "../../../src/runtime.js";
import { carelessMerge, text } from "./_helpers.js";

/** mulberry32: a small seeded PRNG, so a failure reproduces from its seed. */
function prng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const SEED = 0x5eed;

const tools: AgentTool[] = [
	{
		name: "read",
		label: "read",
		description: "d",
		parameters: Type.Object({
			path: Type.String(),
			offset: Type.Optional(Type.Integer({ minimum: 1 })),
			limit: Type.Optional(Type.Integer()),
		}),
		execute: async (_id, params) => text(JSON.stringify(params)),
	},
	{
		name: "edit",
		label: "edit",
		description: "d",
		parameters: Type.Object(
			{
				path: Type.String(),
				edits: Type.Array(Type.Object({ oldText: Type.String({ minLength: 1 }), newText: Type.String() }), {
					minItems: 1,
				}),
				mode: Type.Optional(StringEnum(["exact", "tolerant"])),
			},
			{ additionalProperties: false },
		),
		prepareArguments: (args) => {
			const a = args as { oldText?: unknown; newText?: unknown };
			if (a && typeof a === "object" && "oldText" in a)
				return { ...a, edits: [{ oldText: a.oldText, newText: a.newText }] };
			return args;
		},
		execute: async (_id, params) => {
			// Tools that merge their arguments carelessly must not be able to reach Object.prototype.
			carelessMerge({}, params);
			return text("edited");
		},
	},
	{
		name: "flaky",
		label: "flaky",
		description: "d",
		parameters: Type.Object({ n: Type.Number(), payload: Type.Optional(Type.Unknown()) }),
		execute: async (_id, params, _signal, onUpdate) => {
			const n = (params as { n: number }).n;
			carelessMerge({}, params);
			onUpdate?.(text("partial"));
			switch (Math.abs(Math.trunc(n)) % 6) {
				case 0:
					throw new Error("boom");
				case 1:
					throw n;
				case 2:
					return { content: [{ type: "video" }] } as never;
				case 3:
					return null as never;
				case 4:
					return { ...text("ok"), terminate: true };
				default:
					return text("ok");
			}
		},
	},
	{
		name: "serial",
		label: "serial",
		description: "d",
		executionMode: "sequential",
		parameters: Type.Object({ flag: Type.Boolean() }),
		execute: async () => text("serial"),
	},
];

function pick<T>(rand: () => number, items: readonly T[]): T {
	return items[Math.floor(rand() * items.length)] as T;
}

function randomString(rand: () => number, max: number): string {
	const length = Math.floor(rand() * max);
	let out = "";
	for (let i = 0; i < length; i++) out += String.fromCharCode(32 + Math.floor(rand() * 0x2000));
	return out;
}

function randomValue(rand: () => number, depth = 0): unknown {
	const kind = Math.floor(rand() * (depth > 3 ? 6 : 9));
	switch (kind) {
		case 0:
			return null;
		case 1:
			return rand() < 0.5;
		case 2:
			return Math.floor(rand() * 2000) - 1000;
		case 3:
			return String(Math.floor(rand() * 100));
		case 4:
			return randomString(rand, 20);
		case 5:
			return pick(rand, ["true", "false", "", "1e999", "NaN", "-0", " 7 "]);
		case 6:
			return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth + 1));
		default: {
			const out: Record<string, unknown> = {};
			for (let i = Math.floor(rand() * 4); i > 0; i--) out[pick(rand, KEYS)] = randomValue(rand, depth + 1);
			return out;
		}
	}
}

const KEYS = ["path", "offset", "limit", "edits", "oldText", "newText", "n", "flag", "mode", "payload", "extra"];

const HOSTILE = [
	'{"__proto__": {"polluted": "yes"}, "path": "a"}',
	'{"constructor": {"prototype": {"polluted": "yes"}}, "n": 1}',
	'{"n": 2, "payload": {"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}}',
	'{"path": "a", "edits": [{"oldText": "x", "newText": "y", "__proto__": {"polluted": "yes"}}]}',
];

function randomArguments(rand: () => number): unknown {
	const roll = rand();
	if (roll < 0.1) return pick(rand, HOSTILE);
	if (roll < 0.18) return pick(rand, ['{"path":', "{]", "nul", '"just a string"', "[1,2", "{'a': 1}", "\u0000"]);
	if (roll < 0.2) return { path: "x".repeat(50_000 + Math.floor(rand() * 200_000)), n: "y".repeat(100_000) };
	if (roll < 0.21) return `${"[".repeat(2000)}${"]".repeat(2000)}`;
	if (roll < 0.4) return JSON.stringify(randomValue(rand));
	if (roll < 0.45) return pick(rand, [null, 5, [], "", undefined, true]);
	const args = randomValue(rand, 3);
	return typeof args === "object" && args !== null && !Array.isArray(args) ? args : { n: args };
}

function randomCall(rand: () => number, index: number): ToolCall {
	const name =
		rand() < 0.1 ? pick(rand, ["nope", "__proto__", "constructor", "toString", "", "READ"]) : pick(rand, tools).name;
	return { type: "toolCall", id: `c${index}`, name, arguments: randomArguments(rand) };
}

describe("fuzz", () => {
	it("gives exactly one well-formed result per call for 10,000 generated calls, and pollutes nothing", async () => {
		const rand = prng(SEED);
		const protoKeysBefore = Object.getOwnPropertyNames(Object.prototype).sort();
		let total = 0;
		let index = 0;
		while (total < 10_000) {
			const size = 1 + Math.floor(rand() * 20);
			const calls = Array.from({ length: size }, () => randomCall(rand, index++));
			const events: string[] = [];
			const outcome = await executeToolCalls(calls, {
				tools,
				toolExecution: rand() < 0.2 ? "sequential" : "parallel",
				onEvent: (e) => events.push(e.type),
			});
			expect(outcome.results.map((r) => r.toolCallId)).toEqual(calls.map((c) => c.id));
			for (const result of outcome.results) {
				expect(typeof result.isError).toBe("boolean");
				expect(Array.isArray(result.content)).toBe(true);
				for (const block of result.content) expect(["text", "image"]).toContain(block.type);
			}
			expect(events.filter((e) => e === "tool_execution_start")).toHaveLength(size);
			expect(events.filter((e) => e === "tool_execution_end")).toHaveLength(size);
			total += size;
		}
		expect(total).toBeGreaterThanOrEqual(10_000);
		expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoKeysBefore);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
		expect(Object.getPrototypeOf({})).toBe(Object.prototype);
	});
});
