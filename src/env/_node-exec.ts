/** Running a command for NodeExecutionEnv (Node only): spawn, stream, capture, time out, abort, kill its group. */
import { type ChildProcess, spawn } from "node:child_process";
import { constants as osConstants } from "node:os";
import type { ExecOptions, ExecResult, LimitReached } from "../contract/env.js";
import { errorMessage } from "../contract/errors.js";
import { type ExecutionError, type ExecutionErrorCode, err, ok, type Result } from "../contract/result.js";
import { pumpOutput } from "./_node-exec-output.js";
import { defaultShell, groupAlive, signalGroup } from "./_node-process.js";
import { setLongTimeout } from "./_timer.js";
import { commandFolder, execError, osCodeOf } from "./errors.js";

/** What a command takes from its NodeExecutionEnv, passed in explicitly. */
export interface CommandContext {
	/** The env's working folder; a relative `ExecOptions.cwd` resolves against it. */
	readonly cwd: string;
	/** The shell run as `<shell> -c <command>`; undefined for the default shell. */
	readonly shell: string | undefined;
	/** The environment commands start from; undefined for `process.env` (read at each exec). */
	readonly baseEnv: Readonly<Record<string, string | undefined>> | undefined;
	/** Milliseconds between SIGTERM and SIGKILL when killing a process tree. */
	readonly killGraceMs: number;
	/** Whether `path` (absolute) is an existing folder, as the env's own `fileInfo` sees it. */
	readonly isFolder: (path: string) => Promise<boolean>;
	/**
	 * Under a path policy: the program that runs `<shell> -c <command>` in the sandbox (with a
	 * warning when it runs unconfined), or why the command may not run. Absent: no policy.
	 */
	readonly confine?: (shell: string, command: string, cwd: string) => Promise<Result<ConfinedCommand, string>>;
}

/** The program that runs a command under a policy, what it reads on descriptor 3, and any warning. */
export interface ConfinedCommand {
	readonly file: string;
	readonly args: readonly string[];
	/** Bytes the program reads on file descriptor 3 before the command starts (the sandbox's seccomp filter). */
	readonly fd3?: Uint8Array;
	/** Set when the command runs unconfined although the policy asks for a sandbox. */
	readonly warning?: string;
	/** Whether the program writes what it saw of the sandbox's limits on file descriptor 4. */
	readonly reports?: boolean;
	/**
	 * Called once when the command has ended, however it ended, with what the program wrote on
	 * descriptor 4: releases what the command held and says which limits it reached.
	 */
	readonly settle?: (reports: string) => Promise<readonly LimitReached[]>;
}

/** After the shell exits, how long output may stay silent before we stop waiting for it to close. */
const DRAIN_IDLE_MS = 250;
/** After the shell exits, the longest we keep reading output that background processes still write. */
const DRAIN_MAX_MS = 2000;
/** How often to look whether a killed process group has gone. */
const GROUP_POLL_MS = 20;
/** How long after SIGKILL we wait for the group to disappear before giving up on it. */
const KILL_WAIT_MS = 2000;

/** Run `command` in `context` as NodeExecutionEnv.exec does (which catches what this throws). */
export async function runCommand(
	command: string,
	options: ExecOptions,
	context: CommandContext,
): Promise<Result<ExecResult, ExecutionError>> {
	const startedAt = performance.now();
	const folder = commandFolder(command, options, context.cwd);
	if (!folder.ok) return folder;
	const cwd = folder.value;
	if (!(await context.isFolder(cwd))) {
		return err(execError("spawn_error", command, `Working folder ${cwd} does not exist or is not a folder`));
	}
	const variables: Record<string, string> = {};
	for (const [name, value] of Object.entries({ ...(context.baseEnv ?? process.env), ...options.env })) {
		if (value !== undefined) variables[name] = value;
	}
	const shell = context.shell ?? (await defaultShell());
	let program: ConfinedCommand = { file: shell, args: ["-c", command] };
	if (context.confine) {
		const confined = await context.confine(shell, command, cwd);
		if (!confined.ok) return err(execError("spawn_error", command, confined.error));
		program = confined.value;
		if (program.warning !== undefined) {
			try {
				await options.onStderr?.(new TextEncoder().encode(`${program.warning}\n`));
			} catch {
				// A listener's failure must not change the command's outcome.
			}
		}
	}
	let child: ChildProcess;
	const stdio: ("ignore" | "pipe")[] = ["ignore", "pipe", "pipe"];
	if (program.fd3 || program.reports) stdio.push(program.fd3 ? "pipe" : "ignore");
	if (program.reports) stdio.push("pipe");
	try {
		child = spawn(program.file, [...program.args], {
			cwd,
			env: variables,
			// Its own process group, so the whole tree can be signaled at once.
			detached: true,
			stdio,
			windowsHide: true,
		});
		// A spawn that failed (EMFILE, say) has no stdio: it reports through its 'error' event.
		const extra = program.fd3 ? child.stdio?.[3] : undefined;
		if (program.fd3 && extra && "end" in extra) {
			// Read whole before the command starts; a program that stops reading early is not our concern.
			extra.on("error", () => {});
			extra.end(program.fd3);
		}
	} catch (error) {
		await program.settle?.("").catch(() => []);
		const code = osCodeOf(error)?.startsWith("ERR_INVALID_ARG") ? "invalid_argument" : "spawn_error";
		return err(execError(code, command, `Could not start ${shell}: ${errorMessage(error)}`));
	}
	const reports = program.reports ? readReports(child) : undefined;
	const outcome = await supervise(child, options, context.killGraceMs);
	const reached = program.settle ? await program.settle((await reports) ?? "").catch(() => []) : [];
	const durationMs = performance.now() - startedAt;
	if (!outcome.ok) {
		const what =
			outcome.error.code === "timeout"
				? `Command timed out after ${options.timeout} seconds`
				: outcome.error.code === "aborted"
					? "Command aborted"
					: `Could not start ${shell}: ${outcome.error.detail}`;
		return err(execError(outcome.error.code, command, what));
	}
	const warning = program.warning;
	if (reached.length > 0) {
		// Said last on stderr, where the model reads why the command failed.
		const text = reached.map((limit) => `${limit.message}\n`).join("");
		const tail = outcome.value.stderr === "" || outcome.value.stderr.endsWith("\n") ? "" : "\n";
		try {
			await options.onStderr?.(new TextEncoder().encode(tail + text));
		} catch {
			// A listener's failure must not change the command's outcome.
		}
		const stderr =
			options.captureOutput === false && outcome.value.stderr === "" ? "" : outcome.value.stderr + tail + text;
		return ok({ ...outcome.value, stderr, durationMs, limitsReached: reached });
	}
	if (warning === undefined) return ok({ ...outcome.value, durationMs });
	const stderr =
		outcome.value.stderr === "" && options.captureOutput === false ? "" : `${warning}\n${outcome.value.stderr}`;
	return ok({ ...outcome.value, stderr, durationMs, warning });
}

/** Most of descriptor 4 kept: a few short lines are expected. */
const MAX_REPORT_CHARS = 4096;

/**
 * What the program writes on descriptor 4 until it closes (its last writer is the sandbox's own
 * script, gone when the program exits), or what came within `DRAIN_MAX_MS` of asking.
 */
function readReports(child: ChildProcess): Promise<string> {
	const stream = child.stdio[4];
	if (!stream || !("setEncoding" in stream)) return Promise.resolve("");
	return new Promise((resolve) => {
		let text = "";
		stream.setEncoding("utf8");
		stream.on("data", (chunk: string) => {
			if (text.length < MAX_REPORT_CHARS) text += chunk.slice(0, MAX_REPORT_CHARS - text.length);
		});
		stream.on("error", () => resolve(text));
		stream.on("close", () => resolve(text));
		child.once("exit", () => {
			setTimeout(() => {
				stream.destroy();
				resolve(text);
			}, DRAIN_MAX_MS).unref();
		});
	});
}

/** Stream, capture, time out, abort, and settle only once the process (tree) is gone. */
function supervise(
	child: ChildProcess,
	options: ExecOptions,
	killGraceMs: number,
): Promise<
	| { ok: true; value: Omit<ExecResult, "durationMs"> }
	| { ok: false; error: { code: ExecutionErrorCode; detail: string } }
> {
	const output = pumpOutput(child, options);

	return new Promise((resolve) => {
		const pid = child.pid;
		let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
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
		const finish = () => {
			if (settled) return;
			settled = true;
			cleanup();
			if (killedFor) {
				resolve({ ok: false, error: { code: killedFor, detail: "" } });
				return;
			}
			output.endCapture();
			const signo = exit?.signal ? (osConstants.signals[exit.signal] ?? 0) : 0;
			const exitCode = exit?.code ?? 128 + signo;
			resolve({ ok: true, value: { exitCode, stdout: output.captured.stdout, stderr: output.captured.stderr } });
		};
		// Once killing, settle when the shell closed and no process of its group can run anymore.
		const settleWhenGone = (deadline: number) => {
			if (settled) return;
			if (closed && (pid === undefined || !groupAlive(pid))) return finish();
			if (Date.now() > deadline) {
				// Unkillable (e.g. stuck in the kernel): report rather than hang the caller forever.
				child.stdout?.destroy();
				child.stderr?.destroy();
				return finish();
			}
			later(GROUP_POLL_MS, () => settleWhenGone(deadline));
		};
		const kill = (reason: "timeout" | "aborted") => {
			// After the shell exited, a timeout only stops waiting for a listener holding output back.
			if (exit && !killedFor) output.releaseAll();
			if (settled || killedFor || exit) return;
			killedFor = reason;
			// A paused pipe never reaches its end, so 'close' would wait for the kill deadline.
			output.releaseAll();
			if (pid !== undefined) signalGroup(pid, "SIGTERM");
			later(killGraceMs, () => {
				if (pid !== undefined && !settled) signalGroup(pid, "SIGKILL");
			});
			settleWhenGone(Date.now() + killGraceMs + KILL_WAIT_MS);
		};
		const onAbort = () => {
			// After the shell exited, an abort only stops waiting for stray output.
			if (exit) stopDraining();
			else kill("aborted");
		};
		const stopDraining = () => {
			child.stdout?.destroy();
			child.stderr?.destroy();
			finish();
		};
		// Background processes that inherited the pipes can hold them open long after the shell
		// exited. We stop reading once the output has been quiet for a moment (or after a cap)
		// and leave those processes alone: a command may start a server on purpose.
		const drain = (exitedAt: number) => {
			if (settled || closed) return;
			const now = Date.now();
			if (output.paused > 0) {
				// The caller holds output back: waiting for it is neither silence nor drain time.
				later(DRAIN_IDLE_MS, () => drain(exitedAt + (Date.now() - now)));
				return;
			}
			const quietFor = now - output.lastOutputAt;
			if (quietFor >= DRAIN_IDLE_MS || now - exitedAt >= DRAIN_MAX_MS) return stopDraining();
			later(Math.min(DRAIN_IDLE_MS - quietFor, DRAIN_MAX_MS - (now - exitedAt)) + 1, () => drain(exitedAt));
		};

		child.once("error", (error) => {
			if (settled || pid !== undefined) return;
			settled = true;
			cleanup();
			resolve({ ok: false, error: { code: "spawn_error", detail: (error as Error).message } });
		});
		child.once("exit", (code, signal) => {
			exit = { code, signal };
			if (killedFor) return;
			const exitedAt = Date.now();
			output.lastOutputAt = Math.max(output.lastOutputAt, exitedAt);
			later(DRAIN_IDLE_MS, () => drain(exitedAt));
		});
		child.once("close", () => {
			closed = true;
			// A shell that never started reports through 'error' instead.
			if (killedFor || pid === undefined) return;
			// A stream can end while its last chunks still wait for a listener's promise.
			if (output.paused > 0) output.onUnpaused = finish;
			else finish();
		});
		// A long timeout (past the 24.8 days one timer holds) must wait, not fire at once.
		if (options.timeout !== undefined) cancelTimeout = setLongTimeout(options.timeout * 1000, () => kill("timeout"));
		options.signal?.addEventListener("abort", onAbort, { once: true });
		if (options.signal?.aborted) onAbort();
	});
}
