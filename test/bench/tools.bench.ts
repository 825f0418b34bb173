/**
 * `npm run bench tools`: the built-in tools against the reference's, on the same inputs.
 *
 * Time ratios are measured in this process (ours first, then the peer's). Memory figures come
 * from a fresh child process per side (`--child`), so one side's heap never inflates the other's:
 * the child reports its RSS before the operation and its peak RSS after it.
 *
 * Our tools come from the built package (`toolsmith-sdk` and `toolsmith-sdk/node`, that is `dist/`),
 * loaded by Node as a user's process loads them, in the parent and in the children alike.
 */
import { spawnSync } from "node:child_process";
import { createWriteStream, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	createBashTool,
	createEditTool,
	createReadTool,
	createWriteTool,
	MemoryExecutionEnv,
	type ToolContext,
	type ToolDefinition,
} from "toolsmith-sdk";
import { NodeExecutionEnv } from "toolsmith-sdk/node";
import { finish, peakRss, report, reportValue, resetPeak, time } from "./_measure.js";
import { importPeer } from "./_peer.js";

interface PeerTool {
	execute(id: string, args: unknown, signal?: AbortSignal, onUpdate?: unknown): Promise<unknown>;
}
interface PeerModule {
	createReadTool(cwd: string): PeerTool;
	createEditTool(cwd: string): PeerTool;
	createBashTool(cwd: string): PeerTool;
	createWriteTool(cwd: string): PeerTool;
}

const MB = 1024 * 1024;

function contextFor(env: NodeExecutionEnv | MemoryExecutionEnv): ToolContext {
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

function ours<T extends ToolDefinition>(tool: T, env: NodeExecutionEnv) {
	const ctx = contextFor(env);
	return (args: unknown) => tool.execute("bench", args as never, undefined, undefined, ctx);
}

/** A text file of about `bytes` bytes, ~100-byte numbered lines, written in chunks. */
async function makeTextFile(path: string, bytes: number): Promise<void> {
	const stream = createWriteStream(path);
	const filler = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt";
	let written = 0;
	let line = 0;
	while (written < bytes) {
		const parts: string[] = [];
		for (let i = 0; i < 10_000; i++) parts.push(`${String(++line).padStart(8, "0")} ${filler}\n`);
		const chunk = parts.join("");
		written += chunk.length;
		if (!stream.write(chunk)) await new Promise<void>((resolve) => stream.once("drain", () => resolve()));
	}
	await new Promise<void>((resolve, reject) =>
		stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
	);
}

// ---------------------------------------------------------------- child mode: one side, one case

interface ChildReport {
	readonly ms: number;
	readonly rssBeforeMB: number;
	readonly peakRssMB: number;
}

async function child(kind: string, side: "ours" | "peer", dir: string): Promise<void> {
	const env = new NodeExecutionEnv({ cwd: dir, tempDir: dir });
	const peer = side === "peer" ? await importPeer<PeerModule>("@mariozechner/pi-coding-agent") : undefined;
	let run: () => Promise<unknown>;
	if (kind === "read") {
		run = peer
			? () => peer.createReadTool(dir).execute("bench", { path: "big.txt" })
			: () => ours(createReadTool(), env)({ path: "big.txt" });
	} else if (kind === "bash") {
		const command = "seq 1 20000000";
		run = peer
			? () => peer.createBashTool(dir).execute("bench", { command })
			: () => ours(createBashTool(), env)({ command });
	} else throw new Error(`unknown child case ${kind}`);
	(globalThis as { gc?: () => void }).gc?.();
	const rssBefore = process.memoryUsage().rss;
	resetPeak();
	const start = performance.now();
	await run();
	const ms = performance.now() - start;
	const peak = peakRss();
	const out: ChildReport = { ms, rssBeforeMB: rssBefore / MB, peakRssMB: peak / MB };
	process.stdout.write(`${JSON.stringify(out)}\n`);
}

function runChild(kind: string, side: "ours" | "peer", dir: string): ChildReport {
	// This very script (as `npm run bench` compiled it) again, in child mode.
	const result = spawnSync(process.execPath, ["--expose-gc", process.argv[1] as string, "--child", kind, side, dir], {
		encoding: "utf8",
		maxBuffer: 16 * MB,
	});
	const line = result.stdout.trim().split("\n").pop() ?? "";
	try {
		return JSON.parse(line) as ChildReport;
	} catch {
		throw new Error(`child ${kind}/${side} failed (status ${result.status}):\n${result.stderr}`);
	}
}

// ---------------------------------------------------------------- the benchmarks

async function benchRead(dir: string): Promise<void> {
	await makeTextFile(join(dir, "big.txt"), 200 * MB);
	const env = new NodeExecutionEnv({ cwd: dir, tempDir: dir });
	const peer = await importPeer<PeerModule>("@mariozechner/pi-coding-agent");
	const readOurs = ours(createReadTool(), env);
	const readPeer = peer.createReadTool(dir);
	const a = await time(() => readOurs({ path: "big.txt" }), 9, 2);
	// The peer reads the whole file each time (seconds per run), so it runs fewer times.
	const b = await time(() => readPeer.execute("bench", { path: "big.txt" }), 2, 0);
	report(
		"read first page of a 200 MB file, time vs peer",
		a.medianMs / b.medianMs,
		0.02,
		`${a.medianMs.toFixed(2)} ms vs ${b.medianMs.toFixed(0)} ms`,
	);
	const mine = runChild("read", "ours", dir);
	const theirs = runChild("read", "peer", dir);
	reportValue(
		"read first page of a 200 MB file, peak RSS growth",
		mine.peakRssMB - mine.rssBeforeMB,
		64,
		"MB",
		`peer grows ${(theirs.peakRssMB - theirs.rssBeforeMB).toFixed(0)} MB`,
	);
	await fs.rm(join(dir, "big.txt"));
}

async function benchEdit(dir: string): Promise<void> {
	const lines = Array.from(
		{ length: 60_000 },
		(_, i) => `\tconst value${i} = compute(${i}, "item-${i}"); // entry ${i}`,
	);
	const original = `${lines.join("\n")}\n`;
	const edits = Array.from({ length: 200 }, (_, k) => {
		const i = k * 299 + 17;
		return {
			oldText: `\tconst value${i} = compute(${i}, "item-${i}");`,
			newText: `\tconst value${i} = compute(${i} + 1, "item-${i}");`,
		};
	});
	const file = join(dir, "edit.ts");
	const env = new NodeExecutionEnv({ cwd: dir, tempDir: dir });
	const editOurs = ours(createEditTool(), env);
	const peer = await importPeer<PeerModule>("@mariozechner/pi-coding-agent");
	const editPeer = peer.createEditTool(dir);
	// The file is restored before each run; the restore is part of both sides' figures alike.
	const a = await time(
		async () => {
			await fs.writeFile(file, original);
			await editOurs({ path: "edit.ts", edits });
		},
		7,
		1,
	);
	const b = await time(
		async () => {
			await fs.writeFile(file, original);
			await editPeer.execute("bench", { path: "edit.ts", edits });
		},
		2,
		0,
	);
	report(
		"edit, 200 edits on a 60,000-line file, time vs peer",
		a.medianMs / b.medianMs,
		0.05,
		`${a.medianMs.toFixed(1)} ms vs ${b.medianMs.toFixed(0)} ms`,
	);
}

/**
 * Edit calls shaped to make matching or diffing super-linear (the shapes of
 * test/unit/tools/edit-hostile-shapes.test.ts, which checks their answers). Each shape runs at
 * size n and 2n in the in-memory env; the figure is how much longer 2n takes: about 2× for a
 * linear algorithm, 4× for a quadratic one.
 */
async function benchEditShapes(): Promise<void> {
	type Edits = { oldText: string; newText: string }[];
	const lines = (count: number, line: (i: number) => string = (i) => `line ${i} of the file with some text`) =>
		`${Array.from({ length: count }, (_, i) => line(i)).join("\n")}\n`;
	const many = (count: number, edit: (i: number) => Edits[number]): Edits =>
		Array.from({ length: count }, (_, i) => edit(i));
	const shapes: { name: string; n: number; input: (n: number) => { file: string; edits: Edits } }[] = [
		{
			name: "n copies of one oldText found once (overlap error)",
			n: 100_000,
			input: (n) => ({
				file: lines(n),
				edits: many(n, () => ({ oldText: "line 1000 of the file with some text", newText: "x" })),
			}),
		},
		{
			name: "n copies of an oldText found n times (count error)",
			n: 100_000,
			input: (n) => ({
				file: lines(n, () => "same line"),
				edits: many(n, () => ({ oldText: "same line", newText: "x" })),
			}),
		},
		{
			name: "an oldText half as long as its file, found at every offset (file of 20n chars)",
			n: 100_000,
			input: (n) => ({ file: "a".repeat(n * 20), edits: [{ oldText: "a".repeat(n * 10), newText: "b" }] }),
		},
		{
			name: "n distinct edits found by tolerant matching",
			n: 20_000,
			input: (n) => ({
				file: lines(n),
				edits: many(n, (i) => ({ oldText: `line ${i} of the file with some text  `, newText: `L${i}` })),
			}),
		},
	];
	const edit = createEditTool();
	const run = async (input: { file: string; edits: Edits }) => {
		const env = new MemoryExecutionEnv({ files: { "/w/f.txt": input.file }, cwd: "/w" });
		const start = performance.now();
		try {
			await edit.execute("bench", { path: "f.txt", edits: input.edits }, undefined, undefined, contextFor(env));
		} catch {
			// The error shapes answer with a thrown error; only the time matters here.
		}
		return performance.now() - start;
	};
	for (const shape of shapes) {
		const n = shape.n;
		const small = shape.input(n);
		const large = shape.input(2 * n);
		const best = async (input: { file: string; edits: Edits }) => {
			let min = Number.POSITIVE_INFINITY;
			for (let i = 0; i < 3; i++) min = Math.min(min, await run(input));
			return min;
		};
		await run(small);
		const a = await best(small);
		const b = await best(large);
		report(
			`edit, ${shape.name}: time at 2n vs n (n = ${n.toLocaleString("en")})`,
			b / a,
			3,
			`${b.toFixed(0)} ms vs ${a.toFixed(0)} ms; linear ≈ 2×, quadratic ≈ 4×`,
		);
	}
}

async function benchBash(dir: string): Promise<void> {
	const runs = 5;
	const mine: ChildReport[] = [];
	const theirs: ChildReport[] = [];
	// Alternate sides so machine noise hits both alike.
	for (let i = 0; i < runs; i++) {
		mine.push(runChild("bash", "ours", dir));
		theirs.push(runChild("bash", "peer", dir));
	}
	const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? 0;
	const ourMs = median(mine.map((r) => r.ms));
	const peerMs = median(theirs.map((r) => r.ms));
	report(
		"bash `seq 1 20000000`, time vs peer",
		ourMs / peerMs,
		0.8,
		`${ourMs.toFixed(0)} ms vs ${peerMs.toFixed(0)} ms`,
	);
	const ourPeaks = mine.map((r) => r.peakRssMB);
	const peerPeaks = theirs.map((r) => r.peakRssMB);
	reportValue(
		"bash `seq 1 20000000`, peak RSS of the process (median of runs)",
		median(ourPeaks),
		120,
		"MB",
		`ours ${Math.min(...ourPeaks).toFixed(0)}–${Math.max(...ourPeaks).toFixed(0)} MB, peer median ${median(peerPeaks).toFixed(0)} MB`,
	);
	for (const name of await fs.readdir(dir)) if (name.endsWith(".log")) await fs.rm(join(dir, name));
}

async function benchWrite(dir: string): Promise<void> {
	const content = "0123456789abcdef".repeat((100 * MB) / 16);
	const env = new NodeExecutionEnv({ cwd: dir, tempDir: dir });
	const writeOurs = ours(createWriteTool(), env);
	const plain = join(dir, "plain.txt");
	// Interleaved, so load on a shared machine hits both alike; the fastest run of each is compared.
	const ourRuns: number[] = [];
	const plainRuns: number[] = [];
	for (let i = 0; i < 7; i++) {
		ourRuns.push((await time(() => writeOurs({ path: "tool.txt", content }), 1, i === 0 ? 1 : 0)).minMs);
		plainRuns.push((await time(() => fs.writeFile(plain, content), 1, i === 0 ? 1 : 0)).minMs);
	}
	const a = Math.min(...ourRuns);
	const b = Math.min(...plainRuns);
	report(
		"write 100 MB, time vs plain fs.writeFile (best of 7)",
		a / b,
		1.5,
		`${a.toFixed(0)} ms vs ${b.toFixed(0)} ms`,
	);
}

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	if (args[0] === "--child") {
		await child(args[1] ?? "", args[2] === "peer" ? "peer" : "ours", args[3] ?? "");
		return;
	}
	const dir = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-bench-tools-")));
	try {
		await benchRead(dir);
		await benchEdit(dir);
		await benchEditShapes();
		await benchBash(dir);
		await benchWrite(dir);
	} finally {
		await fs.rm(dir, { recursive: true, force: true });
	}
	finish();
}

await main();
