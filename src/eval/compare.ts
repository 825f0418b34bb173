/**
 * Comparing two eval reports scenario by scenario: the difference of the pass rates with a 95%
 * interval (Newcombe's hybrid Wilson score interval for the difference of two independent
 * proportions), a verdict that says "within noise" when the interval contains 0, and roughly how
 * many trials each side would need for a difference of that size to stand out. Runtime-neutral.
 */
import type { EvalReport } from "./types.js";

/** The normal quantile of a two-sided 95% interval. */
export const Z_95 = 1.959963984540054;

/** An interval `[low, high]`. */
export interface Interval {
	readonly low: number;
	readonly high: number;
}

/**
 * Wilson's score interval for a proportion of `successes` out of `trials` (95% by default): it stays
 * inside 0..1 and behaves at 0 and at `trials` successes, where the textbook interval collapses.
 * `trials` 0 gives the whole 0..1.
 */
export function wilsonInterval(successes: number, trials: number, z = Z_95): Interval {
	if (trials <= 0) return { low: 0, high: 1 };
	const p = successes / trials;
	const z2 = z * z;
	const denominator = 1 + z2 / trials;
	const center = (p + z2 / (2 * trials)) / denominator;
	const half = (z / denominator) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
	return { low: Math.max(0, center - half), high: Math.min(1, center + half) };
}

/**
 * Newcombe's hybrid score interval (his method 10) for `p2 - p1`, the difference of two independent
 * proportions `x1/n1` and `x2/n2`: from the Wilson intervals `[l1,u1]`, `[l2,u2]` of each,
 * `d - sqrt((p2-l2)² + (u1-p1)²)` to `d + sqrt((u2-p2)² + (p1-l1)²)`.
 */
export function newcombeInterval(x1: number, n1: number, x2: number, n2: number, z = Z_95): Interval {
	const p1 = n1 > 0 ? x1 / n1 : 0;
	const p2 = n2 > 0 ? x2 / n2 : 0;
	const a = wilsonInterval(x1, n1, z);
	const b = wilsonInterval(x2, n2, z);
	const d = p2 - p1;
	return {
		low: d - Math.sqrt((p2 - b.low) ** 2 + (a.high - p1) ** 2),
		high: d + Math.sqrt((b.high - p2) ** 2 + (p1 - a.low) ** 2),
	};
}

/** The normal quantile of 80% power (one-sided). */
const Z_POWER_80 = 0.8416212335729143;

/**
 * About how many trials per side a true difference `p2 - p1` needs to show, with 80% power, as a
 * 95% interval that excludes 0 (the normal approximation:
 * `(z₀.₉₇₅ + z₀.₈)² · (p1(1-p1) + p2(1-p2)) / d²`). `undefined` when the rates are equal.
 */
export function trialsToResolve(p1: number, p2: number): number | undefined {
	const d = p2 - p1;
	if (d === 0) return undefined;
	const variance = Math.max(p1 * (1 - p1) + p2 * (1 - p2), 1e-9);
	return Math.ceil(((Z_95 + Z_POWER_80) ** 2 * variance) / (d * d));
}

/** One side of a comparison: trials passed out of trials run. */
export interface ComparedSide {
	readonly passed: number;
	readonly trials: number;
	readonly passRate: number;
}

/** One scenario compared: its pass rates, their difference `b - a` with a 95% interval, and the verdict. */
export interface ScenarioComparison {
	readonly scenario: string;
	readonly a: ComparedSide;
	readonly b: ComparedSide;
	/** `b.passRate - a.passRate`. */
	readonly difference: number;
	/** The 95% interval of the difference (Newcombe's hybrid score interval). */
	readonly interval: Interval;
	/** `higher`/`lower`: b passes more/less often beyond the noise; `within noise`: the interval holds 0. */
	readonly verdict: "higher" | "lower" | "within noise";
	/** With `within noise` and a difference other than 0: about how many trials per side would resolve it. */
	readonly trialsNeeded?: number;
}

/** Every scenario both reports ran, compared; scenarios only one ran are listed by name. */
export interface EvalComparison {
	readonly a: string;
	readonly b: string;
	readonly scenarios: readonly ScenarioComparison[];
	readonly onlyInA: readonly string[];
	readonly onlyInB: readonly string[];
}

/** Compare two sides' counts (`b` against `a`). */
export function compareCounts(scenario: string, a: ComparedSide, b: ComparedSide): ScenarioComparison {
	const interval = newcombeInterval(a.passed, a.trials, b.passed, b.trials);
	const difference = b.passRate - a.passRate;
	const verdict = interval.low > 0 ? "higher" : interval.high < 0 ? "lower" : "within noise";
	const needed = verdict === "within noise" ? trialsToResolve(a.passRate, b.passRate) : undefined;
	return {
		scenario,
		a,
		b,
		difference,
		interval,
		verdict,
		...(needed !== undefined ? { trialsNeeded: needed } : {}),
	};
}

/**
 * Compare report `b` with report `a` scenario by scenario (matched by name): pass rates, the
 * difference `b - a` with its 95% interval, and a verdict.
 */
export function compareEvals(a: EvalReport, b: EvalReport, labels: { a?: string; b?: string } = {}): EvalComparison {
	const side = (report: EvalReport["scenarios"][number]): ComparedSide => ({
		passed: report.passed,
		trials: report.trials,
		passRate: report.passRate,
	});
	const scenarios: ScenarioComparison[] = [];
	for (const left of a.scenarios) {
		const right = b.scenarios.find((s) => s.scenario === left.scenario);
		if (right) scenarios.push(compareCounts(left.scenario, side(left), side(right)));
	}
	return {
		a: labels.a ?? a.model,
		b: labels.b ?? b.model,
		scenarios,
		onlyInA: a.scenarios.filter((s) => !b.scenarios.some((t) => t.scenario === s.scenario)).map((s) => s.scenario),
		onlyInB: b.scenarios.filter((s) => !a.scenarios.some((t) => t.scenario === s.scenario)).map((s) => s.scenario),
	};
}
