/**
 * NodeExecutionEnv: the ExecutionEnv over the real disk and real processes (`toolsmith-sdk/node`).
 *
 * The front: it settles its options into a state record (`_node-state.ts`) and hands each method
 * to the step file that does it: reading (`_node-read.ts`), writing (`_node-write.ts`), changing
 * the tree (`_node-tree.ts`), searching (`_node-find.ts`, `_node-grep.ts`) and running commands
 * (`_node-exec.ts`, confined by `_node-confine.ts`). Every file operation consults the env's path
 * access (`_node-path-policy.ts`): unconfined, or the policy's guard; one code path either way.
 * Errors map Node's codes to `FileError` codes; writes are atomic (temp file in the same folder,
 * then rename); commands run in `bash -c` (or `sh -c`) as the leader of a new process group.
 */
import { tmpdir } from "node:os";
import { resolve as resolveNative } from "node:path";
import type {
	DirEntry,
	ExecOptions,
	ExecResult,
	ExecutionEnv,
	FileInfo,
	FindFilesRequest,
	FindFilesResult,
	PathPolicy,
	SearchTextRequest,
	SearchTextResult,
	SignalOptions,
} from "../contract/env.js";
import { describeValue, errorMessage } from "../contract/errors.js";
import { type ExecutionError, err, type FileError, type Result } from "../contract/result.js";
import { confineCommand } from "./_node-confine.js";
import { runCommand } from "./_node-exec.js";
import { findFdBinary, findThroughFd } from "./_node-find.js";
import { findRgBinary, rgAgrees, searchThroughRg } from "./_node-grep.js";
import { NodePathGuard, unconfinedAccess } from "./_node-path-policy.js";
import { localProgram } from "./_node-process.js";
import { canonicalPath, fileInfo, listDir, readBinaryFile, readRange, readTextFile } from "./_node-read.js";
import { workerSearchReader } from "./_node-search-workers.js";
import { absoluteIn, type NodeEnvState } from "./_node-state.js";
import { createDir, createTempDir, createTempFile, remove, rename } from "./_node-tree.js";
import { appendFile, writeFile } from "./_node-write.js";
import { execError } from "./errors.js";
import { findWithWalker } from "./find.js";
import { type PreparedSearch, searchWithWalker } from "./grep.js";
import { resolveLimits } from "./node-limits.js";

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
	/**
	 * Confine the env: file operations outside the policy's roots (on canonical paths) are refused
	 * with `permission_denied`, and `exec` runs commands in an OS sandbox. Default: unconfined.
	 */
	readonly policy?: PathPolicy;
	/**
	 * `"auto"` (the default): under a policy, use the OS sandbox when this machine has one; `"off"`:
	 * act as if it had none (the policy's `withoutSandbox` decides).
	 */
	readonly sandbox?: "auto" | "off";
	/**
	 * Whether `findFiles` may run `fd` (or Debian's `fdfind`) and `searchText` may run `rg` from
	 * PATH when they are there (never downloaded). Default true. Off, or without the binary, or
	 * under a `policy`, the tree is walked through this env's own methods; the result is the same
	 * either way.
	 */
	readonly searchBinaries?: boolean;
}

/**
 * The mutation-queue scope of every NodeExecutionEnv (see mutation-queue.ts): registered with
 * `Symbol.for`, so even two copies of this module in one process queue together.
 */
const NODE_MUTATION_SCOPE: object = (() => {
	const holder = globalThis as { [key: symbol]: object | undefined };
	const key = Symbol.for("toolsmith.nodeMutationScope");
	holder[key] ??= { name: "node file system" };
	return holder[key];
})();

/**
 * An ExecutionEnv over the real file system and real processes. Every method settles with a
 * `Result`; none throws or rejects.
 */
export class NodeExecutionEnv implements ExecutionEnv {
	readonly kind = "node";
	readonly cwd: string;
	readonly tempDir: string;
	private readonly state: NodeEnvState;

	constructor(options: NodeExecutionEnvOptions = {}) {
		this.cwd = resolveNative(options.cwd ?? process.cwd());
		this.tempDir = resolveNative(this.cwd, options.tempDir ?? tmpdir());
		if (options.policy?.limits !== undefined) {
			const limits = resolveLimits(options.policy.limits);
			if (!limits.ok) throw new TypeError(`NodeExecutionEnv: ${limits.error}`);
		}
		const guard = options.policy ? new NodePathGuard(options.policy, this.cwd) : undefined;
		const state: NodeEnvState = {
			env: this,
			cwd: this.cwd,
			tempDir: this.tempDir,
			shell: options.shell,
			baseEnv: options.env,
			durable: options.durable === true,
			killGraceMs: Math.max(0, options.killGraceMs ?? 1000),
			access: guard ?? unconfinedAccess,
			sandboxMode: options.sandbox ?? "auto",
			searchBinaries: options.searchBinaries !== false,
			confine: guard && ((shell, command, cwd) => confineCommand(state, guard, shell, command, cwd)),
		};
		this.state = state;
		// Every NodeExecutionEnv shares one mutation queue per real file (not enumerable: no API).
		Object.defineProperty(this, Symbol.for("toolsmith.mutationScope"), { value: NODE_MUTATION_SCOPE });
	}

	// ---------------------------------------------------------------- FileSystem

	absolutePath(path: string): Result<string, FileError> {
		return absoluteIn(this.state, path);
	}

	canonicalPath(path: string): Promise<Result<string, FileError>> {
		return canonicalPath(this.state, path);
	}

	async exists(path: string): Promise<boolean> {
		return (await fileInfo(this.state, path)).ok;
	}

	fileInfo(path: string, options: { readonly followSymlinks?: boolean } = {}): Promise<Result<FileInfo, FileError>> {
		return fileInfo(this.state, path, options);
	}

	listDir(path: string): Promise<Result<DirEntry[], FileError>> {
		return listDir(this.state, path);
	}

	readTextFile(path: string, options: SignalOptions = {}): Promise<Result<string, FileError>> {
		return readTextFile(this.state, path, options);
	}

	readBinaryFile(path: string, options: SignalOptions = {}): Promise<Result<Uint8Array, FileError>> {
		return readBinaryFile(this.state, path, options);
	}

	readRange(
		path: string,
		offset: number,
		length: number,
		options: SignalOptions = {},
	): Promise<Result<Uint8Array, FileError>> {
		return readRange(this.state, path, offset, length, options);
	}

	writeFile(path: string, data: string | Uint8Array, options: SignalOptions = {}): Promise<Result<void, FileError>> {
		return writeFile(this.state, path, data, options);
	}

	appendFile(path: string, data: string | Uint8Array): Promise<Result<void, FileError>> {
		return appendFile(this.state, path, data);
	}

	rename(from: string, to: string): Promise<Result<void, FileError>> {
		return rename(this.state, from, to);
	}

	remove(path: string, options: { readonly recursive?: boolean } = {}): Promise<Result<void, FileError>> {
		return remove(this.state, path, options);
	}

	createDir(path: string, options: { readonly recursive?: boolean } = {}): Promise<Result<void, FileError>> {
		return createDir(this.state, path, options);
	}

	createTempFile(
		options: { readonly prefix?: string; readonly suffix?: string } = {},
	): Promise<Result<string, FileError>> {
		return createTempFile(this.state, options);
	}

	createTempDir(options: { readonly prefix?: string } = {}): Promise<Result<string, FileError>> {
		return createTempDir(this.state, options);
	}

	// ---------------------------------------------------------------- Shell

	async exec(command: string, options: ExecOptions = {}): Promise<Result<ExecResult, ExecutionError>> {
		const { cwd, shell, baseEnv, killGraceMs, confine } = this.state;
		try {
			return await runCommand(command, options ?? {}, {
				cwd,
				shell,
				baseEnv,
				killGraceMs,
				...(confine ? { confine } : {}),
				isFolder: async (path) => {
					const info = await this.fileInfo(path);
					return info.ok && info.value.kind === "directory";
				},
			});
		} catch (error) {
			// Only reachable through a bug or a hostile options object; the contract is to never reject.
			return err(
				execError("spawn_error", describeValue(command), `Could not run the command (${errorMessage(error)})`),
			);
		}
	}

	// ---------------------------------------------------------------- search

	/** Files matching a glob, through `fd` when it is on PATH (see `searchBinaries`), else by walking. */
	async findFiles(request: FindFilesRequest, options: SignalOptions = {}): Promise<Result<FindFilesResult, FileError>> {
		const fd = this.state.searchBinaries && this.state.access.policy === undefined ? await findFdBinary() : undefined;
		if (fd === undefined) return findWithWalker(this, request, options);
		return findThroughFd(this, localProgram(fd), request, options);
	}

	/**
	 * Lines matching a pattern, through `rg` when it is on PATH (see `searchBinaries`) and the
	 * pattern means the same to ripgrep as to JavaScript, else by walking and reading the files.
	 */
	async searchText(
		request: SearchTextRequest,
		options: SignalOptions = {},
	): Promise<Result<SearchTextResult, FileError>> {
		// Under a policy every read goes through its checks; otherwise worker threads read the files.
		if (this.state.access.policy) return searchWithWalker(this, request, options);
		const reader = (prepared: PreparedSearch) => workerSearchReader(prepared.regex, prepared.filter);
		const rg = this.state.searchBinaries && rgAgrees(request) ? await findRgBinary() : undefined;
		if (rg === undefined) return searchWithWalker(this, request, options, reader);
		return searchThroughRg(this, localProgram(rg), request, options, reader);
	}
}
