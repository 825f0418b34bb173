/**
 * The path policy of NodeExecutionEnv against a symlink swapped after the check: once by a hook in
 * exactly the window between check and use (every operation), and by another process swapping it
 * continuously while the env reads and writes through it.
 */
import { spawn } from "node:child_process";
import { existsSync, promises as fs, readdirSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { policyTestHooks } from "../../../src/env/_node-path-policy.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";

let base: string;
let cwd: string;
let outside: string;

/** What the folder outside holds, file by file, to compare before and after. */
async function snapshot(folder: string): Promise<Record<string, string>> {
	const files: Record<string, string> = {};
	for (const entry of await fs.readdir(folder, { recursive: true, withFileTypes: true })) {
		const path = join(entry.parentPath ?? entry.path, entry.name);
		files[path.slice(folder.length + 1)] = entry.isFile()
			? await fs.readFile(path, "utf8")
			: `<${entry.isDirectory() ? "dir" : "other"}>`;
	}
	return files;
}

beforeEach(async () => {
	base = realpathSync(await fs.mkdtemp(join(tmpdir(), "toolsmith-policy-race-")));
	cwd = join(base, "project");
	outside = join(base, "outside");
	await fs.mkdir(join(cwd, "real"), { recursive: true });
	await fs.mkdir(outside);
	for (const [folder, word] of [
		[join(cwd, "real"), "inside"],
		[outside, "SECRET-OUTSIDE"],
	] as const) {
		await fs.writeFile(join(folder, "secret.txt"), word);
		await fs.writeFile(join(folder, "victim.txt"), word);
		await fs.writeFile(join(folder, "hard.txt"), word);
		await fs.link(join(folder, "hard.txt"), join(folder, "hard-too.txt"));
		await fs.mkdir(join(folder, "sub"));
		await fs.writeFile(join(folder, "sub", "kept.txt"), word);
	}
	await fs.writeFile(join(cwd, "inside.txt"), "inside");
	await fs.symlink(join(cwd, "real"), join(cwd, "link"));
});
afterEach(async () => {
	policyTestHooks.afterCheck = undefined;
	await fs.rm(base, { recursive: true, force: true });
});

/** Point `cwd/link` at `target`, atomically (a new link renamed over the old). */
async function pointLink(target: string): Promise<void> {
	const temp = join(cwd, `.link-${Math.random().toString(36).slice(2)}`);
	await fs.symlink(target, temp);
	await fs.rename(temp, join(cwd, "link"));
}

describe.each([
	["descriptors named through /proc/self/fd", false],
	["the fallback of systems without /proc: device and inode compared", true],
])("a symlink swapped between the policy's check and the operation (hook in the window; %s)", (_how, withoutProcFd) => {
	beforeEach(() => {
		policyTestHooks.withoutProcFd = withoutProcFd;
	});
	afterEach(() => {
		policyTestHooks.withoutProcFd = undefined;
	});

	const operations: [string, (env: NodeExecutionEnv) => Promise<{ ok: boolean; value?: unknown }>][] = [
		["readTextFile", (env) => env.readTextFile("link/secret.txt")],
		["readBinaryFile", (env) => env.readBinaryFile("link/secret.txt")],
		["readRange", (env) => env.readRange("link/secret.txt", 0, 100)],
		["fileInfo", (env) => env.fileInfo("link/secret.txt")],
		["listDir", (env) => env.listDir("link")],
		["canonicalPath", (env) => env.canonicalPath("link/secret.txt")],
		["writeFile (new file)", (env) => env.writeFile("link/new.txt", "written")],
		["writeFile (existing file)", (env) => env.writeFile("link/victim.txt", "written")],
		["writeFile (hard-linked file, written in place)", (env) => env.writeFile("link/hard.txt", "written")],
		["appendFile (existing file)", (env) => env.appendFile("link/victim.txt", "appended")],
		["appendFile (new file)", (env) => env.appendFile("link/appended.txt", "appended")],
		["createDir", (env) => env.createDir("link/made/deep")],
		["createDir (one level)", (env) => env.createDir("link/made", { recursive: false })],
		["remove", (env) => env.remove("link/victim.txt")],
		["remove (recursive folder)", (env) => env.remove("link/sub", { recursive: true })],
		["rename (from)", (env) => env.rename("link/victim.txt", "moved.txt")],
		["rename (to)", (env) => env.rename("inside.txt", "link/moved.txt")],
	];

	it.each(operations)("%s is refused with permission_denied and touches nothing outside", async (_name, run) => {
		const env = new NodeExecutionEnv({ cwd, policy: { read: [cwd] } });
		const before = await snapshot(outside);
		policyTestHooks.afterCheck = async (absolute) => {
			if (absolute.startsWith(join(cwd, "link"))) await pointLink(outside);
		};
		const result = await run(env);
		policyTestHooks.afterCheck = undefined;
		expect(result.ok).toBe(false);
		if (!result.ok) expect((result as unknown as { error: { code: string } }).error.code).toBe("permission_denied");
		expect(JSON.stringify(result)).not.toContain("SECRET-OUTSIDE");
		expect(await snapshot(outside)).toEqual(before);
	});

	it("exists answers false", async () => {
		const env = new NodeExecutionEnv({ cwd, policy: { read: [cwd] } });
		policyTestHooks.afterCheck = () => pointLink(outside);
		expect(await env.exists("link/secret.txt")).toBe(false);
	});

	it("without a swap, the same operations work through the link (it points inside)", async () => {
		const env = new NodeExecutionEnv({ cwd, policy: { read: [cwd] } });
		expect(await env.readTextFile("link/secret.txt")).toEqual({ ok: true, value: "inside" });
		expect((await env.readRange("link/secret.txt", 0, 3)).ok).toBe(true);
		expect((await env.listDir("link")).ok).toBe(true);
		expect(await env.canonicalPath("link/secret.txt")).toEqual({ ok: true, value: join(cwd, "real/secret.txt") });
		expect((await env.fileInfo("link", { followSymlinks: false })).ok && true).toBe(true);
		expect((await env.writeFile("link/new.txt", "a")).ok).toBe(true);
		expect((await env.writeFile("link/hard.txt", "b")).ok).toBe(true);
		expect(await fs.readFile(join(cwd, "real/hard-too.txt"), "utf8")).toBe("b");
		expect((await env.appendFile("link/new.txt", "c")).ok).toBe(true);
		expect(await fs.readFile(join(cwd, "real/new.txt"), "utf8")).toBe("ac");
		expect((await env.createDir("link/made/deep")).ok).toBe(true);
		expect((await env.createDir("link/made/deep")).ok).toBe(true);
		expect((await env.createDir("link/made", { recursive: false })).ok).toBe(true);
		expect((await env.rename("link/new.txt", "link/made/new.txt")).ok).toBe(true);
		expect((await env.remove("link/made", { recursive: true })).ok).toBe(true);
		expect((await env.remove("link/sub", { recursive: true })).ok).toBe(true);
		expect(readdirSync(join(cwd, "real")).sort()).toEqual(["hard-too.txt", "hard.txt", "secret.txt", "victim.txt"]);
	});
});

describe("a symlink swapped continuously by another process", () => {
	it("never lets a read return the outside file or a write land outside", async () => {
		const before = await snapshot(outside);
		const swapper = spawn(
			process.execPath,
			[
				"-e",
				`const fs = require("node:fs");
				const [link, inside, outside] = process.argv.slice(1);
				let n = 0;
				for (;;) {
					const temp = link + ".swap";
					try { fs.unlinkSync(temp); } catch {}
					fs.symlinkSync(n++ % 2 ? outside : inside, temp);
					fs.renameSync(temp, link);
				}`,
				join(cwd, "link"),
				join(cwd, "real"),
				outside,
			],
			{ stdio: "ignore" },
		);
		try {
			const env = new NodeExecutionEnv({ cwd, policy: { read: [cwd] } });
			for (let round = 0; round < 400; round++) {
				const read = await env.readTextFile("link/secret.txt");
				if (read.ok) expect(read.value).toBe("inside");
				const range = await env.readRange("link/secret.txt", 0, 100);
				if (range.ok) expect(new TextDecoder().decode(range.value)).toBe("inside");
				await env.writeFile("link/victim.txt", `round ${round}`);
				await env.writeFile(`link/new-${round % 5}.txt`, "new");
				await env.appendFile("link/appended.txt", "x");
				await env.createDir(`link/dir-${round % 5}`);
			}
		} finally {
			swapper.kill("SIGKILL");
		}
		expect(await snapshot(outside)).toEqual(before);
		expect(existsSync(join(outside, "appended.txt"))).toBe(false);
	}, 60_000);
});
