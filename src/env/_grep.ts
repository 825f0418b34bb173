/**
 * `searchText` over any FileSystem: the walker, then each text file read and matched line by line.
 * The memory env uses it, the Node env where `rg` is missing or cannot give the same result, and
 * the grep tool for envs without a `searchText` of their own. Also the pattern and line rules both
 * paths share, so that they agree.
 */
import { err, type FileError, ok, type Result } from "../contract/result.js";
import { fileError } from "./_errors.js";
import { compileGlob, type GlobMatcher } from "./_glob.js";
import { walk } from "./_walk.js";
import type { FileSystem, SearchTextMatch, SearchTextRequest, SearchTextResult, SignalOptions } from "./types.js";

/** The ignore files grep honours besides `.gitignore`; the later one wins, as in `rg`. */
export const GREP_IGNORE_FILES: readonly string[] = [".ignore", ".rgignore"];

/** Files read at the same time by default; results are still taken in walk order. */
const PARALLEL_READS = 8;

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** The search regex: JavaScript syntax with the `u` flag, or the escaped text for `literal`. Throws a clear Error. */
export function compileSearchPattern(pattern: string, literal: boolean, ignoreCase: boolean): RegExp {
	const source = literal ? pattern.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&") : pattern;
	try {
		return new RegExp(source, ignoreCase ? "iu" : "u");
	} catch (error) {
		throw new Error(
			`Invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message.replace(/^Invalid regular expression: /, "")}. grep uses JavaScript regex syntax; pass literal: true to search for the text as it is.`,
		);
	}
}

/** The text a line is matched against: the line without its `\r\n` ending's `\r`. */
export function matchedText(line: string): string {
	return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** The text a line is shown as: every `\r` removed. */
export function shownText(line: string): string {
	return line.replace(/\r/g, "");
}

/** The lines of a file's text (no `\n`; an empty file has none). */
function splitLines(text: string): string[] {
	if (text === "") return [];
	const lines = text.split("\n");
	if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
	return lines;
}

/**
 * A regex run once over a whole file to skip files without a matching line: `regex` in multiline
 * mode. A line that matches is a stretch of the file between line breaks, and with `m` the
 * anchors `^` and `$` hold at those breaks as they do at a line's ends (also before a `\r\n`'s
 * `\r`, which a line is matched without), `\b` sees a line break as the non-word character it
 * is, and everything else only consumes characters of the line: so a file with a matching line
 * always matches. Lookarounds could look across a line break, so a pattern with one gets none.
 */
export function fileFilter(regex: RegExp): RegExp | undefined {
	if (/\(\?<?[=!]/.test(regex.source)) return undefined;
	return new RegExp(regex.source, `${regex.flags}m`);
}

/**
 * The matches of one file's bytes, at most `room`; undefined when the file is binary (a NUL byte
 * anywhere). `filter` (from `fileFilter`) skips splitting a file that cannot match.
 */
export function matchFile(
	path: string,
	bytes: Uint8Array,
	search: { readonly regex: RegExp; readonly filter: RegExp | undefined; readonly context: number },
	room: number,
): SearchTextMatch[] | undefined {
	if (bytes.indexOf(0) !== -1) return undefined;
	const text = decoder.decode(bytes);
	if (search.filter && !search.filter.test(text)) return [];
	return matchLines(path, splitLines(text), search.regex, search.context, room);
}

/**
 * The matches of a file read in pieces (a large one: memory holds one piece, the current line, the
 * last `context` lines and the matches), at most `room`; undefined when the file is binary (a NUL
 * byte anywhere: the whole file is read to tell, as `matchFile` does). The same matches as
 * `matchFile` on the whole file's bytes; `filter` skips splitting a piece that cannot match.
 */
export async function matchChunks(
	path: string,
	chunks: AsyncIterable<Uint8Array>,
	search: { readonly regex: RegExp; readonly filter: RegExp | undefined; readonly context: number },
	room: number,
): Promise<SearchTextMatch[] | undefined> {
	const { regex, context } = search;
	const found: SearchTextMatch[] = [];
	// Matches still taking their after-context, and the last `context` lines (shown form).
	let open: { readonly line: number; readonly after: string[] }[] = [];
	const recent: string[] = [];
	let number = 0;
	const onLine = (line: string) => {
		number++;
		const shown = context > 0 || found.length < room ? shownText(line) : "";
		if (open.length > 0) {
			for (const hit of open) hit.after.push(shown);
			open = open.filter((hit) => hit.after.length < context);
		}
		if (found.length < room && regex.test(matchedText(line))) {
			const after: string[] = [];
			found.push({ path, line: number, text: shown, before: [...recent], after });
			if (context > 0) open.push({ line: number, after });
		}
		if (context > 0) {
			recent.push(shown);
			if (recent.length > context) recent.shift();
		}
	};
	/** Lines known not to match: counted, and the last `context` of them kept for what follows. */
	const skipLines = (whole: string) => {
		let count = 1;
		for (let at = whole.indexOf("\n"); at >= 0; at = whole.indexOf("\n", at + 1)) count++;
		number += count;
		if (context === 0) return;
		const tail: string[] = [];
		let stop = whole.length;
		while (tail.length < Math.min(context, count)) {
			const start = whole.lastIndexOf("\n", stop - 1);
			tail.unshift(shownText(whole.slice(start + 1, stop)));
			stop = start;
		}
		recent.push(...tail);
		recent.splice(0, Math.max(0, recent.length - context));
	};
	// The bytes after the last line break so far: the start of a line the next piece ends. Pieces
	// are cut after a `\n` byte, which no multi-byte UTF-8 sequence holds, so each decodes alone.
	let carry: Uint8Array = new Uint8Array(0);
	for await (const chunk of chunks) {
		if (chunk.indexOf(0) !== -1) return undefined;
		// Once the matches are all taken and their context is complete, only the NUL check remains.
		if (found.length >= room && open.length === 0) continue;
		const end = chunk.lastIndexOf(0x0a);
		if (end < 0) {
			carry = joinBytes(carry, chunk);
			continue;
		}
		// The whole lines of this piece; as in `matchFile`, one regex pass tells they hold no match.
		const whole = decoder.decode(joinBytes(carry, chunk.subarray(0, end)));
		carry = new Uint8Array(chunk.subarray(end + 1));
		if (open.length === 0 && search.filter && !search.filter.test(whole)) skipLines(whole);
		else for (const line of whole.split("\n")) onLine(line);
	}
	if ((found.length < room || open.length > 0) && carry.length > 0) onLine(decoder.decode(carry));
	return found;
}

function joinBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
	if (a.length === 0) return b;
	const joined = new Uint8Array(a.length + b.length);
	joined.set(a);
	joined.set(b, a.length);
	return joined;
}

/** A file too large to read at once: its bytes in pieces, read when the search gets to it. */
export interface LargeSearchFile {
	readonly chunks: () => AsyncIterable<Uint8Array>;
}

/** How an env reads the files of a search, when it has a faster way than `readBinaryFile`. */
export interface SearchReader {
	/**
	 * The file's bytes (or, for a large file, a way to read it in pieces), or undefined when it
	 * cannot be read or cannot hold a match (it is then skipped).
	 */
	readonly read: (absolutePath: string) => Promise<Uint8Array | LargeSearchFile | undefined>;
	/** Files read at the same time. Default 8. */
	readonly parallel?: number;
}

/** A file to search: its path relative to the searched folder and its absolute path. */
export interface SearchFile {
	readonly path: string;
	readonly absolutePath: string;
}

/**
 * The first `limit` matches of `files`, taken in their order, each file read with `read`
 * (undefined when it cannot be read: skipped) while the next few are read already. Appends to
 * `matches`; stops reading as soon as `limit` is reached. Throws `Error("Operation aborted")` once
 * `signal` fires.
 */
export async function matchFiles(
	files: AsyncIterable<SearchFile> | Iterable<SearchFile>,
	read: SearchReader["read"],
	search: { readonly regex: RegExp; readonly filter: RegExp | undefined; readonly context: number },
	limit: number,
	matches: SearchTextMatch[],
	signal: AbortSignal | undefined,
	parallel = PARALLEL_READS,
): Promise<void> {
	const pending: { path: string; bytes: Promise<Uint8Array | LargeSearchFile | undefined> }[] = [];
	const drain = async (keep: number) => {
		while (pending.length > keep && matches.length < limit) {
			const file = pending.shift() as (typeof pending)[number];
			const bytes = await file.bytes;
			if (signal?.aborted) throw new Error("Operation aborted");
			if (bytes === undefined) continue;
			const room = limit - matches.length;
			const found =
				bytes instanceof Uint8Array
					? matchFile(file.path, bytes, search, room)
					: await matchChunks(file.path, bytes.chunks(), search, room);
			if (found) for (const match of found) matches.push(match);
		}
	};
	for await (const file of files) {
		if (signal?.aborted) throw new Error("Operation aborted");
		pending.push({ path: file.path, bytes: read(file.absolutePath) });
		await drain(parallel - 1);
		if (matches.length >= limit) break;
	}
	await drain(0);
	// Reads started but not needed still settle; nothing waits for them.
	for (const file of pending) file.bytes.catch(() => undefined);
}

/** The matches of one file's lines, at most `room` of them. */
export function matchLines(
	path: string,
	lines: readonly string[],
	regex: RegExp,
	context: number,
	room: number,
): SearchTextMatch[] {
	const found: SearchTextMatch[] = [];
	for (let i = 0; i < lines.length && found.length < room; i++) {
		if (!regex.test(matchedText(lines[i] as string))) continue;
		const first = Math.max(0, i - context);
		const last = Math.min(lines.length - 1, i + context);
		found.push({
			path,
			line: i + 1,
			text: shownText(lines[i] as string),
			before: lines.slice(first, i).map(shownText),
			after: lines.slice(i + 1, last + 1).map(shownText),
		});
	}
	return found;
}

/** A `SearchTextRequest` checked and compiled. */
export interface PreparedSearch {
	/** The absolute folder. */
	readonly root: string;
	readonly regex: RegExp;
	/** `fileFilter(regex)`. */
	readonly filter: RegExp | undefined;
	readonly glob: GlobMatcher | undefined;
	readonly context: number;
}

/** The request checked: the absolute folder, the regex and the glob; `invalid_argument` names the problem. */
export async function prepareSearch(
	fs: FileSystem,
	request: SearchTextRequest,
): Promise<Result<PreparedSearch, FileError>> {
	const root = fs.absolutePath(request.path);
	if (!root.ok) return root;
	if (!Number.isInteger(request.limit) || request.limit < 1)
		return err(fileError("invalid_argument", root.value, `limit must be a positive integer, got ${request.limit}`));
	let regex: RegExp;
	let glob: GlobMatcher | undefined;
	try {
		regex = compileSearchPattern(request.pattern, request.literal === true, request.ignoreCase === true);
		glob = request.glob ? compileGlob(request.glob) : undefined;
	} catch (error) {
		return err(fileError("invalid_argument", root.value, (error as Error).message));
	}
	const info = await fs.fileInfo(root.value);
	if (!info.ok) return info;
	if (info.value.kind !== "directory")
		return err(fileError("not_directory", root.value, "searchText searches a folder; pass the folder that holds it"));
	const context = request.context && request.context > 0 ? Math.floor(request.context) : 0;
	return ok({ root: root.value, regex, filter: fileFilter(regex), glob, context });
}

/** `searchText` by walking the tree through `fs` and reading the files, several at a time. */
export async function searchWithWalker(
	fs: FileSystem,
	request: SearchTextRequest,
	options: SignalOptions = {},
	makeReader?: (prepared: PreparedSearch) => SearchReader,
): Promise<Result<SearchTextResult, FileError>> {
	const prepared = await prepareSearch(fs, request);
	if (!prepared.ok) return prepared;
	const reader = makeReader?.(prepared.value);
	const { root, glob } = prepared.value;
	const signal = options.signal;
	const matches: SearchTextMatch[] = [];
	const read =
		reader?.read ??
		(async (absolutePath: string) => {
			const bytes = await fs.readBinaryFile(absolutePath, signal ? { signal } : undefined);
			return bytes.ok ? bytes.value : undefined;
		});
	const entries = walk(fs, root, { hidden: request.hidden ?? false, ignoreFiles: GREP_IGNORE_FILES, signal });
	async function* files(): AsyncGenerator<SearchFile> {
		for await (const entry of entries) {
			if (entry.kind === "file" && !(glob && !glob.matches(entry.path))) yield entry;
		}
	}
	try {
		await matchFiles(files(), read, prepared.value, request.limit, matches, signal, reader?.parallel);
	} catch (error) {
		if (signal?.aborted) return err(fileError("aborted", root));
		return err(fileError("io_error", root, (error as Error).message));
	}
	return ok({ matches, limitReached: matches.length >= request.limit });
}
