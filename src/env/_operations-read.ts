/**
 * The reading methods of an operations env (`from-operations.ts`): whole files through
 * `readFile`, existence and canonical paths through `access` (or `exists`, `stat`,
 * `isDirectory`), and the fallback env where the callback is missing. Runtime-neutral.
 */

import type { FileInfo, SignalOptions } from "../contract/env.js";
import { describeValue } from "../contract/errors.js";
import { err, type FileError, ok, type Result } from "../contract/result.js";
import {
	aborted,
	absoluteIn,
	existing,
	fromThrown,
	kindAt,
	missing,
	type OperationsEnvState,
} from "./_operations-state.js";
import { fileError } from "./errors.js";

const encoder = new TextEncoder();

/** The whole file at `path` through `readFile`, checked for an abort before and after. */
async function readAll(
	state: OperationsEnvState,
	path: string,
	options?: SignalOptions,
): Promise<Result<Uint8Array, FileError>> {
	const abs = absoluteIn(state, path);
	if (!abs.ok) return abs;
	const stop = aborted(abs.value, options);
	if (stop) return err(stop);
	const { operations } = state;
	if (!operations.readFile) return err(missing(abs.value, "readFile", "reading"));
	try {
		const data = await operations.readFile(abs.value);
		const bytes = typeof data === "string" ? encoder.encode(data) : data;
		const late = aborted(abs.value, options);
		return late ? err(late) : ok(bytes);
	} catch (error) {
		return err(fromThrown(abs.value, error));
	}
}

export async function canonicalPath(state: OperationsEnvState, path: string): Promise<Result<string, FileError>> {
	const abs = absoluteIn(state, path);
	if (!abs.ok) return abs;
	const { operations, fallback } = state;
	if (!operations.access) {
		if (operations.exists || state.tellsKinds) {
			const found = await existing(state, abs.value);
			return found.ok ? ok(abs.value) : found;
		}
		return fallback ? fallback.canonicalPath(abs.value) : err(missing(abs.value, "access", "canonicalPath"));
	}
	try {
		await operations.access(abs.value);
		return ok(abs.value);
	} catch (error) {
		return err(fromThrown(abs.value, error));
	}
}

export async function exists(state: OperationsEnvState, path: string): Promise<boolean> {
	const abs = absoluteIn(state, path);
	if (!abs.ok) return false;
	const { operations, fallback } = state;
	if (operations.exists || state.tellsKinds) return (await existing(state, abs.value)).ok;
	if (!operations.access) return fallback ? fallback.exists(abs.value) : false;
	try {
		await operations.access(abs.value);
		return true;
	} catch {
		return false;
	}
}

export async function fileInfo(
	state: OperationsEnvState,
	path: string,
	options?: { readonly followSymlinks?: boolean },
): Promise<Result<FileInfo, FileError>> {
	const { operations, fallback } = state;
	if (state.tellsKinds) {
		const abs = absoluteIn(state, path);
		if (!abs.ok) return abs;
		const kind = await kindAt(state, abs.value);
		if (!kind.ok) return kind;
		// A folder has no size here; a file's size is its content's when readFile can tell it.
		if (kind.value === "directory" || !operations.readFile) return ok({ kind: kind.value, size: 0, mtimeMs: 0 });
	} else if (!operations.readFile && fallback) return fallback.fileInfo(path, options);
	const read = await readAll(state, path);
	if (!read.ok) return read;
	return ok({ kind: "file", size: read.value.length, mtimeMs: 0 });
}

export async function readTextFile(
	state: OperationsEnvState,
	path: string,
	options?: SignalOptions,
): Promise<Result<string, FileError>> {
	if (!state.operations.readFile && state.fallback) return state.fallback.readTextFile(path, options);
	const read = await readAll(state, path, options);
	if (!read.ok) return read;
	return ok(new TextDecoder("utf-8", { ignoreBOM: true }).decode(read.value));
}

export async function readBinaryFile(
	state: OperationsEnvState,
	path: string,
	options?: SignalOptions,
): Promise<Result<Uint8Array, FileError>> {
	if (!state.operations.readFile && state.fallback) return state.fallback.readBinaryFile(path, options);
	return readAll(state, path, options);
}

export async function readRange(
	state: OperationsEnvState,
	path: string,
	offset: number,
	length: number,
	options?: SignalOptions,
): Promise<Result<Uint8Array, FileError>> {
	if (!state.operations.readFile && state.fallback) return state.fallback.readRange(path, offset, length, options);
	if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0) {
		return err(fileError("invalid_argument", describeValue(path), "offset and length must be non-negative integers"));
	}
	const read = await readAll(state, path, options);
	if (!read.ok) return read;
	return ok(read.value.subarray(offset, offset + length));
}
