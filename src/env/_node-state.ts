/**
 * The state of one NodeExecutionEnv (Node only): what its options settled, and the path access
 * its file operations consult; the step files (`_node-read.ts`, `_node-write.ts`, `_node-tree.ts`,
 * `_node-confine.ts`) are functions over it.
 */

import type { ExecutionEnv } from "../contract/env.js";
import { describeValue } from "../contract/errors.js";
import { err, type FileError, ok, type Result } from "../contract/result.js";
import type { ConfinedCommand } from "./_node-exec.js";
import type { NodePathAccess } from "./_node-path-policy.js";
import { fileError, pathProblem } from "./errors.js";
import { resolvePath } from "./path.js";

export interface NodeEnvState {
	/** The env itself: an operation that uses another of its methods calls it there. */
	readonly env: ExecutionEnv;
	readonly cwd: string;
	readonly tempDir: string;
	/** The shell commands run in (`undefined`: bash from PATH, else /bin/sh). */
	readonly shell: string | undefined;
	/** The environment commands start from (`undefined`: `process.env` at each exec). */
	readonly baseEnv: Readonly<Record<string, string | undefined>> | undefined;
	/** Whether writes are flushed to the disk before they return. */
	readonly durable: boolean;
	readonly killGraceMs: number;
	/** Where file operations may go: unconfined, or the policy's guard. */
	readonly access: NodePathAccess;
	readonly sandboxMode: "auto" | "off";
	/** Under a policy: a command wrapped in the OS sandbox, or why it may not run (`_node-confine.ts`). */
	readonly confine:
		| ((shell: string, command: string, cwd: string) => Promise<Result<ConfinedCommand, string>>)
		| undefined;
	readonly searchBinaries: boolean;
}

/** `path` made absolute against the env's working folder, or why it is no path. */
export function absoluteIn(state: NodeEnvState, path: string): Result<string, FileError> {
	const problem = pathProblem(path);
	if (problem) return err(fileError("invalid_path", describeValue(path), problem));
	return ok(resolvePath(state.cwd, path));
}
