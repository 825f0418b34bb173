/**
 * read, edit and write refuse FIFOs, devices and sockets from their metadata, at once: nothing
 * blocks on a FIFO and nothing reads an endless device into memory. One body runs on the real
 * disk (mkfifo, a link to /dev/zero), on the same kind of folder over SSH (where a loopback sshd
 * can start) and on a memory env modeling the same special files.
 */
import { execFileSync } from "node:child_process";
import { promises as fs, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { ExecutionEnv } from "../../../src/contract/env.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { SshExecutionEnv } from "../../../src/env/node-ssh.js";
import { createEditTool } from "../../../src/tools/edit.js";
import { createReadTool } from "../../../src/tools/read.js";
import { createWriteTool } from "../../../src/tools/write.js";
import { contextFor } from "../../unit/tools/_env.js";
import { sharedSshdStart, stopSharedSshd } from "../env/_fixtures.js";

const read = createReadTool();
const edit = createEditTool();
const write = createWriteTool();
const ctxOf = contextFor;

/**
 * Settles within `ms` (or fails the test), resolving to the rejection's message. A call that blocks
 * on a FIFO or reads an endless device never settles, so a generous bound still catches it, and a
 * busy machine (an SSH round trip can take a second) does not fail a refusal that is merely slow.
 */
async function refusedWithin(run: Promise<unknown>, ms = 20_000): Promise<string> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`still running after ${ms} ms`)), ms);
	});
	try {
		await Promise.race([run.then(() => Promise.reject(new Error("it succeeded"))), timeout]);
		return "";
	} catch (error) {
		const message = (error as Error).message;
		if (message.startsWith("still running") || message === "it succeeded") throw error;
		return message;
	} finally {
		clearTimeout(timer);
	}
}

async function expectAllRefused(env: ExecutionEnv, path: string, what: RegExp): Promise<void> {
	const ctx = ctxOf(env);
	const messages = [
		await refusedWithin(read.execute("r", { path }, undefined, undefined, ctx)),
		await refusedWithin(
			edit.execute("e", { path, edits: [{ oldText: "a", newText: "b" }] }, undefined, undefined, ctx),
		),
		await refusedWithin(write.execute("w", { path, content: "x" }, undefined, undefined, ctx)),
	];
	for (const message of messages) {
		expect(message).toContain(path);
		expect(message).toMatch(what);
		expect(message).toMatch(/not a regular file/);
	}
}

interface SpecialFixture {
	env: ExecutionEnv;
	cleanup(): Promise<void>;
}

/** A temp folder holding a FIFO (`pipe`) and a link to /dev/zero (`zero`). */
async function specialTree(): Promise<string> {
	const root = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-special-")));
	execFileSync("mkfifo", [join(root, "pipe")]);
	await fs.symlink("/dev/zero", join(root, "zero"));
	return root;
}

const { sshd, reason } = await sharedSshdStart();
if (!sshd) console.warn(`SSH env tests skipped: ${reason}`);
afterAll(stopSharedSshd);

const envs: [string, () => Promise<SpecialFixture>][] = [
	[
		"node",
		async () => {
			const root = await specialTree();
			return { env: new NodeExecutionEnv({ cwd: root }), cleanup: () => fs.rm(root, { recursive: true, force: true }) };
		},
	],
	...(sshd
		? [
				[
					"ssh",
					async () => {
						const root = await specialTree();
						const env = new SshExecutionEnv({ destination: sshd.host, configFile: sshd.configFile, cwd: root });
						return {
							env,
							cleanup: async () => {
								await env.close();
								await fs.rm(root, { recursive: true, force: true });
							},
						};
					},
				] as [string, () => Promise<SpecialFixture>],
			]
		: []),
	[
		"memory",
		async () => ({
			env: new MemoryExecutionEnv({
				cwd: "/work",
				specialFiles: { "/dev/zero": "character_device", pipe: "fifo" },
				symlinks: { zero: "/dev/zero" },
			}),
			cleanup: async () => undefined,
		}),
	],
];

describe.each(envs)("special files on %s", (_name, make) => {
	let fixture: SpecialFixture | undefined;
	afterEach(async () => fixture?.cleanup());

	it("refuses a FIFO in read, edit and write, without blocking", async () => {
		fixture = await make();
		await expectAllRefused(fixture.env, "pipe", /FIFO/);
		const info = await fixture.env.fileInfo("pipe");
		expect(info.ok && info.value.kind).toBe("fifo");
		const listed = await fixture.env.listDir(".");
		expect(listed.ok && listed.value.find((entry) => entry.name === "pipe")?.kind).toBe("fifo");
	});

	it("refuses a character device reached through a symlink", async () => {
		fixture = await make();
		await expectAllRefused(fixture.env, "zero", /character device/);
		const bytes = await fixture.env.readRange("zero", 0, 10);
		expect(bytes.ok).toBe(false);
		expect(!bytes.ok && bytes.error.code).toBe("invalid_argument");
	});

	it("refuses a FIFO and a device in appendFile, without blocking, and leaves them as they were", async () => {
		fixture = await make();
		const env = fixture.env;
		for (const [path, what] of [
			["pipe", /FIFO/],
			["zero", /character device/],
		] as const) {
			const appended = await refusedWithin(
				env.appendFile(path, "x").then((result) => {
					if (!result.ok) throw result.error;
				}),
			);
			expect(appended).toContain(path);
			expect(appended).toMatch(what);
			expect(appended).toMatch(/not a regular file/);
		}
		const info = await env.fileInfo("pipe");
		expect(info.ok && info.value.kind).toBe("fifo");
		// A regular file next to them still takes appends.
		expect((await env.appendFile("log.txt", "a")).ok).toBe(true);
		expect((await env.appendFile("log.txt", "b")).ok).toBe(true);
		const log = await env.readTextFile("log.txt");
		expect(log.ok && log.value).toBe("ab");
	});
});

describe("special files of the real system", () => {
	const env = new NodeExecutionEnv({ cwd: tmpdir() });
	it.each(["/dev/zero", "/dev/urandom"])("refuses %s at once (nothing endless is read)", async (path) => {
		await expectAllRefused(env, path, /character device/);
		const appended = await env.appendFile(path, "x");
		expect(!appended.ok && appended.error.message).toMatch(/character device/);
		const whole = await env.readBinaryFile(path);
		expect(!whole.ok && whole.error.message).toMatch(/character device/);
	});

	const stdin = statSync("/dev/stdin", { throwIfNoEntry: false });
	it.skipIf(!stdin || stdin.isFile())("refuses /dev/stdin at once", async () => {
		await expectAllRefused(env, "/dev/stdin", /FIFO|character device|socket/);
	});
});
