/**
 * The grep fast path of NodeExecutionEnv (Node only): `rg` (ripgrep) from PATH picks the files
 * the walker would pick (its flags make it honour the same ignore files) and lists those with a
 * match; they are then matched line by line as the walker matches them. Never downloaded: without
 * `rg`, or for a pattern where ripgrep's Rust regex could match differently from JavaScript's, the
 * caller walks instead. The SSH env runs the same steps with the remote host's `rg` (a
 * `PathProgram` of its own) and its own reader.
 */

import type { FileSystem, SearchTextRequest, SearchTextResult, SignalOptions } from "../contract/env.js";
import { err, type FileError, ok, type Result } from "../contract/result.js";
import { findExecutable, type PathProgram, reportsVersion } from "./_node-process.js";
import { comparePaths } from "./_walk.js";
import { fileError } from "./errors.js";
import type { GlobMatcher } from "./glob.js";
import {
	MatchCollector,
	matchFiles,
	type PreparedSearch,
	prepareSearch,
	type SearchReader,
	searchResult,
	searchWithWalker,
} from "./grep.js";

let rgPromise: Promise<string | undefined> | undefined;

/** The path of `rg` on PATH, looked up once per process; undefined when there is none. */
export function findRgBinary(): Promise<string | undefined> {
	rgPromise ??= findExecutable(["rg"], (file) => reportsVersion(file, /^ripgrep \d/));
	return rgPromise;
}

/**
 * Whether ripgrep matches `request.pattern` on exactly the lines JavaScript's regex does. Rust's
 * and JavaScript's regex agree on plain text, `* + ? | ( ) ^ $`, classes that are not negated,
 * escaped punctuation and bounded repetitions with small counts. Not on `.` and `[^...]` (Rust's
 * do not match invalid UTF-8, which JavaScript sees as U+FFFD), `\d \w \s \b` (Unicode in Rust,
 * ASCII in JavaScript), larger repetition counts,
 * `(?...)`, backreferences, control characters or U+FFFD; nor on case folding beyond ASCII. Those
 * patterns are searched by the walker. The files rg lists are matched again with the JavaScript
 * regex, so a pattern here only has to make rg list every file JavaScript finds a line in.
 */
export function rgAgrees(request: SearchTextRequest): boolean {
	const { pattern } = request;
	// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
	if (/[\u0000-\u0008\u000a-\u001f\u007f\ufffd]/u.test(pattern)) return false;
	if (request.ignoreCase && /[^ -~\t]/u.test(pattern)) return false;
	if (request.literal) return true;
	let inClass = false;
	for (let i = 0; i < pattern.length; i++) {
		const c = pattern[i] as string;
		if (c === "\\") {
			const next = pattern[i + 1];
			if (next === undefined || !/[!-/:-@[-`{-~]/.test(next)) return false;
			i++;
			continue;
		}
		if (inClass) {
			if (c === "]") inClass = false;
			else if (c === "[" || c === "&" || c === "~") return false;
			continue;
		}
		if (c === "[") {
			if (pattern[i + 1] === "^" || pattern[i + 1] === "]") return false;
			inClass = true;
			continue;
		}
		if (c === "{") {
			// A bounded repetition means the same to both (the pattern compiled in JavaScript's `u` mode,
			// which has no other use for a brace). Counts stay small: past rg's size limit it would fail.
			const repeat = /^\{(\d{1,3})(?:,(\d{1,3})?)?\}/.exec(pattern.slice(i));
			if (!repeat || Number(repeat[1]) > 100 || Number(repeat[2] ?? 0) > 100) return false;
			i += repeat[0].length - 1;
			continue;
		}
		if (c === "." || c === "}") return false;
		if (c === "(" && pattern[i + 1] === "?") return false;
	}
	return !inClass;
}

/**
 * The files rg finds a match in, relative to `root`, that `glob` lets through and that come after
 * `after` in path order: the first `keep` of them in path order, and whether there were more.
 * rg runs on all cores and lists each file once, at its first match, so only the names reach us;
 * memory holds at most twice `keep` of them.
 */
async function filesWithMatches(
	rg: PathProgram,
	root: string,
	request: SearchTextRequest,
	glob: GlobMatcher | undefined,
	after: string | undefined,
	keep: number,
	signal: AbortSignal | undefined,
): Promise<Result<{ paths: string[]; more: boolean } | "not-utf8", FileError>> {
	const args = [
		"--files-with-matches",
		"--null",
		"--no-config",
		"--no-ignore-global",
		"--no-mmap",
		"--crlf",
		"--encoding",
		"none",
		"--glob",
		"!.git",
	];
	if (request.hidden) args.push("--hidden");
	if (request.literal) args.push("--fixed-strings");
	if (request.ignoreCase) args.push("--ignore-case");
	args.push("--regexp", request.pattern, "./");
	let kept: string[] = [];
	let more = false;
	let notUtf8 = false;
	const trim = () => {
		kept.sort(comparePaths);
		if (kept.length > keep) {
			kept = kept.slice(0, keep);
			more = true;
		}
	};
	const run = await rg.list(args, { cwd: root, signal }, (path, utf8) => {
		if (!utf8) notUtf8 = true;
		if (notUtf8) return;
		if (glob && !glob.matches(path)) return;
		if (after !== undefined && comparePaths(path, after) <= 0) return;
		kept.push(path);
		if (kept.length >= 2 * keep) trim();
	});
	if (!run.ok)
		return err(
			run.why === "aborted" ? fileError("aborted", root) : fileError("io_error", root, run.message, run.osCode),
		);
	// Exit 2 also follows unreadable files or folders, which the walker skips silently too.
	if (run.code !== 0 && run.code !== 1 && !(run.code === 2 && !/regex parse error/.test(run.stderr))) {
		return err(fileError("io_error", root, `${rg.name} exited with code ${run.code}: ${run.stderr.trim()}`));
	}
	if (notUtf8) return ok("not-utf8");
	trim();
	return ok({ paths: kept, more });
}

/**
 * `searchText` with rg choosing the files: rg lists the files with a match (in parallel, in no
 * particular order), the first ones in path order are read with `read` and matched line by line
 * exactly as the walker matches them, until `limit` matches. rg lists at most `limit` files at a
 * time (a file it lists has at least one match); should they hold fewer matches than that (a file
 * binary past rg's first look at it, one gone since), the files after them are listed next.
 * Resolves to "not-utf8" when rg lists a path that is not valid UTF-8: the walker, which counts
 * such names, then gives the result.
 */
export async function searchWithRg(
	rg: PathProgram,
	prepared: PreparedSearch,
	request: SearchTextRequest,
	reader: SearchReader,
	signal: AbortSignal | undefined,
): Promise<Result<SearchTextResult | "not-utf8", FileError>> {
	const { root } = prepared;
	const collector = new MatchCollector(request.limit);
	let after: string | undefined;
	let keep = request.limit;
	for (;;) {
		const listed = await filesWithMatches(rg, root, request, prepared.glob, after, keep, signal);
		if (!listed.ok) return listed;
		if (listed.value === "not-utf8") return ok("not-utf8");
		const { paths, more } = listed.value;
		const files = paths.map((path) => ({ path, absolutePath: root === "/" ? `/${path}` : `${root}/${path}` }));
		try {
			await matchFiles(files, reader.read, prepared, collector, signal, reader.parallel);
		} catch {
			return err(fileError("aborted", root));
		}
		if (collector.done || !more) break;
		after = paths[paths.length - 1];
		keep *= 2;
	}
	return ok(searchResult(collector, 0));
}

/**
 * `searchText` through `rg` (for a request `rgAgrees` with): the request checked as the walker
 * checks it, then `searchWithRg` reading with `makeReader`'s reader, and the walker over `fs`
 * (with the same reader) when rg lists a name that is not valid UTF-8.
 */
export async function searchThroughRg(
	fs: FileSystem,
	rg: PathProgram,
	request: SearchTextRequest,
	options: SignalOptions,
	makeReader: (prepared: PreparedSearch) => SearchReader,
): Promise<Result<SearchTextResult, FileError>> {
	const prepared = await prepareSearch(fs, request);
	if (!prepared.ok) return prepared;
	const found = await searchWithRg(rg, prepared.value, request, makeReader(prepared.value), options.signal);
	if (found.ok && found.value === "not-utf8") return searchWithWalker(fs, request, options, makeReader);
	return found as Result<SearchTextResult, FileError>;
}
