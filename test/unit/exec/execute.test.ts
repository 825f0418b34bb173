import { getEventListeners } from "node:events";
import { describe, expect, it, vi } from "vitest";
import { type AgentTool, StringEnum, Type } from "../../../src/index.js";
import { executeToolCalls, type ToolCall, type ToolExecutionEvent } from "../../../src/runtime.js";
import { call, carelessMerge, type Deferred, deferred, eventLog, firstText, flush, text, tool } from "./_helpers.js";

const echo = tool(
	"echo",
	async (_id, params) => ({ content: [{ type: "text", text: JSON.stringify(params) }], details: { params } }),
	{
		parameters: Type.Object({
			count: Type.Number(),
			label: Type.Optional(Type.String()),
			loud: Type.Optional(Type.Boolean({ default: false })),
		}),
	},
);

describe("preparation", () => {
	it("parses arguments sent as a JSON string", async () => {
		const { results } = await executeToolCalls([call("1", "echo", '{"count": 2}')], { tools: [echo] });
		expect(results[0]?.isError).toBe(false);
		expect(results[0]?.details).toEqual({ params: { count: 2, loud: false } });
	});

	it("turns malformed JSON into an error result that quotes the parse error", async () => {
		const execute = vi.fn(echo.execute);
		const { results } = await executeToolCalls([call("1", "echo", '{"count": 2')], {
			tools: [{ ...echo, execute }],
		});
		expect(execute).not.toHaveBeenCalled();
		expect(results[0]?.isError).toBe(true);
		expect(firstText(results[0]!)).toMatch(/not valid JSON \(.*(JSON|position|Unexpected|Expected).*\)/);
		expect(firstText(results[0]!)).toContain('{"count": 2');
		expect(results[0]?.details).toEqual({ code: "E_INVALID_JSON" });
	});

	it("reports an unknown tool and lists the available names", async () => {
		const other = tool("other", async () => text("x"));
		const { results } = await executeToolCalls([call("1", "nope")], { tools: [echo, other] });
		expect(firstText(results[0]!)).toBe("Tool nope not found. Available tools: echo, other.");
		expect(results[0]).toMatchObject({ isError: true, toolName: "nope", toolCallId: "1" });
		expect(results[0]?.details).toEqual({ code: "E_TOOL_NOT_FOUND", availableTools: ["echo", "other"] });
	});

	it("runs prepareArguments on the parsed arguments before validation", async () => {
		const seen: unknown[] = [];
		const shimmed: AgentTool = {
			...echo,
			prepareArguments(args) {
				seen.push(args);
				const { n, ...rest } = args as { n?: unknown };
				return n === undefined ? args : { ...rest, count: n };
			},
		};
		const { results } = await executeToolCalls([call("1", "echo", '{"n": "3"}')], { tools: [shimmed] });
		expect(seen).toEqual([{ n: "3" }]);
		expect(results[0]?.details).toEqual({ params: { count: 3, loud: false } });
	});

	it("fails the call when prepareArguments throws", async () => {
		const shimmed: AgentTool = {
			...echo,
			prepareArguments() {
				throw new Error("old shape not understood");
			},
		};
		const { results } = await executeToolCalls([call("1", "echo", {})], { tools: [shimmed] });
		expect(firstText(results[0]!)).toBe("Could not prepare the arguments of tool echo: old shape not understood");
		expect(results[0]?.details).toEqual({ code: "E_PREPARE_FAILED" });
	});

	it("coerces model slips, applies defaults, and leaves the caller's object alone", async () => {
		const args = { count: "7", label: 12, loud: null };
		const { results } = await executeToolCalls([call("1", "echo", args)], { tools: [echo] });
		expect(results[0]?.details).toEqual({ params: { count: 7, label: "12", loud: false } });
		expect(args).toEqual({ count: "7", label: 12, loud: null });
	});

	it("rejects arguments that cannot be repaired, naming every failing path, without running the tool", async () => {
		const execute = vi.fn(echo.execute);
		const { results } = await executeToolCalls([call("1", "echo", { count: "many", label: [1] })], {
			tools: [{ ...echo, execute }],
		});
		expect(execute).not.toHaveBeenCalled();
		const message = firstText(results[0]!);
		expect(message).toContain('/count: expected number, received "many"');
		expect(message).toContain("/label: expected string, received [1]");
		expect(message).toContain('Received arguments:\n{\n  "count": "many"');
		expect((results[0]!.details as { code: string }).code).toBe("E_INVALID_ARGS");
		expect((results[0]!.details as { issues: unknown[] }).issues).toHaveLength(2);
	});

	it("keeps hostile keys away from Object.prototype", async () => {
		const received: unknown[] = [];
		const open = tool(
			"open",
			async (_id, params) => {
				received.push(params);
				carelessMerge({}, params);
				return text("ok");
			},
			{ parameters: Type.Object({ a: Type.Optional(Type.Unknown()) }) },
		);
		const payload = '{"a": {"__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 2}}}}';
		const { results } = await executeToolCalls([call("1", "open", payload)], { tools: [open] });
		expect(results[0]?.isError).toBe(false);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
		expect(Object.keys((received[0] as { a: object }).a)).toEqual([]);
	});
});

describe("beforeToolCall", () => {
	it("blocks a call with the reason it gives", async () => {
		const execute = vi.fn(echo.execute);
		const { results } = await executeToolCalls([call("1", "echo", { count: 1 })], {
			tools: [{ ...echo, execute }],
			beforeToolCall: ({ args }) =>
				(args as { count: number }).count === 1 ? { block: true, reason: "no ones" } : undefined,
		});
		expect(execute).not.toHaveBeenCalled();
		expect(results[0]).toMatchObject({ isError: true, content: [{ type: "text", text: "no ones" }] });
		expect(results[0]?.details).toEqual({ code: "E_BLOCKED" });
	});

	it("blocks a call with the message when the hook throws or rejects", async () => {
		const execute = vi.fn(echo.execute);
		const { results } = await executeToolCalls([call("1", "echo", { count: 1 }), call("2", "echo", { count: 2 })], {
			tools: [{ ...echo, execute }],
			beforeToolCall: async ({ toolCall }) => {
				if (toolCall.id === "1") throw new Error("policy service down");
				throw "plain string";
			},
		});
		expect(execute).not.toHaveBeenCalled();
		expect(results.map((r) => firstText(r))).toEqual([
			"Tool call echo was blocked: policy service down",
			"Tool call echo was blocked: plain string",
		]);
	});
});

describe("scheduling", () => {
	function gatedTools(mode: { sequentialName?: string }) {
		let running = 0;
		let maxRunning = 0;
		const gates = new Map<string, Deferred<void>>();
		const make = (name: string) =>
			tool(
				name,
				async (id) => {
					running++;
					maxRunning = Math.max(maxRunning, running);
					const gate = deferred();
					gates.set(id, gate);
					await gate.promise;
					running--;
					return text(id);
				},
				name === mode.sequentialName ? { executionMode: "sequential" } : {},
			);
		return {
			tools: [make("a"), make("b"), make("c")],
			gates,
			maxRunning: () => maxRunning,
		};
	}

	async function drive(gates: Map<string, Deferred<void>>, ids: string[]) {
		// Open gates one by one as they appear, until every call has run.
		for (let round = 0; round < 50 && gates.size < ids.length + 1; round++) {
			await flush();
			for (const [id, gate] of gates) {
				gate.resolve();
				gates.delete(id);
				ids.splice(ids.indexOf(id), 1);
			}
			if (ids.length === 0) break;
		}
	}

	it("runs calls in parallel by default (they overlap)", async () => {
		const { tools, gates, maxRunning } = gatedTools({});
		const batch = executeToolCalls([call("1", "a"), call("2", "b"), call("3", "c")], { tools });
		await flush();
		expect([...gates.keys()]).toEqual(["1", "2", "3"]);
		await drive(gates, ["1", "2", "3"]);
		await batch;
		expect(maxRunning()).toBe(3);
	});

	it("serializes the whole batch when one called tool is sequential (overlap is zero)", async () => {
		const { tools, gates, maxRunning } = gatedTools({ sequentialName: "c" });
		const batch = executeToolCalls([call("1", "a"), call("2", "b"), call("3", "c")], { tools });
		await flush();
		expect([...gates.keys()]).toEqual(["1"]);
		await drive(gates, ["1", "2", "3"]);
		const { results } = await batch;
		expect(maxRunning()).toBe(1);
		expect(results.map((r) => firstText(r))).toEqual(["1", "2", "3"]);
	});

	it("serializes the batch when the config says sequential", async () => {
		const { tools, gates, maxRunning } = gatedTools({});
		const batch = executeToolCalls([call("1", "a"), call("2", "b")], { tools, toolExecution: "sequential" });
		await flush();
		expect([...gates.keys()]).toEqual(["1"]);
		await drive(gates, ["1", "2"]);
		await batch;
		expect(maxRunning()).toBe(1);
	});

	it("ignores a sequential tool that is not called in the batch", async () => {
		const { tools, gates, maxRunning } = gatedTools({ sequentialName: "c" });
		const batch = executeToolCalls([call("1", "a"), call("2", "b")], { tools });
		await flush();
		expect([...gates.keys()]).toEqual(["1", "2"]);
		await drive(gates, ["1", "2"]);
		await batch;
		expect(maxRunning()).toBe(2);
	});

	it("reports each end as its call completes, and results in source order, when a slow first call finishes last", async () => {
		const slow = deferred();
		const fast = deferred();
		const events: ToolExecutionEvent[] = [];
		const tools = [
			tool("slow", async (_id, _p, _s, onUpdate) => {
				await slow.promise;
				onUpdate?.(text("slow partial"));
				return text("slow done");
			}),
			tool("fast", async (_id, _p, _s, onUpdate) => {
				onUpdate?.(text("fast partial"));
				await fast.promise;
				return text("fast done");
			}),
		];
		const batch = executeToolCalls([call("s", "slow"), call("f", "fast"), call("x", "missing")], {
			tools,
			onEvent: (event) => events.push(event),
		});
		await flush();
		// Every call is prepared before any runs; the failed lookup ends right after its start.
		expect(eventLog(events)).toEqual(["start:s", "start:f", "start:x", "end:x", "update:f"]);
		fast.resolve();
		await flush();
		// The fast call is reported as soon as it is done; the slow one before it still runs.
		expect(eventLog(events)).toEqual(["start:s", "start:f", "start:x", "end:x", "update:f", "end:f"]);
		slow.resolve();
		const { results } = await batch;
		expect(results.map((r) => firstText(r))).toEqual(["slow done", "fast done", expect.stringContaining("not found")]);
		expect(eventLog(events)).toEqual([
			"start:s",
			"start:f",
			"start:x",
			"end:x",
			"update:f",
			"end:f",
			"update:s",
			"end:s",
		]);
		// Each message is stamped when its call ended: the slow first call last.
		expect(results[0]?.timestamp).toBeGreaterThanOrEqual(results[1]?.timestamp as number);
	});

	it("runs afterToolCall as each call settles, one at a time, and ends the call once its hook is done", async () => {
		const gates = new Map([
			["1", deferred()],
			["2", deferred()],
			["3", deferred()],
		]);
		const t = tool("t", async (id) => {
			await gates.get(id)?.promise;
			return text(id);
		});
		const events: ToolExecutionEvent[] = [];
		const hooks: string[] = [];
		let inHook = 0;
		let overlapped = false;
		const hookGate = deferred();
		const batch = executeToolCalls([call("1", "t"), call("2", "t"), call("3", "t")], {
			tools: [t],
			onEvent: (e) => events.push(e),
			afterToolCall: async ({ toolCall, result }) => {
				if (++inHook > 1) overlapped = true;
				hooks.push(toolCall.id);
				if (toolCall.id === "3") await hookGate.promise;
				inHook--;
				return { content: [{ type: "text", text: `${firstText(result)}+hook` }] };
			},
		});
		gates.get("3")?.resolve();
		await flush();
		gates.get("2")?.resolve();
		await flush();
		// Call 2 settled while call 3's hook waits: its hook waits its turn, and neither has ended.
		expect(hooks).toEqual(["3"]);
		expect(eventLog(events).filter((e) => e.startsWith("end"))).toEqual([]);
		hookGate.resolve();
		await flush();
		expect(hooks).toEqual(["3", "2"]);
		expect(eventLog(events).filter((e) => e.startsWith("end"))).toEqual(["end:3", "end:2"]);
		gates.get("1")?.resolve();
		const { results } = await batch;
		expect(hooks).toEqual(["3", "2", "1"]);
		expect(overlapped).toBe(false);
		expect(eventLog(events).filter((e) => e.startsWith("end"))).toEqual(["end:3", "end:2", "end:1"]);
		const ends = events.filter((e) => e.type === "tool_execution_end");
		expect(ends.map((e) => firstText(e.result))).toEqual(["3+hook", "2+hook", "1+hook"]);
		expect(results.map((r) => firstText(r))).toEqual(["1+hook", "2+hook", "3+hook"]);
	});

	it("ends a blocked call right after its hook, before the slow call started before it", async () => {
		const gate = deferred();
		const events: ToolExecutionEvent[] = [];
		const t = tool("t", async (id) => {
			if (id === "1") await gate.promise;
			return text(id);
		});
		const batch = executeToolCalls([call("1", "t"), call("2", "t"), call("3", "t")], {
			tools: [t],
			onEvent: (e) => events.push(e),
			beforeToolCall: ({ toolCall }) => (toolCall.id === "2" ? { block: true, reason: "no" } : undefined),
		});
		await flush();
		expect(eventLog(events)).toEqual(["start:1", "start:2", "end:2", "start:3", "end:3"]);
		gate.resolve();
		const { results } = await batch;
		expect(eventLog(events)).toEqual(["start:1", "start:2", "end:2", "start:3", "end:3", "end:1"]);
		expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
			["1", false],
			["2", true],
			["3", false],
		]);
	});

	it("runs beforeToolCall hooks in source order, and no tool before the last hook returned", async () => {
		const gate = deferred();
		const events: ToolExecutionEvent[] = [];
		const hooks: string[] = [];
		const ran: string[] = [];
		const t = tool("t", async (id) => {
			ran.push(id);
			return text(id);
		});
		const batch = executeToolCalls([call("1", "t"), call("2", "t"), call("3", "t")], {
			tools: [t],
			onEvent: (e) => events.push(e),
			beforeToolCall: async ({ toolCall }) => {
				hooks.push(toolCall.id);
				// A slow confirmation on the last call of the batch.
				if (toolCall.id === "3") await gate.promise;
				return undefined;
			},
		});
		await flush();
		await new Promise((resolve) => setTimeout(resolve, 20));
		expect(hooks).toEqual(["1", "2", "3"]);
		expect(ran).toEqual([]);
		expect(eventLog(events)).toEqual(["start:1", "start:2", "start:3"]);
		gate.resolve();
		const { results } = await batch;
		expect(ran).toEqual(["1", "2", "3"]);
		expect(results.map((r) => firstText(r))).toEqual(["1", "2", "3"]);
		const log = eventLog(events);
		expect(log.filter((e) => e.startsWith("start"))).toEqual(["start:1", "start:2", "start:3"]);
		expect(log.filter((e) => e.startsWith("end"))).toEqual(["end:1", "end:2", "end:3"]);
	});

	it("ends a call its hook blocks right after the hook, before any tool runs", async () => {
		const events: ToolExecutionEvent[] = [];
		const gate = deferred();
		const t = tool("t", async (id) => text(id));
		const batch = executeToolCalls([call("1", "t"), call("2", "t"), call("3", "t")], {
			tools: [t],
			onEvent: (e) => events.push(e),
			beforeToolCall: async ({ toolCall }) => {
				if (toolCall.id === "2") return { block: true, reason: "no" };
				if (toolCall.id === "3") await gate.promise;
				return undefined;
			},
		});
		await flush();
		expect(eventLog(events)).toEqual(["start:1", "start:2", "end:2", "start:3"]);
		gate.resolve();
		const { results } = await batch;
		expect(results.map((r) => firstText(r))).toEqual(["1", "no", "3"]);
	});

	it("emits start, updates and end per call in order in sequential mode", async () => {
		const events: ToolExecutionEvent[] = [];
		const t = tool(
			"t",
			async (id, _p, _s, onUpdate) => {
				onUpdate?.(text(`${id}.1`));
				onUpdate?.(text(`${id}.2`));
				return text(id);
			},
			{ executionMode: "sequential" },
		);
		await executeToolCalls([call("1", "t"), call("2", "t")], { tools: [t], onEvent: (e) => events.push(e) });
		expect(eventLog(events)).toEqual([
			"start:1",
			"update:1",
			"update:1",
			"end:1",
			"start:2",
			"update:2",
			"update:2",
			"end:2",
		]);
	});
});

describe("results", () => {
	it("turns throws, including non-Error values, into error results with the message", async () => {
		const thrower = tool(
			"thrower",
			async (_id, params) => {
				const { kind } = params as { kind: string };
				if (kind === "error") throw new Error("disk on fire");
				if (kind === "string") throw "just a string";
				if (kind === "object") throw { reason: "object" };
				if (kind === "sync") return undefined as never;
				throw undefined;
			},
			{ parameters: Type.Object({ kind: Type.String() }) },
		);
		const syncThrower: AgentTool = {
			...thrower,
			name: "sync",
			execute: () => {
				throw new TypeError("thrown before any promise");
			},
		};
		const { results } = await executeToolCalls(
			[
				call("1", "thrower", { kind: "error" }),
				call("2", "thrower", { kind: "string" }),
				call("3", "thrower", { kind: "object" }),
				call("4", "thrower", { kind: "undefined" }),
				call("5", "sync", { kind: "x" }),
			],
			{ tools: [thrower, syncThrower] },
		);
		expect(results.map((r) => [r.isError, firstText(r)])).toEqual([
			[true, "disk on fire"],
			[true, "just a string"],
			[true, '{"reason":"object"}'],
			[true, "undefined"],
			[true, "thrown before any promise"],
		]);
		expect(results[0]?.details).toEqual({ code: "E_TOOL_FAILED" });
	});

	it("rejects malformed results and says what was wrong", async () => {
		const bad = tool(
			"bad",
			async (_id, params) => {
				switch ((params as { kind: string }).kind) {
					case "undefined":
						return undefined as never;
					case "no-content":
						return { details: {} } as never;
					case "unknown-block":
						return { content: [{ type: "video", url: "x" }], details: {} } as never;
					case "bad-image":
						return { content: [{ type: "image", data: "AAAA" }], details: {} } as never;
					default:
						return { content: [{ type: "text", text: 5 }], details: {} } as never;
				}
			},
			{ parameters: Type.Object({ kind: Type.String() }) },
		);
		const kinds = ["undefined", "no-content", "unknown-block", "bad-image", "bad-text"];
		const { results } = await executeToolCalls(
			kinds.map((kind, i) => call(String(i), "bad", { kind })),
			{ tools: [bad] },
		);
		expect(results.map((r) => firstText(r))).toEqual([
			"Tool bad returned a malformed result: it returned undefined instead of an object { content, details }.",
			"Tool bad returned a malformed result: its content is missing, not an array of blocks.",
			'Tool bad returned a malformed result: content[0] has unknown type "video" (expected "text" or "image").',
			'Tool bad returned a malformed result: content[0] is an image block without an "image/…" mimeType.',
			'Tool bad returned a malformed result: content[0] is a text block without a string "text".',
		]);
		expect(results.every((r) => r.isError && (r.details as { code: string }).code === "E_BAD_RESULT")).toBe(true);
	});

	it("ignores onUpdate calls made after the tool settled", async () => {
		let late: ((partial: ReturnType<typeof text>) => void) | undefined;
		const events: ToolExecutionEvent[] = [];
		const t = tool("t", async (_id, _p, _s, onUpdate) => {
			late = onUpdate;
			onUpdate?.(text("during"));
			return text("done");
		});
		await executeToolCalls([call("1", "t")], { tools: [t], onEvent: (e) => events.push(e) });
		late?.(text("after"));
		expect(eventLog(events)).toEqual(["start:1", "update:1", "end:1"]);
	});

	it("carries addedToolNames and usage onto the message", async () => {
		const t = tool("t", async () => ({
			...text("ok"),
			addedToolNames: ["npm"],
			usage: { input: 3, output: 4 },
		}));
		const { results } = await executeToolCalls([call("1", "t")], { tools: [t] });
		expect(results[0]).toMatchObject({ addedToolNames: ["npm"], usage: { input: 3, output: 4 } });
		expect(typeof results[0]?.timestamp).toBe("number");
	});

	it("terminates only when every result asks to", async () => {
		const stop = tool("stop", async () => ({ ...text("stop"), terminate: true }));
		const go = tool("go", async () => text("go"));
		expect((await executeToolCalls([call("1", "stop"), call("2", "stop")], { tools: [stop] })).terminate).toBe(true);
		expect((await executeToolCalls([call("1", "stop"), call("2", "go")], { tools: [stop, go] })).terminate).toBe(false);
		expect((await executeToolCalls([], { tools: [stop] })).terminate).toBe(false);
	});

	it("makes a result that sets isError: true an error, keeping its content and details (pi 1.x)", async () => {
		const failing = tool("failing", async () => ({
			content: [{ type: "text", text: "no such branch" }],
			details: { branch: "x" },
			structuredContent: { ok: false },
			isError: true,
		}));
		// Only `true` counts, as in the reference.
		const truthy = tool("truthy", async () => ({ ...text("fine"), isError: "yes" as unknown as boolean }));
		const events: ToolExecutionEvent[] = [];
		const seen: boolean[] = [];
		const { results } = await executeToolCalls([call("1", "failing"), call("2", "truthy")], {
			tools: [failing, truthy],
			onEvent: (e) => events.push(e),
			afterToolCall: ({ isError }) => {
				seen.push(isError);
				return undefined;
			},
		});
		expect(results[0]).toMatchObject({
			isError: true,
			content: [{ type: "text", text: "no such branch" }],
			details: { branch: "x" },
			structuredContent: { ok: false },
		});
		expect(typeof results[0]?.durationMs).toBe("number");
		expect(results[1]?.isError).toBe(false);
		expect(seen).toEqual([true, false]);
		const ends = events.filter((e) => e.type === "tool_execution_end");
		expect(ends.map((e) => [e.toolCallId, e.isError])).toEqual([
			["1", true],
			["2", false],
		]);
		// afterToolCall may still clear it.
		const cleared = await executeToolCalls([call("1", "failing")], {
			tools: [failing],
			afterToolCall: () => ({ isError: false }),
		});
		expect(cleared.results[0]?.isError).toBe(false);
	});

	it("lets a blocking beforeToolCall ask to terminate, under the every-result rule (pi 1.x)", async () => {
		const stop = tool("stop", async () => ({ ...text("stop"), terminate: true }));
		const go = tool("go", async () => text("go"));
		const ran: string[] = [];
		const watched = (t: AgentTool): AgentTool => ({
			...t,
			execute: (...args) => {
				ran.push(args[0]);
				return t.execute(...args);
			},
		});
		const tools = [watched(stop), watched(go)];
		const blockTerminating = ({ toolCall }: { toolCall: ToolCall }) =>
			toolCall.name === "go" ? { block: true, reason: "not now", terminate: true } : undefined;
		const mixed = await executeToolCalls([call("1", "stop"), call("2", "go")], {
			tools,
			beforeToolCall: blockTerminating,
		});
		expect(mixed.terminate).toBe(true);
		expect(mixed.results[1]).toMatchObject({ isError: true, content: [{ type: "text", text: "not now" }] });
		expect(mixed.results[1]?.durationMs).toBeUndefined();
		expect(ran).toEqual(["1"]);
		const alone = await executeToolCalls([call("1", "go")], { tools, beforeToolCall: blockTerminating });
		expect(alone.terminate).toBe(true);
		// Without it, or without block, or with a result that does not ask, the batch goes on.
		const plain = await executeToolCalls([call("1", "stop"), call("2", "go")], {
			tools,
			beforeToolCall: ({ toolCall }) => (toolCall.name === "go" ? { block: true, reason: "no" } : undefined),
		});
		expect(plain.terminate).toBe(false);
		const notBlocked = await executeToolCalls([call("1", "stop"), call("2", "go")], {
			tools,
			beforeToolCall: () => ({ terminate: true }),
		});
		expect(notBlocked.terminate).toBe(false);
		const sequential = await executeToolCalls([call("1", "go"), call("2", "go")], {
			tools,
			toolExecution: "sequential",
			beforeToolCall: blockTerminating,
		});
		expect(sequential.terminate).toBe(true);
		const events: ToolExecutionEvent[] = [];
		await executeToolCalls([call("1", "go")], {
			tools,
			beforeToolCall: blockTerminating,
			onEvent: (e) => events.push(e),
		});
		const end = events.find((e) => e.type === "tool_execution_end");
		expect(end?.type === "tool_execution_end" ? end.result.terminate : undefined).toBe(true);
	});

	it("lets afterToolCall replace content, details, isError and terminate field by field", async () => {
		const t = tool("t", async () => ({ content: [{ type: "text", text: "raw" }], details: { a: 1, b: 2 } }));
		const { results, terminate } = await executeToolCalls([call("1", "t"), call("2", "t")], {
			tools: [t],
			afterToolCall: ({ toolCall }) =>
				toolCall.id === "1"
					? { details: { a: 9 }, terminate: true }
					: { content: [{ type: "text", text: "redacted" }], isError: true, terminate: true },
		});
		expect(results[0]).toMatchObject({ content: [{ type: "text", text: "raw" }], details: { a: 9 }, isError: false });
		expect(results[1]).toMatchObject({
			content: [{ type: "text", text: "redacted" }],
			details: { a: 1, b: 2 },
			isError: true,
		});
		expect(terminate).toBe(true);
	});

	it("turns a throwing afterToolCall into an error result", async () => {
		const t = tool("t", async () => text("fine"));
		const { results } = await executeToolCalls([call("1", "t")], {
			tools: [t],
			afterToolCall: () => {
				throw new Error("audit log full");
			},
		});
		expect(results[0]).toMatchObject({ isError: true });
		expect(firstText(results[0]!)).toBe("The afterToolCall hook failed for t: audit log full");
	});
});

describe("abort", () => {
	it("runs nothing when the signal is already aborted", async () => {
		const execute = vi.fn(async () => text("ran"));
		const prepareArguments = vi.fn((x: unknown) => x);
		const beforeToolCall = vi.fn(() => undefined);
		const controller = new AbortController();
		controller.abort();
		const { results } = await executeToolCalls([call("1", "t"), call("2", "t")], {
			tools: [{ ...tool("t", execute), prepareArguments }],
			signal: controller.signal,
			beforeToolCall,
		});
		expect(execute).not.toHaveBeenCalled();
		expect(prepareArguments).not.toHaveBeenCalled();
		expect(beforeToolCall).not.toHaveBeenCalled();
		expect(results.map((r) => [r.isError, (r.details as { code: string }).code])).toEqual([
			[true, "E_ABORTED"],
			[true, "E_ABORTED"],
		]);
		expect(firstText(results[0]!)).toBe("Operation aborted");
	});

	it.each([false, true])(
		"reaches every running tool's signal in the middle of a batch (passSignalThrough: %s)",
		async (passSignalThrough) => {
			const controller = new AbortController();
			const seen: string[] = [];
			const waiter = tool("wait", (id, _p, signal) => {
				return new Promise((_resolve, reject) => {
					signal?.addEventListener("abort", () => {
						seen.push(id);
						reject(new Error(`aborted ${id}`));
					});
				});
			});
			const batch = executeToolCalls([call("1", "wait"), call("2", "wait")], {
				tools: [waiter],
				signal: controller.signal,
				passSignalThrough,
			});
			await flush();
			controller.abort();
			const { results } = await batch;
			expect(seen.sort()).toEqual(["1", "2"]);
			expect(results.map((r) => firstText(r))).toEqual(["aborted 1", "aborted 2"]);
		},
	);

	it.each([false, true])(
		"gives calls not yet started an aborted result in a sequential batch (passSignalThrough: %s)",
		async (passSignalThrough) => {
			const controller = new AbortController();
			const execute = vi.fn(async (id: string) => {
				if (id === "1") controller.abort();
				return text(id);
			});
			const { results } = await executeToolCalls([call("1", "t"), call("2", "t"), call("3", "t")], {
				tools: [tool("t", execute)],
				signal: controller.signal,
				passSignalThrough,
				toolExecution: "sequential",
			});
			expect(execute).toHaveBeenCalledTimes(1);
			expect(results.map((r) => (r.details as { code?: string }).code ?? "ok")).toEqual([
				"ok",
				"E_ABORTED",
				"E_ABORTED",
			]);
		},
	);
});

describe("the signal tools get", () => {
	/** A tool that records its signal and leaves an abort listener on it, as careless tools do. */
	const careless = (seen: (AbortSignal | undefined)[]) =>
		tool("careless", async (_id, _p, signal) => {
			seen.push(signal);
			signal?.addEventListener("abort", () => {});
			return text("done");
		});

	it("is the batch's own by default: linked to the caller's, and the listeners tools leave go with the batch", async () => {
		const controller = new AbortController();
		const seen: (AbortSignal | undefined)[] = [];
		for (let i = 0; i < 20; i++) {
			await executeToolCalls([call(`${i}`, "careless")], { tools: [careless(seen)], signal: controller.signal });
		}
		expect(seen).toHaveLength(20);
		expect(seen.every((signal) => signal !== undefined && signal !== controller.signal)).toBe(true);
		expect(new Set(seen).size).toBe(20);
		expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);

		// Still linked: an abort during a batch reaches its signal.
		let during: AbortSignal | undefined;
		const batch = executeToolCalls([call("x", "wait")], {
			tools: [
				tool("wait", (_id, _p, signal) => {
					during = signal;
					return new Promise((_resolve, reject) => signal?.addEventListener("abort", () => reject(new Error("stop"))));
				}),
			],
			signal: controller.signal,
		});
		await flush();
		controller.abort();
		await batch;
		expect(during?.aborted).toBe(true);
	});

	it("is the caller's own with passSignalThrough", async () => {
		const controller = new AbortController();
		const seen: (AbortSignal | undefined)[] = [];
		await executeToolCalls([call("1", "careless"), call("2", "careless")], {
			tools: [careless(seen)],
			signal: controller.signal,
			passSignalThrough: true,
		});
		expect(seen).toEqual([controller.signal, controller.signal]);
		// What the tools left is the caller's to bear, as asked.
		expect(getEventListeners(controller.signal, "abort")).toHaveLength(2);
	});
});

describe("shouldSkipRemaining", () => {
	it("is asked after each finished call in a sequential batch", async () => {
		const execute = vi.fn(async (id: string) => text(id));
		let finished = 0;
		const { results } = await executeToolCalls([call("1", "t"), call("2", "t"), call("3", "t")], {
			tools: [
				tool("t", async (id) => {
					finished++;
					return execute(id);
				}),
			],
			toolExecution: "sequential",
			shouldSkipRemaining: () => finished >= 1,
		});
		expect(execute).toHaveBeenCalledTimes(1);
		expect(results.map((r) => firstText(r).split(":")[0])).toEqual(["1", "Skipped", "Skipped"]);
		expect((results[1]!.details as { code: string }).code).toBe("E_SKIPPED");
	});

	it("is asked before launching each call in a parallel batch", async () => {
		let asked = 0;
		const execute = vi.fn(async (id: string) => text(id));
		const { results } = await executeToolCalls([call("1", "t"), call("2", "t"), call("3", "t")], {
			tools: [tool("t", execute)],
			shouldSkipRemaining: () => ++asked > 2,
		});
		expect(execute).toHaveBeenCalledTimes(2);
		expect(results.map((r) => firstText(r).split(":")[0])).toEqual(["1", "2", "Skipped"]);
	});

	it("treats a throwing shouldSkipRemaining as false", async () => {
		const { results } = await executeToolCalls([call("1", "t")], {
			tools: [tool("t", async () => text("ran"))],
			shouldSkipRemaining: () => {
				throw new Error("nope");
			},
		});
		expect(firstText(results[0]!)).toBe("ran");
	});
});

describe("robustness", () => {
	it("never throws, whatever it is given", async () => {
		const weird: unknown[] = [[null, undefined, 5, { id: 1, name: 2 }, { type: "toolCall" }], "not an array", null];
		for (const calls of weird) {
			const result = await executeToolCalls(calls as ToolCall[], {
				tools: [null, { name: 3 }, tool("t", async () => text("x"))] as AgentTool[],
				onEvent: () => {
					throw new Error("broken UI");
				},
			});
			expect(result.results.length).toBe(Array.isArray(calls) ? calls.length : 0);
		}
		await expect(executeToolCalls([call("1", "t")], undefined as never)).resolves.toMatchObject({ terminate: false });
	});

	it("uses StringEnum schemas like any other", async () => {
		const t = tool("t", async (_id, p) => text(String((p as { unit: string }).unit)), {
			parameters: Type.Object({ unit: StringEnum(["c", "f"]) }),
		});
		const { results } = await executeToolCalls([call("1", "t", { unit: "k" }), call("2", "t", { unit: "f" })], {
			tools: [t],
		});
		expect(firstText(results[0]!)).toContain('/unit: expected "c" | "f", received "k"');
		expect(firstText(results[1]!)).toBe("f");
	});
});
