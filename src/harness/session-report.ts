/** The session replay report: figures tallied from the call outcomes, and the report as text for people. */
import type {
	SessionCallOutcome,
	SessionReplayFigures,
	SessionReplayReport,
	SessionToolFigures,
	UnknowableReason,
} from "./replay-session.js";

/** The figures of a replay: the outcomes counted by status, by tool, by unknowable reason and by rule. */
export function summarizeOutcomes(outcomes: readonly SessionCallOutcome[]): SessionReplayFigures {
	type Counts = { calls: number; match: number; mismatch: number; unknowable: number; seeded: number };
	const empty = (): Counts => ({ calls: 0, match: 0, mismatch: 0, unknowable: 0, seeded: 0 });
	const byTool: Record<string, Counts> = {};
	const total = empty();
	const reasons: Partial<Record<UnknowableReason, number>> = {};
	const rules: Record<string, number> = {};
	const count = (counts: Counts, outcome: SessionCallOutcome) => {
		counts.calls++;
		if (outcome.status === "match") {
			counts.match++;
			if (outcome.seeded) counts.seeded++;
		} else if (outcome.status === "mismatch") counts.mismatch++;
		else counts.unknowable++;
	};
	for (const outcome of outcomes) {
		let tool = byTool[outcome.toolName];
		if (tool === undefined) {
			tool = empty();
			byTool[outcome.toolName] = tool;
		}
		count(tool, outcome);
		count(total, outcome);
		if (outcome.reason) reasons[outcome.reason] = (reasons[outcome.reason] ?? 0) + 1;
		for (const rule of outcome.rules) rules[rule] = (rules[rule] ?? 0) + 1;
	}
	return {
		...total,
		byTool,
		seededReads: byTool.read?.seeded ?? 0,
		unknowableReasons: reasons,
		rules,
	};
}

function pad(text: string | number, width: number, right = false): string {
	const value = String(text);
	return right ? value.padStart(width) : value.padEnd(width);
}

/**
 * The fidelity report as text: a table per tool, the reasons for unknowable calls, the rules used,
 * then every mismatch with its diff (and, with `verbose`, every unknowable call and why).
 */
export function formatSessionReplayReport(
	report: SessionReplayReport,
	options: { readonly verbose?: boolean; readonly source?: string } = {},
): string {
	const f = report.figures;
	const lines: string[] = [];
	lines.push(
		`${report.ok ? "PASS" : "FAIL"} session replay${options.source ? ` of ${options.source}` : ""} (cwd ${report.cwd})`,
	);
	const width = Math.max(5, ...Object.keys(f.byTool).map((name) => name.length));
	lines.push(`  ${pad("tool", width)}  ${pad("calls", 5, true)}  ${pad("match", 5, true)}  mismatch  unknowable`);
	const row = (name: string, t: SessionToolFigures) =>
		`  ${pad(name, width)}  ${pad(t.calls, 5, true)}  ${pad(t.match, 5, true)}  ${pad(t.mismatch, 8, true)}  ${pad(t.unknowable, 10, true)}`;
	for (const [name, figures] of Object.entries(f.byTool)) lines.push(row(name, figures));
	lines.push(row("total", f));
	const seeded = Object.entries(f.byTool)
		.filter(([, t]) => t.seeded > 0)
		.map(([name, t]) => `${name} ${t.seeded}`);
	lines.push(
		`  matches that learned what they needed from their own result: ${f.seeded}${seeded.length ? ` (${seeded.join(", ")})` : ""}`,
	);
	const reasons = Object.entries(f.unknowableReasons).map(([reason, count]) => `${reason} ${count}`);
	if (reasons.length > 0) lines.push(`  unknowable because: ${reasons.join(", ")}`);
	const rules = Object.entries(f.rules).map(([rule, count]) => `${rule} ${count}`);
	if (rules.length > 0) lines.push(`  normalisation rules applied: ${rules.join(", ")}`);
	for (const call of report.calls) {
		if (call.status === "match" || (call.status === "unknowable" && !options.verbose)) continue;
		const where = `#${call.index} ${call.toolName} (batch ${call.batch}, ${call.toolCallId})`;
		lines.push(
			`  ${call.status === "mismatch" ? "✗" : "?"} ${where}: ${call.reason ? `${call.reason}: ` : ""}${call.message}`,
		);
		if (call.status === "mismatch" && call.diff) {
			for (const diffLine of call.diff.split("\n")) lines.push(`      ${diffLine}`);
		}
	}
	return lines.join("\n");
}
