/** Small measuring helpers shared by the benchmarks. Figures are printed as ratios measured in one run. */
import { readFileSync, writeFileSync } from "node:fs";

export interface Timing {
	readonly medianMs: number;
	readonly minMs: number;
	readonly samples: number[];
}

/** Run `fn` `runs` times (after `warmup` unmeasured runs) and report median and minimum wall time. */
export async function time(fn: () => unknown, runs = 5, warmup = 1): Promise<Timing> {
	for (let i = 0; i < warmup; i++) await fn();
	const samples: number[] = [];
	for (let i = 0; i < runs; i++) {
		const start = performance.now();
		await fn();
		samples.push(performance.now() - start);
	}
	const sorted = [...samples].sort((a, b) => a - b);
	return { medianMs: sorted[Math.floor(sorted.length / 2)] ?? 0, minMs: sorted[0] ?? 0, samples };
}

export function percentile(values: readonly number[], p: number): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
	return sorted[index] ?? Number.NaN;
}

export interface Verdict {
	readonly name: string;
	readonly figure: string;
	readonly pass: boolean;
}

const verdicts: Verdict[] = [];

/** Record and print one goal: `ratio` against `limit` (lower is better). */
export function report(name: string, ratio: number, limit: number, detail = ""): void {
	const pass = ratio <= limit;
	const figure = `${ratio.toFixed(4)}× (goal ≤ ${limit}×)${detail ? ` · ${detail}` : ""}`;
	verdicts.push({ name, figure, pass });
	console.log(`${pass ? "PASS" : "FAIL"}  ${name}: ${figure}`);
}

/** Record and print a goal measured in absolute units against a physical bound. */
export function reportValue(name: string, value: number, limit: number, unit: string, detail = ""): void {
	const pass = value <= limit;
	const figure = `${value.toFixed(1)} ${unit} (goal ≤ ${limit} ${unit})${detail ? ` · ${detail}` : ""}`;
	verdicts.push({ name, figure, pass });
	console.log(`${pass ? "PASS" : "FAIL"}  ${name}: ${figure}`);
}

/** Exit non-zero when a goal was missed, so `npm run bench` fails loudly. */
export function finish(): void {
	const failed = verdicts.filter((v) => !v.pass);
	console.log(`\n${verdicts.length - failed.length} goals met, ${failed.length} missed`);
	if (failed.length > 0) process.exitCode = 1;
}

/**
 * Peak RSS of this process in bytes. Linux keeps `ru_maxrss` across fork and exec, so a child
 * would report its parent's peak; `VmHWM` belongs to the process's own memory map, and writing 5
 * to `clear_refs` (`resetPeak`) resets it to the current RSS.
 */
export function peakRss(): number {
	try {
		const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
		if (match) return Number(match[1]) * 1024;
	} catch {
		// Not Linux.
	}
	return process.resourceUsage().maxRSS * 1024;
}

/** Reset `peakRss` to the current RSS (Linux; elsewhere `ru_maxrss` is all there is). */
export function resetPeak(): void {
	try {
		writeFileSync("/proc/self/clear_refs", "5");
	} catch {
		// Not Linux: peakRss falls back to ru_maxrss.
	}
}
