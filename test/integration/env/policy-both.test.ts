/**
 * The path policy, one test body against NodeExecutionEnv (a real temp folder), MemoryExecutionEnv
 * and SshExecutionEnv (the same kind of temp folder over a loopback sshd, where one can start).
 */
import { existsSync, promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ExecutionEnv, PathPolicy } from "../../../src/contract/env.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { SshExecutionEnv } from "../../../src/env/node-ssh.js";
import { stripAtPrefix } from "../../../src/tools/_paths.js";
import { sharedSshdStart, stopSharedSshd } from "./_fixtures.js";

/** A folder `base` holding `project/` (the cwd, with inside.txt, link → ../outside) and `outside/secret.txt`. */
interface Fixture {
	readonly env: ExecutionEnv;
	readonly base: string;
	/** Whether a path exists, seen past the policy. */
	readonly present: (absolute: string) => Promise<boolean>;
}

const cleanups: string[] = [];
const envs: SshExecutionEnv[] = [];
afterAll(async () => {
	for (const env of envs) await env.close();
	await stopSharedSshd();
	for (const dir of cleanups) await fs.rm(dir, { recursive: true, force: true });
});

/** `project/` (the cwd, with inside.txt and links) and `outside/secret.txt` in a new temp folder. */
async function makeBase(): Promise<string> {
	const base = realpathSync(await fs.mkdtemp(join(tmpdir(), "toolsmith-policy-both-")));
	cleanups.push(base);
	await fs.mkdir(join(base, "project"));
	await fs.mkdir(join(base, "outside"));
	await fs.writeFile(join(base, "outside/secret.txt"), "secret");
	await fs.writeFile(join(base, "project/inside.txt"), "inside");
	await fs.symlink("../outside", join(base, "project/link"));
	await fs.symlink("../outside/new.txt", join(base, "project/dangling"));
	return base;
}

const factories: Record<string, (policy: (base: string) => PathPolicy) => Promise<Fixture>> = {
	node: async (policy) => {
		const base = await makeBase();
		const env = new NodeExecutionEnv({ cwd: join(base, "project"), policy: policy(base) });
		return { env, base, present: async (path) => existsSync(path) };
	},
	memory: async (policy) => {
		const base = "/work";
		const env = new MemoryExecutionEnv({
			cwd: `${base}/project`,
			files: { [`${base}/outside/secret.txt`]: "secret", [`${base}/project/inside.txt`]: "inside" },
			symlinks: { [`${base}/project/link`]: "../outside", [`${base}/project/dangling`]: "../outside/new.txt" },
			policy: policy(base),
		});
		return { env, base, present: async (path) => path in env.snapshot({ under: "/" }) };
	},
};

const sshd = (await sharedSshdStart()).sshd;
if (sshd)
	factories.ssh = async (policy) => {
		// The remote host is this machine: the temp folder is the remote folder too.
		const base = await makeBase();
		const env = new SshExecutionEnv({
			destination: sshd.host,
			configFile: sshd.configFile,
			cwd: join(base, "project"),
			tempDir: join(base, "tmp"),
			policy: policy(base),
		});
		envs.push(env);
		return { env, base, present: async (path) => existsSync(path) };
	};
else console.warn("SSH env policy tests skipped: no loopback sshd here");

describe.each(Object.keys(factories))("path policy on the %s env", (kind) => {
	const make = factories[kind]!;
	const confined = () => make((base) => ({ read: [`${base}/project`] }));

	it("refuses .., absolute and @-prefixed paths outside, and links that lead outside, naming the root", async () => {
		const { env, base } = await confined();
		for (const path of [
			"../outside/secret.txt",
			`${base}/outside/secret.txt`,
			stripAtPrefix(`@${base}/outside/secret.txt`),
			"../../../../../../etc/passwd",
			"link/secret.txt",
		]) {
			const result = await env.readTextFile(path);
			expect(result.ok, path).toBe(false);
			if (!result.ok) {
				expect(result.error.code).toBe("permission_denied");
				expect(result.error.message).toContain(`${base}/project`);
			}
		}
		expect((await env.readTextFile("inside.txt")).ok).toBe(true);
	});

	it("refuses writes outside (directly, through a link, through a dangling link) and creates nothing", async () => {
		const { env, base, present } = await confined();
		for (const result of [
			await env.writeFile("../outside.txt", "x"),
			await env.writeFile("link/new.txt", "x"),
			await env.writeFile("dangling", "x"),
			await env.rename("inside.txt", "../moved.txt"),
		]) {
			expect(result.ok).toBe(false);
			if (!result.ok) expect(result.error.code).toBe("permission_denied");
		}
		for (const path of ["outside.txt", "outside/new.txt", "moved.txt"]) {
			expect(await present(`${base}/${path}`), path).toBe(false);
		}
		expect((await env.writeFile("made/new.txt", "ok")).ok).toBe(true);
		expect(await env.readTextFile("made/new.txt")).toMatchObject({ ok: true, value: "ok" });
	});

	it("lets the env's own temp files through", async () => {
		const { env } = await confined();
		const temp = await env.createTempFile();
		expect(temp.ok).toBe(true);
		if (temp.ok) expect((await env.writeFile(temp.value, "spill")).ok).toBe(true);
	});

	it("allows everything under a root of /", async () => {
		const { env } = await make(() => ({ read: ["/"] }));
		expect((await env.readTextFile("../outside/secret.txt")).ok).toBe(true);
	});
});
