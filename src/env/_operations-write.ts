/**
 * The changing methods of an operations env (`from-operations.ts`): `writeFile` (text, after
 * `mkdir` of its folder) and `createDir` through the callbacks; appends, renames, removals and
 * temp files go to the fallback env, or fail naming the missing operation. Runtime-neutral.
 */

import type { SignalOptions } from "../contract/env.js";
import { describeValue } from "../contract/errors.js";
import { err, type FileError, ok, type Result } from "../contract/result.js";
import { aborted, absoluteIn, fromThrown, missing, type OperationsEnvState } from "./_operations-state.js";
import { fileError } from "./errors.js";
import { dirname } from "./path.js";

export async function writeFile(
	state: OperationsEnvState,
	path: string,
	data: string | Uint8Array,
	options?: SignalOptions,
): Promise<Result<void, FileError>> {
	const { operations, fallback } = state;
	if (!operations.writeFile && fallback) return fallback.writeFile(path, data, options);
	const abs = absoluteIn(state, path);
	if (!abs.ok) return abs;
	const stop = aborted(abs.value, options);
	if (stop) return err(stop);
	if (!operations.writeFile) return err(missing(abs.value, "writeFile", "writing"));
	let text: string;
	try {
		text = typeof data === "string" ? data : new TextDecoder("utf-8", { fatal: true }).decode(data);
	} catch {
		return err(
			fileError(
				"invalid_argument",
				abs.value,
				"the operations write text, and these bytes are not valid UTF-8; nothing was written",
			),
		);
	}
	try {
		if (operations.mkdir) await operations.mkdir(dirname(abs.value));
		await operations.writeFile(abs.value, text);
		return ok(undefined);
	} catch (error) {
		return err(fromThrown(abs.value, error));
	}
}

export async function createDir(
	state: OperationsEnvState,
	path: string,
	options?: { readonly recursive?: boolean },
): Promise<Result<void, FileError>> {
	const { operations } = state;
	if (!operations.mkdir) {
		if (state.fallback) return state.fallback.createDir(path, options);
		return err(missing(describeValue(path), "mkdir", "createDir"));
	}
	const abs = absoluteIn(state, path);
	if (!abs.ok) return abs;
	try {
		await operations.mkdir(abs.value);
		return ok(undefined);
	} catch (error) {
		return err(fromThrown(abs.value, error));
	}
}

export async function appendFile(
	state: OperationsEnvState,
	path: string,
	data: string | Uint8Array,
): Promise<Result<void, FileError>> {
	if (state.fallback) return state.fallback.appendFile(path, data);
	const abs = absoluteIn(state, path);
	return err(missing(abs.ok ? abs.value : describeValue(path), "append", "appendFile"));
}

export async function rename(state: OperationsEnvState, from: string, to: string): Promise<Result<void, FileError>> {
	if (state.fallback) return state.fallback.rename(from, to);
	return err(missing(describeValue(from), "rename", "rename"));
}

export async function remove(
	state: OperationsEnvState,
	path: string,
	options?: { readonly recursive?: boolean },
): Promise<Result<void, FileError>> {
	if (state.fallback) return state.fallback.remove(path, options);
	return err(missing(describeValue(path), "remove", "remove"));
}

export async function createTempFile(
	state: OperationsEnvState,
	options?: { readonly prefix?: string; readonly suffix?: string },
): Promise<Result<string, FileError>> {
	if (state.fallback) return state.fallback.createTempFile(options);
	return err(missing("(temp file)", "temp files", "createTempFile"));
}

export async function createTempDir(
	state: OperationsEnvState,
	options?: { readonly prefix?: string },
): Promise<Result<string, FileError>> {
	if (state.fallback) return state.fallback.createTempDir(options);
	return err(missing("(temp folder)", "temp folders", "createTempDir"));
}
