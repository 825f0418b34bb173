/**
 * NodeExecutionEnv: the ExecutionEnv over the real disk and real processes (`toolsmith-sdk/node`).
 *
 * File operations use `fs/promises` and map Node's error codes to `FileError` codes. Writes are
 * atomic (temp file in the same folder, then rename). Commands run in `bash -c` (or `sh -c`) as
 * the leader of a new process group, so a timeout or an abort can kill the whole tree.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promises as fs, constants as fsConstants } from "node:fs";
import { constants as osConstants, tmpdir } from "node:os";
import { resolve as resolveNative } from "node:path";
import { errorMessage } from "../contract/errors.js";
import {
	type ExecutionError,
	type ExecutionErrorCode,
	err,
	type FileError,
	type FileErrorCode,
	ok,
	type Result,
} from "../contract/result.js";
import {
	affixProblem,
	commandProblem,
	execError,
	fileError,
	isThenable,
	pathProblem,
	rangeProblem,
	timeoutProblem,
} from "./_errors.js";
import { defaultShell, groupAlive, signalGroup } from "./_node-process.js";
import { basename, dirname, resolvePath } from "./_path.js";
import type { DirEntry, ExecOptions, ExecResult, ExecutionEnv, FileInfo, FileKind, SignalOptions } from "./types.js";

/** Options for `NodeExecutionEnv`: its working folder, shell, environment variables and temp folder. */
export interface NodeExecutionEnvOptions {
	/** The working folder. Default `process.cwd()`. */
	readonly cwd?: string;
	/** The shell run as `<shell> -c <command>`. Default: `bash` from PATH, else `/bin/sh`. */
	readonly shell?: string;
	/** The environment commands start from. Default `process.env` (read at each exec). */
	readonly env?: Readonly<Record<string, string | undefined>>;
	/** Folder for `createTempFile` / `createTempDir`. Default `os.tmpdir()`. */
	readonly tempDir?: string;
	/**
	 * Also flush written files (and their folder) to the disk before `writeFile` returns. Off by
	 * default: atomicity against a crashed process does not need it, and it makes large writes
	 * several times slower. Turn it on to survive power loss as well.
	 */
	readonly durable?: boolean;
	/** Milliseconds between SIGTERM and SIGKILL when killing a process tree. Default 1000. */
	readonly killGraceMs?: number;
}

/** After the shell exits, how long output may stay silent before we stop waiting for it to close. */
const DRAIN_IDLE_MS = 250;
/** After the shell exits, the longest we keep reading output that background processes still write. */
const DRAIN_MAX_MS = 2000;
/** How often to look whether a killed process group has gone. */
const GROUP_POLL_MS = 20;
/** How long after SIGKILL we wait for the group to disappear before giving up on it. */
const KILL_WAIT_MS = 2000;

const OS_CODES: Record<string, FileErrorCode> = {
	ENOENT: "not_found",
	EISDIR: "is_directory",
	ENOTDIR: "not_directory",
	EACCES: "permission_denied",
	EPERM: "permission_denied",
	EROFS: "permission_denied",
	ELOOP: "symlink_loop",
	EEXIST: "already_exists",
	ENOTEMPTY: "not_empty",
	EINVAL: "invalid_argument",
	ENAMETOOLONG: "invalid_path",
	ABORT_ERR: "aborted",
};

function osCodeOf(error: unknown): string | undefined {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" ? code : undefined;
}

/** A Node fs error as a FileError naming `path`. */
function mapFsError(error: unknown, path: string, override?: Partial<Record<string, FileErrorCode>>): FileError {
	const osCode = osCodeOf(error);
	if ((error as { name?: unknown } | null)?.name === "AbortError") return fileError("aborted", path);
	const code = (osCode && (override?.[osCode] ?? OS_CODES[osCode])) || "io_error";
	const detail =
		code === "io_error" ? `${osCode ?? "error"}: ${(error as Error)?.message ?? String(error)}` : undefined;
	return fileError(code, path, detail, osCode);
}

function kindOf(stats: { isDirectory(): boolean; isSymbolicLink(): boolean }): FileKind {
	if (stats.isDirectory()) return "directory";
	if (stats.isSymbolicLink()) return "symlink";
	return "file";
}

function byName(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}

const MAX_SYMLINK_HOPS = 40;
/** Beyond this, a range read of a non-regular file (unknown size) grows its buffer as it reads. */
const UNKNOWN_SIZE_CHUNK = 1 << 20;

/**
 * An ExecutionEnv over the real file system and real processes. Every method settles with a
 * `Result`; none throws or rejects.
 */
export class NodeExecutionEnv implements ExecutionEnv {
	readonly kind = "node";
	readonly cwd: string;
	readonly tempDir: string;
	private readonly shell: string | undefined;
	private readonly baseEnv: Readonly<Record<string, string | undefined>> | undefined;
	private readonly durable: boolean;
	private readonly killGraceMs: number;

	constructor(options: NodeExecutionEnvOptions = {}) {
		this.cwd = resolveNative(options.cwd ?? process.cwd());
		this.tempDir = resolveNative(this.cwd, options.tempDir ?? tmpdir());
		this.shell = options.shell;
		this.baseEnv = options.env;
		this.durable = options.durable === true;
		this.killGraceMs = Math.max(0, options.killGraceMs ?? 1000);
	}

	// ---------------------------------------------------------------- FileSystem

	absolutePath(path: string): Result<string, FileError> {
		const problem = pathProblem(path);
		if (problem) return err(fileError("invalid_path", String(path), problem));
		return ok(resolvePath(this.cwd, path));
	}

	async canonicalPath(path: string): Promise<Result<string, FileError>> {
		const abs = this.absolutePath(path);
		if (!abs.ok) return abs;
		try {
			return ok(await fs.realpath(abs.value));
		} catch (error) {
			return err(mapFsError(error, abs.value));
		}
	}

	async exists(path: string): Promise<boolean> {
		const abs = this.absolutePath(path);
		if (!abs.ok) return false;
		try {
			await fs.stat(abs.value);
			return true;
		} catch {
			return false;
		}
	}

	async fileInfo(
		path: string,
		options: { readonly followSymlinks?: boolean } = {},
	): Promise<Result<FileInfo, FileError>> {
		const abs = this.absolutePath(path);
		if (!abs.ok) return abs;
		try {
			const stats = options.followSymlinks === false ? await fs.lstat(abs.value) : await fs.stat(abs.value);
			return ok({ kind: kindOf(stats), size: stats.size, mtimeMs: stats.mtimeMs, mode: stats.mode & 0o7777 });
		} catch (error) {
			return err(mapFsError(error, abs.value));
		}
	}

	async listDir(path: string): Promise<Result<DirEntry[], FileError>> {
		const abs = this.absolutePath(path);
		if (!abs.ok) return abs;
		try {
			const entries = await fs.readdir(abs.value, { withFileTypes: true });
			entries.sort((a, b) => byName(a.name, b.name));
			return ok(entries.map((entry) => ({ name: entry.name, kind: kindOf(entry) })));
		} catch (error) {
			return err(mapFsError(error, abs.value));
		}
	}

	async readTextFile(path: string, options: SignalOptions = {}): Promise<Result<string, FileError>> {
		const bytes = await this.readBinaryFile(path, options);
		if (!bytes.ok) return bytes;
		try {
			return ok(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes.value));
		} catch (error) {
			// Past the engine's longest string: the caller should page through it with readRange.
			return err(fileError("io_error", String(path), `too large to decode as one string: ${errorMessage(error)}`));
		}
	}

	async readBinaryFile(path: string, options: SignalOptions = {}): Promise<Result<Uint8Array, FileError>> {
		const abs = this.absolutePath(path);
		if (!abs.ok) return abs;
		if (options.signal?.aborted) return err(fileError("aborted", abs.value));
		try {
			const buffer = await fs.readFile(abs.value, options.signal ? { signal: options.signal } : {});
			return ok(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength));
		} catch (error) {
			return err(mapFsError(error, abs.value));
		}
	}

	async readRange(
		path: string,
		offset: number,
		length: number,
		options: SignalOptions = {},
	): Promise<Result<Uint8Array, FileError>> {
		const abs = this.absolutePath(path);
		if (!abs.ok) return abs;
		const problem = rangeProblem(offset, length);
		if (problem) return err(fileError("invalid_argument", abs.value, problem));
		if (options.signal?.aborted) return err(fileError("aborted", abs.value));
		let handle: fs.FileHandle | undefined;
		try {
			handle = await fs.open(abs.value, "r");
			const stats = await handle.stat();
			if (stats.isDirectory()) return err(fileError("is_directory", abs.value));
			// Only the range is ever allocated and read, whatever the file's size.
			const knownSize = stats.isFile() && stats.size > 0;
			let buffer = new Uint8Array(
				knownSize ? Math.min(length, Math.max(0, stats.size - offset)) : Math.min(length, UNKNOWN_SIZE_CHUNK),
			);
			let filled = 0;
			while (filled < length) {
				if (filled === buffer.byteLength) {
					if (knownSize) break;
					const grown = new Uint8Array(Math.min(length, buffer.byteLength * 2));
					grown.set(buffer);
					buffer = grown;
				}
				if (options.signal?.aborted) return err(fileError("aborted", abs.value));
				const { bytesRead } = await handle.read(buffer, filled, buffer.byteLength - filled, offset + filled);
				if (bytesRead === 0) break;
				filled += bytesRead;
			}
			return ok(filled === buffer.byteLength ? buffer : buffer.slice(0, filled));
		} catch (error) {
			return err(mapFsError(error, abs.value));
		} finally {
			await handle?.close().catch(() => undefined);
		}
	}

	async writeFile(
		path: string,
		data: string | Uint8Array,
		options: SignalOptions = {},
	): Promise<Result<void, FileError>> {
		const abs = this.absolutePath(path);
		if (!abs.ok) return abs;
		if (!(typeof data === "string" || data instanceof Uint8Array)) {
			return err(fileError("invalid_argument", abs.value, "data must be a string or a Uint8Array"));
		}
		if (options.signal?.aborted) return err(fileError("aborted", abs.value));
		const target = await this.writeTarget(abs.value);
		if (!target.ok) return target;
		let mode: number | undefined;
		try {
			const stats = await fs.stat(target.value);
			if (stats.isDirectory()) return err(fileError("is_directory", abs.value));
			mode = stats.mode & 0o7777;
			// The rename below would replace even a read-only file; honor its bits like a plain write.
			await fs.access(target.value, fsConstants.W_OK);
		} catch (error) {
			if (osCodeOf(error) !== "ENOENT") return err(mapFsError(error, abs.value));
			const made = await this.makeParents(target.value, abs.value);
			if (!made.ok) return made;
		}
		// Same folder as the target, so the rename never crosses a file system. Short enough that a
		// long file name cannot push it past the 255-byte name limit.
		const temp = `${dirname(target.value)}/.${basename(target.value).slice(0, 60)}.${randomBytes(6).toString("hex")}.tmp`;
		let handle: fs.FileHandle | undefined;
		try {
			handle = await fs.open(temp, "wx", mode ?? 0o666);
			await handle.writeFile(data);
			// open() applied the umask; chmod does not, so the file keeps exactly its old bits.
			if (mode !== undefined) await handle.chmod(mode);
			if (this.durable) await handle.sync();
			await handle.close();
			handle = undefined;
			if (options.signal?.aborted) throw Object.assign(new Error("aborted"), { name: "AbortError" });
			await fs.rename(temp, target.value);
		} catch (error) {
			await handle?.close().catch(() => undefined);
			await fs.rm(temp, { force: true }).catch(() => undefined);
			return err(mapFsError(error, abs.value));
		}
		if (this.durable) await syncFolder(dirname(target.value));
		return ok(undefined);
	}

	async appendFile(path: string, data: string | Uint8Array): Promise<Result<void, FileError>> {
		const abs = this.absolutePath(path);
		if (!abs.ok) return abs;
		if (!(typeof data === "string" || data instanceof Uint8Array)) {
			return err(fileError("invalid_argument", abs.value, "data must be a string or a Uint8Array"));
		}
		try {
			await fs.appendFile(abs.value, data);
			return ok(undefined);
		} catch (error) {
			if (osCodeOf(error) !== "ENOENT") return err(mapFsError(error, abs.value));
		}
		const made = await this.makeParents(abs.value, abs.value);
		if (!made.ok) return made;
		try {
			await fs.appendFile(abs.value, data);
			return ok(undefined);
		} catch (error) {
			return err(mapFsError(error, abs.value));
		}
	}

	async rename(from: string, to: string): Promise<Result<void, FileError>> {
		const source = this.absolutePath(from);
		if (!source.ok) return source;
		const dest = this.absolutePath(to);
		if (!dest.ok) return dest;
		try {
			await fs.rename(source.value, dest.value);
			return ok(undefined);
		} catch (error) {
			const code = osCodeOf(error);
			// Errors about the destination name the destination; the rest name the source.
			const aboutDest = code === "EISDIR" || code === "ENOTEMPTY" || code === "EEXIST" || code === "EINVAL";
			if (code === "ENOENT") {
				const exists = await this.fileInfo(source.value, { followSymlinks: false });
				return err(mapFsError(error, exists.ok ? dest.value : source.value));
			}
			return err(mapFsError(error, aboutDest ? dest.value : source.value, { EEXIST: "not_empty" }));
		}
	}

	async remove(path: string, options: { readonly recursive?: boolean } = {}): Promise<Result<void, FileError>> {
		const abs = this.absolutePath(path);
		if (!abs.ok) return abs;
		if (abs.value === "/") return err(fileError("permission_denied", "/", "refusing to remove the root folder"));
		try {
			const stats = await fs.lstat(abs.value);
			if (!stats.isDirectory()) await fs.unlink(abs.value);
			else if (options.recursive === true) await fs.rm(abs.value, { recursive: true });
			else await fs.rmdir(abs.value);
			return ok(undefined);
		} catch (error) {
			return err(mapFsError(error, abs.value, { EEXIST: "not_empty" }));
		}
	}

	async createDir(path: string, options: { readonly recursive?: boolean } = {}): Promise<Result<void, FileError>> {
		const abs = this.absolutePath(path);
		if (!abs.ok) return abs;
		try {
			await fs.mkdir(abs.value, { recursive: options.recursive !== false });
			return ok(undefined);
		} catch (error) {
			if (osCodeOf(error) === "EEXIST") {
				const info = await this.fileInfo(abs.value);
				if (info.ok && info.value.kind === "directory") return ok(undefined);
			}
			return err(mapFsError(error, abs.value));
		}
	}

	async createTempFile(
		options: { readonly prefix?: string; readonly suffix?: string } = {},
	): Promise<Result<string, FileError>> {
		const problem = affixProblem(options.prefix, "prefix") ?? affixProblem(options.suffix, "suffix");
		if (problem) return err(fileError("invalid_argument", this.tempDir, problem));
		const made = await this.createDir(this.tempDir);
		if (!made.ok) return made;
		for (let attempt = 0; ; attempt++) {
			const path = `${this.tempDir}/${options.prefix ?? "toolsmith-"}${randomBytes(8).toString("hex")}${options.suffix ?? ""}`;
			try {
				const handle = await fs.open(path, "wx", 0o600);
				await handle.close();
				return ok(path);
			} catch (error) {
				if (osCodeOf(error) !== "EEXIST" || attempt >= 10) return err(mapFsError(error, path));
			}
		}
	}

	async createTempDir(options: { readonly prefix?: string } = {}): Promise<Result<string, FileError>> {
		const problem = affixProblem(options.prefix, "prefix");
		if (problem) return err(fileError("invalid_argument", this.tempDir, problem));
		const made = await this.createDir(this.tempDir);
		if (!made.ok) return made;
		try {
			return ok(await fs.mkdtemp(`${this.tempDir}/${options.prefix ?? "toolsmith-"}`));
		} catch (error) {
			return err(mapFsError(error, this.tempDir));
		}
	}

	// ---------------------------------------------------------------- Shell

	async exec(command: string, options: ExecOptions = {}): Promise<Result<ExecResult, ExecutionError>> {
		try {
			return await this.runCommand(command, options ?? {});
		} catch (error) {
			// Only reachable through a bug or a hostile options object; the contract is to never reject.
			return err(execError("spawn_error", String(command), `Could not run the command (${errorMessage(error)})`));
		}
	}

	private async runCommand(command: string, options: ExecOptions): Promise<Result<ExecResult, ExecutionError>> {
		const startedAt = performance.now();
		const problem = commandProblem(command) ?? timeoutProblem(options.timeout);
		if (problem) return err(execError("invalid_argument", String(command), problem));
		if (options.signal?.aborted) return err(execError("aborted", command, "Command aborted before it started"));
		let cwd = this.cwd;
		if (options.cwd !== undefined) {
			const cwdProblem = pathProblem(options.cwd);
			if (cwdProblem) {
				return err(
					execError(
						"invalid_argument",
						command,
						`Invalid working folder ${JSON.stringify(options.cwd)} (${cwdProblem})`,
					),
				);
			}
			cwd = resolvePath(this.cwd, options.cwd);
		}
		const cwdInfo = await this.fileInfo(cwd);
		if (!cwdInfo.ok || cwdInfo.value.kind !== "directory") {
			return err(execError("spawn_error", command, `Working folder ${cwd} does not exist or is not a folder`));
		}
		const variables: Record<string, string> = {};
		for (const [name, value] of Object.entries({ ...(this.baseEnv ?? process.env), ...options.env })) {
			if (value !== undefined) variables[name] = value;
		}
		const shell = this.shell ?? (await defaultShell());
		let child: ChildProcess;
		try {
			child = spawn(shell, ["-c", command], {
				cwd,
				env: variables,
				// Its own process group, so the whole tree can be signalled at once.
				detached: true,
				stdio: ["ignore", "pipe", "pipe"],
				windowsHide: true,
			});
		} catch (error) {
			const code = osCodeOf(error)?.startsWith("ERR_INVALID_ARG") ? "invalid_argument" : "spawn_error";
			return err(execError(code, command, `Could not start ${shell}: ${(error as Error)?.message ?? String(error)}`));
		}
		const outcome = await this.supervise(child, options);
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
		return ok({ ...outcome.value, durationMs });
	}

	// ---------------------------------------------------------------- internals

	/**
	 * Where a write to `absolute` must land: the final target of a symlink chain (even a dangling
	 * one, so writing through it creates the target), or `absolute` itself.
	 */
	private async writeTarget(absolute: string): Promise<Result<string, FileError>> {
		try {
			return ok(await fs.realpath(absolute));
		} catch (error) {
			if (osCodeOf(error) !== "ENOENT") return err(mapFsError(error, absolute));
		}
		let current = absolute;
		for (let hops = 0; hops <= MAX_SYMLINK_HOPS; hops++) {
			try {
				const stats = await fs.lstat(current);
				if (!stats.isSymbolicLink()) return ok(current);
				current = resolvePath(dirname(current), await fs.readlink(current));
			} catch {
				// Nothing there (or a missing folder on the way, which creating parents reports).
				return ok(current);
			}
		}
		return err(fileError("symlink_loop", absolute));
	}

	/** `mkdir -p` of the folder holding `file`, with errors naming `shown`. */
	private async makeParents(file: string, shown: string): Promise<Result<void, FileError>> {
		try {
			await fs.mkdir(dirname(file), { recursive: true });
			return ok(undefined);
		} catch (error) {
			// A file where a folder must be surfaces as EEXIST (the last part) or ENOTDIR (earlier).
			return err(mapFsError(error, shown, { EEXIST: "not_directory" }));
		}
	}

	/** Stream, capture, time out, abort, and settle only once the process (tree) is gone. */
	private supervise(
		child: ChildProcess,
		options: ExecOptions,
	): Promise<
		| { ok: true; value: Omit<ExecResult, "durationMs"> }
		| { ok: false; error: { code: ExecutionErrorCode; detail: string } }
	> {
		const capture = options.captureOutput ?? (options.onStdout === undefined && options.onStderr === undefined);
		const decoders = {
			stdout: new TextDecoder("utf-8", { ignoreBOM: true }),
			stderr: new TextDecoder("utf-8", { ignoreBOM: true }),
		};
		const captured = { stdout: "", stderr: "" };
		let lastOutputAt = Date.now();
		/** Streams paused until their listener's promise settles (backpressure, see ExecOptions). */
		let paused = 0;
		/** Set once the tree is being killed or waiting has stopped: output must flow again. */
		let unpausable = false;
		/** Called when no stream is held anymore (the close handler waits for it). */
		let onUnpaused: (() => void) | undefined;
		const releasers: (() => void)[] = [];
		const listen = (stream: "stdout" | "stderr") => {
			const listener = stream === "stdout" ? options.onStdout : options.onStderr;
			const source = child[stream];
			if (!source) return;
			/** The pending promise holding this stream back, if any. */
			let holder: object | undefined;
			/**
			 * Chunks that arrived while held. Pausing stops the flow, but Node resumes a child's
			 * streams itself once the child exits; such chunks wait here, in order, and the stream
			 * is paused again at once, so this holds at most a chunk per unwanted resume.
			 */
			const waiting: Uint8Array[] = [];
			const deliver = (chunk: Uint8Array) => {
				let returned: unknown;
				try {
					returned = listener?.(chunk);
					if (!isThenable(returned)) return;
				} catch {
					// A listener's failure must not change the command's outcome (see ExecOptions).
					return;
				}
				const token = {};
				// Caught here as well: a rejection is swallowed like a throw, never left unhandled.
				const release = () => {
					if (holder === token) resume();
				};
				Promise.resolve(returned).then(release, release);
				if (unpausable) return;
				holder = token;
				paused++;
				// The pipe fills up while paused and the writer blocks: memory stays bounded.
				source.pause();
			};
			const resume = () => {
				if (holder === undefined) return;
				holder = undefined;
				paused--;
				// Time spent held back is not silence: the drain after exit starts counting anew.
				lastOutputAt = Date.now();
				while (holder === undefined && waiting.length > 0) deliver(waiting.shift() as Uint8Array);
				if (holder !== undefined) return;
				if (!source.destroyed) source.resume();
				if (paused === 0) onUnpaused?.();
			};
			releasers.push(resume);
			source.on("data", (buffer: Buffer) => {
				lastOutputAt = Date.now();
				const chunk = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
				if (capture) captured[stream] += decoders[stream].decode(chunk, { stream: true });
				if (holder === undefined) return deliver(chunk);
				waiting.push(chunk);
				source.pause();
			});
			// A destroyed or broken pipe must not become an unhandled 'error' event.
			source.on("error", () => undefined);
		};
		/** Stop honoring backpressure: deliver what waits and let every stream flow. */
		const releaseAll = () => {
			unpausable = true;
			for (const release of releasers) release();
		};
		listen("stdout");
		listen("stderr");

		return new Promise((resolve) => {
			const pid = child.pid;
			let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
			let killedFor: "timeout" | "aborted" | undefined;
			let closed = false;
			let settled = false;
			const timers: ReturnType<typeof setTimeout>[] = [];
			const later = (ms: number, fn: () => void) => timers.push(setTimeout(fn, ms));

			const cleanup = () => {
				for (const timer of timers) clearTimeout(timer);
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
				for (const stream of ["stdout", "stderr"] as const) {
					if (capture) captured[stream] += decoders[stream].decode();
				}
				const signo = exit?.signal ? (osConstants.signals[exit.signal] ?? 0) : 0;
				const exitCode = exit?.code ?? 128 + signo;
				resolve({ ok: true, value: { exitCode, stdout: captured.stdout, stderr: captured.stderr } });
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
				if (exit && !killedFor) releaseAll();
				if (settled || killedFor || exit) return;
				killedFor = reason;
				// A paused pipe never reaches its end, so 'close' would wait for the kill deadline.
				releaseAll();
				if (pid !== undefined) signalGroup(pid, "SIGTERM");
				later(this.killGraceMs, () => {
					if (pid !== undefined && !settled) signalGroup(pid, "SIGKILL");
				});
				settleWhenGone(Date.now() + this.killGraceMs + KILL_WAIT_MS);
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
				if (paused > 0) {
					// The caller holds output back: waiting for it is neither silence nor drain time.
					later(DRAIN_IDLE_MS, () => drain(exitedAt + (Date.now() - now)));
					return;
				}
				const quietFor = now - lastOutputAt;
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
				lastOutputAt = Math.max(lastOutputAt, exitedAt);
				later(DRAIN_IDLE_MS, () => drain(exitedAt));
			});
			child.once("close", () => {
				closed = true;
				// A shell that never started reports through 'error' instead.
				if (killedFor || pid === undefined) return;
				// A stream can end while its last chunks still wait for a listener's promise.
				if (paused > 0) onUnpaused = finish;
				else finish();
			});
			if (options.timeout !== undefined) later(options.timeout * 1000, () => kill("timeout"));
			options.signal?.addEventListener("abort", onAbort, { once: true });
			if (options.signal?.aborted) onAbort();
		});
	}
}

/** fsync a folder so a rename inside it survives power loss; best effort (not every OS allows it). */
async function syncFolder(folder: string): Promise<void> {
	let handle: fs.FileHandle | undefined;
	try {
		handle = await fs.open(folder, "r");
		await handle.sync();
	} catch {
		// Durability is a bonus here; the write itself already succeeded.
	} finally {
		await handle?.close().catch(() => undefined);
	}
}
