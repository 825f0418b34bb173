/**
 * After the batch's signal fires, nothing the executor awaits on behalf of a call may keep the batch
 * pending: a hook or a tool that never settles gets the call an aborted result within the grace
 * period, and whatever it does later is ignored.
 */
import { describe, expect, it } from "vitest";
import { ABORT_GRACE_MS, executeToolCalls } from "../../../src/exec/execute.js";
import type { ExecuteToolCallsConfig, ToolErrorDetails } from "../../../src/runtime.js";
import { call, deferred, firstText, text, tool } from "./_helpers.js";

const never = <T>(): Promise<T> => new Promise<T>(() => {});
const ok = tool("t", async () => text("ok"));
const modes = ["parallel", "sequential"] as const;

/** Runs the batch, aborts it after `abortAfter` ms, and says how long after the abort it resolved. */
async function abortedBatch(config: Omit<ExecuteToolCallsConfig, "signal">, ids = ["1", "2"], abortAfter = 20) {
	const controller = new AbortController();
	const running = executeToolCalls(
		ids.map((id) => call(id, "t")),
		{ ...config, signal: controller.signal },
	);
	await new Promise((resolve) => setTimeout(resolve, abortAfter));
	const abortedAt = Date.now();
	controller.abort();
	const { results } = await running;
	return {
		after: Date.now() - abortedAt,
		outcomes: results.map((r) => [r.isError, (r.details as ToolErrorDetails).code, firstText(r)] as const),
	};
}

// The reference's text (pi-agent-core 1.x) for a call the abort stopped before it ran.
const NOT_RUN = "Operation aborted";

describe.each(modes)("an abort with something still pending (%s)", (toolExecution) => {
	it("ends a call whose beforeToolCall never settles at the abort, and the batch resolves", async () => {
		const { after, outcomes } = await abortedBatch({ tools: [ok], toolExecution, beforeToolCall: never });
		expect(after).toBeLessThan(200);
		expect(outcomes).toEqual([
			[true, "E_ABORTED", NOT_RUN],
			[true, "E_ABORTED", NOT_RUN],
		]);
	});

	it("withholds the result of a call whose afterToolCall never settles, within the grace period", async () => {
		const seen: string[] = [];
		const { after, outcomes } = await abortedBatch({
			tools: [tool("t", async () => text("secret"))],
			toolExecution,
			afterToolCall: () => never(),
			onEvent: (event) => {
				if (event.type === "tool_execution_end") seen.push(firstText(event.result));
			},
		});
		expect(after).toBeGreaterThanOrEqual(ABORT_GRACE_MS - 20);
		expect(after).toBeLessThan(1000);
		const withheld = `Aborted: the batch was cancelled and the afterToolCall hook for t did not finish within ${ABORT_GRACE_MS} ms; the tool's result is withheld.`;
		// Sequential: the second call waits behind the first one's hook, so it never runs.
		const second = toolExecution === "parallel" ? withheld : NOT_RUN;
		expect(outcomes).toEqual([
			[true, "E_ABORTED", withheld],
			[true, "E_ABORTED", second],
		]);
		// The unpatched result reaches neither the model nor a listener.
		expect(seen.join()).not.toContain("secret");
	});

	it("gives a tool that ignores its signal and never settles an aborted result, and ignores it afterwards", async () => {
		const late = deferred<ReturnType<typeof text>>();
		const updates: unknown[] = [];
		let afterCalls = 0;
		const stubborn = tool("t", (_id, _args, _signal, onUpdate) => {
			late.promise.then(() => onUpdate?.(text("too late")));
			return late.promise;
		});
		const { after, outcomes } = await abortedBatch({
			tools: [stubborn],
			toolExecution,
			afterToolCall: () => {
				afterCalls++;
				return undefined;
			},
			onEvent: (event) => {
				if (event.type === "tool_execution_update") updates.push(event);
			},
		});
		expect(after).toBeGreaterThanOrEqual(ABORT_GRACE_MS - 20);
		expect(after).toBeLessThan(1000);
		const abandoned = `Aborted: the batch was cancelled and tool t did not stop within ${ABORT_GRACE_MS} ms; its outcome, if it ever comes, is ignored.`;
		expect(outcomes).toEqual([
			[true, "E_ABORTED", abandoned],
			[true, "E_ABORTED", toolExecution === "parallel" ? abandoned : NOT_RUN],
		]);
		// No tool outcome to show: the after hook is not asked about an abandoned call.
		expect(afterCalls).toBe(0);
		late.resolve(text("finally"));
		await new Promise((resolve) => setTimeout(resolve, 10));
		expect(updates).toEqual([]);
	});

	it("still reports the tool's own message when it stops promptly on the abort", async () => {
		const polite = tool("t", (_id, _args, signal) => {
			return new Promise((_resolve, reject) => {
				signal?.addEventListener("abort", () => setTimeout(() => reject(new Error("Command aborted")), 50));
			});
		});
		const { after, outcomes } = await abortedBatch({ tools: [polite], toolExecution }, ["1"]);
		expect(after).toBeLessThan(ABORT_GRACE_MS);
		expect(outcomes).toEqual([[true, "E_TOOL_FAILED", "Command aborted"]]);
	});

	it("ignores what a hook that outlived the batch answers later, without an unhandled rejection", async () => {
		const before = deferred<undefined>();
		const asked = deferred();
		const controller = new AbortController();
		const running = executeToolCalls([call("1", "t")], {
			tools: [ok],
			toolExecution,
			signal: controller.signal,
			beforeToolCall: () => {
				asked.resolve();
				return before.promise;
			},
		});
		await asked.promise;
		controller.abort();
		const { results } = await running;
		before.reject(new Error("late"));
		await new Promise((resolve) => setTimeout(resolve, 10));
		expect(firstText(results[0] as never)).toBe(NOT_RUN);
	});

	it("with passSignalThrough, bounds the wait the same way", async () => {
		const { after, outcomes } = await abortedBatch({
			tools: [tool("t", () => never())],
			toolExecution,
			passSignalThrough: true,
		});
		expect(after).toBeLessThan(1000);
		expect(outcomes.map(([, code]) => code)).toEqual(["E_ABORTED", "E_ABORTED"]);
	});
});

describe("a parallel batch with a concurrency limit and a stuck tool", () => {
	it("resolves after an abort, the waiting calls getting the not-run result", async () => {
		const { after, outcomes } = await abortedBatch({ tools: [tool("t", () => never())], maxConcurrency: 1 }, [
			"1",
			"2",
			"3",
		]);
		expect(after).toBeLessThan(1000);
		expect(outcomes.map(([, , message]) => message.slice(0, 40))).toEqual([
			"Aborted: the batch was cancelled and too",
			NOT_RUN,
			NOT_RUN,
		]);
	});
});

describe("no abort", () => {
	it("waits for a slow tool and a slow hook as long as they take", async () => {
		const controller = new AbortController();
		const slow = tool(
			"t",
			() => new Promise((resolve) => setTimeout(() => resolve(text("slow")), ABORT_GRACE_MS + 100)),
		);
		const { results } = await executeToolCalls([call("1", "t")], {
			tools: [slow],
			signal: controller.signal,
			afterToolCall: () => new Promise((resolve) => setTimeout(() => resolve(undefined), 50)),
		});
		expect(firstText(results[0] as never)).toBe("slow");
	});
});
