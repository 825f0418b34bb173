/**
 * The request timeout of the eval loop, on fake timers: a model request that never settles is cut
 * exactly at the timeout (not before), its signal aborted, its trial failed with an error naming the
 * option, and the run goes on with the next trial; 0 means no limit; bad values are refused.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { DEFAULT_REQUEST_TIMEOUT_MS, runTrial } from "../../../src/eval/loop.js";
import { runEvals } from "../../../src/eval/node-run.js";
import { scenarioRegistry, toolsetOf } from "../../../src/eval/toolset.js";
import type { EvalModel, EvalModelRequest, EvalScenario, TrialResult } from "../../../src/eval/types.js";

afterEach(() => {
	vi.useRealTimers();
});

const hangs: EvalScenario = { name: "hangs", prompt: "hang", expect: { answer: "ok" } };
const answers: EvalScenario = { name: "answers", prompt: "answer", expect: { answer: "ok" } };

/** Never answers a prompt starting with "hang" (and ignores its signal); answers "ok" to others. */
function stallingModel(seen: EvalModelRequest[] = []): EvalModel {
	return {
		id: "test/stalling",
		turn(request) {
			seen.push(request);
			const prompt = request.messages[0]?.role === "user" ? request.messages[0].text : "";
			if (prompt.startsWith("hang")) return new Promise(() => {});
			return Promise.resolve({ text: "ok", toolCalls: [] });
		},
	};
}

function trial(model: EvalModel, requestTimeoutMs?: number): Promise<TrialResult> {
	return runTrial({
		scenario: hangs,
		trial: 1,
		model,
		toolset: toolsetOf(scenarioRegistry(hangs), hangs),
		env: new MemoryExecutionEnv(),
		...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
	});
}

describe("the request timeout", () => {
	it("cuts a request that never settles at the timeout, not before, aborting its signal", async () => {
		vi.useFakeTimers();
		const seen: EvalModelRequest[] = [];
		let result: TrialResult | undefined;
		void trial(stallingModel(seen), 1500).then((r) => {
			result = r;
		});
		await vi.advanceTimersByTimeAsync(1499);
		expect(result).toBeUndefined();
		expect(seen[0]?.signal?.aborted).toBe(false);
		await vi.advanceTimersByTimeAsync(1);
		expect(seen[0]?.signal?.aborted).toBe(true);
		expect(result).toMatchObject({ passed: false, ended: "error", turns: 0 });
		expect(result?.failures[0]?.message).toBe(
			"the trial stopped on an error: the model did not answer within 1.5 s (the request timeout: --request-timeout of toolsmith eval, requestTimeoutMs of runEvals); raise it for a slower model or server",
		);
	});

	it("is 10 minutes unless said otherwise", async () => {
		vi.useFakeTimers();
		let result: TrialResult | undefined;
		void trial(stallingModel()).then((r) => {
			result = r;
		});
		await vi.advanceTimersByTimeAsync(DEFAULT_REQUEST_TIMEOUT_MS - 1);
		expect(result).toBeUndefined();
		await vi.advanceTimersByTimeAsync(1);
		expect(result?.failures[0]?.message).toMatch(/did not answer within 10 min \(the request timeout/);
	});

	it("with 0, waits as long as the model takes", async () => {
		vi.useFakeTimers();
		const slow: EvalModel = {
			id: "test/slow",
			turn: () => new Promise((resolve) => setTimeout(() => resolve({ text: "ok", toolCalls: [] }), 3_600_000)),
		};
		let result: TrialResult | undefined;
		void trial(slow, 0).then((r) => {
			result = r;
		});
		await vi.advanceTimersByTimeAsync(3_600_000);
		expect(result).toMatchObject({ passed: true, ended: "answer" });
	});

	it("fails only the trial that timed out: runEvals goes on with the next", async () => {
		vi.useFakeTimers();
		const ended: string[] = [];
		const running = runEvals([hangs, answers], {
			model: stallingModel(),
			requestTimeoutMs: 50,
			onTrial: (r) => ended.push(`${r.scenario} ${r.passed ? "passed" : r.ended}`),
		});
		await vi.advanceTimersByTimeAsync(50);
		const report = await running;
		expect(ended).toEqual(["hangs error", "answers passed"]);
		expect(report.scenarios[0]?.results[0]?.failures[0]?.message).toMatch(/requestTimeoutMs/);
		expect(report.ok).toBe(false);
	});

	it("refuses a timeout that is negative, not a number, or more than a timer holds", async () => {
		for (const requestTimeoutMs of [-1, Number.NaN, 2 ** 31]) {
			await expect(runEvals([answers], { model: stallingModel(), requestTimeoutMs })).rejects.toThrow(
				/^requestTimeoutMs: a number of milliseconds from 1 to 2147483647 \(0 or Infinity: no limit\)/,
			);
		}
	});
});
