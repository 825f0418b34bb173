import { describe, expect, it } from "vitest";
import {
	compareCounts,
	compareEvals,
	newcombeInterval,
	trialsToResolve,
	wilsonInterval,
} from "../../../src/eval/compare.js";
import type { EvalReport, ScenarioReport } from "../../../src/eval/types.js";

describe("wilsonInterval", () => {
	it("matches published values", () => {
		// Newcombe (1998), Statistics in Medicine 17:857–872, table I: 81/263 → 0.2553–0.3662
		const a = wilsonInterval(81, 263);
		expect(a.low).toBeCloseTo(0.2553, 4);
		expect(a.high).toBeCloseTo(0.3662, 4);
		// 0 of 10 → 0–0.2775 (the same table's 0/10 row)
		const b = wilsonInterval(0, 10);
		expect(b.low).toBe(0);
		expect(b.high).toBeCloseTo(0.2775, 4);
	});
});

describe("newcombeInterval (hybrid score, method 10)", () => {
	it("matches Newcombe's worked examples", () => {
		// Newcombe (1998), Statistics in Medicine 17:873–890, table II: 56/70 − 48/80 → 0.0524 to 0.3339
		const a = newcombeInterval(48, 80, 56, 70);
		expect(a.low).toBeCloseTo(0.0524, 4);
		expect(a.high).toBeCloseTo(0.3339, 4);
		// 9/10 − 3/10 → 0.1705 to 0.8090
		const b = newcombeInterval(3, 10, 9, 10);
		expect(b.low).toBeCloseTo(0.1705, 4);
		expect(b.high).toBeCloseTo(0.809, 3);
	});
});

describe("compareCounts", () => {
	it("says within noise when the interval contains 0, with the trials a difference this size needs", () => {
		const c = compareCounts("s", { passed: 6, trials: 10, passRate: 0.6 }, { passed: 8, trials: 10, passRate: 0.8 });
		expect(c.difference).toBeCloseTo(0.2);
		expect(c.interval.low).toBeLessThan(0);
		expect(c.verdict).toBe("within noise");
		// (1.96 + 0.84)² · (0.24 + 0.16) / 0.04 ≈ 78.5
		expect(c.trialsNeeded).toBe(79);
		expect(trialsToResolve(0.6, 0.8)).toBe(79);
	});

	it("says higher or lower when it does not", () => {
		expect(
			compareCounts("s", { passed: 3, trials: 10, passRate: 0.3 }, { passed: 9, trials: 10, passRate: 0.9 }).verdict,
		).toBe("higher");
		const lower = compareCounts("s", { passed: 20, trials: 20, passRate: 1 }, { passed: 2, trials: 20, passRate: 0.1 });
		expect(lower.verdict).toBe("lower");
		expect(lower.trialsNeeded).toBeUndefined();
	});
});

describe("compareEvals", () => {
	const scenario = (name: string, passed: number, trials: number): ScenarioReport => ({
		scenario: name,
		trials,
		passed,
		passRate: passed / trials,
		goal: 1,
		ok: passed === trials,
		results: [],
		invalidArguments: {},
		meanTurns: 1,
		usage: {},
	});
	const report = (model: string, scenarios: ScenarioReport[]): EvalReport => ({ model, scenarios, ok: false });

	it("pairs scenarios by name and lists those only one side ran", () => {
		const c = compareEvals(
			report("m", [scenario("x", 2, 10), scenario("only-a", 1, 1)]),
			report("m", [scenario("x", 10, 10), scenario("only-b", 1, 1)]),
			{ a: "before", b: "after" },
		);
		expect(c.a).toBe("before");
		expect(c.scenarios.map((s) => [s.scenario, s.verdict])).toEqual([["x", "higher"]]);
		expect(c.onlyInA).toEqual(["only-a"]);
		expect(c.onlyInB).toEqual(["only-b"]);
	});
});
