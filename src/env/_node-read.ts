/**
 * The reading operations of NodeExecutionEnv (Node only): each checks the path with the env's
 * path access, then opens, verifies and reads through `withOpened` or the access's own `realPath`
 * and `stat`; one code path whether or not a policy confines the env.
 */
import { isUtf8 } from "node:buffer";
import { promises as fs } from "node:fs";
import type { DirEntry, FileInfo, SignalOptions } from "../contract/env.js";
import { describeValue, errorMessage } from "../contract/errors.js";
import { err, type FileError, ok, type Result } from "../contract/result.js";
import { byName, kindOf, mapFsError, openRegular } from "./_node-fs.js";
import { type PinnedDir, withOpened } from "./_node-path-policy.js";
import { absoluteIn, type NodeEnvState } from "./_node-state.js";
import { fileError, rangeProblem } from "./errors.js";

/** Beyond this, a range read of a non-regular file (unknown size) grows its buffer as it reads. */
const UNKNOWN_SIZE_CHUNK = 1 << 20;

export async function canonicalPath(state: NodeEnvState, path: string): Promise<Result<string, FileError>> {
	const abs = absoluteIn(state, path);
	if (!abs.ok) return abs;
	const allowed = await state.access.resolve(abs.value, "read");
	if (!allowed.ok) return allowed;
	try {
		return await state.access.realPath(abs.value, allowed.value);
	} catch (error) {
		return err(mapFsError(error, abs.value));
	}
}

export async function fileInfo(
	state: NodeEnvState,
	path: string,
	options: { readonly followSymlinks?: boolean } = {},
): Promise<Result<FileInfo, FileError>> {
	const abs = absoluteIn(state, path);
	if (!abs.ok) return abs;
	const followLast = options.followSymlinks !== false;
	const allowed = await state.access.resolve(abs.value, "read", followLast);
	if (!allowed.ok) return allowed;
	try {
		const stats = await state.access.stat(abs.value, allowed.value, followLast);
		if (!stats.ok) return stats;
		const { size, mtimeMs, mode } = stats.value;
		return ok({ kind: kindOf(stats.value), size, mtimeMs, mode: mode & 0o7777 });
	} catch (error) {
		return err(mapFsError(error, abs.value));
	}
}

export async function listDir(state: NodeEnvState, path: string): Promise<Result<DirEntry[], FileError>> {
	const abs = absoluteIn(state, path);
	if (!abs.ok) return abs;
	const allowed = await state.access.resolve(abs.value, "read");
	if (!allowed.ok) return allowed;
	let pin: PinnedDir | undefined;
	try {
		const pinned = await state.access.pinDir(abs.value, "read", abs.value, "");
		if (!pinned.ok) return pinned;
		pin = pinned.value;
		// Names as bytes: one that is not valid UTF-8 is marked, since its decoded text names no file.
		const raw = await fs.readdir(pin.self, { withFileTypes: true, encoding: "buffer" });
		const moved = await pin.recheck();
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

export async function readTextFile(
	state: NodeEnvState,
	path: string,
	options: SignalOptions = {},
): Promise<Result<string, FileError>> {
	const bytes = await readBinaryFile(state, path, options);
	if (!bytes.ok) return bytes;
	try {
		return ok(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes.value));
	} catch (error) {
		// Past the engine's longest string: the caller should page through it with readRange.
		return err(fileError("io_error", describeValue(path), `too large to decode as one string: ${errorMessage(error)}`));
	}
}

/** A regular file at `path`, checked for reading, opened and verified, handed to `use`. */
async function readOpened<T>(
	state: NodeEnvState,
	path: string,
	options: SignalOptions,
	precheck: (absolute: string) => FileError | undefined,
	use: (handle: fs.FileHandle, absolute: string) => Promise<Result<T, FileError>>,
): Promise<Result<T, FileError>> {
	const abs = absoluteIn(state, path);
	if (!abs.ok) return abs;
	const allowed = await state.access.resolve(abs.value, "read");
	if (!allowed.ok) return allowed;
	const problem = precheck(abs.value);
	if (problem) return err(problem);
	if (options.signal?.aborted) return err(fileError("aborted", abs.value));
	try {
		return await withOpened(
			state.access,
			() => openRegular(abs.value),
			"read",
			abs.value,
			allowed.value,
			(handle) => use(handle, abs.value),
		);
	} catch (error) {
		return err(mapFsError(error, abs.value));
	}
}

export function readBinaryFile(
	state: NodeEnvState,
	path: string,
	options: SignalOptions = {},
): Promise<Result<Uint8Array, FileError>> {
	return readOpened(
		state,
		path,
		options,
		() => undefined,
		async (handle) => {
			const buffer = await handle.readFile(options.signal ? { signal: options.signal } : {});
			return ok(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength));
		},
	);
}

export function readRange(
	state: NodeEnvState,
	path: string,
	offset: number,
	length: number,
	options: SignalOptions = {},
): Promise<Result<Uint8Array, FileError>> {
	const problem = rangeProblem(offset, length);
	return readOpened(
		state,
		path,
		options,
		(absolute) => (problem ? fileError("invalid_argument", absolute, problem) : undefined),
		async (handle, absolute) => {
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
				if (options.signal?.aborted) return err(fileError("aborted", absolute));
				const { bytesRead } = await handle.read(buffer, filled, buffer.byteLength - filled, offset + filled);
				if (bytesRead === 0) break;
				filled += bytesRead;
			}
			return ok(filled === buffer.byteLength ? buffer : buffer.slice(0, filled));
		},
	);
}
