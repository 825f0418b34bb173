/**
 * The same starting files in each env, so each behavior test runs on the real disk (a temp
 * folder), in memory and (with `allToolEnvs`, where a loopback sshd can start) over SSH on the
 * same kind of temp folder, plus a `ctx` for calling tools directly.
 */
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import type { ExecutionEnv } from "../../../src/contract/env.js";
import type { ToolContext } from "../../../src/contract/tool.js";
import { MemoryExecutionEnv, type ScriptedCommand } from "../../../src/env/memory.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { SshExecutionEnv } from "../../../src/env/node-ssh.js";
import { sharedSshdStart, stopSharedSshd } from "../../integration/env/_fixtures.js";
import type { Sshd } from "../../integration/ssh/_sshd.js";

export interface ToolFixture {
	readonly kind: "node" | "memory" | "ssh";
	readonly env: ExecutionEnv;
	readonly ctx: ToolContext;
	/** Absolute path of a path relative to the cwd. */
	path(relative: string): string;
	/** The file's bytes as they are now. */
	bytes(relative: string): Promise<Uint8Array>;
	/** The file's text as it is now (BOM kept). */
	text(relative: string): Promise<string>;
	cleanup(): Promise<void>;
}

export interface FixtureFiles {
	readonly files?: Readonly<Record<string, string | Uint8Array>>;
	/** Link path → target relative to the link's folder. */
	readonly symlinks?: Readonly<Record<string, string>>;
	readonly dirs?: readonly string[];
	/** Only for the memory env (Node and SSH run real commands). */
	readonly commands?: readonly ScriptedCommand[];
}

const headlessUi: ToolContext["ui"] = {
	select: async () => undefined,
	confirm: async () => false,
	input: async () => undefined,
	notify: () => undefined,
};

/** A headless tool context over `env` (no person to answer dialogs). */
export function contextFor(env: ExecutionEnv): ToolContext {
	return { env, cwd: env.cwd, hasUI: false, ui: headlessUi };
}

async function fixtureFrom(
	kind: ToolFixture["kind"],
	env: ExecutionEnv,
	cleanup: () => Promise<void>,
): Promise<ToolFixture> {
	const path = (relative: string) => (relative.startsWith("/") ? relative : posix.join(env.cwd, relative));
	const bytes = async (relative: string) => {
		const read = await env.readBinaryFile(path(relative));
		if (!read.ok) throw read.error;
		return read.value;
	};
	return {
		kind,
		env,
		ctx: contextFor(env),
		path,
		bytes,
		text: async (relative) => new TextDecoder("utf-8", { ignoreBOM: true }).decode(await bytes(relative)),
		cleanup,
	};
}

async function diskTree(spec: FixtureFiles): Promise<{ root: string; cwd: string }> {
	const root = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-tools-")));
	const cwd = join(root, "project");
	await fs.mkdir(cwd);
	for (const dir of spec.dirs ?? []) await fs.mkdir(join(cwd, dir), { recursive: true });
	for (const [path, content] of Object.entries(spec.files ?? {})) {
		await fs.mkdir(join(cwd, path, ".."), { recursive: true });
		await fs.writeFile(join(cwd, path), content);
	}
	for (const [link, target] of Object.entries(spec.symlinks ?? {})) await fs.symlink(target, join(cwd, link));
	return { root, cwd };
}

export async function nodeFixture(spec: FixtureFiles = {}): Promise<ToolFixture> {
	const { root, cwd } = await diskTree(spec);
	const env = new NodeExecutionEnv({ cwd, tempDir: root });
	return fixtureFrom("node", env, () => fs.rm(root, { recursive: true, force: true }));
}

/** An env held open for the test file, so the fixtures' envs share one connection and its helpers. */
let sshKeeper: SshExecutionEnv | undefined;

/** The SSH env over `sshd` on a fresh temp folder of this machine (the remote host is this machine). */
export function sshFixture(sshd: Sshd): (spec?: FixtureFiles) => Promise<ToolFixture> {
	return async (spec = {}) => {
		if (!sshKeeper) {
			sshKeeper = new SshExecutionEnv({ destination: sshd.host, configFile: sshd.configFile, cwd: "/" });
			const connected = await sshKeeper.connect();
			if (!connected.ok) throw connected.error;
		}
		const { root, cwd } = await diskTree(spec);
		const env = new SshExecutionEnv({ destination: sshd.host, configFile: sshd.configFile, cwd, tempDir: root });
		return fixtureFrom("ssh", env, async () => {
			await env.close();
			await fs.rm(root, { recursive: true, force: true });
		});
	};
}

export async function memoryFixture(spec: FixtureFiles = {}): Promise<ToolFixture> {
	const env = new MemoryExecutionEnv({
		cwd: "/home/user/project",
		tempDir: "/home/user/tmp",
		files: spec.files,
		dirs: spec.dirs,
		symlinks: spec.symlinks,
		commands: spec.commands,
	});
	return fixtureFrom("memory", env, async () => undefined);
}

export type MakeToolFixture = (spec?: FixtureFiles) => Promise<ToolFixture>;

export const bothEnvs: [string, MakeToolFixture][] = [
	["node", nodeFixture],
	["memory", memoryFixture],
];

/**
 * Node, memory, and SSH where a loopback sshd can start (the reason is printed where it cannot).
 * A test file using it ends them after its tests: `afterAll(stopToolEnvs)`.
 */
export async function allToolEnvs(): Promise<[string, MakeToolFixture][]> {
	const started = await sharedSshdStart();
	if (!started.sshd) {
		console.warn(`SSH env tests skipped: ${started.reason}`);
		return bothEnvs;
	}
	return [...bothEnvs, ["ssh", sshFixture(started.sshd)]];
}

/** Text blocks of a result, joined. */
export function textOf(result: { content: readonly { type: string; text?: string }[] }): string {
	return result.content
		.filter((c) => c.type === "text")
		.map((c) => c.text ?? "")
		.join("\n");
}

/** Close the SSH connection the fixtures shared and stop the loopback sshd. */
export async function stopToolEnvs(): Promise<void> {
	await sshKeeper?.close();
	sshKeeper = undefined;
	await stopSharedSshd();
}
