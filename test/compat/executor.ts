/**
 * The executor section of `npm run compat`: toolsmith's `executeToolCalls` against the reference's
 * agent loop on seeded random batches, as test/integration/exec/pi-agent-differential.test.ts runs
 * it, against both lines of the reference: pi-agent-core 0.73.1 (test/bench/peers,
 * `npm run bench:setup`) in this process, and 1.6.0 (`npm run compat:setup`) under Node 22 in a
 * child process. One line per compared property (agreements, documented differences); fails on
 * any undocumented disagreement, or when a reference is not installed.
 *
 *   npm run compat -- executor                                  seed 1, 300 batches
 *   TOOLSMITH_DIFF_SEED=42 TOOLSMITH_DIFF_BATCHES=1000 npm run compat -- executor
 *
 * (The seed and the count come from the environment: the runner takes section names as arguments.)
 */
import { dirname } from "node:path";
import {
	type DifferentialReport,
	formatReport,
	loadReference,
	runDifferential,
	runDifferentialIn1x,
	seedFromEnv,
} from "./_executor-differential.js";
import { listReleases } from "./_releases.js";

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
	const seed = seedFromEnv(DEFAULT_SEED);
	const batches = countFromEnv("TOOLSMITH_DIFF_BATCHES", DEFAULT_BATCHES);
	let ok = true;
	const show = (report: DifferentialReport): void => {
		for (const line of formatReport(report)) console.log(line);
		if (!report.ok) {
			ok = false;
			console.log(`replay: TOOLSMITH_DIFF_SEED=${seed} npm run compat -- executor`);
		}
	};

	const reference = await loadReference();
	if (reference) show(await runDifferential(reference, seed, batches));
	else {
		ok = false;
		console.log("✗ the reference 0.73.1 is not installed in test/bench/peers: run `npm run bench:setup`");
	}

	const release = listReleases().find((r) => r.spec === "@earendil-works/pi-coding-agent@1.6.0");
	if (release?.installed && release.node) {
		show(await runDifferentialIn1x(release.node, dirname(dirname(release.packageDir)), seed, batches));
	} else {
		ok = false;
		console.log(
			`✗ the reference 1.6.0 is not installed${release?.installed ? " (no Node 22)" : ""}: run \`npm run compat:setup\``,
		);
	}
	return ok;
}
