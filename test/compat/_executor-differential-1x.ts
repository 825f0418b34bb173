/**
 * The executor differential against the reference 1.x, in a process of Node 22 (1.x needs it):
 * runs `runDifferential` with the release's `Agent` and prints the report as JSON on stdout, for
 * `runDifferentialIn1x` (test/compat/_executor-differential.ts).
 *
 *   node jiti-cli.mjs _executor-differential-1x.ts <release node_modules folder> <seed> <batches>
 */
import { loadReference1x, runDifferential } from "./_executor-differential.js";

const [modules, seedText, countText] = process.argv.slice(2);
const seed = Number(seedText);
const count = Number(countText);
if (modules === undefined || !Number.isInteger(seed) || !Number.isInteger(count) || count < 1) {
	console.error("usage: _executor-differential-1x.ts <release node_modules folder> <seed> <batches>");
	process.exit(2);
}
const reference = await loadReference1x(modules);
const report = await runDifferential(reference, seed, count);
process.stdout.write(JSON.stringify(report));
