/**
 * The listing methods of an operations env (`from-operations.ts`): `listDir` through `readdir`
 * (kinds told by `stat` or `isDirectory`) and `findFiles` through `glob`, each checking what the
 * callback returned. Runtime-neutral.
 */

import type { DirEntry, FindFilesRequest, FindFilesResult, SignalOptions } from "../contract/env.js";
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
import { comparePaths } from "./_walk.js";
import { fileError } from "./errors.js";
import type { EnvOperations } from "./operations-types.js";
import { isAbsolutePath, joinPath, normalizePath, relativePath } from "./path.js";

/** Folders' kinds asked of `stat` / `isDirectory` at once when listing one. */
const PARALLEL_STATS = 32;

/** What `findFiles` asks the operations' `glob` to leave out, as the reference's find does. */
const GLOB_IGNORE: readonly string[] = ["**/node_modules/**", "**/.git/**"];

export async function listDir(state: OperationsEnvState, path: string): Promise<Result<DirEntry[], FileError>> {
	const { readdir } = state.operations;
	if (readdir) return listWithReaddir(state, readdir, path);
	if (state.fallback) return state.fallback.listDir(path);
	const abs = absoluteIn(state, path);
	return err(missing(abs.ok ? abs.value : describeValue(path), "folder listing", "listDir"));
}

async function listWithReaddir(
	state: OperationsEnvState,
	readdir: NonNullable<EnvOperations["readdir"]>,
	path: string,
): Promise<Result<DirEntry[], FileError>> {
	const abs = absoluteIn(state, path);
	if (!abs.ok) return abs;
	let names: unknown;
	try {
		names = await readdir(abs.value);
	} catch (error) {
		return err(fromThrown(abs.value, error));
	}
	if (!Array.isArray(names)) {
		return err(
			fileError("io_error", abs.value, `the operations' readdir returned ${describeValue(names)}, not a list of names`),
		);
	}
	for (const name of names) {
		if (typeof name !== "string" || name === "" || name === "." || name === ".." || name.includes("/")) {
			return err(
				fileError(
					"io_error",
					abs.value,
					`the operations' readdir returned ${describeValue(name)}, which is not an entry name`,
				),
			);
		}
	}
	const entries: DirEntry[] = [];
	if (!state.tellsKinds) {
		for (const name of names as string[]) entries.push({ name, kind: "file" });
		return ok(entries);
	}
	// Entries whose kind cannot be told are left out, as the reference's ls skips entries it cannot stat.
	const all = names as string[];
	for (let start = 0; start < all.length; start += PARALLEL_STATS) {
		const chunk = all.slice(start, start + PARALLEL_STATS);
		const kinds = await Promise.all(chunk.map((name) => kindAt(state, joinPath(abs.value, name))));
		chunk.forEach((name, i) => {
			const kind = kinds[i];
			if (kind?.ok) entries.push({ name, kind: kind.value });
		});
	}
	return ok(entries);
}

/** `path` (absolute, or relative to `root`) relative to `root`. */
function relativeTo(root: string, path: string): string {
	if (!isAbsolutePath(path)) return normalizePath(path);
	const inside = root === "/" ? path.slice(1) : path.startsWith(`${root}/`) ? path.slice(root.length + 1) : undefined;
	return inside ?? relativePath(root, normalizePath(path));
}

/** `findFiles` through the operations' `glob` (the env has the method only when `glob` is given). */
export async function findFiles(
	state: OperationsEnvState,
	glob: NonNullable<EnvOperations["glob"]>,
	request: FindFilesRequest,
	options?: SignalOptions,
): Promise<Result<FindFilesResult, FileError>> {
	const abs = absoluteIn(state, request.path);
	if (!abs.ok) return abs;
	if (!Number.isSafeInteger(request.limit) || request.limit < 1) {
		return err(
			fileError("invalid_argument", abs.value, `limit must be a positive integer, got ${describeValue(request.limit)}`),
		);
	}
	const found = state.operations.exists || state.tellsKinds ? await existing(state, abs.value) : ok(undefined);
	if (!found.ok) return found;
	const stop = aborted(abs.value, options);
	if (stop) return err(stop);
	let listed: unknown;
	try {
		listed = await glob(request.pattern, abs.value, { ignore: [...GLOB_IGNORE], limit: request.limit });
	} catch (error) {
		return err(fromThrown(abs.value, error));
	}
	const late = aborted(abs.value, options);
	if (late) return err(late);
	if (!Array.isArray(listed) || !listed.every((p) => typeof p === "string")) {
		return err(
			fileError("io_error", abs.value, `the operations' glob returned ${describeValue(listed)}, not a list of paths`),
		);
	}
	const paths = (listed as string[])
		.map((p) => relativeTo(abs.value, p.replaceAll("\\", "/")))
		.filter((p) => p !== ".")
		.sort(comparePaths);
	// The callback stops at the limit itself, so reaching it is all that can be told (as the reference does).
	return ok({ paths: paths.slice(0, request.limit), limitReached: paths.length >= request.limit });
}
