/**
 * A throwaway OpenSSH server on 127.0.0.1 for the SSH env's tests and benchmark: fresh host and
 * client keys, a temporary sshd_config and a client config naming it `toolsmith-test`, all in one
 * temp folder removed by `stop()`. It logs in as the user running the tests (root in CI) with the
 * client key only. `startSshd()` resolves to `undefined` with a reason where sshd cannot start
 * (not installed, no ssh-keygen), so the tests skip saying why.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

export interface Sshd {
	/** The host alias the client config defines. */
	readonly host: string;
	readonly port: number;
	/** The client config file (`ssh -F`): the alias, the key, the known hosts, batch mode. */
	readonly configFile: string;
	/** The private key that logs in. */
	readonly identityFile: string;
	/** The known-hosts file that holds the server's host key. */
	readonly knownHostsFile: string;
	/** The folder everything lives in. */
	readonly dir: string;
	/** The sshd process (its children are the connections). */
	readonly process: ChildProcess;
	/** Kill every connection sshd serves right now (sshd itself keeps running). */
	dropConnections(): void;
	stop(): Promise<void>;
}

export type SshdStart = { readonly sshd: Sshd } | { readonly sshd?: undefined; readonly reason: string };

const SSHD_CANDIDATES = ["/usr/sbin/sshd", "/usr/local/sbin/sshd", "/sbin/sshd"];

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			const port = typeof address === "object" && address ? address.port : 0;
			server.close(() => resolve(port));
		});
	});
}

function childPids(pid: number): number[] {
	try {
		return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
	} catch {
		return [];
	}
}

/** Start sshd on a free loopback port, or say why it cannot start here. */
export async function startSshd(): Promise<SshdStart> {
	const sshdPath = SSHD_CANDIDATES.find((path) => existsSync(path));
	if (!sshdPath) return { reason: "sshd is not installed (Debian: apt-get install openssh-server)" };
	try {
		execFileSync("ssh", ["-V"], { stdio: "ignore" });
		execFileSync("ssh-keygen", ["-h"], { stdio: "ignore" });
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT")
			return { reason: "the OpenSSH client is not installed (Debian: apt-get install openssh-client)" };
	}
	const dir = mkdtempSync(join(tmpdir(), "toolsmith-sshd-"));
	const hostKey = join(dir, "host_ed25519");
	const identityFile = join(dir, "client_ed25519");
	for (const key of [hostKey, identityFile])
		execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "toolsmith-test", "-f", key]);
	writeFileSync(join(dir, "authorized_keys"), readFileSync(`${identityFile}.pub`));
	const port = await freePort();
	const host = "toolsmith-test";
	const knownHostsFile = join(dir, "known_hosts");
	const hostPublic = readFileSync(`${hostKey}.pub`, "utf8").trim().split(" ").slice(0, 2).join(" ");
	writeFileSync(knownHostsFile, `[127.0.0.1]:${port} ${hostPublic}\n`);
	// Privilege separation needs this folder when sshd runs as root.
	if (process.getuid?.() === 0) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
	const sshdConfig = join(dir, "sshd_config");
	writeFileSync(
		sshdConfig,
		[
			`Port ${port}`,
			"ListenAddress 127.0.0.1",
			`HostKey ${hostKey}`,
			`AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
			`PidFile ${join(dir, "sshd.pid")}`,
			"PasswordAuthentication no",
			"KbdInteractiveAuthentication no",
			"PubkeyAuthentication yes",
			"PermitRootLogin prohibit-password",
			"StrictModes no",
			"UsePAM no",
			"MaxSessions 200",
			"MaxStartups 100:30:200",
			"AllowAgentForwarding no",
			// Sessions start as a level-1 shell would have started them, so bash does not run the
			// test user's ~/.bashrc: the tests do not depend on the machine's dotfiles (root's may run
			// pyenv, whose rehash takes a lock: dozens of sessions at once then queue for seconds).
			"SetEnv SHLVL=1",
			"LogLevel ERROR",
			"",
		].join("\n"),
	);
	const configFile = join(dir, "ssh_config");
	writeFileSync(
		configFile,
		[
			`Host ${host}`,
			"  HostName 127.0.0.1",
			`  Port ${port}`,
			`  User ${userInfo().username}`,
			`  IdentityFile ${identityFile}`,
			"  IdentitiesOnly yes",
			`  UserKnownHostsFile ${knownHostsFile}`,
			"  GlobalKnownHostsFile /dev/null",
			"  StrictHostKeyChecking yes",
			"  BatchMode yes",
			"",
		].join("\n"),
	);
	// -D: stay in the foreground as our child; -e: log to stderr.
	const child = spawn(sshdPath, ["-D", "-e", "-f", sshdConfig], { stdio: ["ignore", "ignore", "pipe"] });
	let log = "";
	child.stderr?.on("data", (chunk: Buffer) => {
		log = (log + chunk.toString()).slice(-4000);
	});
	const stop = async () => {
		if (child.exitCode === null && child.signalCode === null) {
			for (const pid of childPids(child.pid ?? 0)) {
				try {
					process.kill(pid, "SIGKILL");
				} catch {}
			}
			child.kill("SIGTERM");
			await new Promise((resolve) => child.once("exit", resolve));
		}
		rmSync(dir, { recursive: true, force: true });
	};
	// Ready once it answers a login.
	const deadline = Date.now() + 10_000;
	for (;;) {
		if (child.exitCode !== null) {
			rmSync(dir, { recursive: true, force: true });
			return { reason: `sshd could not start: ${log.trim() || `exit code ${child.exitCode}`}` };
		}
		try {
			execFileSync("ssh", ["-F", configFile, host, "true"], { stdio: "ignore", timeout: 5000 });
			break;
		} catch {
			if (Date.now() > deadline) {
				await stop();
				return { reason: `sshd did not accept a login within 10 s: ${log.trim()}` };
			}
			await new Promise((resolve) => setTimeout(resolve, 50));
		}
	}
	return {
		sshd: {
			host,
			port,
			configFile,
			identityFile,
			knownHostsFile,
			dir,
			process: child,
			dropConnections() {
				for (const pid of childPids(child.pid ?? 0)) {
					try {
						process.kill(pid, "SIGKILL");
					} catch {}
				}
			},
			stop,
		},
	};
}
