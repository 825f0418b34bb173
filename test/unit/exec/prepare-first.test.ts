/**
 * A parallel batch prepares every call (start event, arguments, `beforeToolCall`) before any tool
 * runs, as the reference (pi-agent-core) does; an abort in between gives the prepared calls the
 * reference's `Operation aborted`; result messages and end events carry the tool's `durationMs`.
 */
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../../src/exec/execute.js";
import type { ToolErrorDetails, ToolExecutionEvent } from "../../../src/runtime.js";
import { call, deferred, eventLog, firstText, flush, text, tool } from "./_helpers.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a parallel batch", () => {
	it("prepares every call before launching any, without hooks too", async () => {
		const log: string[] = [];
		const t = tool(
			"t",
			async (id, _args, _signal, onUpdate) => {
				log.push(`run:${id}`);
				onUpdate?.(text(`partial ${id}`));
				return text(id);
			},
			{
				prepareArguments: (raw) => {
					log.push("prepare");
					return raw;
				},
			},
		);
		const events: ToolExecutionEvent[] = [];
		await executeToolCalls([call("1", "t"), call("2", "t"), call("3", "t")], {
			tools: [t],
			onEvent: (e) => {
				events.push(e);
				if (e.type === "tool_execution_start") log.push(`start:${e.toolCallId}`);
			},
		});
		expect(log.slice(0, 6)).toEqual(["start:1", "prepare", "start:2", "prepare", "start:3", "prepare"]);
		expect(log.slice(6)).toEqual(["run:1", "run:2", "run:3"]);
		// A tool's synchronous update comes after every start, as in the reference.
		expect(eventLog(events).slice(0, 4)).toEqual(["start:1", "start:2", "start:3", "update:1"]);
	});

	it("runs nothing while the last call's beforeToolCall waits (for a person, say)", async () => {
		const ran: string[] = [];
		const answer = deferred<undefined>();
		const t = tool("t", async (id) => {
			ran.push(id);
			return text(id);
		});
		const batch = executeToolCalls([call("1", "t"), call("2", "t"), call("3", "t")], {
			tools: [t],
			maxConcurrency: 1,
			beforeToolCall: ({ toolCall }) => (toolCall.id === "3" ? answer.promise : undefined),
		});
		await sleep(30);
		expect(ran).toEqual([]);
		answer.resolve(undefined);
		const { results } = await batch;
		expect(ran).toEqual(["1", "2", "3"]);
		expect(results.map((r) => firstText(r))).toEqual(["1", "2", "3"]);
	});

	it("gives the prepared calls the reference's aborted result when the abort comes before they run", async () => {
		const ran: string[] = [];
		const controller = new AbortController();
		const t = tool("t", async (id) => {
			ran.push(id);
			return text(id);
		});
		const events: ToolExecutionEvent[] = [];
		const { results } = await executeToolCalls([call("1", "t"), call("2", "t")], {
			tools: [t],
			signal: controller.signal,
			onEvent: (e) => events.push(e),
			beforeToolCall: ({ toolCall }) => {
				// The person says no to the batch while asked about its last call.
				if (toolCall.id === "2") controller.abort();
				return undefined;
			},
		});
		expect(ran).toEqual([]);
		expect(results.map((r) => [r.isError, firstText(r), (r.details as ToolErrorDetails).code])).toEqual([
			[true, "Operation aborted", "E_ABORTED"],
			[true, "Operation aborted", "E_ABORTED"],
		]);
		expect(results.every((r) => r.durationMs === undefined)).toBe(true);
		expect(eventLog(events)).toEqual(["start:1", "start:2", "end:2", "end:1"]);
	});
});

describe("durationMs", () => {
	for (const toolExecution of ["parallel", "sequential"] as const) {
		it(`measures the tool, not the afterToolCall hook, and is absent for calls that never ran (${toolExecution})`, async () => {
			const ends = new Map<string, number | undefined>();
			const slow = tool("slow", async () => {
				await sleep(40);
				return text("slow");
			});
			const { results } = await executeToolCalls([call("1", "slow"), call("2", "missing"), call("3", "slow")], {
				tools: [slow],
				toolExecution,
				beforeToolCall: ({ toolCall }) => (toolCall.id === "3" ? { block: true, reason: "no" } : undefined),
				afterToolCall: async () => {
					await sleep(60);
					return undefined;
				},
				onEvent: (e) => {
					if (e.type === "tool_execution_end") ends.set(e.toolCallId, e.durationMs);
				},
			});
			const [ran, missing, blocked] = results;
			expect(ran?.durationMs).toBeGreaterThanOrEqual(35);
			expect(ran?.durationMs).toBeLessThan(95);
			expect(Number.isInteger(ran?.durationMs)).toBe(true);
			expect(ends.get("1")).toBe(ran?.durationMs);
			expect(missing && "durationMs" in missing).toBe(false);
			expect(blocked && "durationMs" in blocked).toBe(false);
			expect(ends.get("2")).toBeUndefined();
		});
	}

	it("is recorded for a tool that throws, synchronously or not", async () => {
		const { results } = await executeToolCalls([call("1", "sync"), call("2", "async")], {
			tools: [
				tool("sync", () => {
					throw new Error("at once");
				}),
				tool("async", async () => {
					await flush(1);
					throw new Error("later");
				}),
			],
		});
		expect(results.map((r) => [r.isError, typeof r.durationMs])).toEqual([
			[true, "number"],
			[true, "number"],
		]);
	});
});
