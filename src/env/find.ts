/**
 * `findFiles` over any FileSystem: the walker plus the find glob. The memory env uses it, the
 * Node env where `fd` is missing, and the find tool for envs without a `findFiles` of their own.
 */

import type { FileSystem, FindFilesRequest, FindFilesResult, SignalOptions } from "../contract/env.js";
import { err, type FileError, ok, type Result } from "../contract/result.js";
import { walk } from "./_walk.js";
import { fileError } from "./errors.js";
import { compileGlob, type GlobMatcher } from "./glob.js";

/** The ignore files find honours besides `.gitignore`; the later one wins, as in `fd`. */
export const FIND_IGNORE_FILES: readonly string[] = [".ignore", ".fdignore"];

/** The request checked: the absolute folder (which must be a folder) and the compiled pattern. */
export async function prepareFind(
	fs: FileSystem,
	request: FindFilesRequest,
): Promise<Result<{ root: string; matcher: GlobMatcher }, FileError>> {
	const root = fs.absolutePath(request.path);
	if (!root.ok) return root;
	if (!Number.isInteger(request.limit) || request.limit < 1)
		return err(fileError("invalid_argument", root.value, `limit must be a positive integer, got ${request.limit}`));
	let matcher: GlobMatcher;
	try {
		matcher = compileGlob(request.pattern);
	} catch (error) {
		return err(fileError("invalid_argument", root.value, (error as Error).message));
	}
	const info = await fs.fileInfo(root.value);
	if (!info.ok) return info;
	if (info.value.kind !== "directory")
		return err(fileError("not_directory", root.value, "find searches a folder; pass the folder that holds it"));
	return ok({ root: root.value, matcher });
}

/** `findFiles` by walking the tree through `fs`. */
export async function findWithWalker(
	fs: FileSystem,
	request: FindFilesRequest,
	options: SignalOptions = {},
): Promise<Result<FindFilesResult, FileError>> {
	const prepared = await prepareFind(fs, request);
	if (!prepared.ok) return prepared;
	const { root, matcher } = prepared.value;
	const paths: string[] = [];
	let skippedNames = 0;
	const result = (limitReached: boolean): FindFilesResult => ({
		paths,
		limitReached,
		...(skippedNames > 0 ? { skippedNames } : {}),
	});
	try {
		for await (const entry of walk(fs, root, {
			hidden: request.hidden ?? false,
			ignoreFiles: FIND_IGNORE_FILES,
			signal: options.signal,
			onUnreachable: () => {
				skippedNames++;
			},
		})) {
			if (entry.kind !== "file" && entry.kind !== "symlink") continue;
			if (!matcher.matches(entry.path)) continue;
			if (paths.length === request.limit) return ok(result(true));
			paths.push(entry.path);
		}
	} catch (error) {
		if (options.signal?.aborted) return err(fileError("aborted", root));
		return err(fileError("io_error", root, (error as Error).message));
	}
	return ok(result(false));
}
