/**
 * Nested calls (pi 1.x): a running tool calls another through the handle the executor gives it
 * (`ctx.executeTool` for a wrapped definition), on the same path as the model's calls.
 */
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../../src/exec/execute.js";
import { type AgentTool, defineTool, type ToolContext, Type } from "../../../src/index.js";
import {
	type NestedToolCalls,
	type ToolErrorDetails,
	type ToolExecutionEvent,
	wrapToolDefinition,
} from "../../../src/runtime.js";
import { call, deferred, firstText, text, tool } from "./_helpers.js";

const add = tool(
	"add",
	async (_id, params) => {
		const { a, b } = params as { a: number; b: number };
		return { ...text(String(a + b)), usage: { input: 1, output: 2 } };
	},
	{ parameters: Type.Object({ a: Type.Number(), b: Type.Number() }) },
);

/** A tool that runs `script` with the handle the executor gave it. */
function caller(name: string, script: (nested: NestedToolCalls, id: string) => Promise<string>): AgentTool {
	return tool(name, async (id, _params, _signal, _onUpdate, nested) =>
		text(await script(nested as NestedToolCalls, id)),
	);
}

describe("nested calls", () => {
	it("validate, coerce and run the callee, with ids <calling id>/<n> and events carrying parentToolCallId", async () => {
		const events: ToolExecutionEvent[] = [];
		const hooked: string[] = [];
		const outer = caller("outer", async (nested) => {
			const first = await nested.executeTool("add", { a: "2", b: 3 });
			const second = await nested.executeTool("add", { a: "x" });
			expect(first.toolCall.id).toBe("c1/1");
			expect(first.isError).toBe(false);
			expect(typeof first.durationMs).toBe("number");
			expect(second.toolCall.id).toBe("c1/2");
			expect(second.isError).toBe(true);
			expect((second.result.details as ToolErrorDetails).code).toBe("E_INVALID_ARGS");
			return `${firstText(first.result)} then ${second.isError}`;
		});
		const { results } = await executeToolCalls([call("c1", "outer")], {
			tools: [outer, add],
			onEvent: (e) => events.push(e),
			beforeToolCall: ({ toolCall, parentToolCallId }) => {
				hooked.push(`${toolCall.id}<${parentToolCallId ?? ""}`);
				return undefined;
			},
		});
		expect(firstText(results[0]!)).toBe("5 then true");
		expect(hooked).toEqual(["c1<", "c1/1<c1"]);
		const nestedEvents = events.filter((e) => e.parentToolCallId !== undefined);
		expect(nestedEvents.map((e) => `${e.type.slice(15)}:${e.toolCallId}<${e.parentToolCallId}`)).toEqual([
			"start:c1/1<c1",
			"end:c1/1<c1",
			"start:c1/2<c1",
			"end:c1/2<c1",
		]);
		const record = results[0]?.nestedCalls;
		expect(record?.complete).toBe(true);
		expect(record?.calls.map((r) => [r.id, r.name, r.status, r.arguments])).toEqual([
			["c1/1", "add", "ok", { a: "2", b: 3 }],
			["c1/2", "add", "error", { a: "x" }],
		]);
		expect(record?.calls[1]?.error).toContain("Invalid arguments");
		// The nested result's usage counts on the calling call's message.
		expect(results[0]?.usage).toEqual({ input: 1, output: 2 });
	});

	it("lets beforeToolCall block a nested call, and never rejects for unknown or unreachable tools", async () => {
		const secret = { ...tool("secret", async () => text("leaked")), exposure: "model-only" } as AgentTool;
		const hidden = { ...tool("hidden", async () => text("leaked")), exposure: "hidden" } as AgentTool;
		const scripted = { ...tool("scripted", async () => text("scripted ran")), exposure: "codemode" } as AgentTool;
		let seen: readonly string[] = [];
		const outer = caller("outer", async (nested) => {
			seen = nested.tools.map((t) => t.name);
			const outcomes = await Promise.all([
				nested.executeTool("add", { a: 1, b: 1 }),
				nested.executeTool("nope", {}),
				nested.executeTool("secret", {}),
				nested.executeTool("hidden", {}),
				nested.executeTool("scripted", {}),
			]);
			return outcomes.map((o) => `${o.isError}:${firstText(o.result).split(".")[0]}`).join("|");
		});
		const { results } = await executeToolCalls([call("c", "outer")], {
			tools: [outer, add, secret],
			callableTools: [hidden, scripted],
			beforeToolCall: ({ toolCall }) => (toolCall.name === "add" ? { block: true, reason: "no adding" } : undefined),
		});
		expect(seen).toEqual(["outer", "add", "scripted"]);
		expect(firstText(results[0]!)).toBe(
			"true:no adding|true:Tool nope not found|true:Tool secret not found|true:Tool hidden not found|false:scripted ran",
		);
	});

	it("stops at an abort: a nested call made after it gets the aborted result", async () => {
		const controller = new AbortController();
		const outer = caller("outer", async (nested) => {
			controller.abort();
			const outcome = await nested.executeTool("add", { a: 1, b: 2 });
			return `${outcome.isError}:${firstText(outcome.result)}:${(outcome.result.details as ToolErrorDetails).code}`;
		});
		const { results } = await executeToolCalls([call("c", "outer")], {
			tools: [outer, add],
			signal: controller.signal,
		});
		expect(firstText(results[0]!)).toBe("true:Operation aborted:E_ABORTED");
	});

	it("feeds options.onUpdate and uses options.signal", async () => {
		const partials: string[] = [];
		const own = new AbortController();
		own.abort();
		const progress = tool("progress", async (_id, _p, _s, onUpdate) => {
			onUpdate?.(text("half"));
			return text("done");
		});
		const outer = caller("outer", async (nested) => {
			const ran = await nested.executeTool("progress", {}, { onUpdate: (p) => partials.push(firstText(p)) });
			const stopped = await nested.executeTool("progress", {}, { signal: own.signal });
			return `${firstText(ran.result)}/${firstText(stopped.result)}`;
		});
		const { results } = await executeToolCalls([call("c", "outer")], { tools: [outer, progress] });
		expect(partials).toEqual(["half"]);
		expect(firstText(results[0]!)).toBe("done/Operation aborted");
	});

	it("run nested calls to a sequential tool one at a time, and let calls inside them through", async () => {
		let running = 0;
		let most = 0;
		const inner = tool("inner", async () => {
			running++;
			most = Math.max(most, running);
			await new Promise((resolve) => setTimeout(resolve, 5));
			running--;
			return text("inner");
		});
		const serial = caller("serial", async (nested) => {
			running++;
			most = Math.max(most, running);
			// A call made inside the queued call must not wait for the queue it holds.
			const deeper = await nested.executeTool("add", { a: 1, b: 1 });
			await new Promise((resolve) => setTimeout(resolve, 5));
			running--;
			return firstText(deeper.result);
		});
		const serialTool = { ...serial, executionMode: "sequential" } as AgentTool;
		const outer = caller("outer", async (nested) => {
			const outcomes = await Promise.all([
				nested.executeTool("serial", {}),
				nested.executeTool("serial", {}),
				nested.executeTool("inner", {}),
			]);
			return outcomes.map((o) => firstText(o.result)).join(",");
		});
		const { results } = await executeToolCalls([call("c", "outer")], { tools: [outer, serialTool, inner, add] });
		expect(firstText(results[0]!)).toBe("2,2,inner");
		// The two sequential calls never overlapped; the parallel one may run beside one of them.
		expect(most).toBeLessThanOrEqual(2);
		const sequentialBatch = await executeToolCalls([call("c", "outer")], {
			tools: [outer, serial, inner, add],
			toolExecution: "sequential",
		});
		expect(firstText(sequentialBatch.results[0]!)).toBe("2,2,inner");
	});

	it("never overlap in a sequential batch", async () => {
		let running = 0;
		let most = 0;
		const slow = tool("slow", async () => {
			running++;
			most = Math.max(most, running);
			await new Promise((resolve) => setTimeout(resolve, 5));
			running--;
			return text("slow");
		});
		const outer = caller("outer", async (nested) => {
			const outcomes = await Promise.all([1, 2, 3].map(() => nested.executeTool("slow", {})));
			return outcomes.map((o) => firstText(o.result)).join(",");
		});
		const { results } = await executeToolCalls([call("c", "outer")], {
			tools: [outer, slow],
			toolExecution: "sequential",
		});
		expect(firstText(results[0]!)).toBe("slow,slow,slow");
		expect(most).toBe(1);
		most = 0;
		await executeToolCalls([call("c", "outer")], { tools: [outer, slow] });
		expect(most).toBe(3);
	});

	it("records grandchildren on the model-issued call, bounded to 256 calls", async () => {
		const middle = caller("middle", async (nested) => {
			const inner = await nested.executeTool("add", { a: 1, b: 1 });
			return firstText(inner.result);
		});
		const outer = caller("outer", async (nested) => {
			const viaMiddle = await nested.executeTool("middle", {});
			for (let i = 0; i < 300; i++) await nested.executeTool("add", { a: i, b: 0 });
			return firstText(viaMiddle.result);
		});
		const { results } = await executeToolCalls([call("c", "outer")], { tools: [outer, middle, add] });
		const record = results[0]?.nestedCalls;
		expect(firstText(results[0]!)).toBe("2");
		expect(record?.calls.slice(0, 2).map((r) => r.id)).toEqual(["c/1", "c/1/1"]);
		expect(record?.calls).toHaveLength(256);
		expect(record?.complete).toBe(false);
	});

	it("leaves big arguments out of the record, saying how big they were", async () => {
		const echo = tool("echo", async () => text("ok"), { parameters: Type.Object({ s: Type.String() }) });
		const outer = caller("outer", async (nested) => {
			await nested.executeTool("echo", { s: "x".repeat(10_000) });
			return "";
		});
		const { results } = await executeToolCalls([call("c", "outer")], { tools: [outer, echo] });
		const entry = results[0]?.nestedCalls?.calls[0];
		expect(entry?.arguments).toBeUndefined();
		expect(entry?.argumentsBytes).toBe(10_000 + '{"s":""}'.length);
		expect(results[0]?.nestedCalls?.complete).toBe(false);
	});

	it("reach a wrapped definition's ctx.executeTool and ctx.tools", async () => {
		const gate = deferred();
		const definition = defineTool({
			name: "outer",
			label: "Outer",
			description: "Calls add.",
			parameters: Type.Object({}),
			async execute(_id, _params, _signal, _onUpdate, ctx) {
				gate.resolve();
				const names = (ctx.tools ?? []).map((t) => t.name).join(",");
				const outcome = await ctx.executeTool?.("add", { a: 2, b: 2 });
				return text(`${names}=${outcome ? firstText(outcome.result) : "none"}`);
			},
		});
		const ctx = { env: {}, cwd: "/", hasUI: false, ui: {} } as unknown as ToolContext;
		const wrapped = wrapToolDefinition(definition, () => ({ ...ctx }));
		const { results } = await executeToolCalls([call("c", "outer")], { tools: [wrapped, add] });
		await gate.promise;
		expect(firstText(results[0]!)).toBe("outer,add=4");
		// Outside an executor, ctx.executeTool answers that nested calls are not available.
		const alone = await wrapped.execute("solo", {});
		expect(firstText(alone)).toBe("=Nested tool calls are not available in this context");
	});
});
