/**
 * An `ExecutionEnv` built from pi-style tool operations: `readFile`, `access`, `writeFile`,
 * `mkdir` and `exec` callbacks that decide where files are read and written and where commands
 * run (a remote host over ssh, an OS sandbox, a container). A host hands it to toolsmith's tools
 * to give them that world; the pi compatibility layer builds one from the `operations` a pi
 * extension passes to `createReadTool`, `createWriteTool`, `createEditTool` or `createBashTool`.
 *
 * The front: the env's state (`_operations-state.ts`) and its methods, each handed to the step
 * file that does it (`_operations-read.ts`, `_operations-write.ts`, `_operations-list.ts`,
 * `_operations-exec.ts`). Runtime-neutral: no `node:` imports. Like every env it never throws: a
 * callback that throws or rejects becomes a `FileError` / `ExecutionError` naming the path or
 * command.
 */

import type { ExecutionEnv } from "../contract/env.js";
import { exec } from "./_operations-exec.js";
import { findFiles, listDir } from "./_operations-list.js";
import { canonicalPath, exists, fileInfo, readBinaryFile, readRange, readTextFile } from "./_operations-read.js";
import { absoluteIn, createOperationsState } from "./_operations-state.js";
import {
	appendFile,
	createDir,
	createTempDir,
	createTempFile,
	remove,
	rename,
	writeFile,
} from "./_operations-write.js";
import { setMutationScope } from "./mutation-queue.js";
import type { EnvOperations, OperationsEnvOptions } from "./operations-types.js";

export type { EnvOperations, OperationsEnvOptions } from "./operations-types.js";

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
	const state = createOperationsState(operations, options);
	const env: ExecutionEnv = {
		kind: options.kind ?? "operations",
		cwd: state.cwd,
		absolutePath: (path) => absoluteIn(state, path),
		canonicalPath: (path) => canonicalPath(state, path),
		exists: (path) => exists(state, path),
		fileInfo: (path, infoOptions) => fileInfo(state, path, infoOptions),
		listDir: (path) => listDir(state, path),
		readTextFile: (path, opts) => readTextFile(state, path, opts),
		readBinaryFile: (path, opts) => readBinaryFile(state, path, opts),
		readRange: (path, offset, length, opts) => readRange(state, path, offset, length, opts),
		writeFile: (path, data, opts) => writeFile(state, path, data, opts),
		appendFile: (path, data) => appendFile(state, path, data),
		rename: (from, to) => rename(state, from, to),
		remove: (path, removeOptions) => remove(state, path, removeOptions),
		createDir: (path, dirOptions) => createDir(state, path, dirOptions),
		createTempFile: (tempOptions) => createTempFile(state, tempOptions),
		createTempDir: (tempOptions) => createTempDir(state, tempOptions),
		exec: (command, execOptions) => exec(state, command, execOptions),
	};
	const glob = operations.glob;
	if (glob) env.findFiles = (request, findOptions) => findFiles(state, glob, request, findOptions);
	// Its paths are the callbacks' own (a remote host, a sandbox), so the process-wide queue of the
	// real disk cannot apply; envs built from the same operations object queue together instead.
	setMutationScope(env, operations);
	return env;
}
