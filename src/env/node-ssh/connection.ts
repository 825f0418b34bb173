/**
 * The connection of an SSH env (Node only): one OpenSSH master per host and options (`ssh -M`,
 * multiplexed over a control socket in a private temp folder), shared by every env that names the
 * same host the same way, and sessions opened over it (`ssh -S <socket>`), which need no
 * handshake. The master is watched: when it ends (the network dropped, sshd was restarted, the
 * user killed it), whatever ran over it fails with `connection_lost` and the next call starts a
 * new one. Its errors (unknown or changed host key, refused login, unreachable host) become an
 * `SshError` that says what to do. The last env to let go ends it, at once or after `lingerMs`
 * (an env made meanwhile takes it up again).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { notifyListeners } from "../../shared/listeners.js";
import { SshError, type SshErrorCode, type SshExecutionEnvOptions } from "../ssh-types.js";
import { KILL_SCRIPT, shellQuote } from "./remote.js";

/** A live master: its process, its socket and what ended it. */
interface Master {
	readonly child: ChildProcess;
	readonly ready: Promise<SshError | undefined>;
	/** Set once the master has exited: why, as the error calls in flight fail with. */
	lost?: SshError;
}

/** One shared connection: how to run ssh, the master when there is one, and who uses it. */
export interface SshConnection {
	readonly key: string;
	readonly destination: string;
	/**
	 * The host as ssh resolves it (`hostname:port` from `ssh -G`): the same for every spelling of
	 * one host (an alias, `user@address`), so envs that reach the same files share a mutation queue.
	 */
	readonly host: string;
	/** `ssh` and the options every invocation gets (before `-S`). */
	readonly baseArgs: readonly string[];
	readonly controlDir: string;
	readonly controlPath: string;
	readonly connectTimeoutMs: number;
	master: Master | undefined;
	/** Envs holding it; the last `release` ends the master (at once, or after its linger). */
	users: number;
	/** Set while no env holds it but it stays open for the next one (`lingerMs`). */
	linger: ReturnType<typeof setTimeout> | undefined;
	/** Called with the error when a master that was up ends. */
	readonly onLost: Set<(error: SshError) => void>;
	/**
	 * Commands that were running when the connection dropped (their pid and wrapper's nonce):
	 * killed over the next master, as an abort would have killed them.
	 */
	readonly orphans: { readonly pid: string; readonly nonce: string; readonly graceMs: number }[];
	closed: boolean;
}

const connections = new Map<string, SshConnection>();

/** Options that would make the connection weaker than the env promises, and why they are refused. */
const REFUSED: Readonly<Record<string, (value: string) => string | undefined>> = {
	stricthostkeychecking: (value) =>
		/^(no|off|false)$/i.test(value)
			? 'StrictHostKeyChecking=no would accept a changed host key; use hostKeys: "accept-new" for new hosts'
			: undefined,
	controlpath: () => "the env keeps its own ControlPath (its connection is multiplexed already)",
	controlmaster: () => "the env runs its own ControlMaster (its connection is multiplexed already)",
};

/** The ssh options of `options`, checked; an error names the first bad one. */
export function sshBaseArgs(options: SshExecutionEnvOptions): string[] | SshError {
	const args = [options.sshPath ?? "ssh"];
	if (options.configFile !== undefined) args.push("-F", options.configFile);
	if (options.port !== undefined) {
		if (!Number.isInteger(options.port) || options.port < 1 || options.port > 65535)
			return new SshError("invalid_argument", options.destination, `port must be 1 to 65535, got ${options.port}`);
		args.push("-p", String(options.port));
	}
	if (options.identityFile !== undefined) args.push("-i", options.identityFile, "-o", "IdentitiesOnly=yes");
	// The user's options first: for each option ssh keeps the first value it is given.
	for (const [name, value] of Object.entries(options.sshOptions ?? {})) {
		if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name) || /[\r\n\0]/.test(String(value)))
			return new SshError("invalid_argument", options.destination, `Invalid ssh option ${JSON.stringify(name)}`);
		const refused = REFUSED[name.toLowerCase()]?.(String(value));
		if (refused) return new SshError("invalid_argument", options.destination, `ssh option ${name}: ${refused}`);
		args.push("-o", `${name}=${value}`);
	}
	const timeout = options.connectTimeout ?? 15;
	args.push(
		"-o",
		"BatchMode=yes",
		"-o",
		`StrictHostKeyChecking=${options.hostKeys === "accept-new" ? "accept-new" : "yes"}`,
		"-o",
		"ForwardAgent=no",
		"-o",
		"ForwardX11=no",
		"-o",
		"ClearAllForwardings=yes",
		"-o",
		"PermitLocalCommand=no",
		"-o",
		`ConnectTimeout=${Math.max(1, Math.ceil(timeout))}`,
		"-o",
		"ServerAliveInterval=15",
		"-o",
		"ServerAliveCountMax=3",
		"-o",
		"LogLevel=ERROR",
	);
	return args;
}

/** The shared connection for these options (made when first asked for); `release` it when done. */
export function acquireConnection(options: SshExecutionEnvOptions): SshConnection | SshError {
	const baseArgs = sshBaseArgs(options);
	if (baseArgs instanceof SshError) return baseArgs;
	const key = JSON.stringify([...baseArgs, options.destination]);
	let connection = connections.get(key);
	if (!connection || connection.closed) {
		const controlDir = mkdtempSync(join(tmpdir(), "toolsmith-ssh-"));
		connection = {
			key,
			destination: options.destination,
			host: resolvedHost(baseArgs, options.destination),
			baseArgs,
			controlDir,
			controlPath: join(controlDir, "c"),
			connectTimeoutMs: Math.max(1, options.connectTimeout ?? 15) * 1000 + 5000,
			master: undefined,
			users: 0,
			linger: undefined,
			onLost: new Set(),
			orphans: [],
			closed: false,
		};
		connections.set(key, connection);
	}
	if (connection.linger !== undefined) clearTimeout(connection.linger);
	connection.linger = undefined;
	connection.users++;
	return connection;
}

/**
 * `hostname:port` as ssh resolves `destination` with these options (`ssh -G`, which reads the
 * config and connects nowhere), or the destination itself when that fails. Remembered per
 * arguments: it runs once for each way of reaching a host.
 */
function resolvedHost(baseArgs: readonly string[], destination: string): string {
	const key = JSON.stringify([...baseArgs, destination]);
	let host = resolvedHosts.get(key);
	if (host !== undefined) return host;
	host = destination;
	try {
		const printed = execFileSync(baseArgs[0] as string, [...baseArgs.slice(1), "-G", "--", destination], {
			encoding: "utf8",
			stdio: ["ignore", "pipe", "ignore"],
			timeout: 5000,
		});
		const name = /^hostname (.+)$/m.exec(printed)?.[1]?.trim();
		const port = /^port (\d+)$/m.exec(printed)?.[1];
		if (name) host = `${name.toLowerCase()}:${port ?? "22"}`;
	} catch {
		// No ssh to ask: the destination as given names the host.
	}
	resolvedHosts.set(key, host);
	return host;
}

const resolvedHosts = new Map<string, string>();

/**
 * Let go of the connection. The last user ends its master and removes its socket folder: at once,
 * or, with `lingerMs`, that long after, unless another env takes the connection up before then
 * (it then needs no handshake, and its helpers are already running). A lingering connection does
 * not keep the process alive, and the process' exit ends it.
 */
export async function releaseConnection(connection: SshConnection, lingerMs = 0): Promise<void> {
	connection.users = Math.max(0, connection.users - 1);
	if (connection.users > 0 || connection.closed) return;
	if (lingerMs > 0 && masterAlive(connection)) {
		if (connection.linger !== undefined) clearTimeout(connection.linger);
		connection.linger = setTimeout(() => {
			connection.linger = undefined;
			if (connection.users === 0) void closeConnection(connection);
		}, lingerMs);
		connection.linger.unref?.();
		return;
	}
	await closeConnection(connection);
}

async function closeConnection(connection: SshConnection): Promise<void> {
	if (connection.closed) return;
	connection.closed = true;
	connections.delete(connection.key);
	await stopMaster(connection);
	rmSync(connection.controlDir, { recursive: true, force: true });
}

/** The arguments that run `ssh` over the connection's master (without a remote command). */
export function sessionArgs(connection: SshConnection): string[] {
	return [...connection.baseArgs, "-S", connection.controlPath, "-o", "ControlMaster=no", "-T", connection.destination];
}

/**
 * A live master: the current one, or a new one once the last has ended. Resolves to an error when
 * it cannot connect (and forgets that attempt, so the next call tries again).
 */
export async function ensureMaster(connection: SshConnection): Promise<SshError | undefined> {
	if (connection.closed)
		return new SshError("connection_lost", connection.destination, "The SSH env was closed; create a new one");
	let master = connection.master;
	if (!master || master.lost) {
		master = startMaster(connection);
		connection.master = master;
	}
	const failure = await master.ready;
	if (failure && connection.master === master) connection.master = undefined;
	return failure ?? master.lost;
}

/** Whether the connection's master is up right now. */
export function masterAlive(connection: SshConnection): boolean {
	const master = connection.master;
	return master !== undefined && master.lost === undefined && master.child.exitCode === null;
}

/** Why the connection's current master ended, if it has. */
export function masterLost(connection: SshConnection): SshError | undefined {
	return connection.master?.lost;
}

function startMaster(connection: SshConnection): Master {
	rmSync(connection.controlPath, { force: true });
	const child = spawn(
		connection.baseArgs[0] as string,
		[
			...connection.baseArgs.slice(1),
			"-M",
			"-N",
			"-T",
			"-S",
			connection.controlPath,
			"-o",
			"ControlPersist=no",
			connection.destination,
		],
		{ stdio: ["ignore", "ignore", "pipe"] },
	);
	let stderr = "";
	child.stderr?.on("data", (chunk: Buffer) => {
		stderr = (stderr + chunk.toString("utf8")).slice(-8000);
	});
	const exited = new Promise<void>((resolve) => {
		child.once("exit", () => resolve());
		child.once("error", (error) => {
			stderr += `\n${error.message}`;
			resolve();
		});
	});
	const master: Master = {
		child,
		ready: (async () => {
			const deadline = performance.now() + connection.connectTimeoutMs;
			for (let wait = 2; ; wait = Math.min(wait * 2, 25)) {
				if (socketReady(connection.controlPath)) {
					killOrphans(connection);
					return undefined;
				}
				if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
					await exited;
					return connectError(connection.destination, stderr, child.exitCode);
				}
				if (performance.now() > deadline) {
					child.kill("SIGKILL");
					return new SshError(
						"unreachable",
						connection.destination,
						`Could not connect to ${connection.destination} within ${Math.round(connection.connectTimeoutMs / 1000)} s`,
					);
				}
				await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, wait))]);
			}
		})(),
	};
	void exited.then(() => {
		const error = new SshError(
			"connection_lost",
			connection.destination,
			`The connection to ${connection.destination} was lost${stderr.trim() ? ` (${lastLine(stderr)})` : ""}; the next call reconnects`,
		);
		master.lost = error;
		notifyListeners(connection.onLost, error);
	});
	// The master does not keep the process alive; `release` (or the process' exit) ends it.
	child.unref();
	(child.stderr as { unref?: () => void } | null)?.unref?.();
	if (liveMasters.size === 0 && !exitHookSet) {
		exitHookSet = true;
		process.once("exit", () => {
			for (const live of liveMasters) live.kill("SIGTERM");
			// Connections never released (or lingering) leave no socket folder behind.
			for (const open of connections.values()) {
				try {
					rmSync(open.controlDir, { recursive: true, force: true });
				} catch {
					// Leaving a folder behind is no reason to fail the exit.
				}
			}
		});
	}
	liveMasters.add(child);
	child.once("exit", () => liveMasters.delete(child));
	return master;
}

async function stopMaster(connection: SshConnection): Promise<void> {
	const master = connection.master;
	connection.master = undefined;
	if (!master || master.child.exitCode !== null || master.child.signalCode !== null) return;
	const exited = new Promise((resolve) => master.child.once("exit", resolve));
	master.child.kill("SIGTERM");
	const timer = setTimeout(() => master.child.kill("SIGKILL"), 2000);
	await exited;
	clearTimeout(timer);
}

function socketReady(path: string): boolean {
	try {
		return statSync(path).isSocket();
	} catch {
		return false;
	}
}

function lastLine(text: string): string {
	const lines = text.trim().split(/\r?\n/);
	return (lines[lines.length - 1] ?? "").trim();
}

/** The error of a master that could not connect, from what ssh printed. */
function connectError(destination: string, stderr: string, exitCode: number | null): SshError {
	const said = stderr.trim();
	const classify = (): [SshErrorCode, string] => {
		if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/i.test(said))
			return [
				"host_key",
				`The host key of ${destination} has CHANGED since it was recorded in known_hosts: refusing to connect. If the host was reinstalled on purpose, remove the old key (ssh-keygen -R <host>) and check the new one`,
			];
		if (/Host key verification failed|No .* host key is known/i.test(said))
			return [
				"host_key",
				`The host key of ${destination} is not known: connect once with \`ssh ${destination}\` to check and accept it, or pass hostKeys: "accept-new" (--ssh-option StrictHostKeyChecking=accept-new)`,
			];
		if (/Permission denied|Too many authentication failures|no matching (host key|key exchange)/i.test(said))
			return [
				"auth",
				`${destination} refused the login (${lastLine(said)}): check that \`ssh ${destination} true\` works without a prompt (a key in the agent or IdentityFile; passwords cannot be typed here)`,
			];
		if (/ENOENT|spawn .*ssh/.test(said))
			return ["unreachable", `Could not run ssh (${lastLine(said)}): install the OpenSSH client or pass sshPath`];
		return [
			"unreachable",
			`Could not connect to ${destination}${said ? `: ${lastLine(said)}` : ` (ssh exited with code ${exitCode})`}`,
		];
	};
	const [code, message] = classify();
	return new SshError(code, destination, message);
}

/** Masters still running: ended when the process exits, so none outlives it. */
const liveMasters = new Set<ChildProcess>();
let exitHookSet = false;

/**
 * Kill the remote tree of `pid` (`KILL_SCRIPT`: TERM, `graceMs`, KILL) in a session of its own;
 * resolves once that session ends. With `nonce`, only while the pid's parent is still the wrapper
 * carrying it.
 */
export function killRemoteTree(connection: SshConnection, pid: string, graceMs: number, nonce?: string): Promise<void> {
	const args = sessionArgs(connection);
	const words = [pid, String(Math.max(1, Math.ceil(graceMs / 50))), ...(nonce !== undefined ? [nonce] : [])];
	const remote = `sh -c ${shellQuote(KILL_SCRIPT)} sh ${words.map(shellQuote).join(" ")}`;
	return new Promise((resolve) => {
		const child = spawn(args[0] as string, [...args.slice(1), "--", remote], { stdio: "ignore" });
		child.once("error", () => resolve());
		child.once("exit", () => resolve());
	});
}

/**
 * Kill, over the (new) master, the commands a lost session or connection left running (not waited
 * for). The kill script checks that each pid is still the command's (its parent the wrapper with the
 * same nonce), so a pid used again meanwhile is left alone.
 */
export function killOrphans(connection: SshConnection): void {
	for (const orphan of connection.orphans.splice(0))
		void killRemoteTree(connection, orphan.pid, orphan.graceMs, orphan.nonce);
}
