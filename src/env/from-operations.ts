/**
 * An `ExecutionEnv` built from pi-style tool operations: `readFile`, `access`, `writeFile`,
 * `mkdir` and `exec` callbacks that decide where files are read and written and where commands
 * run (a remote host over ssh, an OS sandbox, a container). A host hands it to toolsmith's tools
 * to give them that world; the pi compatibility layer builds one from the `operations` a pi
 * extension passes to `createReadTool`, `createWriteTool`, `createEditTool` or `createBashTool`.
 *
 * Runtime-neutral: no `node:` imports. Like every env it never throws: a callback that throws or
 * rejects becomes a `FileError` / `ExecutionError` naming the path or command.
 */
import { describeValue, errorMessage } from "../contract/errors.js";
import { type ExecutionError, err, type FileError, ok, type Result } from "../contract/result.js";
import {
	commandProblem,
	execError,
	fileError,
	isThenable,
	osCodeOf,
	pathProblem,
	quoted,
	timeoutProblem,
} from "./_errors.js";
import { dirname, normalizePath, resolvePath } from "./_path.js";
import { setMutationScope } from "./mutation-queue.js";
import type { DirEntry, ExecOptions, ExecResult, ExecutionEnv, FileInfo, SignalOptions } from "./types.js";

/**
 * The callbacks an operations env is built from: the union of the reference agent's
 * `ReadOperations`, `WriteOperations`, `EditOperations` and `BashOperations`. Every one is
 * optional; an env method whose callback is missing goes to `fallback`, or fails.
 * Paths handed to the callbacks are absolute and normalized.
 */
export interface EnvOperations {
	/** The whole file (a Node `Buffer` is a `Uint8Array`). Throw (with a `code` such as `ENOENT`) when it cannot be read. */
	readonly readFile?: (absolutePath: string) => Promise<Uint8Array | string>;
	/** Resolve when the path exists and may be read; throw otherwise. */
	readonly access?: (absolutePath: string) => Promise<void>;
	/** Replace the file's content with `content` (text). */
	readonly writeFile?: (absolutePath: string, content: string) => Promise<void>;
	/** Create a folder and its missing parents. */
	readonly mkdir?: (absolutePath: string) => Promise<void>;
	/**
	 * Run `command` in `cwd`, passing output (stdout and stderr alike) to `onData`. Resolves with
	 * the exit code (`null` when killed); rejects with `Error("aborted")` after the signal fired and
	 * `Error("timeout:<seconds>")` after `timeout` seconds, as the reference's operations do.
	 */
	readonly exec?: (
		command: string,
		cwd: string,
		options: {
			readonly onData: (data: Uint8Array) => void;
			readonly signal?: AbortSignal;
			readonly timeout?: number;
			readonly env?: Readonly<Record<string, string | undefined>>;
		},
	) => Promise<{ readonly exitCode: number | null }>;
	/** Optional, ignored by the env (the read tool recognizes images by their bytes). */
	readonly detectImageMimeType?: (absolutePath: string) => Promise<string | null | undefined>;
}

/** Options for `createOperationsEnv`: the working folder, a fallback env, and the `kind` reported. */
export interface OperationsEnvOptions {
	/** Absolute folder relative paths resolve against (and `exec` runs in by default). */
	readonly cwd: string;
	/**
	 * Env for the methods the operations do not cover (listing folders, temp files, renames, and
	 * any of read/write/exec whose callback is missing). Without one those methods fail with an
	 * error naming the missing operation: nothing silently runs anywhere else.
	 */
	readonly fallback?: ExecutionEnv;
	/** `kind` of the env, for messages. Default `"operations"`. */
	readonly kind?: string;
}

const encoder = new TextEncoder();

function toBytes(data: Uint8Array | string): Uint8Array {
	return typeof data === "string" ? encoder.encode(data) : data;
}

/** A `FileError` for a callback that threw, classified by its OS-style `code` when it has one. */
function fromThrown(path: string, error: unknown): FileError {
	const code = osCodeOf(error);
	const kind =
		code === "ENOENT"
			? "not_found"
			: code === "EISDIR"
				? "is_directory"
				: code === "ENOTDIR"
					? "not_directory"
					: code === "EACCES" || code === "EPERM"
						? "permission_denied"
						: "io_error";
	return fileError(kind, path, errorMessage(error), code);
}

function aborted(path: string, options: SignalOptions | undefined): FileError | undefined {
	return options?.signal?.aborted ? fileError("aborted", path) : undefined;
}

/**
 * An `ExecutionEnv` whose files and commands go through `operations` (see `EnvOperations`):
 *
 * - `readTextFile`, `readBinaryFile`, `readRange`, `fileInfo` read the whole file with `readFile`
 *   (`fileInfo` reports a file of that size, `mtimeMs` 0; folders cannot be told apart unless
 *   `readFile` throws `EISDIR`). `exists` and `canonicalPath` use `access` (symlinks are not
 *   resolved).
 * - `writeFile` calls `mkdir` for the parent folder (when given), then `writeFile` with the text;
 *   bytes that are not valid UTF-8 are refused rather than changed. Writes are as atomic as the
 *   callback makes them.
 * - `exec` calls `exec(command, cwd, { onData, signal, timeout, env })`; an exit code `null` is
 *   reported as 137 (killed). All output arrives through `onStdout` (the operations do not
 *   separate stderr).
 * - Everything else (`listDir`, `appendFile`, `rename`, `remove`, `createDir` without `mkdir`,
 *   temp files) goes to `fallback`, or fails with an `io_error` naming the missing operation.
 *
 * Mutation queue: envs built from the same `operations` object share one (keyed by absolute path,
 * as `access` reports it), so concurrent edits through several of them lose nothing; envs built
 * from different operations objects do not queue with each other or with the real disk.
 */
export function createOperationsEnv(operations: EnvOperations, options: OperationsEnvOptions): ExecutionEnv {
	const cwd = normalizePath(options.cwd);
	if (!cwd.startsWith("/")) {
		throw new Error(`createOperationsEnv: cwd must be an absolute path, got ${quoted(options.cwd)}`);
	}
	const fallback = options.fallback;
	const missing = (path: string, what: string, method: string): FileError =>
		fileError("io_error", path, `these operations have no ${what}, and no fallback env was given for ${method}`);
	const absolute = (path: string): Result<string, FileError> => {
		const problem = pathProblem(path);
		if (problem) return err(fileError("invalid_path", describeValue(path), problem));
		return ok(resolvePath(cwd, path));
	};
	const readAll = async (path: string, opts?: SignalOptions): Promise<Result<Uint8Array, FileError>> => {
		const abs = absolute(path);
		if (!abs.ok) return abs;
		const stop = aborted(abs.value, opts);
		if (stop) return err(stop);
		if (!operations.readFile) return err(missing(abs.value, "readFile", "reading"));
		try {
			const bytes = toBytes(await operations.readFile(abs.value));
			const late = aborted(abs.value, opts);
			return late ? err(late) : ok(bytes);
		} catch (error) {
			return err(fromThrown(abs.value, error));
		}
	};

	const env: ExecutionEnv = {
		kind: options.kind ?? "operations",
		cwd,
		absolutePath: absolute,
		async canonicalPath(path) {
			const abs = absolute(path);
			if (!abs.ok) return abs;
			if (!operations.access) {
				return fallback ? fallback.canonicalPath(abs.value) : err(missing(abs.value, "access", "canonicalPath"));
			}
			try {
				await operations.access(abs.value);
				return ok(abs.value);
			} catch (error) {
				return err(fromThrown(abs.value, error));
			}
		},
		async exists(path) {
			const abs = absolute(path);
			if (!abs.ok) return false;
			if (!operations.access) return fallback ? fallback.exists(abs.value) : false;
			try {
				await operations.access(abs.value);
				return true;
			} catch {
				return false;
			}
		},
		async fileInfo(path, infoOptions): Promise<Result<FileInfo, FileError>> {
			if (!operations.readFile && fallback) return fallback.fileInfo(path, infoOptions);
			const read = await readAll(path);
			if (!read.ok) return read;
			return ok({ kind: "file", size: read.value.length, mtimeMs: 0 });
		},
		async listDir(path): Promise<Result<DirEntry[], FileError>> {
			if (fallback) return fallback.listDir(path);
			const abs = absolute(path);
			return err(missing(abs.ok ? abs.value : describeValue(path), "folder listing", "listDir"));
		},
		async readTextFile(path, opts) {
			if (!operations.readFile && fallback) return fallback.readTextFile(path, opts);
			const read = await readAll(path, opts);
			if (!read.ok) return read;
			return ok(new TextDecoder("utf-8", { ignoreBOM: true }).decode(read.value));
		},
		async readBinaryFile(path, opts) {
			if (!operations.readFile && fallback) return fallback.readBinaryFile(path, opts);
			return readAll(path, opts);
		},
		async readRange(path, offset, length, opts) {
			if (!operations.readFile && fallback) return fallback.readRange(path, offset, length, opts);
			if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0) {
				return err(
					fileError("invalid_argument", describeValue(path), "offset and length must be non-negative integers"),
				);
			}
			const read = await readAll(path, opts);
			if (!read.ok) return read;
			return ok(read.value.subarray(offset, offset + length));
		},
		async writeFile(path, data, opts) {
			if (!operations.writeFile && fallback) return fallback.writeFile(path, data, opts);
			const abs = absolute(path);
			if (!abs.ok) return abs;
			const stop = aborted(abs.value, opts);
			if (stop) return err(stop);
			if (!operations.writeFile) return err(missing(abs.value, "writeFile", "writing"));
			let text: string;
			try {
				text = typeof data === "string" ? data : new TextDecoder("utf-8", { fatal: true }).decode(data);
			} catch {
				return err(
					fileError(
						"invalid_argument",
						abs.value,
						"the operations write text, and these bytes are not valid UTF-8; nothing was written",
					),
				);
			}
			try {
				if (operations.mkdir) await operations.mkdir(dirname(abs.value));
				await operations.writeFile(abs.value, text);
				return ok(undefined);
			} catch (error) {
				return err(fromThrown(abs.value, error));
			}
		},
		async appendFile(path, data) {
			if (fallback) return fallback.appendFile(path, data);
			const abs = absolute(path);
			return err(missing(abs.ok ? abs.value : describeValue(path), "append", "appendFile"));
		},
		async rename(from, to) {
			if (fallback) return fallback.rename(from, to);
			return err(missing(describeValue(from), "rename", "rename"));
		},
		async remove(path, removeOptions) {
			if (fallback) return fallback.remove(path, removeOptions);
			return err(missing(describeValue(path), "remove", "remove"));
		},
		async createDir(path, dirOptions) {
			if (!operations.mkdir) {
				if (fallback) return fallback.createDir(path, dirOptions);
				return err(missing(describeValue(path), "mkdir", "createDir"));
			}
			const abs = absolute(path);
			if (!abs.ok) return abs;
			try {
				await operations.mkdir(abs.value);
				return ok(undefined);
			} catch (error) {
				return err(fromThrown(abs.value, error));
			}
		},
		async createTempFile(tempOptions) {
			if (fallback) return fallback.createTempFile(tempOptions);
			return err(missing("(temp file)", "temp files", "createTempFile"));
		},
		async createTempDir(tempOptions) {
			if (fallback) return fallback.createTempDir(tempOptions);
			return err(missing("(temp folder)", "temp folders", "createTempDir"));
		},
		async exec(command, execOptions: ExecOptions = {}): Promise<Result<ExecResult, ExecutionError>> {
			if (!operations.exec) {
				if (fallback) return fallback.exec(command, execOptions);
				return err(execError("spawn_error", describeValue(command), "these operations have no exec; cannot run"));
			}
			const problem = commandProblem(command) ?? timeoutProblem(execOptions.timeout);
			if (problem) return err(execError("invalid_argument", describeValue(command), problem));
			const signal = execOptions.signal;
			if (signal?.aborted) return err(execError("aborted", command, "aborted before it started"));
			const started = Date.now();
			const capture = execOptions.captureOutput ?? (!execOptions.onStdout && !execOptions.onStderr);
			// A streaming decoder: a chunk may end inside a multi-byte character.
			const decoder = new TextDecoder();
			let stdout = "";
			const onData = (data: Uint8Array) => {
				if (capture) stdout += decoder.decode(data, { stream: true });
				try {
					const pending = execOptions.onStdout?.(data);
					if (isThenable(pending)) Promise.resolve(pending).catch(() => {});
				} catch {
					// a throwing listener never stops the command
				}
			};
			const where = execOptions.cwd ? resolvePath(cwd, execOptions.cwd) : cwd;
			try {
				const { exitCode } = await operations.exec(command, where, {
					onData,
					...(signal ? { signal } : {}),
					...(execOptions.timeout !== undefined ? { timeout: execOptions.timeout } : {}),
					...(execOptions.env ? { env: execOptions.env } : {}),
				});
				if (signal?.aborted) return err(execError("aborted", command, "aborted"));
				if (capture) stdout += decoder.decode();
				return ok({ exitCode: exitCode ?? 137, stdout, stderr: "", durationMs: Date.now() - started });
			} catch (error) {
				const message = errorMessage(error);
				if (signal?.aborted || message === "aborted") return err(execError("aborted", command, "aborted"));
				if (message.startsWith("timeout:")) {
					return err(execError("timeout", command, `timed out after ${execOptions.timeout} seconds`));
				}
				return err(execError("spawn_error", command, `the operations' exec failed (${message})`));
			}
		},
	};
	// Its paths are the callbacks' own (a remote host, a sandbox), so the process-wide queue of the
	// real disk cannot apply; envs built from the same operations object queue together instead.
	setMutationScope(env, operations);
	return env;
}
