/**
 * The shell sandbox confines a command alike whoever runs toolsmith: as root (CI and containers
 * run as root) and as an unprivileged user. One set of expectations, observed from inside the
 * sandbox in this process and in a child process switched to the `nobody` user.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
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
let receiver: ChildProcess;

const DATAGRAM_RECEIVER =
	'socket(my $s, AF_UNIX, SOCK_DGRAM, 0) or die "socket: $!"; bind($s, pack_sockaddr_un($ARGV[0])) or die "bind: $!"; chmod 0777, $ARGV[0]; $| = 1; print "ready\n"; while (defined recv($s, my $b, 100, 0)) {}';

beforeEach(async () => {
	base = realpathSync(await fs.mkdtemp(join(tmpdir(), "toolsmith-sandbox-users-")));
	setup = {
		cwd: join(base, "project"),
		outside: join(base, "outside"),
		socket: join(base, "outside", "db.sock"),
		datagramSocket: join(base, "outside", "log.sock"),
	};
	await fs.mkdir(setup.cwd);
	await fs.mkdir(setup.outside);
	await fs.writeFile(join(setup.outside, "secret.txt"), "secret");
	server = createServer((socket) => socket.end());
	await new Promise<void>((resolve) => server.listen(setup.socket, resolve));
	// A datagram socket outside, as journald's or a daemon's control socket is (Node cannot bind one).
	receiver = spawn("/usr/bin/perl", ["-MSocket", "-e", DATAGRAM_RECEIVER, setup.datagramSocket], {
		stdio: ["ignore", "pipe", "inherit"],
	});
	await new Promise<void>((resolve, reject) => {
		receiver.stdout?.once("data", () => resolve());
		receiver.once("exit", (code) => reject(new Error(`the datagram receiver exited (${code})`)));
	});
	// Anyone may connect to them and write in the folders: only the sandbox stands in the way.
	await fs.chmod(setup.socket, 0o777);
	for (const path of [base, setup.cwd, setup.outside]) await fs.chmod(path, 0o777);
});
afterEach(async () => {
	receiver.kill();
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
	// A datagram socketpair end could aim at any datagram socket by path: refused unless granted,
	// and then it reaches the one outside. A stream pair is connected for good: always allowed.
	expect(seen.unixDatagram).toEqual({ refused: "EPERM", granted: "sent", streamPair: "ok" });
	expect(seen.families.netlink).toBe("EPERM");
	expect(seen.families.vsock).toBe("EPERM");
	expect(seen.families.netlinkWithNetwork).toBe("ok");
	// vsock needs the host's support; the filter only must not be what refuses it.
	expect(seen.families.vsockWithNetwork).not.toBe("EPERM");
	// No setuid or setgid file left in a write root for the host's users to run.
	expect(seen.setuid).toEqual({ chmod: "refused", setgid: "EPERM", create: "EPERM" });
	expect(seen.setuidFilesLeft).toEqual([]);
	expect(seen.writeRootOptions).toEqual(expect.arrayContaining(["rw", "nosuid", "nodev"]));
	expect(seen.devWrite).toMatch(/Read-only file system/);
	expectLimits(seen);
}

/** The limits hold whoever runs the sandbox; what toolsmith can report depends on the cgroups it got. */
function expectLimits(seen: Observations): void {
	const { limits } = seen;
	// 16 processes and threads in all: the sandbox's own (bubblewrap, the shell) count too.
	expect(limits.forked).toBeGreaterThan(0);
	expect(limits.forked).toBeLessThan(16);
	expect(limits.forkError).toBe("EAGAIN");
	// One process past the memory limit fails to allocate, with or without cgroups.
	expect(limits.oneBig).toMatch(/Out of memory|failed/);
	// /tmp is private unless the project lies under it (then it is the host's, read-only).
	expect(limits.tmp).toBe("tmp=1\nshm=1");
	const privateTmp = !setup.cwd.startsWith("/tmp/");
	expect(limits.tmpReached).toEqual([...(privateTmp ? ["tmp /tmp"] : []), "tmp /dev/shm"]);
	if (seen.cgroups.includes("pids")) expect(limits.forkReached).toEqual(["processes"]);
	else expect(limits.forkReached).toEqual([]);
	if (seen.cgroups.includes("memory")) {
		// Three processes of 40 MB each pass 100 MiB together: the kernel kills one, and it is said.
		expect(limits.threeFinished).toBe("not all");
		expect(limits.threeReached).toEqual(["memory"]);
	} else {
		// rlimits hold each process alone: three under the limit each all finish.
		expect(limits.threeFinished).toBe("all");
		expect(limits.threeReached).toEqual([]);
	}
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
