/**
 * `npm run bench`: runs every `*.bench.ts` in this folder (or those named on the command line),
 * each in a fresh Node process so one benchmark's heap cannot skew another's figures.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const jitiCli = join(dirname(createRequire(import.meta.url).resolve("jiti/package.json")), "lib", "jiti-cli.mjs");
const wanted = process.argv.slice(2);
const files = readdirSync(here)
	.filter((name) => name.endsWith(".bench.ts"))
	.filter((name) => wanted.length === 0 || wanted.some((w) => name === w || name === `${w}.bench.ts`))
	.sort();

let failed = 0;
for (const file of files) {
	console.log(`\n=== ${file} ===`);
	const run = spawnSync(process.execPath, ["--expose-gc", jitiCli, join(here, file)], { stdio: "inherit" });
	if (run.status !== 0) failed++;
}
console.log(`\n${files.length - failed} benchmark files passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
