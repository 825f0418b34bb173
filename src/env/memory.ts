/**
 * MemoryExecutionEnv: an ExecutionEnv with an in-memory file tree and a scripted shell.
 *
 * Runtime-neutral (no `node:` imports), deterministic, and fast: the env tools are tested against
 * and the one the test harness uses. It follows the same rules as NodeExecutionEnv (same error
 * codes, same symlink semantics, same exec results) so a tool that passes here behaves the same on
 * a real disk.
 */

import type {
	DirEntry,
	ExecOptions,
	ExecResult,
	ExecutionEnv,
	FileInfo,
	FileKind,
	FindFilesRequest,
	FindFilesResult,
	PathPolicy,
	SearchTextRequest,
	SearchTextResult,
	SignalOptions,
} from "../contract/env.js";
import { describeValue, errorMessage } from "../contract/errors.js";
import { type ExecutionError, err, type FileError, ok, type Result } from "../contract/result.js";
import {
	bytesEqual,
	type Located,
	locate,
	type MemDir,
	MemFile,
	type MemNode,
	newDir,
	walkFiles,
} from "./_memory-tree.js";
import { type Access, checkAccess, policyRoots, withCreated } from "./_path-policy.js";
import {
	affixProblem,
	fileError,
	notRegularFileError,
	pathProblem,
	quoted,
	rangeProblem,
	type SpecialFileKind,
} from "./errors.js";
import { findWithWalker } from "./find.js";
import { searchWithWalker } from "./grep.js";
import {
	type CommandLogEntry,
	type ScriptedOutput,
	ScriptedShell,
	type ShellCommand,
	type ShellRunContext,
} from "./memory-shell.js";
import { dirname, isPathInside, normalizePath, relativePath, resolvePath } from "./path.js";

/** A seeded file: its content, or its content with a mode and mtime. */
export type MemorySeedFile =
	| string
	| Uint8Array
	| { readonly content: string | Uint8Array; readonly mode?: number; readonly mtimeMs?: number };

/** What a scripted command's `run` function receives: `env` is the MemoryExecutionEnv running it. */
export interface ScriptedRunContext extends ShellRunContext<MemoryExecutionEnv> {}

/**
 * One scripted answer of the memory shell. For a matching exec the env writes `chunks` in order
 * (each after its `delayMs`), then awaits `run`, then writes `stdout` and `stderr`, then exits
 * with `exitCode` (values returned by `run` replace the static `stdout`, `stderr`, `exitCode`).
 */
export interface ScriptedCommand extends ShellCommand<MemoryExecutionEnv> {}

/** Options for `MemoryExecutionEnv`: the starting files, folders and symlinks, read-only paths, the clock, and the scripted commands. */
export interface MemoryExecutionEnvOptions {
	/** Absolute working folder, created if missing. Default `/project`. */
	readonly cwd?: string;
	/** Files to start with, by path (relative to `cwd` or absolute). Parent folders are created. */
	readonly files?: Readonly<Record<string, MemorySeedFile>>;
	/** Empty folders to start with. */
	readonly dirs?: readonly string[];
	/** Symlinks to start with: link path → target (kept verbatim; relative targets resolve from the link's folder). */
	readonly symlinks?: Readonly<Record<string, string>>;
	/**
	 * Special files to start with: path → `"fifo"`, `"character_device"`, `"block_device"` or
	 * `"socket"`. They have no content: reading or writing one is refused as on a real disk, so
	 * tools can be tested against a FIFO or a device without one.
	 */
	readonly specialFiles?: Readonly<Record<string, Exclude<FileKind, "file" | "directory" | "symlink">>>;
	/** Paths (files or folders, with everything inside) that refuse changes with `permission_denied`. */
	readonly readOnly?: readonly string[];
	/** Source of mtimes, in ms since the epoch. Default `Date.now`. Should not throw. */
	readonly clock?: () => number;
	/** The scripted shell, tried in order. More can be added with `addCommands`. */
	readonly commands?: readonly ScriptedCommand[];
	/**
	 * The answer to a command no scripted entry matches. Default: exit 127 with a stderr line naming
	 * the command. A function that throws is treated like a throwing `run`.
	 */
	readonly unmatched?: ScriptedOutput | ((command: string) => ScriptedOutput);
	/** Folder for `createTempFile` / `createTempDir`. Default `/tmp`. */
	readonly tempDir?: string;
	/**
	 * Confine file operations to the policy's roots, checked on canonical paths as NodeExecutionEnv
	 * does. The scripted shell has no sandbox to run in: `exec` is not confined (a scripted `run`
	 * reaches files through this env, so through the policy). Default: unconfined.
	 */
	readonly policy?: PathPolicy;
}

const encoder = new TextEncoder();

function toBytes(data: string | Uint8Array): Uint8Array {
	return typeof data === "string" ? encoder.encode(data) : new Uint8Array(data);
}

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

function decode(bytes: Uint8Array): string {
	return decoder.decode(bytes);
}

/** `text` when decoding its encoding gives it back exactly (lone surrogates become U+FFFD). */
function knownText(text: string): string | undefined {
	return (text as { isWellFormed?: () => boolean }).isWellFormed?.() === true ? text : undefined;
}

function abortedError(path: string): FileError {
	return fileError("aborted", path);
}

/**
 * An ExecutionEnv held entirely in memory. File operations are synchronous underneath (so they
 * are atomic by nature) and, like every env operation, never throw. The constructor does throw
 * a `TypeError` for an unusable seed (a bad path, a file where a folder must be), since that is a
 * mistake in the test's setup.
 */
export class MemoryExecutionEnv implements ExecutionEnv {
	readonly kind = "memory";
	readonly cwd: string;
	readonly tempDir: string;
	private readonly root: MemDir;
	private readonly clock: () => number;
	private readOnlyRoots: readonly string[] = [];
	private readonly seed = new Map<string, Uint8Array>();
	private tempCounter = 0;
	private readonly shell: ScriptedShell<MemoryExecutionEnv>;
	private readonly policy: PathPolicy | undefined;
	/** Temp files and folders this env created (always allowed under a policy). */
	private readonly createdTemps: string[] = [];

	constructor(options: MemoryExecutionEnvOptions = {}) {
		this.clock = options.clock ?? Date.now;
		this.policy = options.policy;
		this.cwd = resolvePath("/", options.cwd ?? "/project");
		this.tempDir = resolvePath(this.cwd, options.tempDir ?? "/tmp");
		this.root = newDir(this.now());
		this.shell = new ScriptedShell<MemoryExecutionEnv>(
			{
				env: this,
				cwd: this.cwd,
				isFolder: (path) => {
					const located = locate(this.root, path, true);
					return located.ok && located.value.node?.kind === "directory";
				},
			},
			options.commands ?? [],
			options.unmatched,
		);
		this.seedOrThrow(this.cwd, () => this.mkdirp(this.cwd));
		for (const dir of options.dirs ?? []) this.seedOrThrow(dir, () => this.mkdirp(this.seedPath(dir)));
		for (const [path, target] of Object.entries(options.symlinks ?? {})) {
			this.seedOrThrow(path, () => this.addSymlink(this.seedPath(path), target));
		}
		for (const [path, file] of Object.entries(options.files ?? {})) {
			this.seedOrThrow(path, () => this.seedFile(this.seedPath(path), file));
		}
		for (const [path, kind] of Object.entries(options.specialFiles ?? {})) {
			this.seedOrThrow(path, () => this.addSpecial(this.seedPath(path), kind));
		}
		// Resolved after seeding so read-only roots may sit behind seeded symlinks.
		this.readOnlyRoots = (options.readOnly ?? []).flatMap((path) => {
			const absolute = this.seedPath(path);
			const canonical = locate(this.root, absolute, true);
			return canonical.ok ? [absolute, canonical.value.path] : [absolute];
		});
		for (const [path, file] of walkFiles(this.root, "/")) this.seed.set(path, new Uint8Array(file.data));
	}

	// ---------------------------------------------------------------- test helpers

	/** Every regular file by path (relative to `cwd` inside it, absolute outside), decoded as UTF-8. */
	snapshot(options: { readonly under?: string } = {}): Record<string, string> {
		const out: Record<string, string> = {};
		for (const [path, data] of Object.entries(this.snapshotBytes(options))) out[path] = decode(data);
		return out;
	}

	/** Like `snapshot`, with the exact bytes. */
	snapshotBytes(options: { readonly under?: string } = {}): Record<string, Uint8Array> {
		const under = options.under === undefined ? "/" : resolvePath(this.cwd, options.under);
		const files = [...walkFiles(this.root, "/")].filter(([path]) => isPathInside(path, under));
		files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		const out: Record<string, Uint8Array> = {};
		for (const [path, file] of files) out[this.displayPath(path)] = new Uint8Array(file.data);
		return out;
	}

	/** Regular files created, modified (content differs) and deleted since the seed, sorted. */
	changes(): { created: string[]; modified: string[]; deleted: string[] } {
		const current = new Map<string, Uint8Array>();
		for (const [path, file] of walkFiles(this.root, "/")) current.set(path, file.data);
		const created: string[] = [];
		const modified: string[] = [];
		const deleted: string[] = [];
		for (const [path, data] of current) {
			const before = this.seed.get(path);
			if (!before) created.push(path);
			else if (!bytesEqual(before, data)) modified.push(path);
		}
		for (const path of this.seed.keys()) if (!current.has(path)) deleted.push(path);
		const show = (paths: string[]) => paths.sort().map((path) => this.displayPath(path));
		return { created: show(created), modified: show(modified), deleted: show(deleted) };
	}

	/** Every exec so far, in call order (a copy; entries of running commands say `running`). */
	get commandLog(): readonly CommandLogEntry[] {
		return this.shell.commandLog;
	}

	/** Append scripted commands, tried after the existing ones. */
	addCommands(...commands: ScriptedCommand[]): void {
		this.shell.addCommands(...commands);
	}

	// ---------------------------------------------------------------- FileSystem

	absolutePath(path: string): Result<string, FileError> {
		const problem = pathProblem(path);
		if (problem) return err(fileError("invalid_path", describeValue(path), problem));
		return ok(resolvePath(this.cwd, path));
	}

	async canonicalPath(path: string): Promise<Result<string, FileError>> {
		const denied = this.deny(path, "read");
		if (denied) return err(denied);
		const found = this.find(path, true);
		if (!found.ok) return found;
		return ok(found.value.located.path);
	}

	async exists(path: string): Promise<boolean> {
		if (this.deny(path, "read")) return false;
		const abs = this.absolutePath(path);
		if (!abs.ok) return false;
		const located = locate(this.root, abs.value, true);
		return located.ok && located.value.node !== undefined;
	}

	async fileInfo(
		path: string,
		options: { readonly followSymlinks?: boolean } = {},
	): Promise<Result<FileInfo, FileError>> {
		const denied = this.deny(path, "read", options.followSymlinks !== false);
		if (denied) return err(denied);
		const found = this.find(path, options.followSymlinks !== false);
		if (!found.ok) return found;
		const node = found.value.node;
		if (node.kind === "file") return ok({ kind: "file", size: node.size, mtimeMs: node.mtimeMs, mode: node.mode });
		if (node.kind === "directory") return ok({ kind: "directory", size: 0, mtimeMs: node.mtimeMs, mode: node.mode });
		if (node.kind === "symlink") {
			return ok({ kind: "symlink", size: encoder.encode(node.target).byteLength, mtimeMs: node.mtimeMs, mode: 0o777 });
		}
		return ok({ kind: node.kind, size: 0, mtimeMs: node.mtimeMs, mode: node.mode });
	}

	/** Files matching a glob, by walking the in-memory tree (the same result `NodeExecutionEnv` gives). */
	findFiles(request: FindFilesRequest, options: SignalOptions = {}): Promise<Result<FindFilesResult, FileError>> {
		return findWithWalker(this, request, options);
	}

	/** Lines matching a pattern, by walking and reading the in-memory tree (the same result `NodeExecutionEnv` gives). */
	searchText(request: SearchTextRequest, options: SignalOptions = {}): Promise<Result<SearchTextResult, FileError>> {
		return searchWithWalker(this, request, options);
	}

	async listDir(path: string): Promise<Result<DirEntry[], FileError>> {
		const denied = this.deny(path, "read");
		if (denied) return err(denied);
		const found = this.find(path, true);
		if (!found.ok) return found;
		const { node, absolute } = found.value;
		if (node.kind !== "directory") return err(fileError("not_directory", absolute, "it is a file"));
		const names = [...node.entries.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
		return ok(names.map((name) => ({ name, kind: node.entries.get(name)!.kind })));
	}

	async readTextFile(path: string, options: SignalOptions = {}): Promise<Result<string, FileError>> {
		const denied = this.deny(path, "read");
		if (denied) return err(denied);
		return this.readTextFileNow(path, options);
	}

	/** `readTextFile`'s answer, given at once: for subclasses that read many files in a row. */
	protected readTextFileNow(path: string, options: SignalOptions = {}): Result<string, FileError> {
		const file = this.findFile(path, options);
		if (!file.ok) return file;
		try {
			file.value.text ??= decode(file.value.data);
			return ok(file.value.text);
		} catch (error) {
			// Past the engine's longest string: the caller should page through it with readRange.
			return err(
				fileError("io_error", describeValue(path), `too large to decode as one string: ${errorMessage(error)}`),
			);
		}
	}

	async readBinaryFile(path: string, options: SignalOptions = {}): Promise<Result<Uint8Array, FileError>> {
		const denied = this.deny(path, "read");
		if (denied) return err(denied);
		const file = this.findFile(path, options);
		if (!file.ok) return file;
		return ok(new Uint8Array(file.value.data));
	}

	async readRange(
		path: string,
		offset: number,
		length: number,
		options: SignalOptions = {},
	): Promise<Result<Uint8Array, FileError>> {
		const denied = this.deny(path, "read");
		if (denied) return err(denied);
		const problem = rangeProblem(offset, length);
		if (problem) return err(fileError("invalid_argument", describeValue(path), problem));
		const file = this.findFile(path, options);
		if (!file.ok) return file;
		return ok(file.value.data.slice(offset, offset + length));
	}

	async writeFile(
		path: string,
		data: string | Uint8Array,
		options: SignalOptions = {},
	): Promise<Result<void, FileError>> {
		const denied = this.deny(path, "write");
		if (denied) return err(denied);
		return this.putFile(path, data, options, false);
	}

	async appendFile(path: string, data: string | Uint8Array): Promise<Result<void, FileError>> {
		const denied = this.deny(path, "write");
		if (denied) return err(denied);
		return this.putFile(path, data, {}, true);
	}

	async rename(from: string, to: string): Promise<Result<void, FileError>> {
		const refused = this.deny(from, "write", false) ?? this.deny(to, "write", false);
		if (refused) return err(refused);
		const source = this.find(from, false);
		if (!source.ok) return source;
		const dest = this.absolutePath(to);
		if (!dest.ok) return dest;
		const target = locate(this.root, dest.value, false);
		if (!target.ok) return err(fileError(target.code, dest.value));
		const src = source.value.located;
		const dst = target.value;
		const srcPath = src.path;
		const dstPath = dst.path;
		if (src.name === "" || dst.name === "")
			return err(fileError("permission_denied", srcPath, "cannot move the root folder"));
		const denied = this.denyWrite(srcPath, true) ?? this.denyWrite(dstPath, true);
		if (denied) return err(denied);
		if (srcPath === dstPath) return ok(undefined);
		const node = source.value.node;
		if (node.kind === "directory" && isPathInside(dstPath, srcPath)) {
			return err(fileError("invalid_argument", dest.value, `cannot move ${srcPath} into itself`));
		}
		const existing = dst.node;
		if (existing) {
			if (existing.kind === "directory") {
				if (node.kind !== "directory") return err(fileError("is_directory", dest.value));
				if (existing.entries.size > 0) return err(fileError("not_empty", dest.value));
			} else if (node.kind === "directory") {
				return err(fileError("not_directory", dest.value, "cannot replace a file with a folder"));
			}
		}
		src.parent.entries.delete(src.name);
		dst.parent.entries.set(dst.name, node);
		const now = this.now();
		src.parent.mtimeMs = now;
		dst.parent.mtimeMs = now;
		return ok(undefined);
	}

	async remove(path: string, options: { readonly recursive?: boolean } = {}): Promise<Result<void, FileError>> {
		const refused = this.deny(path, "write", false);
		if (refused) return err(refused);
		const found = this.find(path, false);
		if (!found.ok) return found;
		const { located, node, absolute } = found.value;
		if (located.name === "") return err(fileError("permission_denied", "/", "cannot remove the root folder"));
		const denied = this.denyWrite(located.path, true);
		if (denied) return err(denied);
		if (node.kind === "directory" && node.entries.size > 0 && options.recursive !== true) {
			return err(fileError("not_empty", absolute));
		}
		located.parent.entries.delete(located.name);
		located.parent.mtimeMs = this.now();
		return ok(undefined);
	}

	async createDir(path: string, options: { readonly recursive?: boolean } = {}): Promise<Result<void, FileError>> {
		const denied = this.deny(path, "write");
		if (denied) return err(denied);
		const abs = this.absolutePath(path);
		if (!abs.ok) return abs;
		if (options.recursive !== false) {
			const made = this.mkdirp(abs.value);
			return made.ok ? ok(undefined) : made;
		}
		const located = locate(this.root, abs.value, true);
		if (!located.ok) return err(fileError(located.code, abs.value));
		if (located.value.node?.kind === "directory") return ok(undefined);
		if (located.value.node) return err(fileError("already_exists", abs.value, "it is a file"));
		return this.addChild(located.value, newDir(this.now()));
	}

	async createTempFile(
		options: { readonly prefix?: string; readonly suffix?: string } = {},
	): Promise<Result<string, FileError>> {
		const problem = affixProblem(options.prefix, "prefix") ?? affixProblem(options.suffix, "suffix");
		if (problem) return err(fileError("invalid_argument", this.tempDir, problem));
		return this.createTemp(
			options.prefix ?? "toolsmith-",
			options.suffix ?? "",
			() => new MemFile({ bytes: new Uint8Array(0) }, 0o600, this.now()),
		);
	}

	async createTempDir(options: { readonly prefix?: string } = {}): Promise<Result<string, FileError>> {
		const problem = affixProblem(options.prefix, "prefix");
		if (problem) return err(fileError("invalid_argument", this.tempDir, problem));
		return this.createTemp(options.prefix ?? "toolsmith-", "", () => newDir(this.now(), 0o700));
	}

	// ---------------------------------------------------------------- Shell

	async exec(command: string, options: ExecOptions = {}): Promise<Result<ExecResult, ExecutionError>> {
		return this.shell.exec(command, options);
	}

	// ---------------------------------------------------------------- internals

	/** Under a policy: the refusal for `access` to `path`, or undefined (also for a path the operation rejects itself). */
	private deny(path: string, access: Access, followLast = true): FileError | undefined {
		const policy = this.policy;
		if (!policy) return undefined;
		const abs = this.absolutePath(path);
		if (!abs.ok) return undefined;
		const roots = policyRoots(policy, this.cwd, (absolute) => this.canonicalOf(absolute) ?? absolute);
		// Only a symlink loop leaves a path without a canonical form here: said as such, as on disk.
		const checked = checkAccess(abs.value, access, followLast, withCreated(roots, this.createdTemps), (absolute) => {
			const canonical = this.canonicalOf(absolute);
			return canonical === undefined ? err(fileError("symlink_loop", abs.value)) : ok(canonical);
		});
		return checked.ok ? undefined : checked.error;
	}

	/** The canonical form of an absolute path, existing or not (undefined when it cannot be resolved). */
	private canonicalOf(absolute: string): string | undefined {
		const located = locate(this.root, absolute, true);
		if (located.ok) return located.value.path;
		if (located.code !== "not_found" && located.code !== "not_directory") return undefined;
		const slash = absolute.lastIndexOf("/");
		if (slash <= 0) return absolute;
		const parent = this.canonicalOf(absolute.slice(0, slash));
		return parent === undefined ? undefined : `${parent === "/" ? "" : parent}/${absolute.slice(slash + 1)}`;
	}

	private now(): number {
		try {
			const value = this.clock();
			return Number.isFinite(value) ? value : Date.now();
		} catch {
			return Date.now();
		}
	}

	private displayPath(path: string): string {
		return isPathInside(path, this.cwd) && path !== this.cwd ? relativePath(this.cwd, path) : path;
	}

	private seedPath(path: string): string {
		const problem = pathProblem(path);
		if (problem) throw new TypeError(`MemoryExecutionEnv seed: invalid path ${quoted(path)}: ${problem}`);
		return resolvePath(this.cwd, path);
	}

	private seedOrThrow(path: string, action: () => Result<unknown, FileError>): void {
		const done = action();
		if (!done.ok) {
			throw new TypeError(`MemoryExecutionEnv seed: cannot create ${quoted(path)}: ${done.error.message}`);
		}
	}

	private seedFile(absolute: string, file: MemorySeedFile): Result<void, FileError> {
		const parent = this.mkdirp(dirname(absolute));
		if (!parent.ok) return parent;
		const located = locate(this.root, absolute, true);
		if (!located.ok) return err(fileError(located.code, absolute));
		if (located.value.node && located.value.node.kind !== "file") return err(fileError("already_exists", absolute));
		const spec = typeof file === "string" || file instanceof Uint8Array ? { content: file } : file;
		const node = new MemFile({ bytes: toBytes(spec.content) }, spec.mode ?? 0o644, spec.mtimeMs ?? this.now());
		located.value.parent.entries.set(located.value.name, node);
		return ok(undefined);
	}

	private addSymlink(absolute: string, target: string): Result<void, FileError> {
		if (typeof target !== "string" || target === "" || target.includes("\0")) {
			return err(fileError("invalid_argument", absolute, `bad symlink target ${quoted(target)}`));
		}
		const parent = this.mkdirp(dirname(absolute));
		if (!parent.ok) return parent;
		const located = locate(this.root, absolute, false);
		if (!located.ok) return err(fileError(located.code, absolute));
		if (located.value.node) return err(fileError("already_exists", absolute));
		located.value.parent.entries.set(located.value.name, { kind: "symlink", target, mtimeMs: this.now() });
		return ok(undefined);
	}

	private addSpecial(absolute: string, kind: SpecialFileKind): Result<void, FileError> {
		if (!["fifo", "character_device", "block_device", "socket"].includes(kind)) {
			return err(fileError("invalid_argument", absolute, `unknown special file kind ${quoted(kind)}`));
		}
		const parent = this.mkdirp(dirname(absolute));
		if (!parent.ok) return parent;
		const located = locate(this.root, absolute, false);
		if (!located.ok) return err(fileError(located.code, absolute));
		if (located.value.node) return err(fileError("already_exists", absolute));
		located.value.parent.entries.set(located.value.name, { kind, mode: 0o644, mtimeMs: this.now() });
		return ok(undefined);
	}

	/** Resolve `path` to something that exists. */
	private find(
		path: string,
		followLast: boolean,
	): Result<{ located: Located; node: MemNode; absolute: string }, FileError> {
		const abs = this.absolutePath(path);
		if (!abs.ok) return abs;
		const located = locate(this.root, abs.value, followLast);
		if (!located.ok) return err(fileError(located.code, abs.value));
		const node = located.value.node;
		if (!node) return err(fileError("not_found", abs.value));
		return ok({ located: located.value, node, absolute: abs.value });
	}

	private findFile(path: string, options: SignalOptions): Result<MemFile, FileError> {
		if (options.signal?.aborted) return err(abortedError(describeValue(path)));
		const found = this.find(path, true);
		if (!found.ok) return found;
		const kind = found.value.node.kind;
		if (kind === "directory") return err(fileError("is_directory", found.value.absolute));
		if (kind !== "file") return err(notRegularFileError(found.value.absolute, kind === "symlink" ? undefined : kind));
		return ok(found.value.node);
	}

	/** `permission_denied` when `path` (or, with `subtree`, anything inside it) is read-only. */
	private denyWrite(path: string, subtree: boolean): FileError | undefined {
		for (const root of this.readOnlyRoots) {
			if (isPathInside(path, root) || (subtree && isPathInside(root, path))) {
				return fileError("permission_denied", path, `${root} is read-only in this memory env`);
			}
		}
		return undefined;
	}

	private addChild(located: Located, node: MemNode): Result<void, FileError> {
		const denied = this.denyWrite(located.path, false);
		if (denied) return err(denied);
		located.parent.entries.set(located.name, node);
		located.parent.mtimeMs = this.now();
		return ok(undefined);
	}

	/** Create `absolute` and its missing parents, following symlinks on the way like `mkdir -p`. */
	private mkdirp(absolute: string): Result<MemDir, FileError> {
		const located = locate(this.root, absolute, true);
		if (!located.ok) {
			if (located.code !== "not_found" || absolute === "/") return err(fileError(located.code, absolute));
			const parent = this.mkdirp(dirname(absolute));
			if (!parent.ok) return parent;
			return this.mkdirpLast(absolute);
		}
		return this.mkdirpLast(absolute);
	}

	private mkdirpLast(absolute: string): Result<MemDir, FileError> {
		const located = locate(this.root, absolute, true);
		if (!located.ok) return err(fileError(located.code, absolute));
		const node = located.value.node;
		if (node?.kind === "directory") return ok(node);
		if (node?.kind === "file") return err(fileError("already_exists", absolute, "it is a file, not a folder"));
		if (node && node.kind !== "symlink") return err(fileError("already_exists", absolute, "it is a special file"));
		if (node) return err(fileError("not_found", absolute, "it is a dangling symlink"));
		const dir = newDir(this.now());
		const added = this.addChild(located.value, dir);
		return added.ok ? ok(dir) : added;
	}

	private putFile(
		path: string,
		data: string | Uint8Array,
		options: SignalOptions,
		append: boolean,
	): Promise<Result<void, FileError>> {
		if (options.signal?.aborted) return Promise.resolve(err(abortedError(describeValue(path))));
		const abs = this.absolutePath(path);
		if (!abs.ok) return Promise.resolve(abs);
		if (!(typeof data === "string" || data instanceof Uint8Array)) {
			return Promise.resolve(err(fileError("invalid_argument", abs.value, "data must be a string or a Uint8Array")));
		}
		let located = locate(this.root, abs.value, true);
		if (!located.ok && located.code === "not_found") {
			const parent = this.mkdirp(dirname(abs.value));
			if (!parent.ok) return Promise.resolve(parent);
			located = locate(this.root, abs.value, true);
		}
		if (!located.ok) return Promise.resolve(err(fileError(located.code, abs.value)));
		const existing = located.value.node;
		if (existing?.kind === "directory") return Promise.resolve(err(fileError("is_directory", abs.value)));
		if (existing && existing.kind !== "file" && existing.kind !== "symlink") {
			return Promise.resolve(err(notRegularFileError(abs.value, existing.kind)));
		}
		const denied = this.denyWrite(located.value.path, false);
		if (denied) return Promise.resolve(err(denied));
		// Well-formed text is kept as it is and encoded only when its bytes are asked for.
		const text = typeof data === "string" && !append ? knownText(data) : undefined;
		if (existing?.kind === "file") {
			if (text !== undefined) {
				existing.setText(text);
			} else if (append) {
				const bytes = toBytes(data);
				const joined = new Uint8Array(existing.data.byteLength + bytes.byteLength);
				joined.set(existing.data, 0);
				joined.set(bytes, existing.data.byteLength);
				existing.data = joined;
			} else {
				existing.data = toBytes(data);
			}
			existing.mtimeMs = this.now();
			return Promise.resolve(ok(undefined));
		}
		const file = new MemFile(text !== undefined ? { text } : { bytes: toBytes(data) }, 0o644, this.now());
		return Promise.resolve(this.addChild(located.value, file));
	}

	private createTemp(prefix: string, suffix: string, make: () => MemNode): Result<string, FileError> {
		const dir = this.mkdirp(this.tempDir);
		if (!dir.ok) return dir;
		for (;;) {
			this.tempCounter += 1;
			const name = `${prefix}${this.tempCounter.toString(36).padStart(6, "0")}${suffix}`;
			if (dir.value.entries.has(name)) continue;
			const path = normalizePath(`${this.tempDir}/${name}`);
			const located = locate(this.root, path, false);
			if (!located.ok) return err(fileError(located.code, path));
			const added = this.addChild(located.value, make());
			if (added.ok && this.policy) this.createdTemps.push(this.canonicalOf(path) ?? path);
			return added.ok ? ok(path) : added;
		}
	}
}
