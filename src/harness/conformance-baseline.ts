/** Expected-failure baselines: reading one, and applying it to tools' conformance reports (stale entries, totals). */
import { CONFORMANCE_CHECKS, type ToolConformanceReport } from "./conformance-checks.js";

/**
 * Known failures a project accepts for now: tool name → ids of checks expected to fail. An entry
 * that no longer fails (or names a tool or check that does not exist) is stale, and a stale entry
 * is itself a failure, so the baseline only ever shrinks.
 */
export interface ConformanceBaseline {
	readonly expectedFailures: Readonly<Record<string, readonly string[]>>;
}

/** A baseline entry that accepts a failure which no longer happens: remove it from the baseline. */
export interface StaleBaselineEntry {
	readonly tool: string;
	readonly check: string;
	readonly reason: string;
}

/** Reports of several tools with a baseline applied: the reports, stale baseline entries, counts, and whether it all passes. */
export interface ConformanceSummary {
	readonly reports: readonly ToolConformanceReport[];
	readonly stale: readonly StaleBaselineEntry[];
	/** No unexpected failure and no stale baseline entry. */
	readonly pass: boolean;
	readonly counts: { readonly pass: number; readonly fail: number; readonly skip: number; readonly expected: number };
}

/** Check that `value` is a baseline; throws naming the problem. */
export function parseConformanceBaseline(value: unknown, source = "baseline"): ConformanceBaseline {
	const failures = (value as { expectedFailures?: unknown } | null)?.expectedFailures;
	if (typeof failures !== "object" || failures === null || Array.isArray(failures)) {
		throw new Error(`${source}: expected { "expectedFailures": { "<tool>": ["<check id>", …] } }`);
	}
	for (const [tool, ids] of Object.entries(failures)) {
		if (!Array.isArray(ids) || ids.some((id) => typeof id !== "string")) {
			throw new Error(`${source}: expectedFailures.${tool} must be an array of check ids`);
		}
	}
	return { expectedFailures: failures as Record<string, string[]> };
}

/** Mark expected failures, find stale baseline entries, and total everything up. */
export function applyConformanceBaseline(
	reports: readonly ToolConformanceReport[],
	baseline: ConformanceBaseline = { expectedFailures: {} },
): ConformanceSummary {
	const stale: StaleBaselineEntry[] = [];
	const known = new Set<string>(CONFORMANCE_CHECKS.map((c) => c.id));
	const marked = reports.map((report) => {
		const expected = new Set(baseline.expectedFailures[report.tool] ?? []);
		const checks = report.checks.map((c) =>
			expected.has(c.id) && c.status === "fail" ? { ...c, expectedFailure: true } : c,
		);
		for (const id of expected) {
			const found = report.checks.find((c) => c.id === id);
			if (!known.has(id)) stale.push({ tool: report.tool, check: id, reason: "no check has this id" });
			else if (found && found.status !== "fail") {
				stale.push({
					tool: report.tool,
					check: id,
					reason: `it now ${found.status === "pass" ? "passes" : "is skipped"}; remove the entry`,
				});
			}
		}
		return { ...report, checks, pass: checks.every((c) => c.status !== "fail" || c.expectedFailure === true) };
	});
	const tools = new Set(reports.map((r) => r.tool));
	for (const [tool, ids] of Object.entries(baseline.expectedFailures)) {
		if (tools.has(tool)) continue;
		for (const id of ids) stale.push({ tool, check: id, reason: "no tool of this name was checked" });
	}
	const all = marked.flatMap((r) => r.checks);
	const counts = {
		pass: all.filter((c) => c.status === "pass").length,
		fail: all.filter((c) => c.status === "fail" && !c.expectedFailure).length,
		skip: all.filter((c) => c.status === "skip").length,
		expected: all.filter((c) => c.expectedFailure === true).length,
	};
	return { reports: marked, stale, pass: counts.fail === 0 && stale.length === 0, counts };
}
