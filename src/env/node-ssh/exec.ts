/**
 * Running a command for SshExecutionEnv (Node only). Each command gets its own session over the
 * connection (so its output streams as it comes), running `EXEC_SCRIPT` (`remote.ts`): the
 * command's pid and exit code come back on stderr between markers carrying a random nonce, and are
 * taken out before the caller sees stderr. A timeout counts from the command's start there (the
 * pid marker), not from the session's. A timeout or an abort kills the remote tree through
 * another session (`KILL_SCRIPT`: TERM, the grace period, KILL) before the call settles. Output
 * follows the local env's rules: captured unless streamed, held back by a listener's promise (ssh
 * then stops reading, and the remote command blocks on its full pipe), and read for a short while
 * after the shell exits for what background processes still write.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { ExecOptions, ExecResult } from "../../contract/env.js";
import { type ExecutionError, err, ok, type Result } from "../../contract/result.js";
import { pumpOutput } from "../_node-exec-output.js";
import { setLongTimeout } from "../_timer.js";
import { commandFolder, execError, quoted } from "../errors.js";
import { resolvePath } from "../path.js";
import { type AgentPool, remoteCaps } from "./agent.js";
import {
	ensureMaster,
	killOrphans,
	killRemoteTree,
	masterAlive,
	masterLost,
	type SshConnection,
	sessionArgs,
} from "./connection.js";
import { EXEC_SCRIPT, shellQuote } from "./remote.js";

/** What a command takes from its SshExecutionEnv. */
export interface SshCommandContext {
	readonly cwd: string;
	readonly connection: SshConnection;
	readonly pool: AgentPool;
	readonly shell: string | undefined;
	readonly baseEnv: Readonly<Record<string, string | undefined>> | undefined;
	readonly killGraceMs: number;
	/** Set under a path policy: the remote side has no sandbox, so commands are refused or warned about. */
	readonly withoutSandbox: "refuse" | "warn" | undefined;
}

/** After the shell exits, how long output may stay silent before we stop waiting for it to close. */
const DRAIN_IDLE_MS = 250;
/** After the shell exits, the longest we keep reading output that background processes still write. */
const DRAIN_MAX_MS = 2000;
/** How long after the kill script we wait for the session to end before leaving it. */
const AFTER_KILL_MS = 2000;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Run `command` on the remote host as `SshExecutionEnv.exec` does. Never rejects. */
export async function runRemoteCommand(
	command: string,
	options: ExecOptions,
	context: SshCommandContext,
): Promise<Result<ExecResult, ExecutionError>> {
	const startedAt = performance.now();
	const folder = commandFolder(command, options, context.cwd);
	if (!folder.ok) return folder;
	const cwd = folder.value;
	const envArgs: string[] = [];
	for (const [name, value] of Object.entries({ ...context.baseEnv, ...options.env })) {
		if (!NAME.test(name))
			return err(execError("invalid_argument", command, `Invalid environment variable name ${quoted(name)}`));
		if (value === undefined) envArgs.push("-u", name);
		else if (typeof value !== "string" || value.includes("\0"))
			return err(execError("invalid_argument", command, `The value of ${name} must be a string without NUL bytes`));
		else envArgs.push(`${name}=${value}`);
	}
	let warning: string | undefined;
	if (context.withoutSandbox === "refuse")
		return err(
			execError(
				"spawn_error",
				command,
				'Commands cannot be confined on the remote host (an SSH env has no sandbox there), and the env\'s path policy refuses to run them unconfined (withoutSandbox: "warn" runs them with a warning)',
			),
		);
	if (context.withoutSandbox === "warn")
		warning =
			"toolsmith: warning: this command ran unconfined: the remote host has no sandbox (the path policy covers file operations only)";
	const caps = await remoteCaps(context.pool);
	if (caps instanceof Error) return err(execError(lostOrSpawn(caps.code), command, caps.message));
	const shell = context.shell ?? (caps.bash || "sh");
	const nonce = randomBytes(8).toString("hex");
	const remote = `sh -c ${shellQuote(EXEC_SCRIPT)} sh ${[nonce, cwd, shell, command, caps.setsid ? "1" : "0", ...envArgs].map(shellQuote).join(" ")}`;
	const failure = await ensureMaster(context.connection);
	if (failure) return err(execError(lostOrSpawn(failure.code), command, failure.message));
	if (warning !== undefined) {
		try {
			await options.onStderr?.(new TextEncoder().encode(`${warning}\n`));
		} catch {
			// A listener's failure must not change the command's outcome.
		}
	}
	const args = sessionArgs(context.connection);
	let child: ChildProcess;
	try {
		child = spawn(args[0] as string, [...args.slice(1), "--", remote], { stdio: ["ignore", "pipe", "pipe"] });
	} catch (error) {
		return err(execError("spawn_error", command, `Could not start ssh: ${(error as Error).message}`));
	}
	const outcome = await supervise(child, nonce, options, context);
	const durationMs = performance.now() - startedAt;
	if (!outcome.ok) {
		const what =
			outcome.code === "timeout"
				? `Command timed out after ${options.timeout} seconds`
				: outcome.code === "aborted"
					? "Command aborted"
					: outcome.detail;
		return err(execError(outcome.code, command, what));
	}
	if (warning === undefined) return ok({ ...outcome.value, durationMs });
	const stderr =
		outcome.value.stderr === "" && options.captureOutput === false ? "" : `${warning}\n${outcome.value.stderr}`;
	return ok({ ...outcome.value, stderr, durationMs, warning });
}

function lostOrSpawn(code: string): "connection_lost" | "spawn_error" {
	return code === "connection_lost" ? "connection_lost" : "spawn_error";
}

type Outcome =
	| { ok: true; value: Omit<ExecResult, "durationMs"> }
	| { ok: false; code: "timeout" | "aborted" | "spawn_error" | "connection_lost"; detail: string };

/**
 * What ssh prints first when sshd refuses one more session on the connection (its `MaxSessions`)
 * and ssh opens a connection of its own instead: the command still runs, so the notice is dropped.
 */
const SESSION_REFUSED = Buffer.from("mux_client_request_session: ");

/**
 * Pulls the wrapper's markers (`\x1e<nonce>:<what>:<value>\n`) out of stderr as it streams, and
 * ssh's notice of a refused session from its start.
 */
export class MarkerFilter {
	private readonly prefix: Buffer;
	private held = Buffer.alloc(0);
	/** The first bytes of the stream, until they are known not to be ssh's notice. */
	private leading: Buffer | undefined = Buffer.alloc(0);

	constructor(
		nonce: string,
		private readonly onMarker: (what: string, value: string) => void,
	) {
		this.prefix = Buffer.from(`\x1e${nonce}:`);
	}

	/** `chunk` without its markers (bytes that may start a marker are held until they can be told apart). */
	push(chunk: Buffer): Buffer {
		if (this.leading) {
			const first = Buffer.concat([this.leading, chunk]);
			const compared = Math.min(first.length, SESSION_REFUSED.length);
			const newline = first.indexOf(10);
			if (!first.subarray(0, compared).equals(SESSION_REFUSED.subarray(0, compared))) this.leading = undefined;
			else if (newline < 0) {
				this.leading = first;
				return Buffer.alloc(0);
			} else {
				this.leading = undefined;
				return this.push(first.subarray(newline + 1));
			}
			chunk = first;
		}
		let data = this.held.length > 0 ? Buffer.concat([this.held, chunk]) : chunk;
		this.held = Buffer.alloc(0);
		const out: Buffer[] = [];
		for (;;) {
			const at = data.indexOf(this.prefix);
			if (at < 0) break;
			const end = data.indexOf(10, at);
			if (end < 0) {
				out.push(data.subarray(0, at));
				this.held = Buffer.from(data.subarray(at));
				return Buffer.concat(out);
			}
			const [what = "", value = ""] = data
				.subarray(at + this.prefix.length, end)
				.toString("latin1")
				.split(":");
			this.onMarker(what, value);
			out.push(data.subarray(0, at));
			data = data.subarray(end + 1);
		}
		// Hold a tail that could be the start of a marker split across chunks.
		const start = data.lastIndexOf(0x1e);
		if (start >= 0 && this.prefix.subarray(0, data.length - start).equals(data.subarray(start))) {
			out.push(data.subarray(0, start));
			this.held = Buffer.from(data.subarray(start));
		} else out.push(data);
		return out.length === 1 ? (out[0] as Buffer) : Buffer.concat(out);
	}

	/** What is held when the stream ends (it was not a marker after all). */
	flush(): Buffer {
		const rest = this.leading ? Buffer.concat([this.leading, this.held]) : this.held;
		this.leading = undefined;
		this.held = Buffer.alloc(0);
		return rest;
	}
}

function supervise(
	child: ChildProcess,
	nonce: string,
	options: ExecOptions,
	context: SshCommandContext,
): Promise<Outcome> {
	let pid: string | undefined;
	let exitCode: number | undefined;
	let noFolder = false;
	let onExitMarker: (() => void) | undefined;
	let onStarted: (() => void) | undefined;
	/** Set while a kill waits for the pid marker. */
	let onPid: (() => void) | undefined;
	const markers = new MarkerFilter(nonce, (what, value) => {
		if (what === "pid") {
			pid = value;
			onStarted?.();
			onPid?.();
		} else if (what === "nocwd") noFolder = true;
		else if (what === "exit") {
			exitCode = Number(value);
			onExitMarker?.();
		}
	});
	const output = pumpOutput(child, options, markers);

	return new Promise((resolve) => {
		let killedFor: "timeout" | "aborted" | undefined;
		let closed = false;
		let settled = false;
		const timers: ReturnType<typeof setTimeout>[] = [];
		const later = (ms: number, fn: () => void) => timers.push(setTimeout(fn, ms));
		let cancelTimeout: (() => void) | undefined;
		const cleanup = () => {
			for (const timer of timers) clearTimeout(timer);
			cancelTimeout?.();
			options.signal?.removeEventListener("abort", onAbort);
		};
		const leave = () => {
			child.stdout?.destroy();
			child.stderr?.destroy();
			if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
		};
		const finish = (sshExit: number | null) => {
			if (settled) return;
			settled = true;
			cleanup();
			if (killedFor) return resolve({ ok: false, code: killedFor, detail: "" });
			if (noFolder)
				return resolve({
					ok: false,
					code: "spawn_error",
					detail: `Working folder ${options.cwd === undefined ? context.cwd : resolvePath(context.cwd, options.cwd)} does not exist or is not a folder on ${context.connection.destination}`,
				});
			if (exitCode === undefined) {
				const lost = masterLost(context.connection);
				if (lost || sshExit === 255 || !masterAlive(context.connection)) {
					// Killed once the next connection is up, as an abort would have killed it.
					if (pid !== undefined) context.connection.orphans.push({ pid, nonce, graceMs: context.killGraceMs });
					// Only this session ended: the connection can kill it now.
					if (masterAlive(context.connection)) killOrphans(context.connection);
					return resolve({
						ok: false,
						code: "connection_lost",
						detail: `${lost?.message ?? `The connection to ${context.connection.destination} was lost`}. The command may still be running there${pid ? ` (pid ${pid}); it is killed once the env reconnects` : ""}`,
					});
				}
			}
			output.endCapture();
			resolve({
				ok: true,
				value: { exitCode: exitCode ?? sshExit ?? 255, stdout: output.captured.stdout, stderr: output.captured.stderr },
			});
		};
		const kill = (reason: "timeout" | "aborted") => {
			if (exitCode !== undefined && !killedFor) output.releaseAll();
			if (settled || killedFor || exitCode !== undefined) return;
			killedFor = reason;
			output.releaseAll();
			const done = () => {
				if (closed) return finish(null);
				later(AFTER_KILL_MS, () => {
					leave();
					finish(null);
				});
			};
			if (pid === undefined) {
				// The pid may still be on its way (stdout and stderr are separate streams: the command's
				// first output can come first), or the wrapper is about to start the command, which
				// ending the session would not stop. Wait for the marker a moment, then kill the tree;
				// a session that ends meanwhile, or stays silent, is left.
				onPid = () => {
					onPid = undefined;
					void killRemoteTree(context.connection, pid as string, context.killGraceMs).then(done);
				};
				later(AFTER_KILL_MS, () => {
					if (!onPid) return;
					onPid = undefined;
					leave();
					finish(null);
				});
				return;
			}
			void killRemoteTree(context.connection, pid, context.killGraceMs).then(done);
		};
		const onAbort = () => {
			if (exitCode !== undefined) {
				leave();
				finish(exitCode);
			} else kill("aborted");
		};
		const drain = (exitedAt: number) => {
			if (settled || closed) return;
			const now = Date.now();
			if (output.paused > 0) {
				later(DRAIN_IDLE_MS, () => drain(exitedAt + (Date.now() - now)));
				return;
			}
			const quietFor = now - output.lastOutputAt;
			if (quietFor >= DRAIN_IDLE_MS || now - exitedAt >= DRAIN_MAX_MS) {
				leave();
				return finish(exitCode ?? null);
			}
			later(Math.min(DRAIN_IDLE_MS - quietFor, DRAIN_MAX_MS - (now - exitedAt)) + 1, () => drain(exitedAt));
		};
		onExitMarker = () => {
			if (killedFor) return;
			const exitedAt = Date.now();
			output.lastOutputAt = Math.max(output.lastOutputAt, exitedAt);
			later(DRAIN_IDLE_MS, () => drain(exitedAt));
		};
		child.once("error", (error) => {
			if (settled) return;
			settled = true;
			cleanup();
			resolve({ ok: false, code: "spawn_error", detail: `Could not start ssh: ${error.message}` });
		});
		child.once("close", (code) => {
			closed = true;
			if (killedFor) {
				// Ended before its pid came: nothing is left to kill.
				if (onPid) {
					onPid = undefined;
					finish(null);
				}
				return;
			}
			if (output.paused > 0) output.onUnpaused = () => finish(code);
			else finish(code);
		});
		if (options.timeout !== undefined) {
			// The command's time counts from its start on the remote host: a new session's login
			// shell may take a while to start, which no local process pays. Until then the clock
			// runs with the connect timeout added, so a session that never starts still times out.
			const timeoutMs = options.timeout * 1000;
			cancelTimeout = setLongTimeout(timeoutMs + context.connection.connectTimeoutMs, () => kill("timeout"));
			onStarted = () => {
				cancelTimeout?.();
				cancelTimeout = setLongTimeout(timeoutMs, () => kill("timeout"));
			};
		}
		options.signal?.addEventListener("abort", onAbort, { once: true });
		if (options.signal?.aborted) onAbort();
	});
}
