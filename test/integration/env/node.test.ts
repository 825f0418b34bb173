/**
 * NodeExecutionEnv behavior that has no memory counterpart: huge files, real shells, process
 * groups that resist SIGTERM, background processes that outlive the shell.
 */
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { osProcessGone } from "./_fixtures.js";

let root: string;
const started: number[] = [];

beforeEach(async () => {
	root = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-node-env-")));
});
afterEach(async () => {
	for (const pid of started.splice(0)) {
		try {
			process.kill(pid, "SIGKILL");
		} catch {
			// Already gone.
		}
	}
	await fs.rm(root, { recursive: true, force: true });
});

describe("NodeExecutionEnv", () => {
	it("reads a range near the end of a file far too large to read whole", async () => {
		const env = new NodeExecutionEnv({ cwd: root });
		const size = 3 * 1024 ** 3;
		const handle = await fs.open(join(root, "huge.bin"), "w");
		await handle.truncate(size);
		await handle.write(Buffer.from("tail!"), 0, 5, size - 5);
		await handle.close();
		const tail = await env.readRange("huge.bin", size - 5, 100);
		expect(tail.ok && new TextDecoder().decode(tail.value)).toBe("tail!");
		// The whole file exceeds what one buffer can hold, which proves the range read did not load it.
		const whole = await env.readBinaryFile("huge.bin");
		expect(whole.ok ? "ok" : whole.error.code).toBe("io_error");
		expect(whole.ok ? "" : whole.error.osCode).toBe("ERR_FS_FILE_TOO_LARGE");
	});

	it("streams plain Uint8Array chunks", async () => {
		const env = new NodeExecutionEnv({ cwd: root });
		const chunks: Uint8Array[] = [];
		await env.exec("printf abc", {
			onStdout: (chunk) => {
				chunks.push(chunk);
			},
		});
		expect(chunks.length).toBeGreaterThan(0);
		for (const chunk of chunks) expect(chunk.constructor).toBe(Uint8Array);
	});

	it("kills a tree that ignores SIGTERM with SIGKILL after the grace period", async () => {
		const env = new NodeExecutionEnv({ cwd: root, killGraceMs: 200 });
		let printed = "";
		const result = await env.exec("trap '' TERM; sleep 30 & echo $!; wait", {
			timeout: 0.2,
			onStdout: (chunk) => {
				printed += new TextDecoder().decode(chunk);
			},
		});
		expect(result.ok ? "ok" : result.error.code).toBe("timeout");
		const pid = Number(printed.trim());
		started.push(pid);
		expect(osProcessGone(pid)).toBe(true);
	});

	it("does not wait for a background process that keeps the output open, and leaves it running", async () => {
		const env = new NodeExecutionEnv({ cwd: root });
		const result = await env.exec("sleep 30 & echo $!");
		expect(result.ok && result.value.exitCode).toBe(0);
		const pid = Number(result.ok ? result.value.stdout.trim() : Number.NaN);
		started.push(pid);
		expect(pid).toBeGreaterThan(0);
		expect(osProcessGone(pid)).toBe(false);
	});

	it("runs with a given shell and reports a missing one as spawn_error", async () => {
		const sh = new NodeExecutionEnv({ cwd: root, shell: "/bin/sh" });
		const result = await sh.exec("echo $0");
		expect(result.ok && result.value.stdout).toBe("/bin/sh\n");
		const missing = await new NodeExecutionEnv({ cwd: root, shell: join(root, "no-shell") }).exec("true");
		expect(missing.ok ? "ok" : missing.error.code).toBe("spawn_error");
		expect(missing.ok ? "" : missing.error.message).toContain("no-shell");
	});

	it("passes only the given base environment, with per-call overrides and removals", async () => {
		const env = new NodeExecutionEnv({ cwd: root, env: { PATH: process.env.PATH, KEEP: "k", DROP: "d" } });
		const result = await env.exec('printf "%s|%s|%s" "$KEEP" "$DROP" "$ADDED"', {
			env: { DROP: undefined, ADDED: "a" },
		});
		expect(result.ok && result.value.stdout).toBe("k||a");
	});

	it("writes durably when asked, keeping content and mode", async () => {
		const env = new NodeExecutionEnv({ cwd: root, durable: true });
		await fs.writeFile(join(root, "f.txt"), "old", { mode: 0o600 });
		await fs.chmod(join(root, "f.txt"), 0o600);
		const written = await env.writeFile("f.txt", "new");
		expect(written.ok).toBe(true);
		expect(await fs.readFile(join(root, "f.txt"), "utf8")).toBe("new");
		expect((await fs.stat(join(root, "f.txt"))).mode & 0o777).toBe(0o600);
		expect(await fs.readdir(root)).toEqual(["f.txt"]);
	});

	it("keeps the OS error code on mapped errors", async () => {
		const env = new NodeExecutionEnv({ cwd: root });
		const long = "x".repeat(300);
		const result = await env.readTextFile(long);
		expect(result.ok ? "ok" : result.error.code).toBe("invalid_path");
		expect(result.ok ? "" : result.error.osCode).toBe("ENAMETOOLONG");
	});
});
