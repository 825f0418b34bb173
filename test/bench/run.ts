/**
 * `npm run bench`: runs every `*.bench.ts` in this folder (or those named on the command line),
 * each in a fresh Node process so one benchmark's heap cannot skew another's figures.
 *
 * The benchmarks measure the built package, as a user's process runs it: they import
 * `toolsmith-sdk`, `toolsmith-sdk/node` and `toolsmith-sdk/harness`, which Node resolves to `dist/`
 * through the package's own `exports`. So `dist/` is rebuilt first when it is missing or older than
 * what it is built from. Each benchmark script is compiled by esbuild into `.tmp/bench/` with
 * every package import left as it is (only this folder's helpers are bundled in), then run by
 * plain `node`: no loader, hook or transpiler stands between a benchmark and the code it measures.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
// One folder per run: another run in the same tree must not remove the scripts this one runs.
const out = join(repo, ".tmp", "bench", String(process.pid));

/** The newest modification time under `path` (a file or a folder), 0 when it does not exist. */
function newest(path: string): number {
	if (!existsSync(path)) return 0;
	const stat = statSync(path);
	if (!stat.isDirectory()) return stat.mtimeMs;
	let max = stat.mtimeMs;
	for (const entry of readdirSync(path)) max = Math.max(max, newest(join(path, entry)));
	return max;
}

/** Why `dist/` must be rebuilt, or undefined when it is newer than everything it is built from. */
function staleness(): string | undefined {
	const outputs = ["index.js", "runtime.js", "node.js", "harness.js", "vitest.js", "cli.js"].map((name) =>
		join(repo, "dist", name),
	);
	const missing = outputs.find((file) => !existsSync(file));
	if (missing) return `${missing.slice(repo.length + 1)} is missing`;
	const built = Math.min(...outputs.map((file) => statSync(file).mtimeMs));
	const changed = ["src", "tsup.config.ts", "tsconfig.json", "package.json"].find(
		(input) => newest(join(repo, input)) > built,
	);
	return changed ? `${changed} changed since dist/ was built` : undefined;
}

const stale = staleness();
if (stale) {
	console.log(`Building the package first (${stale}): npm run build`);
	const built = spawnSync("npm", ["run", "build"], { cwd: repo, stdio: ["ignore", "ignore", "inherit"] });
	if (built.status !== 0) {
		console.error("npm run build failed; the benchmarks measure dist/ and cannot run without it");
		process.exit(1);
	}
}

const wanted = process.argv.slice(2);
const files = readdirSync(here)
	.filter((name) => name.endsWith(".bench.ts"))
	.filter((name) => wanted.length === 0 || wanted.some((w) => name === w || name === `${w}.bench.ts`))
	.sort();

let failed = 0;
for (const file of files) {
	console.log(`\n=== ${file} ===`);
	const script = join(out, file.replace(/\.ts$/, ".mjs"));
	await build({
		entryPoints: [join(here, file)],
		outfile: script,
		bundle: true,
		// Packages, the built package included, are imported at run time, by Node, as users import them.
		// Named as well: tsconfig's `paths` would otherwise send `toolsmith-sdk` to src/ and bundle it.
		packages: "external",
		external: ["toolsmith-sdk", "toolsmith-sdk/*"],
		format: "esm",
		platform: "node",
		target: "node20",
		sourcemap: "inline",
		// Paths next to the benchmark (fixtures, peers) stay where the source file is.
		define: { "import.meta.url": JSON.stringify(pathToFileURL(join(here, file)).href) },
		logLevel: "error",
	});
	const run = spawnSync(process.execPath, ["--expose-gc", script], { stdio: "inherit" });
	if (run.status !== 0) failed++;
}
rmSync(out, { recursive: true, force: true });
console.log(`\n${files.length - failed} benchmark files passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
