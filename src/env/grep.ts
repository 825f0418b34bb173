/**
 * `searchText` over any FileSystem: the walker, then each text file read and matched line by line.
 * The memory env uses it, the Node env where `rg` is missing or cannot give the same result, and
 * the grep tool for envs without a `searchText` of their own. Also the pattern and line rules both
 * paths share, so that they agree.
 */
import { RE2JS } from "re2js";
import type {
	FileSystem,
	SearchTextMatch,
	SearchTextRequest,
	SearchTextResult,
	SignalOptions,
} from "../contract/env.js";
import { errorMessage } from "../contract/errors.js";
import { err, type FileError, ok, type Result } from "../contract/result.js";
import { walk } from "./_walk.js";
import { fileError } from "./errors.js";
import { compileGlob, type GlobMatcher } from "./glob.js";

/** The ignore files grep honours besides `.gitignore`; the later one wins, as in `rg`. */
export const GREP_IGNORE_FILES: readonly string[] = [".ignore", ".rgignore"];

/** Files read at the same time by default; results are still taken in walk order. */
const PARALLEL_READS = 8;

/**
 * A line longer than this many bytes is matched on its first this many bytes only: one regex run
 * stays a fraction of a second, and memory holds at most this much of a line.
 */
export const MAX_SEARCH_LINE_BYTES = 8 * 1024 * 1024;

/** A file's bytes are matched in pieces of at most this size, with a turn of the event loop between. */
const SCAN_PIECE = 1024 * 1024;

/** The output budget of `searchText` when a request gives none. */
export const DEFAULT_SEARCH_MAX_BYTES = 16 * 1024 * 1024;

/** The cost of one kept line never falls below the path, `:1: ` and a newline: 5 bytes for a one-letter path. */
const MIN_LINE_BYTES = 6;

/**
 * The most context lines a search keeps around a match with an output budget of `maxBytes`: a
 * printed line takes at least 6 bytes, so a longer window could never be shown whole.
 */
export function maxSearchContext(maxBytes: number): number {
	return Math.max(1, Math.ceil(maxBytes / MIN_LINE_BYTES));
}

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** ASCII punctuation: RE2 reads each escaped with `\` as itself. */
const PUNCTUATION = /[!-/:-@[-`{-~]/g;

/** A search pattern compiled for the linear-time engine. */
export interface SearchPattern {
	/** The RE2 source, JavaScript escapes (`\u{…}`, `\uXXXX`, `\cX`) translated. */
	readonly source: string;
	/** RE2JS flag bits (`RE2JS.CASE_INSENSITIVE`). */
	readonly flags: number;
	/** Whether the pattern matches somewhere in `text`; time linear in its length. */
	test(text: string): boolean;
}

/**
 * The search pattern, compiled for RE2 (re2js): a linear-time engine, so no pattern can make a
 * search backtrack for ever. Its syntax is RE2's (as ripgrep's Rust regex: `(?i)`, `\pL`,
 * `[[:alpha:]]`, `\A`, `\z`…) plus JavaScript's `\uXXXX`, `\u{…}` and `\cX`; lookaround and
 * backreferences cannot run in linear time and are refused. `literal` escapes every ASCII
 * punctuation character. Throws an Error naming the pattern and the problem.
 */
export function compileSearchPattern(pattern: string, literal: boolean, ignoreCase: boolean): SearchPattern {
	const flags = ignoreCase ? RE2JS.CASE_INSENSITIVE : 0;
	let source: string;
	let compiled: RE2JS;
	try {
		source = literal ? pattern.replace(PUNCTUATION, "\\$&") : RE2JS.translateRegExp(pattern);
		compiled = RE2JS.compile(source, flags);
	} catch (error) {
		const why = errorMessage(error).replace(/^error parsing regexp: /, "");
		throw new Error(
			`Invalid regular expression ${JSON.stringify(pattern)}: ${why}. grep runs patterns on a linear-time engine (RE2 syntax, as ripgrep's: no lookaround or backreferences); pass literal: true to search for the text as it is.`,
		);
	}
	return { source, flags, test: (text) => compiled.test(text) };
}

/** The text a line is matched against: the line without its `\r\n` ending's `\r`. */
export function matchedText(line: string): string {
	return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** The text a line is shown as: every `\r` removed. */
export function shownText(line: string): string {
	return line.replace(/\r/g, "");
}

/** A quick look at a stretch of whole lines: false only when no line in it can match. */
export interface FileFilter {
	mayMatch(text: string): boolean;
}

/**
 * A regex run once over a stretch of whole lines to skip those without a matching line: the
 * pattern in multiline mode. A matching line is a stretch between line breaks, `^` and `$` hold
 * at those breaks, `\b` sees a break as the non-word character it is, and everything else only
 * consumes characters: so a stretch holding a matching line always matches. Except: RE2's `$`
 * does not hold before a `\r\n`'s `\r` (a line is matched without it), so a stretch with a `\r`
 * is not skipped when the pattern has a `$`; and `\A`, `\z` or a flag group that could turn the
 * multiline mode off mean the pattern gets no filter.
 */
export function fileFilter(pattern: SearchPattern): FileFilter | undefined {
	if (/\\[Az]|\(\?[a-zA-Z-]*m/.test(pattern.source)) return undefined;
	const compiled = RE2JS.compile(pattern.source, pattern.flags | RE2JS.MULTILINE);
	const dollar = pattern.source.includes("$");
	return { mayMatch: (text) => (dollar && text.includes("\r")) || compiled.test(text) };
}

/** What a search matches with: the pattern, its filter, the context and the output budget. */
export interface SearchSettings {
	readonly regex: SearchPattern;
	readonly filter: FileFilter | undefined;
	readonly context: number;
	/** Lines past this many characters are kept cut to one more than it (enough to show them cut). */
	readonly maxLineChars: number;
	/** Matches whose lines would start past this many bytes of output are counted, not kept. */
	readonly maxBytes: number;
}

/**
 * The matches of one search, across files: those kept (while they fit the output budget) and the
 * count of all found, up to `limit`.
 */
export class MatchCollector {
	readonly matches: SearchTextMatch[] = [];
	count = 0;
	/** The bytes (at least) the kept lines take as printed by grep. */
	cost = 0;
	constructor(readonly limit: number) {}
	get done(): boolean {
		return this.count >= this.limit;
	}
}

/** A copy of a short string that holds no reference to the long one it was cut from. */
function detached(text: string): string {
	return text.length < 16 ? text : (JSON.parse(JSON.stringify(text)) as string);
}

function abortError(): Error {
	return new Error("Operation aborted");
}

/** When a scan last let other tasks run: shared by every scan, so many files cannot starve timers either. */
let lastTurn = 0;

/**
 * Lets other tasks (timers, an abort) run when a scan has held the event loop for more than a few
 * milliseconds, then throws once `signal` has fired.
 */
async function giveTurn(signal: AbortSignal | undefined): Promise<void> {
	if (Date.now() - lastTurn > 20) {
		await new Promise((resolve) => setTimeout(resolve, 0));
		lastTurn = Date.now();
	}
	if (signal?.aborted) throw abortError();
}

/** The work of matching one file's lines; its matches go to `collector` only if it is not binary. */
class FileScan {
	private readonly found: SearchTextMatch[] = [];
	private count = 0;
	private cost = 0;
	private number = 0;
	private readonly recent: string[] = [];
	private open: { after: string[] }[] = [];
	private readonly context: number;

	constructor(
		private readonly path: string,
		private readonly search: SearchSettings,
		private readonly collector: MatchCollector,
	) {
		this.context = Math.min(search.context, maxSearchContext(search.maxBytes));
	}

	private get full(): boolean {
		return this.collector.cost + this.cost > this.search.maxBytes;
	}

	/** Whether every line from here on can only be counted past: no match to take, no context to fill. */
	get finished(): boolean {
		return this.collector.count + this.count >= this.collector.limit && this.open.length === 0;
	}

	private lineCost(text: string): number {
		return this.path.length + MIN_LINE_BYTES - 1 + Math.min(text.length, this.search.maxLineChars);
	}

	private shown(line: string): string {
		const text = shownText(line);
		const max = this.search.maxLineChars + 1;
		return text.length > max ? detached(text.slice(0, max)) : detached(text);
	}

	line(line: string): void {
		this.number++;
		const keep = !this.full;
		const wantsContext = keep && this.context > 0;
		const shown = wantsContext || (keep && this.open.length > 0) ? this.shown(line) : "";
		if (this.open.length > 0) {
			if (!keep) this.open = [];
			else {
				for (const hit of this.open) {
					hit.after.push(shown);
					this.cost += this.lineCost(shown);
				}
				this.open = this.open.filter((hit) => hit.after.length < this.context);
			}
		}
		if (this.collector.count + this.count < this.collector.limit && this.search.regex.test(matchedText(line))) {
			this.count++;
			if (!this.full) {
				const text = wantsContext ? shown : this.shown(line);
				const before = [...this.recent];
				for (const b of before) this.cost += this.lineCost(b);
				this.cost += this.lineCost(text);
				const after: string[] = [];
				this.found.push({ path: this.path, line: this.number, text, before, after });
				if (this.context > 0) this.open.push({ after });
			}
		}
		if (wantsContext && !this.full) {
			this.recent.push(shown);
			if (this.recent.length > this.context) this.recent.shift();
		} else if (this.recent.length > 0) this.recent.length = 0;
	}

	/** Whole lines known not to match: counted, and the last `context` of them kept for what follows. */
	skip(whole: string): void {
		let count = 1;
		for (let at = whole.indexOf("\n"); at >= 0; at = whole.indexOf("\n", at + 1)) count++;
		this.number += count;
		if (this.context === 0 || this.full) return;
		const tail: string[] = [];
		let stop = whole.length;
		while (tail.length < Math.min(this.context, count)) {
			const start = whole.lastIndexOf("\n", stop - 1);
			tail.unshift(this.shown(whole.slice(start + 1, stop)));
			stop = start;
		}
		this.recent.push(...tail);
		this.recent.splice(0, Math.max(0, this.recent.length - this.context));
	}

	/** Whole lines: one filter pass tells when none of them can match. */
	lines(whole: string): void {
		if (this.open.length === 0 && this.search.filter && !this.search.filter.mayMatch(whole)) this.skip(whole);
		else for (const line of whole.split("\n")) this.line(line);
	}

	commit(): void {
		for (const match of this.found) this.collector.matches.push(match);
		this.collector.count += this.count;
		this.collector.cost += this.cost;
	}
}

/**
 * Match one file given in pieces (cut anywhere): its matching lines go to `collector`, unless the
 * file is binary (a NUL byte anywhere: every piece is looked at to tell). Linear in the file's
 * size: a line is held once, up to `MAX_SEARCH_LINE_BYTES` (the rest of a longer one is not
 * matched); the event loop gets a turn every few milliseconds and `signal` is checked then.
 * Returns false for a binary file.
 */
export async function scanFile(
	path: string,
	pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
	search: SearchSettings,
	collector: MatchCollector,
	signal: AbortSignal | undefined,
): Promise<boolean> {
	const scan = new FileScan(path, search, collector);
	// The bytes of the line in progress (at most MAX_SEARCH_LINE_BYTES of it).
	let parts: Uint8Array[] = [];
	let held = 0;
	let started = false;
	const hold = (bytes: Uint8Array) => {
		started = true;
		const room = MAX_SEARCH_LINE_BYTES - held;
		if (room <= 0 || bytes.length === 0) return;
		const kept = bytes.length > room ? bytes.subarray(0, room) : bytes;
		// A copy: a reader may reuse its buffer.
		parts.push(new Uint8Array(kept));
		held += kept.length;
	};
	const endLine = () => {
		const joined = new Uint8Array(held);
		let at = 0;
		for (const part of parts) {
			joined.set(part, at);
			at += part.length;
		}
		parts = [];
		held = 0;
		started = false;
		scan.line(decoder.decode(joined));
	};
	for await (const piece of pieces) {
		if (piece.indexOf(0) !== -1) return false;
		await giveTurn(signal);
		if (scan.finished) continue;
		let pos = 0;
		if (started) {
			const nl = piece.indexOf(0x0a);
			if (nl < 0) {
				hold(piece);
				continue;
			}
			hold(piece.subarray(0, nl));
			endLine();
			pos = nl + 1;
		}
		const last = piece.lastIndexOf(0x0a);
		if (last >= pos) {
			const region = piece.subarray(pos, last);
			if (region.length <= MAX_SEARCH_LINE_BYTES) scan.lines(decoder.decode(region));
			else {
				for (let start = 0; start <= region.length; ) {
					let end = region.indexOf(0x0a, start);
					if (end < 0) end = region.length;
					scan.line(decoder.decode(region.subarray(start, Math.min(end, start + MAX_SEARCH_LINE_BYTES))));
					start = end + 1;
				}
			}
			pos = last + 1;
		}
		if (pos < piece.length) hold(piece.subarray(pos));
	}
	if (started && !scan.finished) endLine();
	scan.commit();
	return true;
}

/** A file's whole bytes as the pieces `scanFile` takes. */
function* piecesOf(bytes: Uint8Array): Generator<Uint8Array> {
	for (let at = 0; at < bytes.length; at += SCAN_PIECE) yield bytes.subarray(at, at + SCAN_PIECE);
}

/** `scanFile` over a file's whole bytes (a NUL byte anywhere makes it binary: no matches). */
export async function scanBytes(
	path: string,
	bytes: Uint8Array,
	search: SearchSettings,
	collector: MatchCollector,
	signal: AbortSignal | undefined,
): Promise<boolean> {
	if (bytes.indexOf(0) !== -1) return false;
	return scanFile(path, piecesOf(bytes), search, collector, signal);
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
 * Matches of `files`, taken in their order, into `collector` until its limit, each file read
 * with `read` (undefined when it cannot be read: skipped) while the next few are read already.
 * Stops reading once the limit is reached. Throws `Error("Operation aborted")` once `signal` fires.
 */
export async function matchFiles(
	files: AsyncIterable<SearchFile> | Iterable<SearchFile>,
	read: SearchReader["read"],
	search: SearchSettings,
	collector: MatchCollector,
	signal: AbortSignal | undefined,
	parallel = PARALLEL_READS,
): Promise<void> {
	const pending: { path: string; bytes: Promise<Uint8Array | LargeSearchFile | undefined> }[] = [];
	const drain = async (keep: number) => {
		while (pending.length > keep && !collector.done) {
			const file = pending.shift() as (typeof pending)[number];
			const bytes = await file.bytes;
			if (signal?.aborted) throw abortError();
			if (bytes === undefined) continue;
			if (bytes instanceof Uint8Array) await scanBytes(file.path, bytes, search, collector, signal);
			else await scanFile(file.path, bytes.chunks(), search, collector, signal);
		}
	};
	try {
		for await (const file of files) {
			if (signal?.aborted) throw abortError();
			pending.push({ path: file.path, bytes: read(file.absolutePath) });
			await drain(parallel - 1);
			if (collector.done) break;
		}
		await drain(0);
	} finally {
		// Reads started but not needed still settle; nothing waits for them.
		for (const file of pending) file.bytes.catch(() => undefined);
	}
}

/** A `SearchTextRequest` checked and compiled. */
export interface PreparedSearch extends SearchSettings {
	/** The absolute folder. */
	readonly root: string;
	readonly glob: GlobMatcher | undefined;
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
	for (const [name, value] of [
		["maxBytes", request.maxBytes],
		["maxLineChars", request.maxLineChars],
	] as const) {
		if (value !== undefined && !(typeof value === "number" && value >= 1))
			return err(fileError("invalid_argument", root.value, `${name} must be at least 1, got ${value}`));
	}
	let regex: SearchPattern;
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
	const maxBytes = request.maxBytes ?? DEFAULT_SEARCH_MAX_BYTES;
	const context = request.context && request.context > 0 ? Math.floor(request.context) : 0;
	return ok({
		root: root.value,
		regex,
		filter: fileFilter(regex),
		glob,
		context: Math.min(context, maxSearchContext(maxBytes)),
		maxBytes,
		maxLineChars: request.maxLineChars ?? Number.POSITIVE_INFINITY,
	});
}

/** The result of a search from its collector (and the names it could not reach). */
export function searchResult(collector: MatchCollector, skippedNames: number): SearchTextResult {
	return {
		matches: collector.matches,
		limitReached: collector.done,
		...(collector.matches.length < collector.count
			? { matchesNotKept: collector.count - collector.matches.length }
			: {}),
		...(skippedNames > 0 ? { skippedNames } : {}),
	};
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
	const collector = new MatchCollector(request.limit);
	let skippedNames = 0;
	const read =
		reader?.read ??
		(async (absolutePath: string) => {
			const bytes = await fs.readBinaryFile(absolutePath, signal ? { signal } : undefined);
			return bytes.ok ? bytes.value : undefined;
		});
	const entries = walk(fs, root, {
		hidden: request.hidden ?? false,
		ignoreFiles: GREP_IGNORE_FILES,
		signal,
		onUnreachable: () => {
			skippedNames++;
		},
	});
	async function* files(): AsyncGenerator<SearchFile> {
		for await (const entry of entries) {
			if (entry.kind === "file" && !(glob && !glob.matches(entry.path))) yield entry;
		}
	}
	try {
		await matchFiles(files(), read, prepared.value, collector, signal, reader?.parallel);
	} catch (error) {
		if (signal?.aborted) return err(fileError("aborted", root));
		return err(fileError("io_error", root, (error as Error).message));
	}
	return ok(searchResult(collector, skippedNames));
}
