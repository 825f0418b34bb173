/** Summing a scenario's trials up: pass rate against the goal, invalid arguments per tool, turns, usage. Runtime-neutral. */
import { sumUsage } from "./loop.js";
import type { EvalScenario, InvalidArgumentStats, ScenarioReport, TrialResult } from "./types.js";

/** The report of one scenario's trials (in trial order). */
export function scenarioReport(scenario: EvalScenario, results: readonly TrialResult[]): ScenarioReport {
	const sorted = [...results].sort((a, b) => a.trial - b.trial);
	const passed = sorted.filter((result) => result.passed).length;
	const trials = sorted.length;
	const passRate = trials === 0 ? 0 : passed / trials;
	const goal = scenario.passRate ?? 1;
	const invalid: Record<string, { calls: number; invalid: number; fields: Record<string, number> }> = {};
	for (const result of sorted) {
		for (const entry of result.calls) {
			invalid[entry.call.name] ??= { calls: 0, invalid: 0, fields: {} };
			const stats = invalid[entry.call.name]!;
			stats.calls++;
			if (entry.invalidFields.length > 0) {
				stats.invalid++;
				for (const field of entry.invalidFields) stats.fields[field] = (stats.fields[field] ?? 0) + 1;
			}
		}
	}
	return {
		scenario: scenario.name,
		trials,
		passed,
		passRate,
		goal,
		// A small tolerance so that, say, 7 of 10 meets a goal written 0.7.
		ok: trials > 0 && passRate + 1e-9 >= goal,
		results: sorted,
		invalidArguments: invalid as Record<string, InvalidArgumentStats>,
		meanTurns: trials === 0 ? 0 : sorted.reduce((sum, result) => sum + result.turns, 0) / trials,
		usage: sumUsage(sorted.map((result) => result.usage)),
	};
}
