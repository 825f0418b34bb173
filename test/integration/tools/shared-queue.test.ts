/**
 * Edits through several NodeExecutionEnv instances on one folder share one mutation queue per
 * real file (process-wide), so none is lost; hard-linked files keep their links. The same holds
 * for SshExecutionEnv instances on one host (over a loopback sshd, where one can start).
 */
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ExecutionEnv } from "../../../src/contract/env.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { SshExecutionEnv } from "../../../src/env/node-ssh.js";
import { createEditTool as compatCreateEditTool } from "../../../src/extensions/node-compat/pi-coding-agent.js";
import { RecordingEnv } from "../../../src/harness/record.js";
import { createEditTool } from "../../../src/tools/edit.js";
import { createWriteTool } from "../../../src/tools/write.js";
import { contextFor } from "../../unit/tools/_env.js";
import { sharedSshdStart, stopSharedSshd } from "../env/_fixtures.js";

const { sshd, reason } = await sharedSshdStart();
if (!sshd) console.warn(`SSH env tests skipped: ${reason}`);
afterAll(stopSharedSshd);

const edit = createEditTool();
const write = createWriteTool();
const ctxOf = contextFor;

let root: string;
beforeEach(async () => {
	root = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-queue-")));
});
afterEach(async () => fs.rm(root, { recursive: true, force: true }));

async function concurrentEdits(envCount: number, path: string): Promise<void> {
	await editsThrough(
		Array.from({ length: envCount }, () => new NodeExecutionEnv({ cwd: root })),
		path,
	);
}

/**
 * 50 concurrent edits of a.txt (one line each), spread over `envs` in turn, the i-th through
 * `path` (or `path(i)`); none may be lost.
 */
async function editsThrough(envs: readonly ExecutionEnv[], path: string | ((i: number) => string)): Promise<void> {
	const envCount = envs.length;
	const lines = Array.from({ length: 50 }, (_, i) => `line ${i} old`);
	await fs.writeFile(join(root, "a.txt"), `${lines.join("\n")}\n`);
	const results = await Promise.all(
		lines.map((line, i) =>
			edit.execute(
				`c${i}`,
				{ path: typeof path === "string" ? path : path(i), edits: [{ oldText: line, newText: `line ${i} new` }] },
				undefined,
				undefined,
				ctxOf(envs[i % envCount]!),
			),
		),
	);
	expect(results).toHaveLength(50);
	const after = await fs.readFile(join(root, "a.txt"), "utf8");
	expect(after).toBe(`${lines.map((_, i) => `line ${i} new`).join("\n")}\n`);
}

describe("one mutation queue per real file, process-wide", () => {
	it("loses no edit of 50 concurrent ones through 2 NodeExecutionEnv instances", async () => {
		await concurrentEdits(2, "a.txt");
	});
	it("loses no edit of 50 concurrent ones through 50 NodeExecutionEnv instances", async () => {
		await concurrentEdits(50, "a.txt");
	});
	it("loses no edit when half of them go through a symlinked alias", async () => {
		await fs.symlink("a.txt", join(root, "alias.txt"));
		const lines = Array.from({ length: 50 }, (_, i) => `line ${i} old`);
		await fs.writeFile(join(root, "a.txt"), `${lines.join("\n")}\n`);
		const envs = Array.from({ length: 5 }, () => new NodeExecutionEnv({ cwd: root }));
		await Promise.all(
			lines.map((line, i) =>
				edit.execute(
					`c${i}`,
					{ path: i % 2 ? "alias.txt" : join(root, "a.txt"), edits: [{ oldText: line, newText: `line ${i} new` }] },
					undefined,
					undefined,
					ctxOf(envs[i % 5]!),
				),
			),
		);
		expect(await fs.readFile(join(root, "a.txt"), "utf8")).toBe(`${lines.map((_, i) => `line ${i} new`).join("\n")}\n`);
		expect((await fs.lstat(join(root, "alias.txt"))).isSymbolicLink()).toBe(true);
	});
});

describe.skipIf(!sshd)("one mutation queue per remote file and host", () => {
	it("loses no edit of 50 concurrent ones through 2 SshExecutionEnv instances, half through a symlinked alias", async () => {
		await fs.symlink("a.txt", join(root, "alias.txt"));
		const options = { destination: sshd?.host ?? "", configFile: sshd?.configFile ?? "", cwd: root };
		const envs = [new SshExecutionEnv(options), new SshExecutionEnv({ ...options, searchBinaries: false })];
		try {
			await editsThrough(envs, (i) => (i % 2 ? "alias.txt" : join(root, "a.txt")));
		} finally {
			for (const env of envs) await env.close();
		}
		expect((await fs.lstat(join(root, "alias.txt"))).isSymbolicLink()).toBe(true);
	});
});

describe("env wrappers queue with the env they wrap", () => {
	it("loses no edit of 50 concurrent ones split between a RecordingEnv around a NodeExecutionEnv and a plain one", async () => {
		const node = new NodeExecutionEnv({ cwd: root });
		await editsThrough([new RecordingEnv(node), new NodeExecutionEnv({ cwd: root })], "a.txt");
	});
	it("loses no edit of 50 concurrent ones split between a RecordingEnv and the env it wraps, on a memory env", async () => {
		const lines = Array.from({ length: 50 }, (_, i) => `line ${i} old`);
		const memory = new MemoryExecutionEnv({ cwd: "/work", files: { "a.txt": `${lines.join("\n")}\n` } });
		const recording = new RecordingEnv(memory);
		await Promise.all(
			lines.map((line, i) =>
				edit.execute(
					`c${i}`,
					{ path: "a.txt", edits: [{ oldText: line, newText: `line ${i} new` }] },
					undefined,
					undefined,
					ctxOf(i % 2 ? recording : memory),
				),
			),
		);
		const after = await memory.readTextFile("a.txt");
		expect(after.ok && after.value).toBe(`${lines.map((_, i) => `line ${i} new`).join("\n")}\n`);
	});
});

describe("the pi-compat layer's envs", () => {
	it("loses no edit of 50 concurrent ones split between a compat edit tool and the built-in edit tool", async () => {
		const lines = Array.from({ length: 50 }, (_, i) => `line ${i} old`);
		await fs.writeFile(join(root, "a.txt"), `${lines.join("\n")}\n`);
		const compat = compatCreateEditTool(root);
		const host = new NodeExecutionEnv({ cwd: root });
		await Promise.all(
			lines.map((line, i) => {
				const params = { path: "a.txt", edits: [{ oldText: line, newText: `line ${i} new` }] };
				return i % 2
					? compat.execute(`c${i}`, params)
					: edit.execute(`c${i}`, params, undefined, undefined, ctxOf(host));
			}),
		);
		expect(await fs.readFile(join(root, "a.txt"), "utf8")).toBe(`${lines.map((_, i) => `line ${i} new`).join("\n")}\n`);
	});

	it("loses no edit of 50 concurrent ones through tools built per call from new operations (as the reference's ssh example does)", async () => {
		const lines = Array.from({ length: 50 }, (_, i) => `line ${i} old`);
		const remote = new Map([[join(root, "a.txt"), `${lines.join("\n")}\n`]]);
		const later = () => new Promise<void>((resolve) => setTimeout(resolve, Math.floor(Math.random() * 3)));
		const missing = (p: string) => Object.assign(new Error(`ENOENT: ${p}`), { code: "ENOENT" });
		// A fresh operations object for every call, over one fake remote host.
		const operations = () => ({
			readFile: async (p: string) => {
				await later();
				const text = remote.get(p);
				if (text === undefined) throw missing(p);
				return Buffer.from(text);
			},
			access: async (p: string) => {
				await later();
				if (!remote.has(p)) throw missing(p);
			},
			writeFile: async (p: string, content: string) => {
				await later();
				remote.set(p, content);
			},
		});
		await Promise.all(
			lines.map((line, i) =>
				compatCreateEditTool(root, { operations: operations() }).execute(`c${i}`, {
					path: "a.txt",
					edits: [{ oldText: line, newText: `line ${i} new` }],
				}),
			),
		);
		expect(remote.get(join(root, "a.txt"))).toBe(`${lines.map((_, i) => `line ${i} new`).join("\n")}\n`);
		expect(await fs.readdir(root)).toEqual([]);
	});
});

describe("hard links", () => {
	it("edit and write keep a hard-linked file's links: both names see the new content", async () => {
		await fs.writeFile(join(root, "a.txt"), "one\ntwo\n", { mode: 0o640 });
		await fs.link(join(root, "a.txt"), join(root, "b.txt"));
		const env = new NodeExecutionEnv({ cwd: root });
		await edit.execute(
			"e",
			{ path: "a.txt", edits: [{ oldText: "two", newText: "deux" }] },
			undefined,
			undefined,
			ctxOf(env),
		);
		expect((await fs.stat(join(root, "a.txt"))).nlink).toBe(2);
		expect(await fs.readFile(join(root, "b.txt"), "utf8")).toBe("one\ndeux\n");
		await write.execute("w", { path: "b.txt", content: "short" }, undefined, undefined, ctxOf(env));
		const stats = await fs.stat(join(root, "b.txt"));
		expect(stats.nlink).toBe(2);
		expect(stats.mode & 0o777).toBe(0o640);
		expect(await fs.readFile(join(root, "a.txt"), "utf8")).toBe("short");
		expect((await fs.readdir(root)).sort()).toEqual(["a.txt", "b.txt"]);
	});
});
