/**
 * The executor section of `npm run compat`: toolsmith's `executeToolCalls` against the reference's
 * agent loop (test/bench/peers, `npm run bench:setup`) on seeded random batches, as
 * test/integration/exec/pi-agent-differential.test.ts runs it. One line per compared property
 * (agreements, documented differences); fails on any undocumented disagreement.
 *
 *   npm run compat -- executor                                  seed 1, 300 batches
 *   TOOLSMITH_DIFF_SEED=42 TOOLSMITH_DIFF_BATCHES=1000 npm run compat -- executor
 *
 * (The seed and the count come from the environment: the runner takes section names as arguments.)
 */
import { formatReport, loadReference, runDifferential, seedFromEnv } from "./_executor-differential.js";

const DEFAULT_SEED = 1;
const DEFAULT_BATCHES = 300;

/** A positive integer from the environment variable `name`, or `fallback`. */
function countFromEnv(name: string, fallback: number): number {
	const raw = process.env[name];
	if (raw === undefined || raw === "") return fallback;
	const value = Number(raw);
	if (!Number.isInteger(value) || value < 1)
		throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
	return value;
}

export async function run(): Promise<boolean> {
	const reference = await loadReference();
	if (!reference) {
		console.log("✗ the reference is not installed in test/bench/peers: run `npm run bench:setup`");
		return false;
	}
	const seed = seedFromEnv(DEFAULT_SEED);
	const batches = countFromEnv("TOOLSMITH_DIFF_BATCHES", DEFAULT_BATCHES);
	const report = await runDifferential(reference, seed, batches);
	for (const line of formatReport(report)) console.log(line);
	if (!report.ok) console.log(`replay: TOOLSMITH_DIFF_SEED=${seed} npm run compat -- executor`);
	return report.ok;
}
