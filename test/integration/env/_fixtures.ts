/**
 * One way to build the same starting state in both envs, so a test body can run against each:
 * Node in a fresh temp folder on disk, memory from a seed.
 */
import { promises as fs, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import type { ExecutionEnv } from "../../../src/contract/env.js";
import { MemoryExecutionEnv, type ScriptedCommand } from "../../../src/env/memory.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { SshExecutionEnv } from "../../../src/env/node-ssh.js";
import { type Sshd, startSshd } from "../ssh/_sshd.js";

export interface FixtureSpec {
	readonly files?: Readonly<Record<string, string | Uint8Array | { content: string; mode: number }>>;
	readonly dirs?: readonly string[];
	/** Link path → target; `{cwd}` in a target stands for the env's cwd (for absolute targets). */
	readonly symlinks?: Readonly<Record<string, string>>;
	/** Paths made unwritable (chmod on disk, `readOnly` in memory). */
	readonly readOnly?: readonly string[];
	/** The memory env's scripted shell; ignored by the Node env, which runs the real commands. */
	readonly commands?: readonly ScriptedCommand[];
}

export interface Fixture {
	readonly kind: "node" | "memory" | "ssh";
	readonly env: ExecutionEnv;
	/** Absolute path in the env of a path relative to its cwd. */
	path(relative: string): string;
	/** Whether a process started by a command (pid printed by it) can no longer run. */
	processGone(pid: number): boolean;
	cleanup(): Promise<void>;
}

export type MakeFixture = (spec?: FixtureSpec) => Promise<Fixture>;

export const isRoot = typeof process.getuid === "function" && process.getuid() === 0;

/** Gone, or a zombie nobody reaps (some containers' init never does). */
export function osProcessGone(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "ESRCH";
	}
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
	} catch {
		return false;
	}
}

export const makeNodeFixture: MakeFixture = async (spec = {}) => {
	const root = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-env-")));
	const cwd = join(root, "project");
	await fs.mkdir(cwd);
	const at = (relative: string) => (relative.startsWith("/") ? relative : join(cwd, relative));
	for (const dir of spec.dirs ?? []) await fs.mkdir(at(dir), { recursive: true });
	for (const [path, file] of Object.entries(spec.files ?? {})) {
		await fs.mkdir(join(at(path), ".."), { recursive: true });
		const content = typeof file === "string" || file instanceof Uint8Array ? file : file.content;
		await fs.writeFile(at(path), content);
		if (typeof file === "object" && !(file instanceof Uint8Array)) await fs.chmod(at(path), file.mode);
	}
	for (const [path, target] of Object.entries(spec.symlinks ?? {})) {
		await fs.mkdir(join(at(path), ".."), { recursive: true });
		await fs.symlink(target.replaceAll("{cwd}", cwd), at(path));
	}
	for (const path of spec.readOnly ?? []) {
		const stats = await fs.stat(at(path));
		await fs.chmod(at(path), stats.isDirectory() ? 0o555 : 0o444);
	}
	const env = new NodeExecutionEnv({ cwd, tempDir: join(root, "tmp"), killGraceMs: 500 });
	return {
		kind: "node",
		env,
		path: at,
		processGone: osProcessGone,
		async cleanup() {
			// Read-only folders must become writable again before they can be removed.
			for (const path of spec.readOnly ?? []) await fs.chmod(at(path), 0o755).catch(() => undefined);
			await fs.rm(root, { recursive: true, force: true });
		},
	};
};

/** Fake processes started by scripted commands: alive until their exec's signal fires. */
const fakeProcesses = new Set<number>();
let nextFakePid = 40_000;

/** A scripted stand-in for a command that starts a long-running child and prints its pid. */
export function fakeBackgroundChild(match: string): ScriptedCommand {
	return {
		match,
		run: (_command, ctx) => {
			const pid = nextFakePid++;
			fakeProcesses.add(pid);
			ctx.signal.addEventListener("abort", () => fakeProcesses.delete(pid), { once: true });
			ctx.stdout(`${pid}\n`);
			return new Promise(() => undefined);
		},
	};
}

export const makeMemoryFixture: MakeFixture = async (spec = {}) => {
	const cwd = "/home/user/project";
	const env = new MemoryExecutionEnv({
		cwd,
		tempDir: "/home/user/tmp",
		files: spec.files,
		dirs: spec.dirs,
		symlinks: Object.fromEntries(
			Object.entries(spec.symlinks ?? {}).map(([path, target]) => [path, target.replaceAll("{cwd}", cwd)]),
		),
		readOnly: spec.readOnly,
		commands: spec.commands,
	});
	return {
		kind: "memory",
		env,
		path: (relative) => posix.resolve(cwd, relative),
		processGone: (pid) => !fakeProcesses.has(pid),
		async cleanup() {},
	};
};

export const bothEnvs: [string, MakeFixture][] = [
	["node", makeNodeFixture],
	["memory", makeMemoryFixture],
];

let sharedSshd: Promise<{ sshd?: Sshd; reason?: string }> | undefined;

/**
 * One loopback sshd for the test file (started on first use, stopped by `stopSharedSshd`), or
 * why there is none here.
 */
export function sharedSshdStart(): Promise<{ sshd?: Sshd; reason?: string }> {
	sharedSshd ??= startSshd();
	return sharedSshd;
}

export async function stopSharedSshd(): Promise<void> {
	const started = await sharedSshd;
	sharedSshd = undefined;
	await started?.sshd?.stop();
}

/**
 * The SSH env over the loopback sshd, on a temp folder of this machine (the remote host is this
 * machine): the same files the Node fixture makes, reached through ssh.
 */
export function makeSshFixture(sshd: Sshd): MakeFixture {
	return async (spec = {}) => {
		const local = await makeNodeFixture(spec);
		const cwd = local.env.cwd;
		const env = new SshExecutionEnv({
			destination: sshd.host,
			configFile: sshd.configFile,
			cwd,
			tempDir: join(cwd, "..", "tmp"),
			killGraceMs: 500,
			// The next test's env reuses the connection: no handshake per test.
			lingerMs: 2000,
		});
		return {
			...local,
			kind: "ssh",
			env,
			async cleanup() {
				await env.close();
				await local.cleanup();
			},
		};
	};
}

/**
 * Every env the shared test bodies run against: node, memory, and ssh where a loopback sshd can
 * start (the reason is printed where it cannot).
 */
export async function allEnvs(): Promise<[string, MakeFixture][]> {
	const started = await sharedSshdStart();
	if (!started.sshd) {
		console.warn(`SSH env tests skipped: ${started.reason}`);
		return bothEnvs;
	}
	return [...bothEnvs, ["ssh", makeSshFixture(started.sshd)]];
}
