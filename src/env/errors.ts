/**
 * One wording for file errors across both envs, so a tool's error text (and the tests that check
 * it) does not depend on which env it ran on.
 */
import { describeValue, quoted } from "../contract/errors.js";

export { quoted } from "../contract/errors.js";

import type { ExecOptions } from "../contract/env.js";
import {
	ExecutionError,
	type ExecutionErrorCode,
	err,
	FileError,
	type FileErrorCode,
	ok,
	type Result,
} from "../contract/result.js";
import { resolvePath } from "./path.js";

const HINTS: Record<FileErrorCode, string> = {
	not_found: "no such file or folder",
	is_directory: "is a folder, not a file",
	not_directory: "a part of this path is a file, not a folder",
	already_exists: "already exists",
	not_empty: "the folder is not empty (pass recursive: true to remove it with its contents)",
	permission_denied: "permission denied",
	symlink_loop: "too many levels of symbolic links (the links form a loop)",
	invalid_path: "not a valid path",
	invalid_argument: "invalid argument",
	aborted: "the operation was aborted",
	io_error: "input/output error",
};

/** A `FileError` whose message is `<path>: <what went wrong>[ (<detail>)]`. */
export function fileError(code: FileErrorCode, path: string, detail?: string, osCode?: string): FileError {
	const shown = JSON.stringify(path).slice(1, -1);
	const message = detail ? `${shown}: ${HINTS[code]} (${detail})` : `${shown}: ${HINTS[code]}`;
	return new FileError(code, path, message, osCode);
}

/** The kinds of special file an env can report, and how a message names each. */
const SPECIAL_WORDS = {
	fifo: "a FIFO (named pipe)",
	character_device: "a character device",
	block_device: "a block device",
	socket: "a socket",
} as const;

/** A kind of special file: a FIFO, a device or a socket. */
export type SpecialFileKind = keyof typeof SPECIAL_WORDS;

/** How a message names a kind of file that is not regular ("a FIFO (named pipe)", …). */
export function specialFileWords(kind: string | undefined): string {
	return (
		(kind !== undefined && Object.hasOwn(SPECIAL_WORDS, kind) && SPECIAL_WORDS[kind as SpecialFileKind]) ||
		"not a regular file"
	);
}

/**
 * The error for a FIFO, device or socket where a regular file is needed (the same words in both
 * envs): reading one could block forever or never end, so it is refused from its metadata.
 */
export function notRegularFileError(path: string, kind: SpecialFileKind | undefined): FileError {
	const what = specialFileWords(kind);
	return fileError(
		"invalid_argument",
		path,
		`it is ${what}, not a regular file; only regular files can be read, edited or written (a stream like this may never end)`,
	);
}

/** Why `path` cannot name a file, or `undefined` when it can. */
export function pathProblem(path: unknown): string | undefined {
	if (typeof path !== "string") return `expected a string, got ${path === null ? "null" : typeof path}`;
	if (path === "") return "the path is empty";
	if (path.includes("\0")) return "the path contains a NUL byte";
	return undefined;
}

/** An `ExecutionError` whose message names the command (shortened when long). */
export function execError(code: ExecutionErrorCode, command: string, what: string): ExecutionError {
	const shown = command.length > 200 ? `${command.slice(0, 200)}…` : command;
	return new ExecutionError(code, command, `${what}: ${JSON.stringify(shown)}`);
}

/**
 * Why `timeout` is unusable, or `undefined` when it is fine (or absent). Both envs check with it:
 * a timeout is a positive, finite number of seconds, of any size (timers longer than one
 * `setTimeout` holds are re-armed, see `_timer.ts`).
 */
export function timeoutProblem(timeout: unknown): string | undefined {
	if (timeout === undefined) return undefined;
	if (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0) {
		return `timeout must be a positive, finite number of seconds (leave it out for no timeout), got ${describeValue(timeout)}`;
	}
	return undefined;
}

/** Why `command` cannot be run, or `undefined` when it can. */
export function commandProblem(command: unknown): string | undefined {
	if (typeof command !== "string") return `expected the command as a string, got ${typeof command}`;
	if (command.includes("\0")) return "the command contains a NUL byte";
	return undefined;
}

/** Why a byte range is unusable, or `undefined` when it is fine. */
export function rangeProblem(offset: unknown, length: unknown): string | undefined {
	if (typeof offset !== "number" || !Number.isSafeInteger(offset) || offset < 0) {
		return `offset must be a non-negative integer, got ${describeValue(offset)}`;
	}
	if (typeof length !== "number" || !Number.isSafeInteger(length) || length < 0) {
		return `length must be a non-negative integer, got ${describeValue(length)}`;
	}
	return undefined;
}

/** Why a temp-name prefix or suffix is unusable, or `undefined` when it is fine. */
export function affixProblem(value: string | undefined, what: string): string | undefined {
	if (value === undefined) return undefined;
	if (typeof value !== "string" || value.includes("/") || value.includes("\0")) {
		return `${what} must be a string without "/" or NUL bytes`;
	}
	return undefined;
}

/** Whether a listener returned a promise (or any thenable) to apply backpressure; `false` when its `then` cannot be read. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
	if (value === null || (typeof value !== "object" && typeof value !== "function")) return false;
	try {
		return typeof (value as { then?: unknown }).then === "function";
	} catch {
		// a `then` getter or proxy trap that throws: not something to wait for
		return false;
	}
}

/** The `code` of an error Node raised (`ENOENT`, `ERR_INVALID_ARG_TYPE`, …), if it has one. */
export function osCodeOf(error: unknown): string | undefined {
	try {
		const code = (error as { code?: unknown } | null)?.code;
		return typeof code === "string" ? code : undefined;
	} catch {
		// a thrown value whose `code` getter or proxy trap throws (an operations callback's)
		return undefined;
	}
}

/**
 * What `exec` checks before it starts anything, on every env that runs real commands: the command
 * and the timeout usable, the signal not aborted already, and the working folder (`options.cwd`
 * resolved against `cwd`) a usable path. Resolves to that folder.
 */
export function commandFolder(command: string, options: ExecOptions, cwd: string): Result<string, ExecutionError> {
	const problem = commandProblem(command) ?? timeoutProblem(options.timeout);
	if (problem) return err(execError("invalid_argument", describeValue(command), problem));
	if (options.signal?.aborted) return err(execError("aborted", command, "Command aborted before it started"));
	if (options.cwd === undefined) return ok(cwd);
	const cwdProblem = pathProblem(options.cwd);
	if (cwdProblem)
		return err(execError("invalid_argument", command, `Invalid working folder ${quoted(options.cwd)} (${cwdProblem})`));
	return ok(resolvePath(cwd, options.cwd));
}
