/**
 * `npm run bench search`: the grep, find and ls tools on a generated tree, against running `rg` and
 * `fd` directly and against the reference's grep, find and ls tools.
 *
 * The tree (generated once per run in a temp dir, from a fixed seed, so every run searches the
 * same bytes): a git repository (`git init`) of 20,000 files, about 200 MB, in 20 packages of 10
 * folders, with a `.gitignore` at the root, in every package (with a negation) and in some folders
 * (anchored patterns), ignored folders, a hidden folder per package, and ~50 planted lines for
 * each grep pattern (rare, so every side has to read the whole tree: no limit cuts a search
 * short). The ls case lists a separate folder of 10,000 entries.
 *
 * Times: medians of rounds in which the sides run one after the other, the side that goes first
 * rotating from round to round so a slow spell of the shared machine falls on all sides alike.
 * Memory: a fresh child process per case (`--child`) reports its RSS before the search and its
 * peak RSS (`VmHWM`, reset just before the search) after it; the growth is the difference. It is
 * the Node process's own memory: `rg` / `fd` run by a fast path are processes of their own.
 *
 * The reference finds `rg` and `fd`/`fdfind` on PATH; it runs with `PI_OFFLINE=1` and an empty
 * agent folder, so it never downloads them and never uses a copy of its own.
 */
import { spawn, spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFindTool, createGrepTool, createLsTool, type ToolContext, type ToolDefinition } from "toolsmith-sdk";
import { NodeExecutionEnv } from "toolsmith-sdk/node";
import { finish, peakRss, report, reportValue, resetPeak } from "./_measure.js";
import { importPeer } from "./_peer.js";

interface PeerTool {
	execute(id: string, args: unknown, signal?: AbortSignal, onUpdate?: unknown): Promise<unknown>;
}
interface PeerModule {
	createGrepTool(cwd: string): PeerTool;
	createFindTool(cwd: string): PeerTool;
	createLsTool(cwd: string): PeerTool;
}

const MB = 1024 * 1024;
const LITERAL = "NEEDLE_LITERAL_q7";
const REGEX = "ERR-[0-9]{4}-[a-f]{3,}";
const GLOB = "*.rs";

// ---------------------------------------------------------------- the tree

/** A small deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const WORDS =
	"alpha beta gamma delta epsilon value result index count buffer stream record option number string return const let function import export class method field table query order limit offset render parse token scope".split(
		" ",
	);

interface TreeFile {
	readonly path: string;
	readonly content: string;
}

/** Every file of the tree, in a fixed order, with its content (about 10 KB each). */
function* treeFiles(): Generator<TreeFile> {
	const random = prng(15);
	const pool: string[] = [];
	for (let i = 0; i < 4000; i++) {
		const words: string[] = [];
		let length = 0;
		while (length < 72) {
			const word = WORDS[Math.floor(random() * WORDS.length)] as string;
			words.push(word);
			length += word.length + 1;
		}
		pool.push(`${words.join(" ")}\n`);
	}
	yield { path: ".gitignore", content: "*.log\nbuild/\n" };
	let serial = 0;
	for (let t = 0; t < 20; t++) {
		const pkg = `pkg-${String(t).padStart(2, "0")}`;
		yield { path: `${pkg}/.gitignore`, content: "generated/\n*.tmp\n!f51.tmp\n" };
		for (let m = 0; m < 10; m++) {
			// Folder 9 is ignored by the package's .gitignore, 8 by the root's; 7 is hidden.
			const folder = m === 9 ? "generated" : m === 8 ? "build" : m === 7 ? ".cache" : `mod-${m}`;
			if (m === 3) yield { path: `${pkg}/${folder}/.gitignore`, content: "/local-*\n" };
			for (let f = 0; f < 100; f++) {
				serial++;
				let name: string;
				if (f % 25 === 0) name = `f${f}.log`;
				else if (f % 25 === 1) name = `f${f}.tmp`;
				else if (m === 3 && f % 20 === 4) name = `local-${f}.ts`;
				else if (f % 40 === 3) name = `f${f}.rs`;
				else name = `f${f}.${["ts", "js", "md", "json", "txt"][f % 5]}`;
				const lines: string[] = [];
				for (let l = 0; l < 138; l++) lines.push(pool[Math.floor(random() * pool.length)] as string);
				if (serial % 397 === 5) lines[40] = `\tconst marker = "${LITERAL}"; // planted\n`;
				if (serial % 331 === 7)
					lines[90] = `\tthrow new Error("ERR-${String(serial % 10000).padStart(4, "0")}-beef failed");\n`;
				yield { path: `${pkg}/${folder}/${name}`, content: lines.join("") };
			}
		}
	}
}

async function makeTree(root: string): Promise<{ files: number; bytes: number }> {
	let files = 0;
	let bytes = 0;
	const made = new Set<string>();
	const pending = new Set<Promise<void>>();
	for (const file of treeFiles()) {
		const dir = join(root, file.path, "..");
		if (!made.has(dir)) {
			await fs.mkdir(dir, { recursive: true });
			made.add(dir);
		}
		const write: Promise<void> = fs.writeFile(join(root, file.path), file.content).then(() => {
			pending.delete(write);
		});
		pending.add(write);
		if (pending.size >= 32) await Promise.race(pending);
		files++;
		bytes += file.content.length;
	}
	await Promise.all(pending);
	const git = spawnSync("git", ["init", "-q"], { cwd: root });
	if (git.status !== 0) throw new Error(`git init failed: ${git.stderr}`);
	return { files, bytes };
}

async function makeLargeFile(dir: string): Promise<void> {
	await fs.mkdir(dir, { recursive: true });
	const line = `${WORDS.join(" ")}\n`;
	const block = line.repeat(Math.ceil(MB / line.length));
	const handle = await fs.open(join(dir, "big.log"), "w");
	try {
		for (let i = 0; i < 100; i++) await handle.write(block);
		await handle.write(`\tthe planted ${LITERAL} at the end\n`);
	} finally {
		await handle.close();
	}
}

async function makeWideFolder(dir: string): Promise<void> {
	await fs.mkdir(dir, { recursive: true });
	for (let i = 0; i < 10_000; i += 500)
		await Promise.all(
			Array.from({ length: 500 }, (_, k) =>
				fs.writeFile(join(dir, `entry-${String(i + k).padStart(5, "0")}.txt`), "x"),
			),
		);
}

// ---------------------------------------------------------------- the sides

function contextFor(env: NodeExecutionEnv): ToolContext {
	return {
		env,
		cwd: env.cwd,
		hasUI: false,
		ui: {
			select: async () => undefined,
			confirm: async () => false,
			input: async () => undefined,
			notify: () => undefined,
		},
	};
}

type Run = () => Promise<unknown>;

function ours<T extends ToolDefinition>(tool: T, env: NodeExecutionEnv, args: unknown): Run {
	const ctx = contextFor(env);
	return () => tool.execute("bench", args as never, undefined, undefined, ctx);
}

/** Run a program to its end, its output kept in memory (as a caller reading it would). */
function runProgram(file: string, args: readonly string[], cwd: string): Promise<string> {
	return new Promise((resolve, reject) => {
		const child = spawn(file, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
		const chunks: Buffer[] = [];
		let stderr = "";
		child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString("utf8");
		});
		child.on("error", reject);
		child.on("close", (code) => {
			// rg exits 1 when nothing matched; both exit 1 after reporting unreadable folders.
			if (code !== 0 && code !== 1) reject(new Error(`${file} exited with ${code}: ${stderr.trim()}`));
			else resolve(Buffer.concat(chunks).toString("utf8"));
		});
	});
}

/** Which program of `names` runs from PATH, or undefined. */
function onPath(...names: string[]): string | undefined {
	return names.find((name) => spawnSync(name, ["--version"], { stdio: "ignore" }).status === 0);
}

/** `rg` with the flags the grep tool's semantics amount to: hidden files searched, `.git` not. */
function rgArgs(pattern: string, literal: boolean): string[] {
	const args = ["--hidden", "--glob", "!.git", "--line-number", "--no-heading", "--color", "never"];
	if (literal) args.push("--fixed-strings");
	return [...args, "--", pattern];
}

/** `fd` with the flags the find tool's semantics amount to: files and symlinks, hidden, no `.git`. */
function fdArgs(glob: string): string[] {
	return ["--glob", "--color", "never", "--hidden", "--exclude", ".git", "--type", "f", "--type", "l", "--", glob];
}

/** Rounds of `sides`, the first side rotating; the median time of each side, in ms. */
async function rounds(sides: Record<string, Run>, count: number, warmup = 1): Promise<(side: string) => number> {
	const names = Object.keys(sides);
	const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
	for (let round = 0; round < warmup + count; round++) {
		for (let k = 0; k < names.length; k++) {
			const name = names[(round + k) % names.length] as string;
			const start = performance.now();
			await (sides[name] as Run)();
			const ms = performance.now() - start;
			if (round >= warmup) samples[name]?.push(ms);
		}
	}
	const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
	return (side) => median(samples[side] ?? []);
}

function ms(value: number): string {
	return `${value.toFixed(value < 100 ? 1 : 0)} ms`;
}

/** The text of a tool result's first content part. */
function textOf(result: unknown): string {
	const content = (result as { content?: { type: string; text?: string }[] }).content;
	return content?.[0]?.text ?? "";
}

// ---------------------------------------------------------------- child mode: one case, its memory

interface ChildReport {
	readonly rssBeforeMB: number;
	readonly peakRssMB: number;
}

function caseRun(kind: string, root: string, wide: string): Run {
	const env = new NodeExecutionEnv({ cwd: root });
	const walker = new NodeExecutionEnv({ cwd: root, searchBinaries: false });
	if (kind === "grep-literal") return ours(createGrepTool(), env, { pattern: LITERAL, literal: true });
	if (kind === "grep-regex") return ours(createGrepTool(), env, { pattern: REGEX });
	// The walker's worker threads start during this first search, so their memory is counted.
	if (kind === "grep-walker") return ours(createGrepTool(), walker, { pattern: REGEX });
	// A word on nearly every line: rg lists every file, the limit stops the reading.
	if (kind === "grep-common") return ours(createGrepTool(), env, { pattern: "alpha", limit: 1000 });
	if (kind === "find") return ours(createFindTool(), env, { pattern: GLOB });
	if (kind === "find-walker") return ours(createFindTool(), walker, { pattern: GLOB });
	if (kind === "ls") return ours(createLsTool(), new NodeExecutionEnv({ cwd: wide }), {});
	// One 100 MB file with the pattern on its last line: read in pieces, never whole.
	if (kind === "grep-large")
		return ours(createGrepTool(), new NodeExecutionEnv({ cwd: join(wide, "..", "large") }), {
			pattern: LITERAL,
			literal: true,
		});
	throw new Error(`unknown child case ${kind}`);
}

async function child(kind: string, root: string, wide: string): Promise<void> {
	const run = caseRun(kind, root, wide);
	(globalThis as { gc?: () => void }).gc?.();
	const rssBefore = process.memoryUsage().rss;
	resetPeak();
	await run();
	const out: ChildReport = { rssBeforeMB: rssBefore / MB, peakRssMB: peakRss() / MB };
	process.stdout.write(`${JSON.stringify(out)}\n`);
}

function runChild(kind: string, root: string, wide: string): ChildReport {
	const result = spawnSync(process.execPath, ["--expose-gc", process.argv[1] as string, "--child", kind, root, wide], {
		encoding: "utf8",
		maxBuffer: 16 * MB,
	});
	const line = result.stdout.trim().split("\n").pop() ?? "";
	try {
		return JSON.parse(line) as ChildReport;
	} catch {
		throw new Error(`child ${kind} failed (status ${result.status}):\n${result.stderr}`);
	}
}

// ---------------------------------------------------------------- the benchmarks

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	if (args[0] === "--child") {
		await child(args[1] ?? "", args[2] ?? "", args[3] ?? "");
		return;
	}
	const base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-bench-search-")));
	const root = join(base, "tree");
	const wide = join(base, "wide");
	const agentDir = join(base, "pi-agent");
	try {
		const started = performance.now();
		const made = await makeTree(root);
		await makeWideFolder(wide);
		await makeLargeFile(join(base, "large"));
		await fs.mkdir(agentDir);
		console.log(
			`tree: ${made.files} files, ${(made.bytes / MB).toFixed(0)} MB, made in ${ms(performance.now() - started)}`,
		);
		// Before the reference is imported: it reads these when its modules load.
		process.env.PI_OFFLINE = "1";
		process.env.PI_CODING_AGENT_DIR = agentDir;
		const peer = await importPeer<PeerModule>("@mariozechner/pi-coding-agent", "dist/core/tools/index.js");
		const rg = onPath("rg");
		const fd = onPath("fd", "fdfind");
		const env = new NodeExecutionEnv({ cwd: root });
		const walker = new NodeExecutionEnv({ cwd: root, searchBinaries: false });
		// Whether this build has a grep fast path: an env method the grep tool would use.
		const grepFastPath = Object.getOwnPropertyNames(NodeExecutionEnv.prototype).some((name) =>
			/grep|search(?!Binaries)/i.test(name),
		);
		if (!grepFastPath) console.log("grep fast path: absent in this build (the grep tool walks the tree in TypeScript)");

		// ------------------------------------------------ grep
		for (const [label, pattern, literal] of [
			["literal", LITERAL, true],
			["regex", REGEX, false],
		] as const) {
			const params = literal ? { pattern, literal: true } : { pattern };
			const grepOurs = ours(createGrepTool(), env, params);
			const grepPeer = peer.createGrepTool(root);
			const sides: Record<string, Run> = { ours: grepOurs, peer: () => grepPeer.execute("bench", params) };
			if (rg) sides.rg = () => runProgram(rg, rgArgs(pattern, literal), root);
			if (grepFastPath) sides.walker = ours(createGrepTool(), walker, params);
			const ourLines = textOf(await grepOurs())
				.split("\n")
				.filter((line) => /^[^\s].*:\d+: /.test(line)).length;
			const rgLines = rg ? (await runProgram(rg, rgArgs(pattern, literal), root)).trim().split("\n").length : 0;
			console.log(`grep ${label} /${pattern}/: ${ourLines} matching lines from the tool, ${rgLines} from rg`);
			// Three timed rounds (after one warm-up): the walker takes seconds a search, and the whole
			// benchmark must stay near two minutes on a 2-core machine.
			const t = await rounds(sides, 3);
			if (rg) {
				if (grepFastPath) {
					report(
						`grep ${label}, fast path vs rg directly`,
						t("ours") / t("rg"),
						1.2,
						`${ms(t("ours"))} vs ${ms(t("rg"))}`,
					);
					report(
						`grep ${label}, walker only (searchBinaries: false) vs rg directly`,
						t("walker") / t("rg"),
						4,
						`${ms(t("walker"))} vs ${ms(t("rg"))}`,
					);
				} else
					report(
						`grep ${label}, TypeScript walker (no fast path in this build) vs rg directly`,
						t("ours") / t("rg"),
						4,
						`${ms(t("ours"))} vs ${ms(t("rg"))}`,
					);
			} else console.log(`grep ${label}: rg is not on PATH, no comparison with it (npm run bench:setup lists it)`);
			report(
				`grep ${label} vs the reference's grep`,
				t("ours") / t("peer"),
				1.0,
				`${ms(t("ours"))} vs ${ms(t("peer"))}`,
			);
		}

		// ------------------------------------------------ find
		{
			const params = { pattern: GLOB };
			const findOurs = ours(createFindTool(), env, params);
			const findWalker = ours(createFindTool(), walker, params);
			const findPeer = peer.createFindTool(root);
			let peerError: string | undefined;
			try {
				await findPeer.execute("bench", params);
			} catch (error) {
				peerError = error instanceof Error ? error.message : String(error);
			}
			const sides: Record<string, Run> = { ours: findOurs, walker: findWalker };
			if (fd) sides.fd = () => runProgram(fd, fdArgs(GLOB), root);
			if (peerError === undefined) sides.peer = () => findPeer.execute("bench", params);
			const ourPaths = textOf(await findOurs())
				.split("\n")
				.filter((line) => line.endsWith(".rs")).length;
			const fdPaths = fd ? (await runProgram(fd, fdArgs(GLOB), root)).trim().split("\n").length : 0;
			console.log(`find ${GLOB}: ${ourPaths} paths from the tool, ${fdPaths} from ${fd ?? "fd (absent)"}`);
			const t = await rounds(sides, 7);
			if (fd) {
				report("find glob, fast path vs fd directly", t("ours") / t("fd"), 1.2, `${ms(t("ours"))} vs ${ms(t("fd"))}`);
				report(
					"find glob, walker only (searchBinaries: false) vs fd directly",
					t("walker") / t("fd"),
					3,
					`${ms(t("walker"))} vs ${ms(t("fd"))}`,
				);
			} else console.log("find: neither fd nor fdfind is on PATH, no comparison with it");
			if (peerError === undefined)
				report("find glob vs the reference's find", t("ours") / t("peer"), 1.0, `${ms(t("ours"))} vs ${ms(t("peer"))}`);
			else
				console.log(
					`find vs the reference's find: not measured, the reference's find fails here (${peerError.split("\n")[0]}); compared with fd directly above`,
				);
		}

		// ------------------------------------------------ ls
		{
			const lsOurs = ours(createLsTool(), new NodeExecutionEnv({ cwd: wide }), {});
			const lsPeer = peer.createLsTool(wide);
			const t = await rounds({ ours: lsOurs, peer: () => lsPeer.execute("bench", {}) }, 31, 3);
			report(
				"ls of a 10,000-entry folder vs the reference's ls",
				t("ours") / t("peer"),
				1.0,
				`${ms(t("ours"))} vs ${ms(t("peer"))}`,
			);
		}

		// ------------------------------------------------ memory
		const growth: string[] = [];
		let worst = 0;
		for (const kind of [
			"grep-literal",
			"grep-regex",
			"grep-walker",
			"grep-common",
			"grep-large",
			"find",
			"find-walker",
			"ls",
		]) {
			const r = runChild(kind, root, wide);
			const grown = r.peakRssMB - r.rssBeforeMB;
			worst = Math.max(worst, grown);
			growth.push(`${kind} ${grown.toFixed(1)}`);
		}
		reportValue(
			"peak RSS growth during a search (worst case, fresh child per case)",
			worst,
			64,
			"MB",
			growth.join(", "),
		);
		console.log(`total: ${ms(performance.now() - started)}`);
	} finally {
		await fs.rm(base, { recursive: true, force: true });
	}
	finish();
}

await main();
