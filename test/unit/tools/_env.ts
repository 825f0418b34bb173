/**
 * The same starting files in both envs, so each behavior test runs on the real disk (a temp
 * folder) and in memory, plus a `ctx` for calling tools directly.
 */
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import type { ExecutionEnv } from "../../../src/contract/env.js";
import type { ToolContext } from "../../../src/contract/tool.js";
import { MemoryExecutionEnv, type ScriptedCommand } from "../../../src/env/memory.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";

export interface ToolFixture {
	readonly kind: "node" | "memory";
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
	/** Only for the memory env (Node runs real commands). */
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
	kind: "node" | "memory",
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

export async function nodeFixture(spec: FixtureFiles = {}): Promise<ToolFixture> {
	const root = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-tools-")));
	const cwd = join(root, "project");
	await fs.mkdir(cwd);
	for (const dir of spec.dirs ?? []) await fs.mkdir(join(cwd, dir), { recursive: true });
	for (const [path, content] of Object.entries(spec.files ?? {})) {
		await fs.mkdir(join(cwd, path, ".."), { recursive: true });
		await fs.writeFile(join(cwd, path), content);
	}
	for (const [link, target] of Object.entries(spec.symlinks ?? {})) await fs.symlink(target, join(cwd, link));
	const env = new NodeExecutionEnv({ cwd, tempDir: root });
	return fixtureFrom("node", env, () => fs.rm(root, { recursive: true, force: true }));
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

export const bothEnvs: [string, (spec?: FixtureFiles) => Promise<ToolFixture>][] = [
	["node", nodeFixture],
	["memory", memoryFixture],
];

/** Text blocks of a result, joined. */
export function textOf(result: { content: readonly { type: string; text?: string }[] }): string {
	return result.content
		.filter((c) => c.type === "text")
		.map((c) => c.text ?? "")
		.join("\n");
}
