/**
 * The state of an operations env (`from-operations.ts`) and the steps every method shares:
 * resolving a path, the error for a missing operation or a callback that threw, the abort check,
 * and telling what a path is through `exists`, `stat` or `isDirectory`. Runtime-neutral.
 */

import type { ExecutionEnv, SignalOptions } from "../contract/env.js";
import { describeValue, errorMessage } from "../contract/errors.js";
import { err, type FileError, ok, type Result } from "../contract/result.js";
import { fileError, osCodeOf, pathProblem, quoted } from "./errors.js";
import type { EnvOperations, OperationsEnvOptions } from "./operations-types.js";
import { normalizePath, resolvePath } from "./path.js";

/** What an operations env knows: its callbacks, its folder, its fallback. */
export interface OperationsEnvState {
	readonly operations: EnvOperations;
	/** Absolute and normalized. */
	readonly cwd: string;
	readonly fallback: ExecutionEnv | undefined;
	/** Whether `stat` or `isDirectory` can tell a folder from a file (and a missing path). */
	readonly tellsKinds: boolean;
}

/** The state of an env over `operations`; throws when `options.cwd` is not absolute. */
export function createOperationsState(operations: EnvOperations, options: OperationsEnvOptions): OperationsEnvState {
	const cwd = normalizePath(options.cwd);
	if (!cwd.startsWith("/")) {
		throw new Error(`createOperationsEnv: cwd must be an absolute path, got ${quoted(options.cwd)}`);
	}
	return {
		operations,
		cwd,
		fallback: options.fallback,
		tellsKinds: operations.stat !== undefined || operations.isDirectory !== undefined,
	};
}

/** `path` resolved against the env's folder, or why it is no path. */
export function absoluteIn(state: OperationsEnvState, path: string): Result<string, FileError> {
	const problem = pathProblem(path);
	if (problem) return err(fileError("invalid_path", describeValue(path), problem));
	return ok(resolvePath(state.cwd, path));
}

/** The error of a method whose operation is missing and that has no fallback env. */
export function missing(path: string, what: string, method: string): FileError {
	return fileError("io_error", path, `these operations have no ${what}, and no fallback env was given for ${method}`);
}

/** A `FileError` for a callback that threw, classified by its OS-style `code` when it has one. */
export function fromThrown(path: string, error: unknown): FileError {
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

export function aborted(path: string, options: SignalOptions | undefined): FileError | undefined {
	return options?.signal?.aborted ? fileError("aborted", path) : undefined;
}

/** What `abs` is, by `exists`, then `stat` or `isDirectory` (a file when neither is given). */
export async function kindAt(state: OperationsEnvState, abs: string): Promise<Result<"directory" | "file", FileError>> {
	const { operations } = state;
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
}

/** Ok when the path exists, by `exists`, else `stat` / `isDirectory` (which throw for a missing path). */
export async function existing(state: OperationsEnvState, abs: string): Promise<Result<undefined, FileError>> {
	if (!state.tellsKinds) {
		try {
			if (state.operations.exists && (await state.operations.exists(abs)) === true) return ok(undefined);
		} catch (error) {
			return err(fromThrown(abs, error));
		}
		return err(fileError("not_found", abs, "the operations' exists says it does not exist"));
	}
	const kind = await kindAt(state, abs);
	return kind.ok ? ok(undefined) : kind;
}
