/**
 * The path policy and the shell sandbox of NodeExecutionEnv, on a real temp folder. The file
 * operations' cases run against SshExecutionEnv too (the same folder over a loopback sshd, where
 * one can start), as does the refusal of commands without a sandbox.
 */
import { execFileSync } from "node:child_process";
import { existsSync, promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ExecutionEnv } from "../../../src/contract/env.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { SshExecutionEnv } from "../../../src/env/node-ssh.js";
import { stripAtPrefix } from "../../../src/tools/_paths.js";
import { sharedSshdStart, stopSharedSshd } from "./_fixtures.js";

let base: string;
let cwd: string;
let outside: string;

beforeEach(async () => {
	base = realpathSync(await fs.mkdtemp(join(tmpdir(), "toolsmith-policy-")));
	cwd = join(base, "project");
	outside = join(base, "outside");
	await fs.mkdir(cwd);
	await fs.mkdir(outside);
	await fs.writeFile(join(outside, "secret.txt"), "secret");
	await fs.writeFile(join(cwd, "inside.txt"), "inside");
});
afterEach(async () => {
	await fs.rm(base, { recursive: true, force: true });
});

/** `promise`, or a rejection once `ms` have passed (so a call that blocks fails the test instead of hanging it). */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const late = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
	});
	return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Makes an env on a folder of this machine, with its options (Node's sandbox ignored by ssh). */
type MakeEnv = (options: ConstructorParameters<typeof NodeExecutionEnv>[0] & { cwd: string }) => ExecutionEnv;

const sshEnvs: SshExecutionEnv[] = [];
afterEach(async () => {
	for (const env of sshEnvs.splice(0)) await env.close();
});
afterAll(stopSharedSshd);
const sshd = (await sharedSshdStart()).sshd;
if (!sshd) console.warn("SSH env policy tests skipped: no loopback sshd here");
const makers: [string, MakeEnv][] = [["node", (options) => new NodeExecutionEnv(options)]];
if (sshd)
	makers.push([
		"ssh",
		({ cwd: folder, policy, tempDir }) => {
			const env = new SshExecutionEnv({
				destination: sshd.host,
				configFile: sshd.configFile,
				cwd: folder,
				lingerMs: 2000,
				...(policy ? { policy } : {}),
				...(tempDir ? { tempDir } : {}),
			});
			sshEnvs.push(env);
			return env;
		},
	]);

const confined = (options: Partial<ConstructorParameters<typeof NodeExecutionEnv>[0]> = {}) =>
	new NodeExecutionEnv({ cwd, policy: { read: [cwd] }, ...options });

describe.each(makers)("path policy on files: %s", (_name, make) => {
	it("is off by default: an env without a policy reads outside its cwd", async () => {
		const env = make({ cwd });
		expect((await env.readTextFile("../outside/secret.txt")).ok).toBe(true);
	});

	it.each([
		["..", "../outside/secret.txt"],
		["an absolute path", () => join(outside, "secret.txt")],
		["an @-prefixed absolute path", () => `@${join(outside, "secret.txt")}`],
		["a deep ..", "../../../../../../../../etc/passwd"],
	])("refuses reading through %s, naming the root", async (_what, path) => {
		const env = make({ cwd, policy: { read: [cwd] } });
		const raw = typeof path === "function" ? path() : path;
		const result = await env.readTextFile(stripAtPrefix(raw));
		expect(result.ok).toBe(false);
		if (result.ok) return;
		expect(result.error.code).toBe("permission_denied");
		expect(result.error.message).toContain(cwd);
	});

	it("refuses a symlink inside the root that points outside, for reading, listing and writing", async () => {
		await fs.symlink(outside, join(cwd, "link"));
		const env = make({ cwd, policy: { read: [cwd] } });
		for (const result of [
			await env.readTextFile("link/secret.txt"),
			await env.listDir("link"),
			await env.writeFile("link/new.txt", "x"),
		]) {
			expect(result.ok).toBe(false);
			if (!result.ok) expect(result.error.code).toBe("permission_denied");
		}
		expect(existsSync(join(outside, "new.txt"))).toBe(false);
		// The link itself lies inside: it may be looked at and removed.
		expect((await env.fileInfo("link", { followSymlinks: false })).ok).toBe(true);
		expect((await env.remove("link")).ok).toBe(true);
	});

	it("refuses a dangling symlink whose target lies outside", async () => {
		await fs.symlink(join(outside, "created.txt"), join(cwd, "dangling"));
		const result = await make({ cwd, policy: { read: [cwd] } }).writeFile("dangling", "x");
		expect(result.ok).toBe(false);
		expect(existsSync(join(outside, "created.txt"))).toBe(false);
	});

	it("refuses writing outside and creates nothing, while reading and writing inside work", async () => {
		const env = make({ cwd, policy: { read: [cwd] } });
		for (const result of [
			await env.writeFile("../outside.txt", "x"),
			await env.appendFile("../outside.txt", "x"),
			await env.createDir("../made/deep"),
			await env.rename("inside.txt", "../moved.txt"),
			await env.remove("../outside/secret.txt"),
		]) {
			expect(result.ok).toBe(false);
			if (!result.ok) expect(result.error.code).toBe("permission_denied");
		}
		expect(existsSync(join(base, "outside.txt"))).toBe(false);
		expect(existsSync(join(base, "made"))).toBe(false);
		expect(existsSync(join(base, "moved.txt"))).toBe(false);
		expect(existsSync(join(outside, "secret.txt"))).toBe(true);
		expect((await env.writeFile("sub/new.txt", "ok")).ok).toBe(true);
		expect(await fs.readFile(join(cwd, "sub/new.txt"), "utf8")).toBe("ok");
		expect(await env.exists("../outside/secret.txt")).toBe(false);
	});

	it("checks write roots apart from read roots", async () => {
		const env = make({ cwd, policy: { read: [base], write: [cwd] } });
		expect((await env.readTextFile("../outside/secret.txt")).ok).toBe(true);
		const write = await env.writeFile("../outside/secret.txt", "x");
		expect(write.ok).toBe(false);
		if (!write.ok) expect(write.error.message).toMatch(/outside the allowed write roots/);
	});

	it("resolves symlinks in the roots themselves", async () => {
		await fs.symlink(cwd, join(base, "alias"));
		const env = make({ cwd: join(base, "alias"), policy: { read: ["."] } });
		expect((await env.readTextFile("inside.txt")).ok).toBe(true);
		expect((await env.readTextFile(join(cwd, "inside.txt"))).ok).toBe(true);
	});

	it("refuses appendFile to a FIFO inside the root at once, naming it, directly and through a link", async () => {
		execFileSync("mkfifo", [join(cwd, "pipe")]);
		await fs.symlink(join(cwd, "pipe"), join(cwd, "pipe-link"));
		const env = make({ cwd, policy: { read: [cwd] } });
		for (const path of ["pipe", "pipe-link"]) {
			const started = Date.now();
			const result = await within(env.appendFile(path, "x"), 1000);
			expect(Date.now() - started).toBeLessThan(1000);
			expect(result.ok).toBe(false);
			if (result.ok) continue;
			expect(result.error.message).toContain(path);
			expect(result.error.message).toMatch(/FIFO/);
		}
		expect((await fs.lstat(join(cwd, "pipe"))).isFIFO()).toBe(true);
	});

	it("keeps the env's temp folder usable (bash spills its output there)", async () => {
		const env = make({ cwd, tempDir: join(base, "tmp"), policy: { read: [cwd] } });
		const temp = await env.createTempFile();
		expect(temp.ok).toBe(true);
		if (temp.ok) expect((await env.writeFile(temp.value, "spill")).ok).toBe(true);
	});
});

describe("path policy (Node)", () => {
	it("refuses appendFile at once when a FIFO replaces the file after its metadata was read", async () => {
		const target = join(cwd, "log.txt");
		await fs.writeFile(target, "log");
		const realStat = fs.stat;
		// The swap lands between the env's look at the metadata and its open: only the open itself
		// (non-blocking, checked again once open) stands between the append and a writer waiting forever.
		const spy = vi.spyOn(fs, "stat").mockImplementation(async (...args: Parameters<typeof fs.stat>) => {
			const stats = await realStat(...args);
			if (args[0] === target) {
				spy.mockRestore();
				await fs.rm(target);
				execFileSync("mkfifo", [target]);
			}
			return stats;
		});
		try {
			const result = await within(confined().appendFile("log.txt", "x"), 1000);
			expect(result.ok).toBe(false);
			if (!result.ok) {
				expect(result.error.message).toContain("log.txt");
				expect(result.error.message).toMatch(/FIFO/);
			}
		} finally {
			spy.mockRestore();
		}
		expect((await fs.lstat(target)).isFIFO()).toBe(true);
	});
});

function hasBwrap(): boolean {
	try {
		execFileSync("bwrap", [
			"--ro-bind",
			"/",
			"/",
			"--dev",
			"/dev",
			"--proc",
			"/proc",
			"--unshare-net",
			"--unshare-pid",
			"true",
		]);
		return true;
	} catch {
		return false;
	}
}
const bwrap = process.platform === "linux" && hasBwrap();

describe.skipIf(!bwrap)("shell sandbox (bubblewrap; skipped where bwrap is missing or cannot run)", () => {
	it("lets commands write inside the cwd only, leaving nothing behind outside", async () => {
		const env = confined();
		const outsideWrite = await env.exec("echo x > ../outside.txt");
		expect(outsideWrite.ok && outsideWrite.value.exitCode).not.toBe(0);
		const etc = await env.exec("touch /etc/toolsmith-sandbox-test");
		expect(etc.ok && etc.value.exitCode).not.toBe(0);
		expect(existsSync(join(base, "outside.txt"))).toBe(false);
		expect(existsSync("/etc/toolsmith-sandbox-test")).toBe(false);
		const inside = await env.exec("echo y > made.txt && cat ../outside/secret.txt");
		expect(inside.ok && inside.value).toMatchObject({ exitCode: 0, stdout: "secret" });
		expect(await fs.readFile(join(cwd, "made.txt"), "utf8")).toBe("y\n");
	});

	it("keeps a link made inside the cwd from opening a way out (the disk outside is read-only, whatever the path)", async () => {
		const result = await confined().exec(`ln -s ${outside} way-out && echo x > way-out/new.txt`);
		expect(result.ok && result.value.exitCode).not.toBe(0);
		expect(existsSync(join(outside, "new.txt"))).toBe(false);
		// The file API, asked afterwards, refuses the link too.
		expect((await confined().writeFile("way-out/new.txt", "x")).ok).toBe(false);
	});

	it('keeps the sandbox\'s own /dev and /proc under a write root that contains them ("/")', async () => {
		// Bound after `--dev /dev`, a write root of "/" laid the host's /dev (mounted nodev) over the
		// sandbox's: `/dev/null` could not be opened.
		const env = new NodeExecutionEnv({ cwd, policy: { read: ["/"] } });
		const devNull = await env.exec("echo x > /dev/null && echo ok");
		expect(devNull.ok && devNull.value).toMatchObject({ exitCode: 0, stdout: "ok\n" });
		// Its own PID namespace, so its own /proc: bubblewrap's init, the limit script, the shell,
		// ls and wc, and nothing of the host's.
		const pids = await env.exec("ls -d /proc/[0-9]* | wc -l");
		expect(pids.ok && Number(pids.value.stdout.trim())).toBeLessThan(6);
		// The write root covers the cwd: writing there lands on the disk.
		const made = await env.exec("echo y > made.txt");
		expect(made.ok && made.value.exitCode).toBe(0);
		expect(await fs.readFile(join(cwd, "made.txt"), "utf8")).toBe("y\n");
	});

	it("turns the network off unless the policy allows it", async () => {
		// /proc is the sandbox's own, so /proc/net/dev lists the interfaces of its network namespace.
		const interfaces = "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '";
		const off = await confined().exec(interfaces);
		expect(off.ok && off.value.stdout.trim().split("\n")).toEqual(["lo"]);
		const host = execFileSync("sh", ["-c", interfaces]).toString().trim().split("\n").sort();
		const on = await new NodeExecutionEnv({ cwd, policy: { read: [cwd], network: true } }).exec(interfaces);
		expect(on.ok && on.value.stdout.trim().split("\n").sort()).toEqual(host);
	});

	it("kills a sleeping command on timeout and on abort", async () => {
		const env = confined({ killGraceMs: 200 });
		const marker = join(cwd, "late.txt");
		const started = Date.now();
		const timedOut = await env.exec(`sleep 30; touch ${marker}`, { timeout: 0.5 });
		expect(timedOut.ok).toBe(false);
		if (!timedOut.ok) expect(timedOut.error.code).toBe("timeout");
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 300);
		const aborted = await env.exec(`(sleep 30; touch ${marker}) & sleep 30`, { signal: controller.signal });
		expect(aborted.ok).toBe(false);
		if (!aborted.ok) expect(aborted.error.code).toBe("aborted");
		expect(Date.now() - started).toBeLessThan(8000);
		const left = execFileSync("ps", ["-eo", "args"]).toString();
		expect(left).not.toContain(`touch ${marker}`);
	});

	it("streams output as it comes", async () => {
		const chunks: string[] = [];
		const result = await confined().exec("echo one; sleep 0.3; echo two", {
			onStdout: (chunk) => {
				chunks.push(new TextDecoder().decode(chunk));
			},
		});
		expect(result.ok && result.value.exitCode).toBe(0);
		expect(chunks.length).toBeGreaterThanOrEqual(2);
		expect(chunks.join("")).toBe("one\ntwo\n");
	});
});

describe.each(makers)("without a sandbox: %s", (_name, make) => {
	it("refuses exec by default, saying why and what to do", async () => {
		const result = await make({ cwd, sandbox: "off", policy: { read: [cwd] } }).exec("echo x > ../outside.txt");
		expect(result.ok).toBe(false);
		if (!result.ok) {
			expect(result.error.code).toBe("spawn_error");
			expect(result.error.message).toMatch(/withoutSandbox: "warn"/);
		}
		expect(existsSync(join(base, "outside.txt"))).toBe(false);
	});

	it('runs unconfined with a warning in the result under withoutSandbox: "warn"', async () => {
		const env = make({ cwd, sandbox: "off", policy: { read: [cwd], withoutSandbox: "warn" } });
		const result = await env.exec("echo hi");
		expect(result.ok && result.value.stdout).toBe("hi\n");
		expect(result.ok && result.value.warning).toMatch(/ran unconfined/);
		expect(result.ok && result.value.stderr).toMatch(/ran unconfined/);
	});
});
