/**
 * The grep fast path of NodeExecutionEnv (Node only): `rg` (ripgrep) from PATH searches the tree,
 * `--json` gives exact paths, line numbers and line bytes, and the flags make it pick the files
 * the walker picks, in the same order. Never downloaded: without `rg`, or for a pattern where
 * ripgrep's Rust regex could match differently from JavaScript's, the caller walks instead.
 */
import { spawn } from "node:child_process";
import { err, type FileError, ok, type Result } from "../contract/result.js";
import { fileError } from "./_errors.js";
import type { GlobMatcher } from "./_glob.js";
import { matchedText, shownText } from "./_grep.js";
import { findExecutable, reportsVersion, withoutHomeConfig } from "./_node-process.js";
import type { SearchTextMatch, SearchTextRequest, SearchTextResult } from "./types.js";

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
 * patterns are searched by the walker. Lines rg reports are checked again with the JavaScript
 * regex, so a pattern here only has to make rg find every line JavaScript finds.
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

const textDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

interface RgData {
	readonly text?: string;
	readonly bytes?: string;
}

function dataText(data: RgData | undefined): string {
	if (data?.text !== undefined) return data.text;
	if (data?.bytes !== undefined) return textDecoder.decode(Buffer.from(data.bytes, "base64"));
	return "";
}

/** One line as rg reports it, its ending removed. */
function lineOf(data: RgData | undefined): string {
	const text = dataText(data);
	return text.endsWith("\n") ? text.slice(0, -1) : text;
}

/**
 * Run `rg` over `root` (a folder) and return the first `limit` matches the JavaScript `regex`
 * confirms. rg is run single-threaded in path order (`--sort path`), so it can stop at `limit`.
 */
export function searchWithRg(
	rg: string,
	root: string,
	prepared: { readonly regex: RegExp; readonly glob: GlobMatcher | undefined; readonly context: number },
	request: SearchTextRequest,
	signal: AbortSignal | undefined,
): Promise<Result<SearchTextResult, FileError>> {
	if (signal?.aborted) return Promise.resolve(err(fileError("aborted", root)));
	const { regex, glob, context } = prepared;
	const args = [
		"--json",
		"--no-config",
		"--no-ignore-global",
		"--no-mmap",
		"--crlf",
		"--encoding",
		"none",
		"--sort",
		"path",
		"--glob",
		"!.git",
	];
	if (request.hidden) args.push("--hidden");
	if (request.literal) args.push("--fixed-strings");
	if (request.ignoreCase) args.push("--ignore-case");
	if (context > 0) args.push("--context", String(context));
	args.push("--regexp", request.pattern, "./");
	const env = withoutHomeConfig();
	delete env.RIPGREP_CONFIG_PATH;
	return new Promise((resolve) => {
		const child = spawn(rg, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env });
		const matches: SearchTextMatch[] = [];
		// The file being reported. Memory holds its confirmed matches (at most `room`), the last
		// `context` lines (the next match's before-context) and nothing else.
		interface Hit {
			readonly match: SearchTextMatch;
			readonly after: string[];
		}
		interface File {
			readonly path: string;
			readonly skip: boolean;
			readonly room: number;
			readonly found: SearchTextMatch[];
			readonly recent: { readonly n: number; readonly text: string }[];
			open: Hit[];
		}
		let file: File | undefined;
		const onLine = (current: File, n: number, raw: string, isMatch: boolean) => {
			if (current.found.length >= current.room && current.open.length === 0) return;
			const shown = shownText(raw);
			current.open = current.open.filter((hit) => {
				if (n !== hit.match.line + hit.after.length + 1) return false;
				hit.after.push(shown);
				return hit.after.length < context;
			});
			if (isMatch && current.found.length < current.room && regex.test(matchedText(raw))) {
				const before = current.recent.filter((line) => line.n >= n - context).map((line) => line.text);
				const after: string[] = [];
				const match: SearchTextMatch = { path: current.path, line: n, text: shown, before, after };
				current.found.push(match);
				if (context > 0) current.open.push({ match, after });
			}
			if (context > 0) {
				current.recent.push({ n, text: shown });
				if (current.recent.length > context) current.recent.shift();
			}
		};
		const endFile = (binary: boolean) => {
			const current = file;
			file = undefined;
			if (!current || binary || current.skip) return;
			matches.push(...current.found);
			if (matches.length >= request.limit) finish(ok({ matches, limitReached: true }));
		};
		let pending = "";
		let stderr = "";
		let done = false;
		const finish = (result: Result<SearchTextResult, FileError>) => {
			if (done) return;
			done = true;
			signal?.removeEventListener("abort", onAbort);
			child.kill();
			resolve(result);
		};
		const onAbort = () => finish(err(fileError("aborted", root)));
		signal?.addEventListener("abort", onAbort, { once: true });
		const take = (json: string) => {
			if (json === "") return;
			const message = JSON.parse(json) as {
				type: string;
				data: {
					path?: RgData;
					lines?: RgData;
					line_number?: number;
					binary_offset?: number | null;
				};
			};
			const { type, data } = message;
			if (type === "begin") {
				let path = dataText(data.path);
				if (path.startsWith("./")) path = path.slice(2);
				const skip = glob !== undefined && !glob.matches(path);
				file = { path, skip, room: request.limit - matches.length, found: [], recent: [], open: [] };
			} else if ((type === "match" || type === "context") && file && !file.skip) {
				onLine(file, data.line_number as number, lineOf(data.lines), type === "match");
			} else if (type === "end") {
				endFile(data.binary_offset !== null && data.binary_offset !== undefined);
			}
		};
		child.stdout.setEncoding("utf8");
		child.stdout.on("data", (chunk: string) => {
			if (done) return;
			const data = pending + chunk;
			let start = 0;
			for (let nl = data.indexOf("\n", start); nl >= 0 && !done; nl = data.indexOf("\n", start)) {
				take(data.slice(start, nl));
				start = nl + 1;
			}
			pending = data.slice(start);
		});
		child.stderr.on("data", (chunk: Buffer) => {
			if (stderr.length < 4096) stderr += chunk.toString("utf8");
		});
		child.on("error", (error) => finish(err(fileError("io_error", root, `could not run ${rg}: ${error.message}`))));
		child.on("close", (code) => {
			if (done) return;
			if (pending !== "") take(pending);
			// Exit 2 also follows unreadable files or folders, which the walker skips silently too.
			if (code !== 0 && code !== 1 && !(code === 2 && !/regex parse error/.test(stderr))) {
				finish(err(fileError("io_error", root, `${rg} exited with code ${code}: ${stderr.trim()}`)));
				return;
			}
			finish(ok({ matches, limitReached: matches.length >= request.limit }));
		});
	});
}
