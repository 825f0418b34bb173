/** The scripted shell behind MemoryExecutionEnv.exec: scripted answers matched in order, streamed output with backpressure, timeouts, aborts, and the command log. */

import type { ExecOptions, ExecResult } from "../contract/env.js";
import { describeValue, errorMessage } from "../contract/errors.js";
import { type ExecutionError, type ExecutionErrorCode, err, ok, type Result } from "../contract/result.js";
import { setLongTimeout } from "./_timer.js";
import { encodePooled } from "./byte-pool.js";
import { commandProblem, execError, isThenable, pathProblem, quoted, timeoutProblem } from "./errors.js";
import { resolvePath } from "./path.js";

/** One piece of scripted output, written after waiting `delayMs` (cancelled by timeout or abort). */
export interface ScriptedChunk {
	readonly stream: "stdout" | "stderr";
	readonly data: string | Uint8Array;
	readonly delayMs?: number;
}

/** What a scripted command (or its `run` function) produces. */
export interface ScriptedOutput {
	readonly stdout?: string | Uint8Array;
	readonly stderr?: string | Uint8Array;
	/** Defaults to 0. */
	readonly exitCode?: number;
}

/** What a scripted command's `run` function receives; `TEnv` is the env running it. */
export interface ShellRunContext<TEnv> {
	/** The env running the command: `run` may read and change its files. */
	readonly env: TEnv;
	/** The absolute working folder of this exec. */
	readonly cwd: string;
	/** The `env` option given to `exec` (extra environment variables), or `{}`. */
	readonly variables: Readonly<Record<string, string | undefined>>;
	/** Fires on timeout or abort; the exec settles without waiting for `run` once it fires. */
	readonly signal: AbortSignal;
	/** Stream output now (ignored once the exec has settled). */
	stdout(data: string | Uint8Array): void;
	stderr(data: string | Uint8Array): void;
}

/**
 * One scripted answer of the memory shell; `TEnv` is the env a `run` function gets. For a matching exec the env writes `chunks` in order
 * (each after its `delayMs`), then awaits `run`, then writes `stdout` and `stderr`, then exits
 * with `exitCode` (values returned by `run` replace the static `stdout`, `stderr`, `exitCode`).
 */
export interface ShellCommand<TEnv> {
	/**
	 * Which commands this answers. A string matches a command equal to it after trimming both (use
	 * a RegExp for prefixes or patterns); a function gets the command as given. A function that
	 * throws counts as no match.
	 */
	readonly match: string | RegExp | ((command: string) => boolean);
	readonly stdout?: string | Uint8Array;
	readonly stderr?: string | Uint8Array;
	readonly exitCode?: number;
	readonly chunks?: readonly ScriptedChunk[];
	/** Answer only the first matching exec; later ones go to the next match. */
	readonly once?: boolean;
	/**
	 * Computes the answer (and may change files through `ctx.env`). If it throws or rejects, the
	 * command exits 1 with the error message on stderr.
	 */
	readonly run?: (
		command: string,
		ctx: ShellRunContext<TEnv>,
	) => ScriptedOutput | undefined | Promise<ScriptedOutput | undefined>;
}

/** One exec, as recorded in `commandLog`. */
export interface CommandLogEntry {
	readonly command: string;
	/** The absolute working folder. */
	readonly cwd: string;
	readonly env: Readonly<Record<string, string | undefined>> | undefined;
	readonly timeout: number | undefined;
	/** Whether a scripted command answered (false: the `unmatched` answer was used). */
	readonly matched: boolean;
	/** Set when the command exited (also for non-zero codes). */
	readonly exitCode: number | undefined;
	/** Set when the command ended without an exit code (`timeout`, `aborted`, …). */
	readonly error: ExecutionErrorCode | undefined;
	/** Everything written to stdout, whether or not the caller captured it. */
	readonly stdout: string;
	readonly stderr: string;
	/** Still running (exit code and error not known yet). */
	readonly running: boolean;
}

/** What the scripted shell takes from the env it runs for, passed in explicitly. */
export interface ScriptedShellHost<TEnv> {
	/** The env a `run` function receives as `ctx.env`. */
	readonly env: TEnv;
	/** The env's working folder; a relative `ExecOptions.cwd` resolves against it. */
	readonly cwd: string;
	/** Whether `path` (absolute) is an existing folder, following symlinks. */
	readonly isFolder: (path: string) => boolean;
}

/** A timer that can be cancelled by a signal; resolves false when cancelled. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
	return new Promise((resolve) => {
		if (signal.aborted) return resolve(false);
		const onAbort = () => {
			cancel();
			resolve(false);
		};
		const cancel = setLongTimeout(ms, () => {
			signal.removeEventListener("abort", onAbort);
			resolve(true);
		});
		signal.addEventListener("abort", onAbort, { once: true });
	});
}

interface MutableLogEntry {
	command: string;
	cwd: string;
	env: Readonly<Record<string, string | undefined>> | undefined;
	timeout: number | undefined;
	matched: boolean;
	exitCode: number | undefined;
	error: ExecutionErrorCode | undefined;
	stdout: string;
	stderr: string;
	running: boolean;
}

/** The scripted commands, the `unmatched` answer and the command log of one MemoryExecutionEnv. */
export class ScriptedShell<TEnv> {
	private readonly scripts: ShellCommand<TEnv>[];
	private readonly consumed = new WeakSet<ShellCommand<TEnv>>();
	private readonly log: MutableLogEntry[] = [];

	constructor(
		private readonly host: ScriptedShellHost<TEnv>,
		commands: readonly ShellCommand<TEnv>[],
		private readonly unmatched: ScriptedOutput | ((command: string) => ScriptedOutput) | undefined,
	) {
		this.scripts = [...commands];
	}

	/** Every exec so far, in call order (a copy; entries of running commands say `running`). */
	get commandLog(): readonly CommandLogEntry[] {
		return this.log.map((entry) => ({ ...entry }));
	}

	/** Append scripted commands, tried after the existing ones. */
	addCommands(...commands: ShellCommand<TEnv>[]): void {
		this.scripts.push(...commands);
	}

	/** Run `command` for MemoryExecutionEnv.exec; never rejects. */
	async exec(command: string, options: ExecOptions): Promise<Result<ExecResult, ExecutionError>> {
		try {
			return await this.runCommand(command, options ?? {});
		} catch (error) {
			// Only reachable through a bug or a hostile options object; the contract is to never reject.
			return err(
				execError("spawn_error", describeValue(command), `Could not run the command (${errorMessage(error)})`),
			);
		}
	}

	private async runCommand(command: string, options: ExecOptions): Promise<Result<ExecResult, ExecutionError>> {
		const startedAt = Date.now();
		const problem = commandProblem(command) ?? timeoutProblem(options.timeout);
		if (problem) return err(execError("invalid_argument", describeValue(command), problem));
		const cwd = this.execCwd(command, options.cwd);
		if (!cwd.ok) return cwd;
		const entry: MutableLogEntry = {
			command,
			cwd: cwd.value,
			env: options.env ? { ...options.env } : undefined,
			timeout: options.timeout,
			matched: false,
			exitCode: undefined,
			error: undefined,
			stdout: "",
			stderr: "",
			running: true,
		};
		this.log.push(entry);
		const finish = (result: Result<ExecResult, ExecutionError>) => {
			entry.running = false;
			if (result.ok) entry.exitCode = result.value.exitCode;
			else entry.error = result.error.code;
			return result;
		};
		if (options.signal?.aborted) return finish(err(execError("aborted", command, "Command aborted before it started")));

		const script = this.scripts.find((candidate) => !this.consumed.has(candidate) && matches(candidate.match, command));
		if (script?.once) this.consumed.add(script);
		entry.matched = script !== undefined;

		const capture = options.captureOutput ?? (options.onStdout === undefined && options.onStderr === undefined);
		// The log entry holds exactly this exec's output, so the capture is taken from it at the end.
		// Decoders and the stop signal are made only when needed: most scripted commands print one
		// answer, and many replayed sessions run hundreds of them.
		const logOut: { stdout?: InstanceType<typeof TextDecoder>; stderr?: InstanceType<typeof TextDecoder> } = {};
		let stop: AbortController | undefined;
		const stopSignal = () => {
			stop ??= new AbortController();
			return stop.signal;
		};
		let settled = false;
		/**
		 * Backpressure (see ExecOptions): while a listener's promise is pending, later chunks wait
		 * here in order and are delivered once it settles. The log and the capture see them at once.
		 */
		const held: { stream: "stdout" | "stderr"; bytes: Uint8Array }[] = [];
		let holding: Promise<void> | undefined;
		const deliver = (stream: "stdout" | "stderr", bytes: Uint8Array) => {
			const listener = stream === "stdout" ? options.onStdout : options.onStderr;
			if (listener === undefined) return;
			try {
				const returned: unknown = listener(bytes);
				if (isThenable(returned)) holding = Promise.resolve(returned).then(release, release);
			} catch {
				// A listener's failure must not change the command's outcome (see ExecOptions).
			}
		};
		const release = () => {
			holding = undefined;
			while (holding === undefined && !settled) {
				const next = held.shift();
				if (next === undefined) return;
				deliver(next.stream, next.bytes);
			}
		};
		const write = (stream: "stdout" | "stderr", data: string | Uint8Array) => {
			if (settled || stop?.signal.aborted) return;
			const bytes = typeof data === "string" ? encodePooled(data) : new Uint8Array(data);
			if (bytes.byteLength === 0) return;
			logOut[stream] ??= new TextDecoder("utf-8", { ignoreBOM: true });
			entry[stream] += logOut[stream].decode(bytes, { stream: true });
			if (holding !== undefined) held.push({ stream, bytes });
			else deliver(stream, bytes);
		};
		/** Resolves once every written chunk reached its listener and no promise is pending. */
		const delivered = async () => {
			while (holding !== undefined) await holding;
		};

		const run = async (): Promise<number> => {
			const answer: ShellCommand<TEnv> | ScriptedOutput = script ?? this.unmatchedAnswer(command);
			let result: ScriptedOutput | undefined;
			try {
				if (script) {
					for (const chunk of script.chunks ?? []) {
						if (chunk.delayMs && chunk.delayMs > 0 && !(await sleep(chunk.delayMs, stopSignal()))) return 0;
						write(chunk.stream, chunk.data);
					}
					if (script.run) {
						result = await script.run(command, {
							env: this.host.env,
							cwd: cwd.value,
							variables: options.env ?? {},
							signal: stopSignal(),
							stdout: (data) => write("stdout", data),
							stderr: (data) => write("stderr", data),
						});
					}
				}
			} catch (error) {
				write("stderr", `scripted command ${JSON.stringify(command)} failed: ${errorMessage(error)}\n`);
				return 1;
			}
			const stdout = result?.stdout ?? answer.stdout;
			const stderr = result?.stderr ?? answer.stderr;
			if (stdout !== undefined) write("stdout", stdout);
			if (stderr !== undefined) write("stderr", stderr);
			const code = result?.exitCode ?? answer.exitCode ?? 0;
			return Number.isFinite(code) ? Math.trunc(code) : 1;
		};

		const outcome = await new Promise<Result<number, ExecutionErrorCode>>((resolve) => {
			let cancelTimer: (() => void) | undefined;
			const onAbort = () => end(err("aborted"));
			const end = (value: Result<number, ExecutionErrorCode>) => {
				if (settled) return;
				settled = true;
				cancelTimer?.();
				options.signal?.removeEventListener("abort", onAbort);
				// Aborting costs an exception object: only when the script could be listening.
				stop?.abort();
				resolve(value);
			};
			if (options.timeout !== undefined)
				cancelTimer = setLongTimeout(options.timeout * 1000, () => end(err("timeout")));
			options.signal?.addEventListener("abort", onAbort, { once: true });
			run().then(
				(code) => (holding === undefined ? end(ok(code)) : delivered().then(() => end(ok(code)))),
				() => end(ok(1)),
			);
		});
		for (const stream of ["stdout", "stderr"] as const) {
			const rest = logOut[stream]?.decode();
			if (rest) entry[stream] += rest;
		}
		const durationMs = Date.now() - startedAt;
		if (!outcome.ok) {
			const what =
				outcome.error === "timeout" ? `Command timed out after ${options.timeout} seconds` : "Command aborted";
			return finish(err(execError(outcome.error, command, what)));
		}
		const stdout = capture ? entry.stdout : "";
		const stderr = capture ? entry.stderr : "";
		return finish(ok({ exitCode: outcome.value, stdout, stderr, durationMs }));
	}

	private execCwd(command: string, cwd: string | undefined): Result<string, ExecutionError> {
		if (cwd === undefined) return ok(this.host.cwd);
		const problem = pathProblem(cwd);
		if (problem)
			return err(execError("invalid_argument", command, `Invalid working folder ${quoted(cwd)} (${problem})`));
		const absolute = resolvePath(this.host.cwd, cwd);
		if (!this.host.isFolder(absolute)) {
			return err(execError("spawn_error", command, `Working folder ${absolute} does not exist or is not a folder`));
		}
		return ok(absolute);
	}

	private unmatchedAnswer(command: string): ScriptedOutput {
		const fallback: ScriptedOutput = {
			exitCode: 127,
			stderr: `memory env: no scripted command matches ${JSON.stringify(command)} (add one to the env's commands)\n`,
		};
		if (this.unmatched === undefined) return fallback;
		if (typeof this.unmatched !== "function") return this.unmatched;
		try {
			return this.unmatched(command);
		} catch (error) {
			return { exitCode: 1, stderr: `scripted command ${JSON.stringify(command)} failed: ${errorMessage(error)}\n` };
		}
	}
}

function matches(match: ShellCommand<unknown>["match"], command: string): boolean {
	try {
		if (typeof match === "string") return match.trim() === command.trim();
		if (match instanceof RegExp) {
			match.lastIndex = 0;
			return match.test(command);
		}
		return match(command) === true;
	} catch {
		return false;
	}
}
