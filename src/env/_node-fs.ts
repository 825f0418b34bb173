/**
 * File-system helpers of NodeExecutionEnv (Node only): Node's error codes as `FileError`s, file
 * kinds, opening a regular file without blocking, where a write lands through a symlink chain,
 * making parent folders, and flushing a folder.
 */
import { promises as fs, constants as fsConstants } from "node:fs";
import type { FileKind } from "../contract/env.js";
import { errorMessage } from "../contract/errors.js";
import { err, type FileError, type FileErrorCode, ok, type Result } from "../contract/result.js";
import { fileError, notRegularFileError, osCodeOf } from "./errors.js";
import { dirname, resolvePath } from "./path.js";

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
export function mapFsError(error: unknown, path: string, override?: Partial<Record<string, FileErrorCode>>): FileError {
	const osCode = osCodeOf(error);
	if ((error as { name?: unknown } | null)?.name === "AbortError") return fileError("aborted", path);
	const code = (osCode && (override?.[osCode] ?? OS_CODES[osCode])) || "io_error";
	const detail = code === "io_error" ? `${osCode ?? "error"}: ${errorMessage(error)}` : undefined;
	return fileError(code, path, detail, osCode);
}

/** What `stat`, `lstat` and directory entries say about a file's kind. */
export interface KindStats {
	isDirectory(): boolean;
	isSymbolicLink(): boolean;
	isFIFO(): boolean;
	isCharacterDevice(): boolean;
	isBlockDevice(): boolean;
	isSocket(): boolean;
}

export function kindOf(stats: KindStats): FileKind {
	if (stats.isDirectory()) return "directory";
	if (stats.isSymbolicLink()) return "symlink";
	if (stats.isFIFO()) return "fifo";
	if (stats.isCharacterDevice()) return "character_device";
	if (stats.isBlockDevice()) return "block_device";
	if (stats.isSocket()) return "socket";
	return "file";
}

/** The error for a FIFO, device or socket (or anything else that is not a regular file). */
export function notRegular(path: string, stats: KindStats): FileError {
	const kind = kindOf(stats);
	return notRegularFileError(path, kind === "file" || kind === "directory" || kind === "symlink" ? undefined : kind);
}

/**
 * The error for a failed non-blocking append open: `ENXIO` means the name is now a FIFO without a
 * reader (or a device without a driver), swapped in after the metadata check, so it gets the same
 * "not a regular file" refusal as one seen there; anything else is mapped as usual.
 */
export async function appendOpenError(error: unknown, opened: string, shown: string): Promise<FileError> {
	if (osCodeOf(error) === "ENXIO") {
		const stats = await fs.lstat(opened).catch(() => undefined);
		if (stats && !stats.isFile() && !stats.isDirectory()) return notRegular(shown, stats);
	}
	return mapFsError(error, shown);
}

/**
 * The refusal, decided from metadata before anything is opened, of writing or appending to a
 * FIFO, device or socket (appending to a FIFO would wait for a reader forever); also covers a link
 * such as /dev/stdin whose target has no name to resolve.
 */
export async function specialFileRefusal(absolute: string): Promise<FileError | undefined> {
	const special = await fs.stat(absolute).catch(() => undefined);
	return special && !special.isFile() && !special.isDirectory() ? notRegular(absolute, special) : undefined;
}

export function byName(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}

const MAX_SYMLINK_HOPS = 40;

/**
 * Where a write to `absolute` must land: the final target of a symlink chain (even a dangling
 * one, so writing through it creates the target), or `absolute` itself.
 */
export async function writeTarget(absolute: string): Promise<Result<string, FileError>> {
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

/** `mkdir -p` of the folder holding `file`, with errors naming `shown`. */
export async function makeParents(file: string, shown: string): Promise<Result<void, FileError>> {
	try {
		await fs.mkdir(dirname(file), { recursive: true });
		return ok(undefined);
	} catch (error) {
		// A file where a folder must be surfaces as EEXIST (the last part) or ENOTDIR (earlier).
		return err(mapFsError(error, shown, { EEXIST: "not_directory" }));
	}
}

/** `mkdir -p` of `path` itself, with errors naming it (the env's own temp folder). */
export async function makeFolder(path: string): Promise<Result<void, FileError>> {
	try {
		await fs.mkdir(path, { recursive: true });
		return ok(undefined);
	} catch (error) {
		return err(mapFsError(error, path));
	}
}

/**
 * Open a regular file for reading without ever blocking. Decided from metadata first (`stat`), so a
 * FIFO, device or socket is refused before any open (opening some devices has effects). A path
 * swapped for one between the stat and the open cannot block either: the open is non-blocking
 * (`O_NONBLOCK`), and the opened descriptor is checked again (`fstat`) and refused if not regular.
 */
export async function openRegular(path: string): Promise<Result<fs.FileHandle, FileError>> {
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
export async function syncFolder(folder: string): Promise<void> {
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
