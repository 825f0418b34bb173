/** The conformance report as text: a line per check, the details of failures, stale baseline entries, totals. */
import { applyConformanceBaseline, type ConformanceSummary } from "./conformance-baseline.js";
import type { ToolConformanceReport } from "./conformance-checks.js";

/** A readable report: one line per check, details of failures and skips below, stale entries at the end. */
export function formatConformanceReport(
	summary: ConformanceSummary | ToolConformanceReport,
	options: { readonly verbose?: boolean } = {},
): string {
	const full = "reports" in summary ? summary : applyConformanceBaseline([summary]);
	const lines: string[] = [];
	for (const report of full.reports) {
		lines.push(`${report.pass ? "PASS" : "FAIL"} ${report.tool}`);
		for (const c of report.checks) {
			const mark = c.status === "pass" ? "✓" : c.status === "skip" ? "-" : c.expectedFailure ? "x" : "✗";
			const note = c.expectedFailure ? " (expected failure)" : "";
			lines.push(`  ${mark} ${c.id}: ${c.message}${note}`);
			// A skip's details say why it could not run (what the samples did), which is what to fix.
			if (c.status !== "pass" || options.verbose) for (const detail of c.details) lines.push(`      ${detail}`);
		}
	}
	for (const entry of full.stale) lines.push(`✗ stale baseline entry ${entry.tool}: ${entry.check}: ${entry.reason}`);
	const c = full.counts;
	lines.push(
		`${c.pass} passed, ${c.fail} failed, ${c.skip} skipped${c.expected ? `, ${c.expected} expected failure(s)` : ""}${full.stale.length ? `, ${full.stale.length} stale baseline entr${full.stale.length === 1 ? "y" : "ies"}` : ""}`,
	);
	return lines.join("\n");
}
