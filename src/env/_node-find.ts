/**
 * The find fast path of NodeExecutionEnv (Node only): `fd` (Debian: `fdfind`) from PATH lists the
 * files, the find glob of `_glob.ts` selects them, and they are sorted as the walker yields them,
 * so the result equals `findWithWalker`'s. Never downloaded: without `fd` the caller walks.
 */
import { spawn } from "node:child_process";
import { err, type FileError, ok, type Result } from "../contract/result.js";
import { fileError } from "./_errors.js";
import type { GlobMatcher } from "./_glob.js";
import { findExecutable, reportsVersion, withoutHomeConfig } from "./_node-process.js";
import { comparePaths } from "./_walk.js";
import type { FindFilesResult } from "./types.js";

let fdPromise: Promise<string | undefined> | undefined;

/** The path of `fd` or `fdfind` on PATH, looked up once per process; undefined when there is none. */
export function findFdBinary(): Promise<string | undefined> {
	fdPromise ??= findExecutable(["fd", "fdfind"], (file) => reportsVersion(file, /^fd(find)? \d/));
	return fdPromise;
}

/**
 * Run `fd` over `root` and keep the matching paths: all of them, sorted, then the first `limit`.
 * Memory holds the matches, not every file fd lists.
 */
export function findWithFd(
	fd: string,
	root: string,
	matcher: GlobMatcher,
	request: { readonly limit: number; readonly hidden?: boolean },
	signal: AbortSignal | undefined,
): Promise<Result<FindFilesResult, FileError>> {
	if (signal?.aborted) return Promise.resolve(err(fileError("aborted", root)));
	const args = ["--type", "f", "--type", "l", "--print0", "--color", "never", "--exclude", ".git"];
	if (request.hidden) args.push("--hidden");
	args.push("--base-directory", root);
	// `.ignore` and `.fdignore` (FIND_IGNORE_FILES) are fd's own ignore files, read without flags.
	return new Promise((resolve) => {
		const child = spawn(fd, args, {
			stdio: ["ignore", "pipe", "pipe"],
			env: withoutHomeConfig(),
		});
		const matches: string[] = [];
		let pending = Buffer.alloc(0);
		let stderr = "";
		let done = false;
		const finish = (result: Result<FindFilesResult, FileError>) => {
			if (done) return;
			done = true;
			signal?.removeEventListener("abort", onAbort);
			resolve(result);
		};
		const onAbort = () => {
			child.kill();
			finish(err(fileError("aborted", root)));
		};
		signal?.addEventListener("abort", onAbort, { once: true });
		const take = (bytes: Buffer) => {
			let path = bytes.toString("utf8");
			if (path.startsWith("./")) path = path.slice(2);
			if (path !== "" && matcher.matches(path)) matches.push(path);
		};
		child.stdout.on("data", (chunk: Buffer) => {
			let data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
			let start = 0;
			for (let nul = data.indexOf(0, start); nul >= 0; nul = data.indexOf(0, start)) {
				take(data.subarray(start, nul));
				start = nul + 1;
			}
			data = data.subarray(start);
			pending = Buffer.from(data);
		});
		child.stderr.on("data", (chunk: Buffer) => {
			if (stderr.length < 4096) stderr += chunk.toString("utf8");
		});
		child.on("error", (error) => finish(err(fileError("io_error", root, `could not run ${fd}: ${error.message}`))));
		child.on("close", (code) => {
			if (pending.length > 0) take(pending);
			// fd exits 1 after reporting unreadable folders; it still listed the rest, as the walker does.
			if (code !== 0 && code !== 1) {
				finish(err(fileError("io_error", root, `${fd} exited with code ${code}: ${stderr.trim()}`)));
				return;
			}
			matches.sort(comparePaths);
			const limitReached = matches.length > request.limit;
			finish(ok({ paths: limitReached ? matches.slice(0, request.limit) : matches, limitReached }));
		});
	});
}
