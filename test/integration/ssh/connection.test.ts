/**
 * How SSH envs share their connection, against a loopback sshd: envs naming the host the same way
 * share one master; the last `close()` ends it at once, or after `lingerMs` unless an env takes
 * it up again meanwhile.
 */
import { existsSync, promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SshExecutionEnv, type SshExecutionEnvOptions } from "../../../src/env/node-ssh.js";
import { type Sshd, startSshd } from "./_sshd.js";

const started = await startSshd();
if (!started.sshd) console.warn(`SSH env connection tests skipped: ${started.reason}`);
const sshd = started.sshd as Sshd;
let root: string;

function sshEnv(options: Partial<SshExecutionEnvOptions> = {}): SshExecutionEnv {
	return new SshExecutionEnv({ destination: sshd.host, configFile: sshd.configFile, cwd: root, ...options });
}

/** The control socket an env's sessions go through (one per connection). */
function socketOf(env: SshExecutionEnv): string {
	const args = env.sshArgs();
	return args[args.indexOf("-S") + 1] as string;
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!started.sshd)("SSH env connections", () => {
	beforeAll(async () => {
		root = realpathSync(await fs.mkdtemp(join(tmpdir(), "toolsmith-ssh-conn-")));
	});
	afterAll(async () => {
		await sshd?.stop();
		if (root) await fs.rm(root, { recursive: true, force: true });
	});

	it("shares one connection between envs, and the last close ends it at once", async () => {
		const one = sshEnv();
		const two = sshEnv({ cwd: "/" });
		expect(socketOf(one)).toBe(socketOf(two));
		expect((await one.connect()).ok).toBe(true);
		const socket = socketOf(one);
		expect(existsSync(socket)).toBe(true);
		await one.close();
		expect(existsSync(socket)).toBe(true);
		await two.close();
		expect(existsSync(socket)).toBe(false);
		const three = sshEnv();
		expect(socketOf(three)).not.toBe(socket);
		await three.close();
	});

	it("keeps a released connection for lingerMs, for the next env to take up without a handshake", async () => {
		const first = sshEnv({ lingerMs: 1000 });
		expect((await first.connect()).ok).toBe(true);
		const socket = socketOf(first);
		await first.close();
		expect(existsSync(socket)).toBe(true);
		const second = sshEnv({ lingerMs: 300 });
		expect(socketOf(second)).toBe(socket);
		expect((await second.readTextFile("missing")).ok).toBe(false);
		await settle(1200);
		// Taken up again: the first env's linger no longer ends it.
		expect(existsSync(socket)).toBe(true);
		expect(await second.exec("echo still")).toMatchObject({ ok: true, value: { stdout: "still\n" } });
		await second.close();
		await settle(800);
		expect(existsSync(socket)).toBe(false);
		// Calls on a closed env fail, saying so.
		const after = await second.readTextFile("x");
		expect(after.ok ? "ok" : after.error.message).toMatch(/closed/);
	});
});
