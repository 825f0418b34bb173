/**
 * The find fast path of NodeExecutionEnv (Node only): `fd` (Debian: `fdfind`) from PATH lists the
 * files, the find glob of `glob.ts` selects them, and they are sorted as the walker yields them,
 * so the result equals `findWithWalker`'s. Never downloaded: without `fd` the caller walks. The SSH
 * env runs the same steps with the remote host's `fd` (a `PathProgram` of its own).
 */

import type { FileSystem, FindFilesRequest, FindFilesResult, SignalOptions } from "../contract/env.js";
import { err, type FileError, ok, type Result } from "../contract/result.js";
import { findExecutable, type PathProgram, reportsVersion } from "./_node-process.js";
import { comparePaths } from "./_walk.js";
import { fileError } from "./errors.js";
import { findWithWalker, prepareFind } from "./find.js";
import type { GlobMatcher } from "./glob.js";

let fdPromise: Promise<string | undefined> | undefined;

/** The path of `fd` or `fdfind` on PATH, looked up once per process; undefined when there is none. */
export function findFdBinary(): Promise<string | undefined> {
	fdPromise ??= findExecutable(["fd", "fdfind"], (file) => reportsVersion(file, /^fd(find)? \d/));
	return fdPromise;
}

/**
 * Run `fd` over `root` and keep the matching paths: all of them, sorted, then the first `limit`.
 * Memory holds the matches, not every file fd lists. Resolves to "not-utf8" when fd lists a path
 * that is not valid UTF-8: the walker, which counts such names, then gives the result.
 */
export async function findWithFd(
	fd: PathProgram,
	root: string,
	matcher: GlobMatcher,
	request: { readonly limit: number; readonly hidden?: boolean },
	signal: AbortSignal | undefined,
): Promise<Result<FindFilesResult | "not-utf8", FileError>> {
	const args = ["--type", "f", "--type", "l", "--print0", "--color", "never", "--exclude", ".git"];
	if (request.hidden) args.push("--hidden");
	args.push("--base-directory", root);
	// `.ignore` and `.fdignore` (FIND_IGNORE_FILES) are fd's own ignore files, read without flags.
	const matches: string[] = [];
	let notUtf8 = false;
	const run = await fd.list(args, { signal }, (path, utf8) => {
		if (!utf8) notUtf8 = true;
		if (!notUtf8 && matcher.matches(path)) matches.push(path);
	});
	if (!run.ok)
		return err(
			run.why === "aborted" ? fileError("aborted", root) : fileError("io_error", root, run.message, run.osCode),
		);
	// fd exits 1 after reporting unreadable folders; it still listed the rest, as the walker does.
	if (run.code !== 0 && run.code !== 1) {
		return err(fileError("io_error", root, `${fd.name} exited with code ${run.code}: ${run.stderr.trim()}`));
	}
	if (notUtf8) return ok("not-utf8");
	matches.sort(comparePaths);
	const limitReached = matches.length > request.limit;
	return ok({ paths: limitReached ? matches.slice(0, request.limit) : matches, limitReached });
}

/**
 * `findFiles` through `fd`: the request checked as the walker checks it, then `findWithFd`, and
 * the walker over `fs` when fd lists a name that is not valid UTF-8.
 */
export async function findThroughFd(
	fs: FileSystem,
	fd: PathProgram,
	request: FindFilesRequest,
	options: SignalOptions,
): Promise<Result<FindFilesResult, FileError>> {
	const prepared = await prepareFind(fs, request);
	if (!prepared.ok) return prepared;
	const found = await findWithFd(fd, prepared.value.root, prepared.value.matcher, request, options.signal);
	if (found.ok && found.value === "not-utf8") return findWithWalker(fs, request, options);
	return found as Result<FindFilesResult, FileError>;
}
