/**
 * Results and the two error families of the env layer.
 *
 * Env operations never throw: they return a `Result`. Tools decide what to do with a failure,
 * usually by throwing it, which the executor turns into an error result for the model.
 */

/** Success or failure, checked with `result.ok`. */
export type Result<T, E> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

/** Wrap a value as a successful result. */
export function ok<T>(value: T): { readonly ok: true; readonly value: T } {
	return { ok: true, value };
}

/** Wrap an error as a failed result. */
export function err<E>(error: E): { readonly ok: false; readonly error: E } {
	return { ok: false, error };
}

/** The value of a successful result; the error itself is thrown otherwise (it is an `Error`). */
export function unwrap<T, E extends Error>(result: Result<T, E>): T {
	if (result.ok) return result.value;
	throw result.error;
}

/**
 * Codes of `FileError`, one per way a file operation can fail.
 *
 * - `not_found`: the path, or a folder on the way to it, does not exist.
 * - `is_directory`: a file was expected but the path is a folder.
 * - `not_directory`: a folder was expected (or a path component is a file).
 * - `already_exists`: the operation would replace something it must not.
 * - `not_empty`: a folder could not be removed because it has entries (use `recursive`).
 * - `permission_denied`: the OS, or a read-only path of a memory env, refused access.
 * - `symlink_loop`: resolving symlinks went round in a circle.
 * - `invalid_path`: the path cannot name a file (empty, or it holds a NUL byte).
 * - `invalid_argument`: another argument was out of range (a negative offset, say).
 * - `aborted`: the caller's signal fired before the operation finished.
 * - `io_error`: anything else the OS reported; the message carries its code.
 */
export type FileErrorCode =
	| "not_found"
	| "is_directory"
	| "not_directory"
	| "already_exists"
	| "not_empty"
	| "permission_denied"
	| "symlink_loop"
	| "invalid_path"
	| "invalid_argument"
	| "aborted"
	| "io_error";

/** A failed file operation. The message always names the path. */
export class FileError extends Error {
	override readonly name = "FileError";
	readonly code: FileErrorCode;
	readonly path: string;
	/** The OS error code (`ENOENT`, …) when the error came from the OS. */
	readonly osCode: string | undefined;

	constructor(code: FileErrorCode, path: string, message: string, osCode?: string) {
		super(message);
		this.code = code;
		this.path = path;
		this.osCode = osCode;
	}
}

/**
 * Codes of `ExecutionError`, one per way running a command can fail to produce an exit code.
 * A command that runs and exits non-zero is not an error at this layer.
 *
 * - `timeout`: the command ran longer than `timeout` seconds; its process tree was killed.
 * - `aborted`: the caller's signal fired; its process tree was killed.
 * - `spawn_error`: the shell could not be started (missing shell, bad cwd, …).
 * - `invalid_argument`: the options were unusable (a negative timeout, a NUL byte in the command).
 * - `connection_lost`: the env's connection to another machine (an SSH env's) ended while the
 *   command ran; whether it kept running there is unknown. The env's next call reconnects.
 */
export type ExecutionErrorCode = "timeout" | "aborted" | "spawn_error" | "invalid_argument" | "connection_lost";

/** A command that did not run to an exit code. The message always names the command. */
export class ExecutionError extends Error {
	override readonly name = "ExecutionError";
	readonly code: ExecutionErrorCode;
	readonly command: string;

	constructor(code: ExecutionErrorCode, command: string, message: string) {
		super(message);
		this.code = code;
		this.command = command;
	}
}
