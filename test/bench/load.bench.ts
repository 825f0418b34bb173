/**
 * `npm run bench load`: loading 50 single-file extensions, against the reference's
 * `discoverAndLoadExtensions` on the same files.
 *
 * First the import alone: `toolsmith-sdk` plus `toolsmith-sdk/node` (what a host imports)
 * against the reference's package, CPU time of the `import()` in a fresh process, and our process's
 * RSS once imported against an absolute bound (what is not used, MCP say, must not be loaded).
 *
 * Each side runs in a fresh Node process on a folder of 50 new extension files (nothing
 * transpiled yet, in the process or in jiti's cache on disk). Cold is measured twice: from process
 * start to the extensions being loaded (import plus first load: each side pays everything it
 * needs), and the first load alone from the same process state. For the second figure our child
 * first imports the peer's package and loads our Babel, because the peer's import loads Babel
 * eagerly and leaves a large heap (so the collector runs less while transpiling); then only the
 * loaders' own work differs. Warm is a later load of the same folder in the same process (the
 * middle of three). Our side is the built package (`toolsmith-sdk` and `toolsmith-sdk/node`, that
 * is `dist/index.js` and `dist/node.js`), imported by plain Node as a user's process imports it. Rounds alternate the order of the sides;
 * goals compare the best CPU time of the rounds (the median wall time is printed too).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { finish, percentile, report, reportValue } from "./_measure.js";
import { peersDir } from "./_peer.js";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const work = join(repo, ".tmp", "bench-load");
const COUNT = 50;
const ROUNDS = 7;
/** Importing both entries against importing the reference's package (CPU time). */
const IMPORT_GOAL = 0.3;
/** RSS once both entries are imported, in MB: a host that uses no MCP pays for none of it. */
const IMPORT_RSS_GOAL_MB = 75;

function extensionSource(index: number): string {
	return `import { Type } from "typebox";
import { defineTool, type ExtensionAPI } from "@mariozechner/pi-coding-agent";

const tool = defineTool({
	name: "tool_${index}",
	label: "Tool ${index}",
	description: "Benchmark tool number ${index}: echoes its input.",
	parameters: Type.Object({ text: Type.String({ description: "What to echo" }), times: Type.Optional(Type.Number()) }),
	async execute(_id, params) {
		const text = params.text.repeat(params.times ?? 1);
		return { content: [{ type: "text", text }], details: { index: ${index} } };
	},
});

export default function (pi: ExtensionAPI) {
	pi.registerTool(tool);
	pi.on("session_start", () => {});
}
`;
}

function freshFolder(): string {
	const dir = mkdtempSync(join(tmpdir(), "toolsmith-bench-load-"));
	const exts = join(dir, "extensions");
	mkdirSync(exts);
	for (let i = 0; i < COUNT; i++) writeFileSync(join(exts, `ext-${String(i).padStart(2, "0")}.ts`), extensionSource(i));
	mkdirSync(join(dir, "cwd"));
	mkdirSync(join(dir, "agent"));
	return dir;
}

const CHILD = `
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
const [side, libs, dir, preload] = process.argv.slice(2);
const exts = dir + "/extensions";
// The import alone: CPU time and wall time of importing the side's entries, and the RSS after.
const importStart = performance.now();
const importCpuStart = process.cpuUsage();
let mod;
for (const lib of libs.split(" ")) mod = await import(lib);
const importCpu = process.cpuUsage(importCpuStart);
const imported = {
	ms: performance.now() - importStart,
	cpu: (importCpu.user + importCpu.system) / 1000,
	rssMB: process.memoryUsage().rss / 1048576,
};
if (preload !== "plain") {
	// Start from the state the peer's process is in: its package imported (a large heap, which
	// changes how often the collector runs during transpiling) and a Babel transform loaded.
	await import(preload);
	const require = createRequire(import.meta.url);
	require(join(dirname(require.resolve("jiti/package.json")), "dist", "babel.cjs"));
	await import("jiti");
}
async function load() {
	const start = performance.now();
	const cpuStart = process.cpuUsage();
	let tools;
	if (side === "ours") {
		const result = await mod.loadExtensions([exts], { cwd: dir + "/cwd" });
		if (result.diagnostics.length > 0) throw new Error(JSON.stringify(result.diagnostics));
		tools = result.registry.entries().length - 4;
	} else {
		const result = await mod.discoverAndLoadExtensions([exts], dir + "/cwd", dir + "/agent");
		if (result.errors.length > 0) throw new Error(JSON.stringify(result.errors));
		tools = result.extensions.reduce((n, e) => n + e.tools.size, 0);
	}
	const ms = performance.now() - start;
	const cpu = process.cpuUsage(cpuStart);
	if (tools !== ${COUNT}) throw new Error(side + " loaded " + tools + " tools");
	return { ms, cpu: (cpu.user + cpu.system) / 1000 };
}
const first = await load();
// performance.now() and cpuUsage() count from the start of the process: import plus first load.
const total = { ms: performance.now(), cpu: (process.cpuUsage().user + process.cpuUsage().system) / 1000 };
const warms = [await load(), await load(), await load()].sort((a, b) => a.cpu - b.cpu);
console.log(JSON.stringify({ imported, first, total, warm: warms[1] }));
`;

async function main(): Promise<void> {
	rmSync(work, { recursive: true, force: true });
	mkdirSync(work, { recursive: true });
	// The entries a host imports; the last one's exports are what the child loads with.
	const ours = ["toolsmith-sdk", "toolsmith-sdk/node"].map(
		(entry) => pathToFileURL(fileURLToPath(import.meta.resolve(entry))).href,
	);
	const child = join(work, "child.mjs");
	writeFileSync(child, CHILD);
	const peer = join(peersDir, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "index.js");
	const libs = { ours: ours.join(" "), peer: pathToFileURL(peer).href };

	type Figure = { ms: number; cpu: number };
	type Sample = { imported: Figure & { rssMB: number }; first: Figure; total: Figure; warm: Figure };
	const runs: Record<"ours" | "oursPreloaded" | "peer", Sample[]> = { ours: [], oursPreloaded: [], peer: [] };
	const spawnSide = (kind: keyof typeof runs): void => {
		const side = kind === "peer" ? "peer" : "ours";
		const dir = freshFolder();
		try {
			const args = [child, side, libs[side], dir, kind === "oursPreloaded" ? libs.peer : "plain"];
			const run = spawnSync(process.execPath, args, { encoding: "utf8", cwd: work });
			if (run.status !== 0) throw new Error(`${kind} failed:\n${run.stderr}`);
			runs[kind].push(JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as Sample);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	};
	// What Node alone takes, to read the RSS figure against.
	const empty = spawnSync(process.execPath, ["-e", "console.log(process.memoryUsage().rss / 1048576)"], {
		encoding: "utf8",
	});
	const emptyRssMB = Number(empty.stdout.trim());
	for (let round = 0; round < ROUNDS; round++) {
		const order: (keyof typeof runs)[] =
			round % 2 === 0 ? ["ours", "oursPreloaded", "peer"] : ["peer", "oursPreloaded", "ours"];
		for (const kind of order) spawnSide(kind);
	}
	// Goals compare the best CPU time (user + system) of the rounds: the work each side does, as
	// little distorted as possible by other processes on a shared machine. The median wall time is
	// printed next to it.
	const figure = (kind: keyof typeof runs, field: keyof Sample, unit: keyof Figure = "cpu") =>
		unit === "cpu"
			? Math.min(...runs[kind].map((s) => s[field].cpu))
			: percentile(
					runs[kind].map((s) => s[field][unit]),
					50,
				);
	const goal = (name: string, kind: "ours" | "oursPreloaded", field: keyof Sample, what: string, limit = 1.0) => {
		const ours = figure(kind, field);
		const peer = figure("peer", field);
		const wall = `wall ${figure(kind, field, "ms").toFixed(0)} vs ${figure("peer", field, "ms").toFixed(0)} ms`;
		report(
			name,
			ours / peer,
			limit,
			`CPU toolsmith ${ours.toFixed(0)} ms, peer ${peer.toFixed(0)} ms (${wall}), ${what}`,
		);
	};
	goal(
		"import: toolsmith-sdk + toolsmith-sdk/node, against importing the reference's package",
		"ours",
		"imported",
		`best of ${ROUNDS} fresh processes`,
		IMPORT_GOAL,
	);
	const rss = (kind: keyof typeof runs) => Math.max(...runs[kind].map((s) => s.imported.rssMB));
	reportValue(
		"import: RSS of the process once toolsmith-sdk + toolsmith-sdk/node are imported",
		rss("ours"),
		IMPORT_RSS_GOAL_MB,
		"MB",
		`the largest of ${ROUNDS} fresh processes; the reference's import leaves ${rss("peer").toFixed(0)} MB, an empty Node process ${emptyRssMB.toFixed(0)} MB`,
	);
	goal(`cold: process start to ${COUNT} extensions loaded`, "ours", "total", `best of ${ROUNDS} fresh processes`);
	goal(
		`cold: first load of ${COUNT} new files, both processes in the same state`,
		"oursPreloaded",
		"first",
		"our child first imports the peer's package and loads Babel, as the peer's import does",
	);
	goal(`warm: another load of the same ${COUNT} files in the same process`, "ours", "warm", `best of ${ROUNDS}`);
	console.log(
		`info: our first load including the lazy transpiler load: CPU ${figure("ours", "first").toFixed(0)} ms, wall ${figure("ours", "first", "ms").toFixed(0)} ms (the peer's import loads its transpiler, so its first load is ${figure("peer", "first").toFixed(0)} ms CPU)`,
	);
	rmSync(work, { recursive: true, force: true });
	finish();
}

await main();
