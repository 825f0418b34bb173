/** How `toolsmith eval` prints a report and a comparison. */
import type { Theme } from "../contract/render.js";
import type { EvalComparison } from "../eval/compare.js";
import type { EvalReport, EvalUsage, ScenarioReport, TrialResult } from "../eval/types.js";
import { formatTable } from "./_format.js";

function percent(rate: number): string {
	return `${Math.round(rate * 100)}%`;
}

function signedPercent(rate: number): string {
	const value = Math.round(rate * 100);
	return `${value > 0 ? "+" : ""}${value}%`;
}

/** Tokens and cost, as far as they were reported (empty when nothing was). */
export function usageText(usage: EvalUsage): string {
	const parts: string[] = [];
	if (usage.inputTokens !== undefined || usage.outputTokens !== undefined) {
		parts.push(`${usage.inputTokens ?? 0} in / ${usage.outputTokens ?? 0} out tokens`);
	}
	if (usage.costUsd !== undefined) parts.push(`$${usage.costUsd.toFixed(4)}`);
	return parts.join(", ");
}

/** One line per finished trial, for output that is not a terminal. */
export function trialLine(result: TrialResult, theme: Theme): string {
	const verdict = result.passed ? theme.fg("success", "pass") : theme.fg("error", "FAIL");
	const why = result.passed ? "" : ` (${[...new Set(result.failures.map((f) => f.expectation))].join(", ")})`;
	return `${verdict} ${result.scenario} #${result.trial}${why}, ${result.turns} turn${result.turns === 1 ? "" : "s"}, ${Math.round(result.durationMs)} ms`;
}

function indent(text: string, by: string): string {
	return text
		.split("\n")
		.map((line) => `${by}${line}`)
		.join("\n");
}

/** A trial's trajectory: each turn's calls with their arguments (`!`: an error result), then the answer. */
export function trajectoryLines(result: TrialResult): string[] {
	const lines: string[] = [];
	for (let turn = 1; turn <= result.turns; turn++) {
		const calls = result.calls.filter((entry) => entry.turn === turn);
		if (calls.length === 0) continue;
		const shown = calls.map((entry) => {
			const args =
				typeof entry.call.arguments === "string" ? entry.call.arguments : JSON.stringify(entry.call.arguments);
			return `${entry.call.name}(${args && args.length > 160 ? `${args.slice(0, 159)}…` : args})${entry.isError ? "!" : ""}`;
		});
		lines.push(`turn ${turn}: ${shown.join(", ")}`);
	}
	const answer = result.answer.length > 200 ? `${result.answer.slice(0, 199)}…` : result.answer;
	lines.push(`answer: ${JSON.stringify(answer)}`);
	return lines;
}

/**
 * One scenario: its pass rate against the goal, its failing trials, invalid arguments, turns and
 * usage; `verbose` adds every trial's trajectory.
 */
export function formatScenario(report: ScenarioReport, theme: Theme, verbose = false): string[] {
	const verdict = report.ok ? theme.fg("success", "ok") : theme.fg("error", "UNDER GOAL");
	const usage = usageText(report.usage);
	const lines = [
		`${theme.bold(report.scenario)}  ${report.passed}/${report.trials} passed (${percent(report.passRate)}, goal ${percent(report.goal)})  ${verdict}`,
		theme.fg("muted", `  turns ${report.meanTurns.toFixed(1)} on average${usage ? `, ${usage}` : ""}`),
	];
	for (const [tool, stats] of Object.entries(report.invalidArguments)) {
		if (stats.invalid === 0) continue;
		const fields = Object.entries(stats.fields)
			.sort((a, b) => b[1] - a[1])
			.map(([field, count]) => `${field} ×${count}`)
			.join(", ");
		lines.push(
			theme.fg(
				"warning",
				`  invalid arguments: ${tool} ${stats.invalid}/${stats.calls} calls (${percent(stats.invalid / stats.calls)}): ${fields}`,
			),
		);
	}
	// Without --verbose, failing trials that failed the same way are printed once, with their numbers.
	const printed = new Map<string, { readonly trials: number[]; readonly at: number }>();
	for (const result of report.results) {
		if (result.passed) {
			if (verbose) {
				lines.push(
					`  ${theme.fg("success", `#${result.trial} passed`)} (${result.turns} turn${result.turns === 1 ? "" : "s"})`,
				);
				for (const line of trajectoryLines(result)) lines.push(theme.fg("muted", `    ${line}`));
			}
			continue;
		}
		const how = `(${result.turns} turn${result.turns === 1 ? "" : "s"}, ended by ${result.ended})`;
		const body = result.failures.map((failure) => indent(`${failure.expectation}: ${failure.message}`, "    "));
		if (verbose) {
			for (const line of trajectoryLines(result)) body.push(theme.fg("muted", `    ${line}`));
		} else if (result.failures.some((f) => f.expectation === "calls" || f.expectation === "forbid")) {
			const calls = result.calls.map((c) => `${c.call.name}${c.isError ? "!" : ""}`);
			body.push(theme.fg("muted", `    the model called: ${calls.length > 0 ? calls.join(" → ") : "nothing"}`));
		}
		const key = `${how}\n${body.join("\n")}`;
		const same = verbose ? undefined : printed.get(key);
		if (same) {
			same.trials.push(result.trial);
			lines[same.at] = `  ${theme.fg("error", `${same.trials.map((n) => `#${n}`).join(", ")} failed`)} ${how}`;
			continue;
		}
		printed.set(key, { trials: [result.trial], at: lines.length });
		lines.push(`  ${theme.fg("error", `#${result.trial} failed`)} ${how}`, ...body);
	}
	return lines;
}

/** The whole report: every scenario, then how many met their goal. */
export function formatReport(report: EvalReport, theme: Theme, verbose = false): string {
	const lines = [theme.fg("muted", `model ${report.model}`), ""];
	for (const scenario of report.scenarios) lines.push(...formatScenario(scenario, theme, verbose), "");
	const met = report.scenarios.filter((s) => s.ok).length;
	const total = report.scenarios.length;
	lines.push(
		report.ok
			? theme.fg("success", `${met} of ${total} scenario${total === 1 ? " met its" : "s met their"} goal`)
			: theme.fg(
					"error",
					`${total - met} of ${total} scenario${total === 1 ? " fell under its" : "s fell under their"} goal`,
				),
	);
	return lines.join("\n");
}

/** The comparison table: pass rates of A and B, B − A with its 95% interval, and the verdict. */
export function formatComparison(comparison: EvalComparison, theme: Theme): string {
	const rows = comparison.scenarios.map((s) => {
		const verdict =
			s.verdict === "within noise"
				? theme.fg(
						"warning",
						`within noise${s.trialsNeeded !== undefined ? ` (about ${s.trialsNeeded} trials each would resolve ${signedPercent(s.difference)})` : ""}`,
					)
				: s.verdict === "higher"
					? theme.fg("success", "B better")
					: theme.fg("error", "B worse");
		return [
			s.scenario,
			`${s.a.passed}/${s.a.trials}`,
			`${s.b.passed}/${s.b.trials}`,
			signedPercent(s.difference),
			`[${signedPercent(s.interval.low)}, ${signedPercent(s.interval.high)}]`,
			verdict,
		];
	});
	const lines = [
		`A: ${comparison.a}`,
		`B: ${comparison.b}`,
		...formatTable(["scenario", "A", "B", "B − A", "95% interval", "verdict"], rows, theme),
	];
	for (const name of comparison.onlyInA) lines.push(theme.fg("muted", `  ${name}: only in A`));
	for (const name of comparison.onlyInB) lines.push(theme.fg("muted", `  ${name}: only in B`));
	return lines.join("\n");
}
