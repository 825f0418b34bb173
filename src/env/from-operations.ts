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

import type { DirEntry, ExecOptions, ExecResult, ExecutionEnv, FileInfo, SignalOptions } from "../contract/env.js";
import { describeValue, errorMessage } from "../contract/errors.js";
import { type ExecutionError, err, type FileError, ok, type Result } from "../contract/result.js";
import { comparePaths } from "./_walk.js";
import {
	commandProblem,
	execError,
	fileError,
	isThenable,
	osCodeOf,
	pathProblem,
	quoted,
	timeoutProblem,
} from "./errors.js";
import { setMutationScope } from "./mutation-queue.js";
import { dirname, isAbsolutePath, joinPath, normalizePath, relativePath, resolvePath } from "./path.js";

/**
 * The callbacks an operations env is built from: the union of the reference agent's
 * `ReadOperations`, `WriteOperations`, `EditOperations`, `BashOperations`, `LsOperations`,
 * `FindOperations` and `GrepOperations`. Every one is optional; an env method whose callback is
 * missing goes to `fallback`, or fails. Paths handed to the callbacks are absolute and normalized.
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
	/** Whether the path exists (`LsOperations`, `FindOperations`). Used by `exists` before `access`. */
	readonly exists?: (absolutePath: string) => Promise<boolean> | boolean;
	/** Whether the path is a folder; throw when it does not exist (`GrepOperations`). */
	readonly isDirectory?: (absolutePath: string) => Promise<boolean> | boolean;
	/** What the path is; throw when it does not exist (`LsOperations`). */
	readonly stat?: (absolutePath: string) => Promise<{ isDirectory(): boolean }> | { isDirectory(): boolean };
	/** The names in a folder (`LsOperations`). The env tells their kinds with `stat` or `isDirectory`. */
	readonly readdir?: (absolutePath: string) => Promise<readonly string[]> | readonly string[];
	/**
	 * The files under `cwd` whose path matches the glob `pattern`, as absolute paths or paths
	 * relative to `cwd`, at most `options.limit` of them, leaving out what matches `options.ignore`
	 * (`FindOperations`). Makes the env's `findFiles`.
	 */
	readonly glob?: (
		pattern: string,
		cwd: string,
		options: { readonly ignore: string[]; readonly limit: number },
	) => Promise<readonly string[]> | readonly string[];
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

/** Folders' kinds asked of `stat` / `isDirectory` at once when listing one. */
const PARALLEL_STATS = 32;

/** What `findFiles` asks the operations' `glob` to leave out, as the reference's find does. */
const GLOB_IGNORE: readonly string[] = ["**/node_modules/**", "**/.git/**"];

/** `path` (absolute, or relative to `root`) relative to `root`. */
function relativeTo(root: string, path: string): string {
	if (!isAbsolutePath(path)) return normalizePath(path);
	const inside = root === "/" ? path.slice(1) : path.startsWith(`${root}/`) ? path.slice(root.length + 1) : undefined;
	return inside ?? relativePath(root, normalizePath(path));
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

	// Whether `stat` or `isDirectory` can tell a folder from a file (and a missing path).
	const tellsKinds = operations.stat !== undefined || operations.isDirectory !== undefined;
	const kindOf = async (abs: string): Promise<Result<"directory" | "file", FileError>> => {
		try {
			if (operations.exists && (await operations.exists(abs)) !== true) {
				return err(fileError("not_found", abs, "the operations' exists says it does not exist"));
			}
			if (operations.stat) {
				const stat = await operations.stat(abs);
				return ok(stat.isDirectory() ? "directory" : "file");
			}
			if (operations.isDirectory) return ok((await operations.isDirectory(abs)) ? "directory" : "file");
			return ok("file");
		} catch (error) {
			return err(fromThrown(abs, error));
		}
	};
	/** Ok when the path exists, by `exists`, else `stat` / `isDirectory` (which throw for a missing path). */
	const existing = async (abs: string): Promise<Result<undefined, FileError>> => {
		if (!tellsKinds) {
			try {
				if (operations.exists && (await operations.exists(abs)) === true) return ok(undefined);
			} catch (error) {
				return err(fromThrown(abs, error));
			}
			return err(fileError("not_found", abs, "the operations' exists says it does not exist"));
		}
		const kind = await kindOf(abs);
		return kind.ok ? ok(undefined) : kind;
	};
	const listWithReaddir = async (
		readdir: NonNullable<EnvOperations["readdir"]>,
		path: string,
	): Promise<Result<DirEntry[], FileError>> => {
		const abs = absolute(path);
		if (!abs.ok) return abs;
		let names: unknown;
		try {
			names = await readdir(abs.value);
		} catch (error) {
			return err(fromThrown(abs.value, error));
		}
		if (!Array.isArray(names)) {
			return err(
				fileError(
					"io_error",
					abs.value,
					`the operations' readdir returned ${describeValue(names)}, not a list of names`,
				),
			);
		}
		for (const name of names) {
			if (typeof name !== "string" || name === "" || name === "." || name === ".." || name.includes("/")) {
				return err(
					fileError(
						"io_error",
						abs.value,
						`the operations' readdir returned ${describeValue(name)}, which is not an entry name`,
					),
				);
			}
		}
		const entries: DirEntry[] = [];
		if (!tellsKinds) {
			for (const name of names as string[]) entries.push({ name, kind: "file" });
			return ok(entries);
		}
		// Entries whose kind cannot be told are left out, as the reference's ls skips entries it cannot stat.
		const all = names as string[];
		for (let start = 0; start < all.length; start += PARALLEL_STATS) {
			const chunk = all.slice(start, start + PARALLEL_STATS);
			const kinds = await Promise.all(chunk.map((name) => kindOf(joinPath(abs.value, name))));
			chunk.forEach((name, i) => {
				const kind = kinds[i];
				if (kind?.ok) entries.push({ name, kind: kind.value });
			});
		}
		return ok(entries);
	};

	const env: ExecutionEnv = {
		kind: options.kind ?? "operations",
		cwd,
		absolutePath: absolute,
		async canonicalPath(path) {
			const abs = absolute(path);
			if (!abs.ok) return abs;
			if (!operations.access) {
				if (operations.exists || tellsKinds) {
					const found = await existing(abs.value);
					return found.ok ? ok(abs.value) : found;
				}
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
			if (operations.exists || tellsKinds) return (await existing(abs.value)).ok;
			if (!operations.access) return fallback ? fallback.exists(abs.value) : false;
			try {
				await operations.access(abs.value);
				return true;
			} catch {
				return false;
			}
		},
		async fileInfo(path, infoOptions): Promise<Result<FileInfo, FileError>> {
			if (tellsKinds) {
				const abs = absolute(path);
				if (!abs.ok) return abs;
				const kind = await kindOf(abs.value);
				if (!kind.ok) return kind;
				// A folder has no size here; a file's size is its content's when readFile can tell it.
				if (kind.value === "directory" || !operations.readFile) return ok({ kind: kind.value, size: 0, mtimeMs: 0 });
			} else if (!operations.readFile && fallback) return fallback.fileInfo(path, infoOptions);
			const read = await readAll(path);
			if (!read.ok) return read;
			return ok({ kind: "file", size: read.value.length, mtimeMs: 0 });
		},
		async listDir(path): Promise<Result<DirEntry[], FileError>> {
			if (operations.readdir) return listWithReaddir(operations.readdir, path);
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
	const glob = operations.glob;
	if (glob) {
		env.findFiles = async (request, findOptions) => {
			const abs = absolute(request.path);
			if (!abs.ok) return abs;
			if (!Number.isSafeInteger(request.limit) || request.limit < 1) {
				return err(
					fileError(
						"invalid_argument",
						abs.value,
						`limit must be a positive integer, got ${describeValue(request.limit)}`,
					),
				);
			}
			const found = operations.exists || tellsKinds ? await existing(abs.value) : ok(undefined);
			if (!found.ok) return found;
			const stop = aborted(abs.value, findOptions);
			if (stop) return err(stop);
			let listed: unknown;
			try {
				listed = await glob(request.pattern, abs.value, { ignore: [...GLOB_IGNORE], limit: request.limit });
			} catch (error) {
				return err(fromThrown(abs.value, error));
			}
			const late = aborted(abs.value, findOptions);
			if (late) return err(late);
			if (!Array.isArray(listed) || !listed.every((p) => typeof p === "string")) {
				return err(
					fileError(
						"io_error",
						abs.value,
						`the operations' glob returned ${describeValue(listed)}, not a list of paths`,
					),
				);
			}
			const paths = (listed as string[])
				.map((p) => relativeTo(abs.value, p.replaceAll("\\", "/")))
				.filter((p) => p !== ".")
				.sort(comparePaths);
			// The callback stops at the limit itself, so reaching it is all that can be told (as the reference does).
			return ok({ paths: paths.slice(0, request.limit), limitReached: paths.length >= request.limit });
		};
	}
	// Its paths are the callbacks' own (a remote host, a sandbox), so the process-wide queue of the
	// real disk cannot apply; envs built from the same operations object queue together instead.
	setMutationScope(env, operations);
	return env;
}
