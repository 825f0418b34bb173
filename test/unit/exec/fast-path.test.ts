/**
 * The executor's shortcuts: arguments valid as sent are handed over without a copy once a
 * per-schema check found no hostile key, and a parallel batch without hooks or an event listener
 * records each outcome as its tool settles and reads the clock once for the calls that end
 * together. These tests hold them to the behavior a batch must have.
 */
import { describe, expect, it } from "vitest";
import { type AgentTool, Type } from "../../../src/index.js";
import {
	type ExecuteToolCallsConfig,
	executeToolCalls,
	type ToolCall,
	validateToolArguments,
} from "../../../src/runtime.js";
import { call, carelessMerge, deferred, text, tool } from "./_helpers.js";

const flat = Type.Object({ path: Type.String(), limit: Type.Integer(), deep: Type.Boolean() });
const mixed = Type.Object({
	path: Type.String(),
	mode: Type.Optional(Type.Union([Type.Literal("a"), Type.Literal("b")])),
	payload: Type.Optional(Type.Unknown()),
});
const closed = Type.Object(
	{ path: Type.String(), limit: Type.Optional(Type.Integer()) },
	{ additionalProperties: false },
);

describe("arguments valid as sent", () => {
	it("are handed over as they are, whatever the key order", () => {
		for (const args of [
			{ path: "a", limit: 1, deep: true },
			{ deep: false, path: "a", limit: 2 },
			{ path: "a", limit: 3, deep: true, extra: "fine", more: [1, { x: 2 }] },
			Object.assign(Object.create(null), { path: "a", limit: 4, deep: true }),
		]) {
			const result = validateToolArguments({ name: "t", parameters: flat }, args);
			expect(result.ok && result.value).toBe(args);
		}
		const withPayload = { payload: { nested: [1, "x"] }, path: "a", mode: "b" };
		const result = validateToolArguments({ name: "t", parameters: mixed }, withPayload);
		expect(result.ok && result.value).toBe(withPayload);
	});

	it("are copied without hostile keys hidden in an undeclared or free-form property", () => {
		const cases: [typeof flat | typeof mixed, unknown][] = [
			[flat, JSON.parse('{"path": "a", "limit": 1, "deep": true, "extra": {"__proto__": {"polluted": 1}}}')],
			[flat, JSON.parse('{"path": "a", "limit": 1, "deep": true, "__proto__": {"polluted": 1}}')],
			[flat, { path: "a", limit: 1, deep: true, constructor: { prototype: { polluted: 1 } } }],
			[flat, { path: "a", limit: 1, deep: true, list: [{ prototype: { polluted: 1 } }] }],
			[mixed, JSON.parse('{"path": "a", "payload": {"x": {"__proto__": {"polluted": 1}}}}')],
			[mixed, { payload: { constructor: { prototype: { polluted: 1 } } }, path: "a" }],
		];
		for (const [schema, args] of cases) {
			const result = validateToolArguments({ name: "t", parameters: schema }, args);
			expect(result.ok).toBe(true);
			if (!result.ok) continue;
			expect(result.value).not.toBe(args);
			const merged: Record<string, unknown> = {};
			carelessMerge(merged, result.value);
			expect(({} as Record<string, unknown>).polluted).toBeUndefined();
			expect(JSON.stringify(result.value)).not.toContain("polluted");
		}
	});

	it("keep the compiled check's verdict for a closed schema", () => {
		expect(validateToolArguments({ name: "t", parameters: closed }, { path: "a", other: 1 }).ok).toBe(false);
		const args = { limit: 2, path: "a" };
		const result = validateToolArguments({ name: "t", parameters: closed }, args);
		expect(result.ok && result.value).toBe(args);
	});
});

/** The result messages without their timestamps, which differ between two runs. */
function outcome(result: Awaited<ReturnType<typeof executeToolCalls>>) {
	return {
		terminate: result.terminate,
		results: result.results.map(({ timestamp: _, durationMs: __, ...rest }) => rest),
	};
}

describe("a batch without hooks or events", () => {
	const tools: AgentTool[] = [
		tool("flat", async (_id, params) => text(JSON.stringify(params)), { parameters: flat }),
		tool(
			"mixed",
			async (_id, params) => {
				carelessMerge({}, params);
				const p = params as { mode?: string };
				if (p.mode === "a") throw new Error("mode a fails");
				if (p.mode === "b") return { content: [{ type: "video" }] } as never;
				return { ...text("ok"), terminate: true };
			},
			{ parameters: mixed },
		),
		tool("sync", ((_id: string) => text("sync")) as unknown as AgentTool["execute"]),
		tool("throws", () => {
			throw "not an Error";
		}),
		tool(
			"getter",
			async () =>
				({
					get content(): never {
						throw new Error("unreadable");
					},
				}) as never,
		),
	];
	const calls: ToolCall[] = [
		call("1", "flat", { path: "a", limit: "7", deep: "true" }),
		call("2", "flat", '{"path": "b", "limit": 1, "deep": false, "x": {"__proto__": {"polluted": 1}}}'),
		call("3", "mixed", { path: "c" }),
		call("4", "mixed", { path: "c", mode: "a" }),
		call("5", "mixed", { path: "c", mode: "b", payload: { constructor: { prototype: { polluted: 1 } } } }),
		call("6", "nope", {}),
		call("7", "flat", "{not json"),
		call("8", "sync", {}),
		call("9", "throws", {}),
		call("10", "getter", {}),
		call("11", "flat", { path: 5 }),
	];

	it("gives every call its own outcome, whatever the others do, as with an event listener", async () => {
		const batch = await executeToolCalls(calls, { tools });
		const watched = await executeToolCalls(calls, { tools, onEvent: () => {} });
		expect(outcome(batch)).toEqual(outcome(watched));
		expect(batch.results.map((r) => r.toolCallId)).toEqual(calls.map((c) => c.id));
		expect(batch.results.map((r) => r.isError)).toEqual([
			false,
			false,
			false,
			true,
			true,
			true,
			true,
			false,
			true,
			true,
			true,
		]);
		expect(batch.results[9]?.content[0]).toMatchObject({ text: expect.stringContaining("unreadable") });
		for (const r of batch.results) expect(typeof r.timestamp).toBe("number");
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});

	it("terminates only when every result asks to, with or without an event listener", async () => {
		const all = [call("1", "mixed", { path: "x" }), call("2", "mixed", { path: "y" })];
		const some = [...all, call("3", "flat", { path: "a", limit: 1, deep: true })];
		for (const [batch, expected] of [
			[all, true],
			[some, false],
			[[], false],
		] as const) {
			const config: ExecuteToolCallsConfig = { tools };
			expect((await executeToolCalls(batch, config)).terminate).toBe(expected);
			expect((await executeToolCalls(batch, { ...config, onEvent: () => {} })).terminate).toBe(expected);
		}
	});

	it("reports in source order when a slow first call finishes last, and runs the calls in parallel", async () => {
		const gate = deferred();
		const order: string[] = [];
		const slow = tool("slow", async () => {
			await gate.promise;
			order.push("slow");
			return text("slow");
		});
		const quick = tool("quick", async () => {
			order.push("quick");
			gate.resolve();
			return text("quick");
		});
		const { results } = await executeToolCalls([call("1", "slow"), call("2", "quick")], { tools: [slow, quick] });
		expect(order).toEqual(["quick", "slow"]);
		expect(results.map((r) => r.toolCallId)).toEqual(["1", "2"]);
		expect(results.map((r) => (r.content[0] as { text: string }).text)).toEqual(["slow", "quick"]);
	});

	it("records a rejection it cannot read while an earlier call still runs, without an unhandled rejection", async () => {
		const unhandled: unknown[] = [];
		const onUnhandled = (reason: unknown) => unhandled.push(reason);
		process.on("unhandledRejection", onUnhandled);
		try {
			const gate = deferred();
			const slow = tool("slow", async () => {
				await gate.promise;
				return text("slow");
			});
			const hostile = tool("hostile", async () => {
				throw {
					toJSON() {
						throw new Error("no JSON");
					},
					toString() {
						throw new Error("no text");
					},
				};
			});
			const running = executeToolCalls([call("1", "slow"), call("2", "hostile")], { tools: [slow, hostile] });
			await new Promise((resolve) => setTimeout(resolve, 20));
			gate.resolve();
			const { results } = await running;
			expect(results.map((r) => r.isError)).toEqual([false, true]);
			expect(results[1]?.details).toMatchObject({ code: "E_TOOL_FAILED" });
			expect(unhandled).toEqual([]);
		} finally {
			process.off("unhandledRejection", onUnhandled);
		}
	});

	it("stamps each message with the time its call ended, even when a call before it ends later", async () => {
		const gate = deferred();
		const slow = tool("slow", async () => {
			await gate.promise;
			return text("slow");
		});
		const quick = tool("quick", async () => text("quick"));
		const before = Date.now();
		const running = executeToolCalls([call("1", "quick"), call("2", "slow"), call("3", "quick")], {
			tools: [slow, quick],
		});
		await new Promise((resolve) => setTimeout(resolve, 30));
		const released = Date.now();
		gate.resolve();
		const [first, second, third] = (await running).results.map((r) => r.timestamp);
		expect(first).toBeGreaterThanOrEqual(before);
		expect(first).toBeLessThan(released);
		// The third call settled early: its stamp does not wait for the slow second call.
		expect(second).toBeGreaterThanOrEqual(released);
		expect(third).toBeGreaterThanOrEqual(before);
		expect(third).toBeLessThan(released);
	});

	it("does not share one reading of the clock between calls that settle at different times", async () => {
		const gate = deferred();
		const slow = tool("slow", async () => {
			await gate.promise;
			return text("slow");
		});
		const quick = tool("quick", async () => text("quick"));
		const later = tool("later", async () => {
			await new Promise((resolve) => setTimeout(resolve, 40));
			gate.resolve();
			return text("later");
		});
		// While the collector waits for the slow first call, the quick one settles at once and the
		// later one 40 ms after: each keeps its own time.
		const [first, second, third] = (
			await executeToolCalls([call("1", "slow"), call("2", "quick"), call("3", "later")], {
				tools: [slow, quick, later],
			})
		).results.map((r) => r.timestamp as number);
		expect(third).toBeGreaterThanOrEqual((second as number) + 30);
		expect(first).toBeGreaterThanOrEqual(third as number);
	});

	it("asks shouldSkipRemaining before each launch and honors an abort mid-batch", async () => {
		let asked = 0;
		const ran: string[] = [];
		const t = tool("t", async (id) => {
			ran.push(id);
			return text(id);
		});
		const skipped = await executeToolCalls([call("1", "t"), call("2", "t"), call("3", "t")], {
			tools: [t],
			shouldSkipRemaining: () => ++asked >= 2,
		});
		expect(ran).toEqual(["1"]);
		expect(skipped.results.map((r) => r.isError)).toEqual([false, true, true]);
		expect(skipped.results[1]?.details).toMatchObject({ code: "E_SKIPPED" });

		const controller = new AbortController();
		const seen: boolean[] = [];
		const waits = tool("waits", (_id, _params, signal) => {
			return new Promise((resolve) => {
				signal?.addEventListener("abort", () => {
					seen.push(true);
					resolve(text("stopped"));
				});
			});
		});
		const running = executeToolCalls([call("1", "waits"), call("2", "waits")], {
			tools: [waits],
			signal: controller.signal,
		});
		controller.abort();
		const aborted = await running;
		expect(seen).toEqual([true, true]);
		expect(aborted.results.map((r) => r.toolCallId)).toEqual(["1", "2"]);
	});
});

describe("tool lookup", () => {
	it("picks the first tool of a name and lists each name once, for short and long tool lists", async () => {
		for (const count of [3, 12]) {
			const extra = Array.from({ length: count - 2 }, (_, i) => tool(`t${i}`, async () => text(`t${i}`)));
			const tools = [
				null,
				{ name: 5 },
				tool("dup", async () => text("first")),
				...extra,
				tool("dup", async () => text("second")),
			] as AgentTool[];
			const { results } = await executeToolCalls([call("1", "dup"), call("2", "nope"), call("3", "t0")], { tools });
			expect(results.map((r) => (r.content[0] as { text: string }).text)).toEqual([
				"first",
				expect.stringContaining(`Available tools: dup, ${extra.map((t) => t.name).join(", ")}.`),
				"t0",
			]);
			expect(results[1]?.details).toMatchObject({ availableTools: ["dup", ...extra.map((t) => t.name)] });
		}
	});
});
