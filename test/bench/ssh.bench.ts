/**
 * `npm run bench ssh`: the SSH env against bare `ssh` over the same multiplexed connection.
 *
 * A throwaway sshd on 127.0.0.1 (the integration tests' `startSshd`; the benchmark skips, saying
 * why, where it cannot start) and one `SshExecutionEnv` from the built package. Its `sshArgs()` is
 * the argv that runs `ssh` over the env's own master, so the bare side pays no handshake either:
 * both sides share the one connection, and a bare call costs one session (the remote login shell
 * starting, then the command).
 *
 * Side by side (goal ≤ 1.3× each, env / bare):
 *
 * - a page read: `readRange(big, offset, 50 KB)` in the middle of a 4 MB file, and `readTextFile`
 *   of a 50 KB file, each against `ssh host cat <the 50 KB file>`;
 * - a small write: `writeFile(path, 1 KB)` against `ssh host 'cat > file'` with the same bytes on
 *   stdin;
 * - a command: `exec("echo hi")` against `ssh host true` and against `ssh host echo hi`.
 *
 * File operations go through the env's long-lived remote helpers (a request line on a session that
 * is already open), so they skip the session a bare `ssh` pays for; `exec` opens a session per
 * command as the bare `ssh` does. Each round runs every case once, the env's side and the bare
 * side back to back, the side that goes first alternating from round to round so a slow spell of
 * the shared machine falls on both alike; each figure is the median of the rounds' ratios, printed
 * with the median times of both sides. For `exec`, it also prints what the env adds beyond the
 * bare session (the median of the rounds' differences), which is what the ratio is made of.
 */
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SshExecutionEnv } from "toolsmith-sdk/node";
import { startSshd } from "../integration/ssh/_sshd.js";
import { finish, report } from "./_measure.js";

const KB = 1024;
const PAGE = 50 * KB;
const ROUNDS = 21;
const WARMUP = 3;
const GOAL = 1.3;

const started = await startSshd();
if (!started.sshd) {
	console.log(`SKIP  ssh: ${started.reason}`);
	process.exit(0);
}
const sshd = started.sshd;
const dir = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-bench-ssh-")));

/** A run of printable bytes from a fixed seed: no line long enough to matter, the same every run. */
function text(bytes: number, seed: number): Buffer {
	const out = Buffer.alloc(bytes);
	let state = seed;
	for (let i = 0; i < bytes; i++) {
		state = (state * 1103515245 + 12345) & 0x7fffffff;
		out[i] = i % 80 === 79 ? 10 : 32 + (state % 95);
	}
	return out;
}

const bigFile = join(dir, "big.txt");
const pageFile = join(dir, "page.txt");
const smallData = text(KB, 3);
await fs.writeFile(bigFile, text(4 * 1024 * KB, 1));
await fs.writeFile(pageFile, text(PAGE, 2));
const pageOffset = 2 * 1024 * KB + 123;

const env = new SshExecutionEnv({ destination: sshd.host, configFile: sshd.configFile, cwd: dir });

/** Run `remote` with bare `ssh` over the env's connection; resolves with its stdout once it closed. */
function bare(remote: string, stdin?: Uint8Array): Promise<Buffer> {
	const args = env.sshArgs();
	return new Promise((resolve, reject) => {
		const child = spawn(args[0] as string, [...args.slice(1), "--", remote], {
			stdio: [stdin ? "pipe" : "ignore", "pipe", "pipe"],
		});
		const out: Buffer[] = [];
		let err = "";
		child.stdout?.on("data", (chunk: Buffer) => out.push(chunk));
		child.stderr?.on("data", (chunk: Buffer) => {
			err += chunk.toString();
		});
		child.once("error", reject);
		child.once("close", (code) => {
			if (code === 0) resolve(Buffer.concat(out));
			else reject(new Error(`ssh … ${remote} exited with ${code}: ${err.trim()}`));
		});
		if (stdin) child.stdin?.end(stdin);
	});
}

function unwrap<T>(result: { ok: true; value: T } | { ok: false; error: Error }, what: string): T {
	if (!result.ok) throw new Error(`${what}: ${result.error.message}`);
	return result.value;
}

interface Case {
	readonly name: string;
	readonly env: () => Promise<unknown>;
	readonly bare: () => Promise<unknown>;
}

const writeTarget = join(dir, "written.txt");
const bareWriteTarget = join(dir, "written-bare.txt");
const cases: readonly Case[] = [
	{
		name: "page read: readRange(4 MB file, 2 MB, 50 KB) vs ssh host cat <50 KB file>",
		env: async () => unwrap(await env.readRange(bigFile, pageOffset, PAGE), "readRange"),
		bare: () => bare(`cat ${pageFile}`),
	},
	{
		name: "page read: readTextFile(50 KB file) vs ssh host cat <50 KB file>",
		env: async () => unwrap(await env.readTextFile(pageFile), "readTextFile"),
		bare: () => bare(`cat ${pageFile}`),
	},
	{
		name: "small write: writeFile(1 KB) vs ssh host 'cat > file' <1 KB>",
		env: async () => unwrap(await env.writeFile(writeTarget, smallData), "writeFile"),
		bare: () => bare(`cat > ${bareWriteTarget}`, smallData),
	},
	{
		name: 'exec("echo hi") vs ssh host true',
		env: async () => unwrap(await env.exec("echo hi"), "exec"),
		bare: () => bare("true"),
	},
	{
		name: 'exec("echo hi") vs ssh host echo hi',
		env: async () => unwrap(await env.exec("echo hi"), "exec"),
		bare: () => bare("echo hi"),
	},
];

function median(values: readonly number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
	const start = performance.now();
	await fn();
	return performance.now() - start;
}

try {
	const connectStart = performance.now();
	const connected = await env.connect();
	if (!connected.ok) throw connected.error;
	console.log(`connected in ${(performance.now() - connectStart).toFixed(0)} ms (master and first helper)`);

	// Both sides must produce the same bytes, or the comparison means nothing.
	const page = (await fs.readFile(pageFile)).toString("latin1");
	const big = await fs.readFile(bigFile);
	const ranged = Buffer.from(unwrap(await env.readRange(bigFile, pageOffset, PAGE), "readRange"));
	if (!ranged.equals(big.subarray(pageOffset, pageOffset + PAGE))) throw new Error("readRange read other bytes");
	if (unwrap(await env.readTextFile(pageFile), "readTextFile") !== page) throw new Error("readTextFile differs");
	if ((await bare(`cat ${pageFile}`)).toString("latin1") !== page) throw new Error("ssh cat read other bytes");
	unwrap(await env.writeFile(writeTarget, smallData), "writeFile");
	await bare(`cat > ${bareWriteTarget}`, smallData);
	for (const file of [writeTarget, bareWriteTarget])
		if (!(await fs.readFile(file)).equals(smallData)) throw new Error(`${file} holds other bytes`);
	const echoed = unwrap(await env.exec("echo hi"), "exec");
	if (echoed.stdout !== "hi\n" || echoed.exitCode !== 0) throw new Error(`exec gave ${JSON.stringify(echoed)}`);
	if ((await bare("echo hi")).toString() !== "hi\n") throw new Error("ssh echo hi printed something else");

	const samples = cases.map(() => ({ env: [] as number[], bare: [] as number[] }));
	for (let round = 0; round < WARMUP + ROUNDS; round++) {
		for (const [index, item] of cases.entries()) {
			const envFirst = round % 2 === 0;
			const first = await timed(envFirst ? item.env : item.bare);
			const second = await timed(envFirst ? item.bare : item.env);
			if (round < WARMUP) continue;
			samples[index]?.env.push(envFirst ? first : second);
			samples[index]?.bare.push(envFirst ? second : first);
		}
	}

	console.log(`${ROUNDS} rounds, ${sshd.host} on 127.0.0.1 (one multiplexed connection for both sides)\n`);
	for (const [index, item] of cases.entries()) {
		const sample = samples[index];
		if (!sample) continue;
		const ratios = sample.env.map((value, i) => value / (sample.bare[i] ?? Number.NaN));
		const differences = sample.env.map((value, i) => value - (sample.bare[i] ?? Number.NaN));
		const envMs = median(sample.env);
		const bareMs = median(sample.bare);
		const extra = item.name.startsWith("exec") ? `, env − bare ${median(differences).toFixed(1)} ms` : "";
		report(item.name, median(ratios), GOAL, `env ${envMs.toFixed(1)} ms, bare ${bareMs.toFixed(1)} ms${extra}`);
	}
} finally {
	await env.close();
	await sshd.stop();
	await fs.rm(dir, { recursive: true, force: true });
}
finish();
