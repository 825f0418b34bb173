/**
 * NodeExecutionEnv: the ExecutionEnv over the real disk and real processes (`toolsmith-sdk/node`).
 *
 * File operations use `fs/promises` and map Node's error codes to `FileError` codes. Writes are
 * atomic (temp file in the same folder, then rename). Commands run in `bash -c` (or `sh -c`) as
 * the leader of a new process group, so a timeout or an abort can kill the whole tree; `exec`
 * hands them to `_node-exec.ts`.
 */
import { isUtf8 } from "node:buffer";
import { randomBytes } from "node:crypto";
import { promises as fs, constants as fsConstants } from "node:fs";
import { tmpdir } from "node:os";
import { resolve as resolveNative } from "node:path";
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
import { type ExecutionError, err, type FileError, type FileErrorCode, ok, type Result } from "../contract/result.js";
import { type ConfinedCommand, runCommand } from "./_node-exec.js";
import { findFdBinary, findWithFd } from "./_node-find.js";
import { findRgBinary, rgAgrees, searchWithRg } from "./_node-grep.js";
import { NodePathGuard, O_PATH, type PinnedDir, usesProcFd } from "./_node-policy.js";
import { probeSandbox, type SandboxProbe } from "./_node-sandbox.js";
import { workerSearchReader } from "./_node-search-workers.js";
import {
	affixProblem,
	execError,
	fileError,
	notRegularFileError,
	osCodeOf,
	pathProblem,
	rangeProblem,
} from "./errors.js";
import { findWithWalker, prepareFind } from "./find.js";
import { type PreparedSearch, prepareSearch, searchWithWalker } from "./grep.js";
import { basename, dirname, resolvePath } from "./path.js";

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

/** A Node fs error as a FileError naming `path`. */
function mapFsError(error: unknown, path: string, override?: Partial<Record<string, FileErrorCode>>): FileError {
	const osCode = osCodeOf(error);
	if ((error as { name?: unknown } | null)?.name === "AbortError") return fileError("aborted", path);
	const code = (osCode && (override?.[osCode] ?? OS_CODES[osCode])) || "io_error";
	const detail = code === "io_error" ? `${osCode ?? "error"}: ${errorMessage(error)}` : undefined;
	return fileError(code, path, detail, osCode);
}

function kindOf(stats: {
	isDirectory(): boolean;
	isSymbolicLink(): boolean;
	isFIFO(): boolean;
	isCharacterDevice(): boolean;
	isBlockDevice(): boolean;
	isSocket(): boolean;
}): FileKind {
	if (stats.isDirectory()) return "directory";
	if (stats.isSymbolicLink()) return "symlink";
	if (stats.isFIFO()) return "fifo";
	if (stats.isCharacterDevice()) return "character_device";
	if (stats.isBlockDevice()) return "block_device";
	if (stats.isSocket()) return "socket";
	return "file";
}

/** The error for a FIFO, device or socket (or anything else that is not a regular file). */
function notRegular(path: string, stats: Parameters<typeof kindOf>[0]): FileError {
	const kind = kindOf(stats);
	return notRegularFileError(path, kind === "file" || kind === "directory" || kind === "symlink" ? undefined : kind);
}

/**
 * The error for a failed non-blocking append open: `ENXIO` means the name is now a FIFO without a
 * reader (or a device without a driver), swapped in after the metadata check, so it gets the same
 * "not a regular file" refusal as one seen there; anything else is mapped as usual.
 */
async function appendOpenError(error: unknown, opened: string, shown: string): Promise<FileError> {
	if (osCodeOf(error) === "ENXIO") {
		const stats = await fs.lstat(opened).catch(() => undefined);
		if (stats && !stats.isFile() && !stats.isDirectory()) return notRegular(shown, stats);
	}
	return mapFsError(error, shown);
}

function byName(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}

const MAX_SYMLINK_HOPS = 40;
/** Beyond this, a range read of a non-regular file (unknown size) grows its buffer as it reads. */
const UNKNOWN_SIZE_CHUNK = 1 << 20;

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
	private readonly shell: string | undefined;
	private readonly baseEnv: Readonly<Record<string, string | undefined>> | undefined;
	private readonly durable: boolean;
	private readonly killGraceMs: number;
	private readonly guard: NodePathGuard | undefined;
	private readonly sandboxMode: "auto" | "off";
	private readonly searchBinaries: boolean;

	constructor(options: NodeExecutionEnvOptions = {}) {
		this.cwd = resolveNative(options.cwd ?? process.cwd());
		this.tempDir = resolveNative(this.cwd, options.tempDir ?? tmpdir());
		this.shell = options.shell;
		this.baseEnv = options.env;
		this.durable = options.durable === true;
		this.killGraceMs = Math.max(0, options.killGraceMs ?? 1000);
		this.guard = options.policy ? new NodePathGuard(options.policy, this.cwd) : undefined;
		this.sandboxMode = options.sandbox ?? "auto";
		this.searchBinaries = options.searchBinaries !== false;
		// Every NodeExecutionEnv shares one mutation queue per real file (not enumerable: no API).
		Object.defineProperty(this, Symbol.for("toolsmith.mutationScope"), { value: NODE_MUTATION_SCOPE });
	}

	// ---------------------------------------------------------------- FileSystem

	absolutePath(path: string): Result<string, FileError> {
		const problem = pathProblem(path);
		if (problem) return err(fileError("invalid_path", describeValue(path), problem));
		return ok(resolvePath(this.cwd, path));
	}

	async canonicalPath(path: string): Promise<Result<string, FileError>> {
		const abs = this.absolutePath(path);
		if (!abs.ok) return abs;
		const allowed = await this.allowed(abs.value, "read");
		if (!allowed.ok) return allowed;
		if (this.guard && usesProcFd()) {
			// Where the checked path leads now, from a descriptor: no swap after the check can hide it.
			let handle: fs.FileHandle | undefined;
			try {
				handle = await fs.open(abs.value, O_PATH);
				const moved = await this.guard.verifyOpened(handle, "read", abs.value, allowed.value as string);
				if (moved) return err(moved);
				return ok(await fs.readlink(`/proc/self/fd/${handle.fd}`));
			} catch (error) {
				return err(mapFsError(error, abs.value));
			} finally {
				await handle?.close().catch(() => undefined);
			}
		}
		try {
			const real = await fs.realpath(abs.value);
			// Where it led just now: still inside, or refused.
			const outside = await this.guard?.refuseOutside(real, "read", abs.value);
			return outside ? err(outside) : ok(real);
		} catch (error) {
			return err(mapFsError(error, abs.value));
		}
	}

	async exists(path: string): Promise<boolean> {
		const abs = this.absolutePath(path);
		if (!abs.ok) return false;
		if (this.guard) return (await this.fileInfo(abs.value)).ok;
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
		const allowed = await this.allowed(abs.value, "read", options.followSymlinks !== false);
		if (!allowed.ok) return allowed;
		if (this.guard && usesProcFd()) {
			// The metadata of what a descriptor names, once that is known to lie inside a root.
			let handle: fs.FileHandle | undefined;
			try {
				handle = await fs.open(abs.value, O_PATH | (options.followSymlinks === false ? fsConstants.O_NOFOLLOW : 0));
				const moved = await this.guard.verifyOpened(handle, "read", abs.value, allowed.value as string);
				if (moved) return err(moved);
				const stats = await handle.stat();
				return ok({ kind: kindOf(stats), size: stats.size, mtimeMs: stats.mtimeMs, mode: stats.mode & 0o7777 });
			} catch (error) {
				return err(mapFsError(error, abs.value));
			} finally {
				await handle?.close().catch(() => undefined);
			}
		}
		try {
			const stats = options.followSymlinks === false ? await fs.lstat(abs.value) : await fs.stat(abs.value);
			if (this.guard && allowed.value !== undefined) {
				const moved = await this.guard.verifyStats(stats, allowed.value, options.followSymlinks !== false, abs.value);
				if (moved) return err(moved);
			}
			return ok({ kind: kindOf(stats), size: stats.size, mtimeMs: stats.mtimeMs, mode: stats.mode & 0o7777 });
		} catch (error) {
			return err(mapFsError(error, abs.value));
		}
	}

	async listDir(path: string): Promise<Result<DirEntry[], FileError>> {
		const abs = this.absolutePath(path);
		if (!abs.ok) return abs;
		const allowed = await this.allowed(abs.value, "read");
		if (!allowed.ok) return allowed;
		let pin: PinnedDir | undefined;
		try {
			if (this.guard) {
				const pinned = await this.guard.pinDir(abs.value, "read", abs.value, "");
				if (!pinned.ok) return pinned;
				pin = pinned.value;
			}
			// Names as bytes: one that is not valid UTF-8 is marked, since its decoded text names no file.
			const raw = await fs.readdir(pin?.self ?? abs.value, { withFileTypes: true, encoding: "buffer" });
			const moved = await pin?.recheck();
			if (moved) return err(moved);
			const entries: DirEntry[] = raw.map((entry) => {
				const bytes = entry.name as unknown as Buffer;
				const name = bytes.toString("utf8");
				return isUtf8(bytes) ? { name, kind: kindOf(entry) } : { name, kind: kindOf(entry), notUtf8: true };
			});
			entries.sort((a, b) => byName(a.name, b.name));
			return ok(entries);
		} catch (error) {
			return err(mapFsError(error, abs.value));
		} finally {
			await pin?.close();
		}
	}

	async readTextFile(path: string, options: SignalOptions = {}): Promise<Result<string, FileError>> {
		const bytes = await this.readBinaryFile(path, options);
		if (!bytes.ok) return bytes;
		try {
			return ok(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes.value));
		} catch (error) {
			// Past the engine's longest string: the caller should page through it with readRange.
			return err(
				fileError("io_error", describeValue(path), `too large to decode as one string: ${errorMessage(error)}`),
			);
		}
	}

	async readBinaryFile(path: string, options: SignalOptions = {}): Promise<Result<Uint8Array, FileError>> {
		const abs = this.absolutePath(path);
		if (!abs.ok) return abs;
		const allowed = await this.allowed(abs.value, "read");
		if (!allowed.ok) return allowed;
		if (options.signal?.aborted) return err(fileError("aborted", abs.value));
		let handle: fs.FileHandle | undefined;
		try {
			const opened = await openRegular(abs.value);
			if (!opened.ok) return opened;
			handle = opened.value;
			const moved = await this.verifyOpened(handle, "read", abs.value, allowed.value);
			if (moved) return err(moved);
			const buffer = await handle.readFile(options.signal ? { signal: options.signal } : {});
			return ok(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength));
		} catch (error) {
			return err(mapFsError(error, abs.value));
		} finally {
			await handle?.close().catch(() => undefined);
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
		const allowed = await this.allowed(abs.value, "read");
		if (!allowed.ok) return allowed;
		const problem = rangeProblem(offset, length);
		if (problem) return err(fileError("invalid_argument", abs.value, problem));
		if (options.signal?.aborted) return err(fileError("aborted", abs.value));
		let handle: fs.FileHandle | undefined;
		try {
			const opened = await openRegular(abs.value);
			if (!opened.ok) return opened;
			handle = opened.value;
			const moved = await this.verifyOpened(handle, "read", abs.value, allowed.value);
			if (moved) return err(moved);
			const stats = await handle.stat();
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
		const allowed = await this.allowed(abs.value, "write");
		if (!allowed.ok) return allowed;
		if (!(typeof data === "string" || data instanceof Uint8Array)) {
			return err(fileError("invalid_argument", abs.value, "data must be a string or a Uint8Array"));
		}
		if (options.signal?.aborted) return err(fileError("aborted", abs.value));
		// Decided from metadata before anything is opened; also covers a link such as /dev/stdin whose
		// target has no name to resolve.
		const special = await fs.stat(abs.value).catch(() => undefined);
		if (special && !special.isFile() && !special.isDirectory()) return err(notRegular(abs.value, special));
		const target = await this.writeTarget(abs.value);
		if (!target.ok) return target;
		let mode: number | undefined;
		try {
			const stats = await fs.stat(target.value);
			if (stats.isDirectory()) return err(fileError("is_directory", abs.value));
			if (!stats.isFile()) return err(notRegular(abs.value, stats));
			mode = stats.mode & 0o7777;
			// The rename below would replace even a read-only file; honor its bits like a plain write.
			await fs.access(target.value, fsConstants.W_OK);
			// A rename would give this name a new inode and cut it off from its other hard links.
			if (stats.nlink > 1) return await this.writeInPlace(target.value, abs.value, data, options, allowed.value);
		} catch (error) {
			if (osCodeOf(error) !== "ENOENT") return err(mapFsError(error, abs.value));
			const made = await this.makeParents(target.value, abs.value);
			if (!made.ok) return made;
		}
		const name = basename(target.value);
		// Under a policy, the folder is held open and checked where it actually is; the temp file is
		// made and renamed through it, so a folder swapped for a symlink meanwhile changes nothing.
		const pinned = await this.pin(dirname(target.value), abs.value, name);
		if (!pinned.ok) return pinned;
		const pin = pinned.value;
		const at = (part: string) => (pin ? pin.at(part) : `${dirname(target.value)}/${part}`);
		// Same folder as the target, so the rename never crosses a file system. Short enough that a
		// long file name cannot push it past the 255-byte name limit.
		const temp = at(`.${name.slice(0, 60)}.${randomBytes(6).toString("hex")}.tmp`);
		let handle: fs.FileHandle | undefined;
		try {
			const before = await pin?.recheck();
			if (before) return err(before);
			handle = await fs.open(temp, "wx", mode ?? 0o666);
			await handle.writeFile(data);
			// open() applied the umask; chmod does not, so the file keeps exactly its old bits.
			if (mode !== undefined) await handle.chmod(mode);
			if (this.durable) await handle.sync();
			await handle.close();
			handle = undefined;
			if (options.signal?.aborted) throw Object.assign(new Error("aborted"), { name: "AbortError" });
			const moved = await pin?.recheck();
			if (moved) {
				await fs.rm(temp, { force: true }).catch(() => undefined);
				return err(moved);
			}
			await fs.rename(temp, at(name));
		} catch (error) {
			await handle?.close().catch(() => undefined);
			await fs.rm(temp, { force: true }).catch(() => undefined);
			return err(mapFsError(error, abs.value));
		} finally {
			await pin?.close();
		}
		if (this.durable) await syncFolder(dirname(target.value));
		return ok(undefined);
	}

	async appendFile(path: string, data: string | Uint8Array): Promise<Result<void, FileError>> {
		const abs = this.absolutePath(path);
		if (!abs.ok) return abs;
		const allowed = await this.allowed(abs.value, "write");
		if (!allowed.ok) return allowed;
		if (!(typeof data === "string" || data instanceof Uint8Array)) {
			return err(fileError("invalid_argument", abs.value, "data must be a string or a Uint8Array"));
		}
		// Refused from metadata like writeFile: appending to a FIFO would wait for a reader forever.
		const special = await fs.stat(abs.value).catch(() => undefined);
		if (special && !special.isFile() && !special.isDirectory()) return err(notRegular(abs.value, special));
		if (this.guard) return this.appendConfined(abs.value, data, allowed.value as string);
		const first = await this.appendRegular(abs.value, data);
		if (first.ok || first.error.code !== "not_found") return first;
		const made = await this.makeParents(abs.value, abs.value);
		if (!made.ok) return made;
		return this.appendRegular(abs.value, data);
	}

	/**
	 * Append to a regular file (created when missing) without ever blocking: opened non-blocking and
	 * checked again after opening, so a path swapped for a FIFO or a device after the stat is refused.
	 */
	private async appendRegular(path: string, data: string | Uint8Array): Promise<Result<void, FileError>> {
		let handle: fs.FileHandle | undefined;
		try {
			try {
				handle = await fs.open(
					path,
					fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT | fsConstants.O_NONBLOCK,
					0o666,
				);
			} catch (error) {
				return err(await appendOpenError(error, path, path));
			}
			const stats = await handle.stat();
			if (!stats.isFile()) return err(notRegular(path, stats));
			await handle.appendFile(data);
			return ok(undefined);
		} catch (error) {
			return err(mapFsError(error, path));
		} finally {
			await handle?.close().catch(() => undefined);
		}
	}

	async rename(from: string, to: string): Promise<Result<void, FileError>> {
		const source = this.absolutePath(from);
		if (!source.ok) return source;
		const dest = this.absolutePath(to);
		if (!dest.ok) return dest;
		const denied =
			(await this.guard?.check(source.value, "write", false)) ?? (await this.guard?.check(dest.value, "write", false));
		if (denied) return err(denied);
		let fromPin: PinnedDir | undefined;
		let toPin: PinnedDir | undefined;
		try {
			const pinnedFrom = await this.pin(dirname(source.value), source.value, basename(source.value));
			if (!pinnedFrom.ok) return pinnedFrom;
			fromPin = pinnedFrom.value;
			const pinnedTo = await this.pin(dirname(dest.value), dest.value, basename(dest.value));
			if (!pinnedTo.ok) return pinnedTo;
			toPin = pinnedTo.value;
			const moved = (await fromPin?.recheck()) ?? (await toPin?.recheck());
			if (moved) return err(moved);
			await fs.rename(
				fromPin ? fromPin.at(basename(source.value)) : source.value,
				toPin ? toPin.at(basename(dest.value)) : dest.value,
			);
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
		} finally {
			await fromPin?.close();
			await toPin?.close();
		}
	}

	async remove(path: string, options: { readonly recursive?: boolean } = {}): Promise<Result<void, FileError>> {
		const abs = this.absolutePath(path);
		if (!abs.ok) return abs;
		const denied = await this.guard?.check(abs.value, "write", false);
		if (denied) return err(denied);
		if (abs.value === "/") return err(fileError("permission_denied", "/", "refusing to remove the root folder"));
		let pin: PinnedDir | undefined;
		try {
			const pinned = await this.pin(dirname(abs.value), abs.value, basename(abs.value));
			if (!pinned.ok) return pinned;
			pin = pinned.value;
			const target = pin ? pin.at(basename(abs.value)) : abs.value;
			const stats = await fs.lstat(target);
			const moved = await pin?.recheck();
			if (moved) return err(moved);
			if (!stats.isDirectory()) await fs.unlink(target);
			else if (options.recursive === true) await fs.rm(target, { recursive: true });
			else await fs.rmdir(target);
			return ok(undefined);
		} catch (error) {
			return err(mapFsError(error, abs.value, { EEXIST: "not_empty" }));
		} finally {
			await pin?.close();
		}
	}

	async createDir(path: string, options: { readonly recursive?: boolean } = {}): Promise<Result<void, FileError>> {
		const abs = this.absolutePath(path);
		if (!abs.ok) return abs;
		const denied = await this.guard?.check(abs.value, "write");
		if (denied) return err(denied);
		if (this.guard) return this.createDirConfined(abs.value, options.recursive !== false);
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
		// The env's own folder: made without the policy's check (what it creates there is allowed).
		const made = await this.createDirUnchecked(this.tempDir);
		if (!made.ok) return made;
		for (let attempt = 0; ; attempt++) {
			const path = `${this.tempDir}/${options.prefix ?? "toolsmith-"}${randomBytes(8).toString("hex")}${options.suffix ?? ""}`;
			try {
				const handle = await fs.open(path, "wx", 0o600);
				await handle.close();
				await this.guard?.allowCreated(path);
				return ok(path);
			} catch (error) {
				if (osCodeOf(error) !== "EEXIST" || attempt >= 10) return err(mapFsError(error, path));
			}
		}
	}

	async createTempDir(options: { readonly prefix?: string } = {}): Promise<Result<string, FileError>> {
		const problem = affixProblem(options.prefix, "prefix");
		if (problem) return err(fileError("invalid_argument", this.tempDir, problem));
		// The env's own folder: made without the policy's check (what it creates there is allowed).
		const made = await this.createDirUnchecked(this.tempDir);
		if (!made.ok) return made;
		try {
			const made = await fs.mkdtemp(`${this.tempDir}/${options.prefix ?? "toolsmith-"}`);
			await this.guard?.allowCreated(made);
			return ok(made);
		} catch (error) {
			return err(mapFsError(error, this.tempDir));
		}
	}

	// ---------------------------------------------------------------- Shell

	async exec(command: string, options: ExecOptions = {}): Promise<Result<ExecResult, ExecutionError>> {
		try {
			return await runCommand(command, options ?? {}, {
				cwd: this.cwd,
				shell: this.shell,
				baseEnv: this.baseEnv,
				killGraceMs: this.killGraceMs,
				...(this.guard
					? { confine: (shell: string, line: string, cwd: string) => this.confine(shell, line, cwd) }
					: {}),
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
		const fd = this.searchBinaries && !this.guard ? await findFdBinary() : undefined;
		if (fd === undefined) return findWithWalker(this, request, options);
		const prepared = await prepareFind(this, request);
		if (!prepared.ok) return prepared;
		const found = await findWithFd(fd, prepared.value.root, prepared.value.matcher, request, options.signal);
		if (found.ok && found.value === "not-utf8") return findWithWalker(this, request, options);
		return found as Result<FindFilesResult, FileError>;
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
		if (this.guard) return searchWithWalker(this, request, options);
		const reader = (prepared: PreparedSearch) => workerSearchReader(prepared.regex, prepared.filter);
		const rg = this.searchBinaries && rgAgrees(request) ? await findRgBinary() : undefined;
		if (rg === undefined) return searchWithWalker(this, request, options, reader);
		const prepared = await prepareSearch(this, request);
		if (!prepared.ok) return prepared;
		const found = await searchWithRg(rg, prepared.value, request, reader(prepared.value), options.signal);
		if (found.ok && found.value === "not-utf8") return searchWithWalker(this, request, options, reader);
		return found as Result<SearchTextResult, FileError>;
	}

	// ---------------------------------------------------------------- internals

	/** Under a policy, the canonical path when `access` to `absolute` is allowed; else `ok(undefined)`. */
	private async allowed(
		absolute: string,
		access: "read" | "write",
		followLast = true,
	): Promise<Result<string | undefined, FileError>> {
		return this.guard ? this.guard.resolve(absolute, access, followLast) : ok(undefined);
	}

	/** Under a policy, the refusal when an opened file turns out to lie outside the roots. */
	private async verifyOpened(
		handle: fs.FileHandle,
		access: "read" | "write",
		shown: string,
		canonical: string | undefined,
	): Promise<FileError | undefined> {
		return this.guard && canonical !== undefined
			? this.guard.verifyOpened(handle, access, shown, canonical)
			: undefined;
	}

	/** Under a policy, the folder `dir` held open for writing `name` in it; without one, `undefined`. */
	private async pin(
		dir: string,
		shown: string,
		name: string,
		options: { readonly noFollow?: boolean } = {},
	): Promise<Result<PinnedDir | undefined, FileError>> {
		if (!this.guard) return ok(undefined);
		try {
			return await this.guard.pinDir(dir, "write", shown, name, options);
		} catch (error) {
			return err(mapFsError(error, shown, { EEXIST: "not_directory" }));
		}
	}

	/** `appendFile` under a policy: opened through the checked folder, and checked again once open. */
	private async appendConfined(
		absolute: string,
		data: string | Uint8Array,
		canonical: string,
	): Promise<Result<void, FileError>> {
		const target = await this.writeTarget(absolute);
		if (!target.ok) return target;
		const name = basename(target.value);
		let pinned = await this.pin(dirname(target.value), absolute, name);
		if (!pinned.ok && pinned.error.code === "not_found") {
			const made = await this.makeParents(target.value, absolute);
			if (!made.ok) return made;
			pinned = await this.pin(dirname(target.value), absolute, name);
		}
		if (!pinned.ok) return pinned;
		const pin = pinned.value as PinnedDir;
		let handle: fs.FileHandle | undefined;
		try {
			const before = await pin.recheck();
			if (before) return err(before);
			// O_NOFOLLOW: the name was resolved already; a symlink put there since is refused.
			// O_NONBLOCK: a FIFO put there opens at once instead of waiting for a reader, and is refused below.
			const flags =
				fsConstants.O_WRONLY |
				fsConstants.O_APPEND |
				fsConstants.O_CREAT |
				fsConstants.O_NOFOLLOW |
				fsConstants.O_NONBLOCK;
			try {
				handle = await fs.open(pin.at(name), flags, 0o666);
			} catch (error) {
				return err(await appendOpenError(error, pin.at(name), absolute));
			}
			const stats = await handle.stat();
			if (!stats.isFile()) return err(notRegular(absolute, stats));
			const moved = await this.verifyOpened(handle, "write", absolute, canonical);
			if (moved) return err(moved);
			await handle.appendFile(data);
			return ok(undefined);
		} catch (error) {
			return err(mapFsError(error, absolute));
		} finally {
			await handle?.close().catch(() => undefined);
			await pin.close();
		}
	}

	/**
	 * `createDir` under a policy: the deepest folder that exists is held open and checked, and each
	 * missing part is made inside the one before it and opened without following links, so no part
	 * swapped for a symlink meanwhile can lead the rest outside.
	 */
	private async createDirConfined(absolute: string, recursive: boolean): Promise<Result<void, FileError>> {
		const missing: string[] = [];
		let base = absolute;
		for (;;) {
			try {
				await fs.lstat(base);
				break;
			} catch (error) {
				if (osCodeOf(error) !== "ENOENT" || base === "/") return err(mapFsError(error, absolute));
				missing.unshift(basename(base));
				base = dirname(base);
			}
		}
		if (missing.length === 0) {
			const info = await this.fileInfo(absolute);
			if (info.ok && info.value.kind === "directory") return ok(undefined);
			return err(info.ok ? fileError("already_exists", absolute) : info.error);
		}
		if (!recursive && missing.length > 1) return err(fileError("not_found", absolute));
		let pinned = await this.pin(base, absolute, missing.join("/"));
		for (let index = 0; ; index++) {
			if (!pinned.ok) return pinned;
			const pin = pinned.value as PinnedDir;
			try {
				const moved = await pin.recheck();
				if (moved) return err(moved);
				const part = missing[index] as string;
				try {
					await fs.mkdir(pin.at(part));
				} catch (error) {
					// Made meanwhile by someone else: fine if it is a folder (opening it below checks).
					if (osCodeOf(error) !== "EEXIST") throw error;
					const stats = await fs.lstat(pin.at(part));
					if (index === missing.length - 1 && !stats.isDirectory()) return err(fileError("already_exists", absolute));
				}
				if (index === missing.length - 1) return ok(undefined);
				pinned = await this.pin(pin.at(part), absolute, missing.slice(index + 1).join("/"), { noFollow: true });
			} catch (error) {
				return err(mapFsError(error, absolute, { EEXIST: "not_directory" }));
			} finally {
				await pin.close();
			}
		}
	}

	/** `createDir` without the path policy, for the env's own temp folder. */
	private async createDirUnchecked(path: string): Promise<Result<void, FileError>> {
		try {
			await fs.mkdir(path, { recursive: true });
			return ok(undefined);
		} catch (error) {
			return err(mapFsError(error, path));
		}
	}

	/** Under the policy: the sandboxed program for a command, or why it may not run. */
	private async confine(shell: string, command: string, cwd: string): Promise<Result<ConfinedCommand, string>> {
		const guard = this.guard as NodePathGuard;
		const denied = await guard.check(cwd, "read");
		if (denied) return err(`Working folder refused: ${denied.message}`);
		const probe: SandboxProbe =
			this.sandboxMode === "off" ? { missing: 'the env was created with sandbox: "off"' } : await probeSandbox();
		if ("missing" in probe) {
			if (guard.policy.withoutSandbox !== "warn") {
				return err(
					`Refused: the env's path policy confines commands to an OS sandbox, but ${probe.missing}. Or set the policy's withoutSandbox: "warn" to run commands unconfined`,
				);
			}
			return ok({
				file: shell,
				args: ["-c", command],
				warning: `warning: this command ran unconfined: ${probe.missing}`,
			});
		}
		const roots = await guard.canonicalRoots();
		let realCwd = cwd;
		try {
			realCwd = await fs.realpath(cwd);
		} catch {
			// The spawn reports a missing folder.
		}
		const home = (this.baseEnv ?? process.env).HOME;
		const wrapped = probe.sandbox.wrap(shell, command, {
			writeRoots: roots.write,
			readRoots: roots.read,
			network: guard.policy.network === true,
			unixSockets: guard.policy.unixSockets === true,
			confineReads: guard.policy.confineReads === true,
			cwd: realCwd,
			...(home ? { home } : {}),
		});
		if (!wrapped.ok) {
			return err(
				`Refused: the env's path policy confines commands to an OS sandbox, but ${wrapped.error}. Set the policy's unixSockets: true to run without that part of it`,
			);
		}
		return wrapped;
	}

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

	/**
	 * Overwrite a hard-linked file in place (same inode, so every name sees the new content). Not
	 * atomic: a crash midway leaves a mix. To narrow that window the new content is written over the
	 * old from offset 0 and the file is cut to length only afterwards (never emptied first), and with
	 * `durable` it is flushed before returning. Opened without blocking and checked again after
	 * opening, so a path swapped for a FIFO or a device in between is refused, never waited on.
	 */
	private async writeInPlace(
		target: string,
		shown: string,
		data: string | Uint8Array,
		options: SignalOptions,
		canonical: string | undefined,
	): Promise<Result<void, FileError>> {
		let handle: fs.FileHandle | undefined;
		try {
			handle = await fs.open(target, fsConstants.O_WRONLY | fsConstants.O_NONBLOCK | fsConstants.O_NOFOLLOW);
			const moved = await this.verifyOpened(handle, "write", shown, canonical);
			if (moved) return err(moved);
			const stats = await handle.stat();
			if (!stats.isFile()) return err(notRegular(shown, stats));
			if (options.signal?.aborted) return err(fileError("aborted", shown));
			const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
			let written = 0;
			while (written < bytes.byteLength) {
				const { bytesWritten } = await handle.write(bytes, written, bytes.byteLength - written, written);
				written += bytesWritten;
			}
			await handle.truncate(bytes.byteLength);
			if (this.durable) await handle.sync();
			return ok(undefined);
		} catch (error) {
			return err(mapFsError(error, shown));
		} finally {
			await handle?.close().catch(() => undefined);
		}
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
}

/**
 * Open a regular file for reading without ever blocking. Decided from metadata first (`stat`), so a
 * FIFO, device or socket is refused before any open (opening some devices has effects). A path
 * swapped for one between the stat and the open cannot block either: the open is non-blocking
 * (`O_NONBLOCK`), and the opened descriptor is checked again (`fstat`) and refused if not regular.
 */
async function openRegular(path: string): Promise<Result<fs.FileHandle, FileError>> {
	const before = await fs.stat(path);
	if (before.isDirectory()) return err(fileError("is_directory", path));
	if (!before.isFile()) return err(notRegular(path, before));
	const handle = await fs.open(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
	try {
		const after = await handle.stat();
		if (after.isDirectory()) throw Object.assign(new Error("EISDIR"), { code: "EISDIR" });
		if (!after.isFile()) {
			await handle.close();
			return err(notRegular(path, after));
		}
		return ok(handle);
	} catch (error) {
		await handle.close().catch(() => undefined);
		throw error;
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
