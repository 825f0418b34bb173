/**
 * The shell sandbox confines a command alike whoever runs toolsmith: as root (CI and containers
 * run as root) and as an unprivileged user. One set of expectations, observed from inside the
 * sandbox in this process and in a child process switched to the `nobody` user.
 */
import { execFile, execFileSync } from "node:child_process";
import { promises as fs, realpathSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeSandbox } from "../../../src/env/_node-sandbox.js";
import { type ConfinementSetup, type Observations, observeConfinement } from "./_sandbox-checks.js";

const here = dirname(fileURLToPath(import.meta.url));
const jitiCli = join(here, "../../../node_modules/jiti/lib/jiti-cli.mjs");
const NOBODY = 65534;
const probe = process.platform === "linux" ? await probeSandbox() : { missing: "not Linux" };
const missing = "missing" in probe ? probe.missing : undefined;

let base: string;
let setup: ConfinementSetup;
let server: Server;

beforeEach(async () => {
	base = realpathSync(await fs.mkdtemp(join(tmpdir(), "toolsmith-sandbox-users-")));
	setup = { cwd: join(base, "project"), outside: join(base, "outside"), socket: join(base, "outside", "db.sock") };
	await fs.mkdir(setup.cwd);
	await fs.mkdir(setup.outside);
	await fs.writeFile(join(setup.outside, "secret.txt"), "secret");
	server = createServer((socket) => socket.end());
	await new Promise<void>((resolve) => server.listen(setup.socket, resolve));
	// Anyone may connect to it and write in the folders: only the sandbox stands in the way.
	await fs.chmod(setup.socket, 0o777);
	for (const path of [base, setup.cwd, setup.outside]) await fs.chmod(path, 0o777);
});
afterEach(async () => {
	await new Promise<void>((resolve) => server.close(() => resolve()));
	await fs.rm(base, { recursive: true, force: true });
});

function expectConfined(seen: Observations): void {
	expect(seen.capabilities).toEqual([
		"CapPrm:\t0000000000000000",
		"CapEff:\t0000000000000000",
		"CapBnd:\t0000000000000000",
	]);
	// Every namespace is its own; the network's too, since the policy leaves it off.
	expect(seen.sharedNamespaces).toEqual([]);
	expect(seen.remount.exitCode).not.toBe(0);
	expect(seen.remount.wroteOutside).toBe(false);
	expect(seen.sysctlWritable).toBe(false);
	expect(seen.sethostname).toBe(false);
	expect(seen.nestedUserNamespace).toBe(false);
	expect(seen.unixSocket).toBe("EPERM");
	expect(seen.unixSocketGranted).toBe("connected");
	expect(seen.writesInside).toBe(true);
	// Reading is confined only when asked: then the secret is not even there, and programs still run.
	expect(seen.secret).toBe("secret");
	expect(seen.confinedReads.secret).toMatch(/No such file or directory/);
	expect(seen.confinedReads.node).toBe("42");
	expect(seen.confinedReads.home).toBe("");
}

describe.skipIf(missing !== undefined)(
	`the shell sandbox, whoever runs it${missing ? ` (skipped: ${missing})` : ""}`,
	() => {
		it(`confines the user running the tests (uid ${process.getuid?.()})`, async () => {
			const seen = await observeConfinement(setup);
			expect(seen.uid).toBe(String(process.getuid?.()));
			expectConfined(seen);
		});

		it("confines an unprivileged user alike (run as nobody; needs root to switch)", async (context) => {
			if (process.getuid?.() !== 0) context.skip("only root can start a process as another user");
			// The sources must be readable by that user: a checkout under a private folder is not.
			const unreadable = [jitiCli, join(here, "_sandbox-observe.ts")].find((file) => {
				try {
					execFileSync(process.execPath, ["-e", "require('fs').accessSync(process.argv[1], 4)", file], {
						uid: NOBODY,
						gid: NOBODY,
						stdio: "ignore",
					});
					return false;
				} catch {
					return true;
				}
			});
			if (unreadable) context.skip(`nobody cannot read ${unreadable} (the checkout lies under a private folder)`);
			const home = join(base, "home");
			await fs.mkdir(home);
			await fs.chown(home, NOBODY, NOBODY);
			const output = await new Promise<string>((resolve, reject) => {
				execFile(
					process.execPath,
					[jitiCli, join(here, "_sandbox-observe.ts"), JSON.stringify(setup)],
					{
						uid: NOBODY,
						gid: NOBODY,
						cwd: setup.cwd,
						env: { PATH: process.env.PATH, HOME: home, TMPDIR: home, JITI_FS_CACHE: "false" },
						timeout: 60_000,
					},
					(error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
				);
			}).catch((error: Error) => {
				// The sources must be readable by that user: a checkout under a private home is not.
				if (/EACCES/.test(error.message)) context.skip(`nobody cannot read the sources here: ${error.message}`);
				throw error;
			});
			const seen = JSON.parse(output) as Observations;
			expect(seen.uid).toBe(String(NOBODY));
			expectConfined(seen);
		});
	},
);
