/**
 * The recorded env: a MemoryExecutionEnv that holds exactly what a recorded session reveals about
 * its files, and no more.
 *
 * A file enters when a recorded result shows some of it (a read's page) or when a call writes it
 * whole. A line the recording never showed is held as `UNKNOWN_LINE`, so the env's content always
 * has the real number of lines and every known line sits at its real position; our tools run on
 * that content unchanged. Files also carry a `stale` flag: set when something outside the recorded
 * tool calls (a shell command that may write, the user between turns) may have changed them. A
 * result that disagrees with a stale file is unknowable; one that disagrees with a fresh file is a
 * mismatch.
 */
import { countLineBreaks } from "../contract/_text.js";
import { type ExecutionError, type FileError, ok, type Result } from "../contract/result.js";
import { encodePooled } from "../env/_byte-pool.js";
import { MemoryExecutionEnv, type ScriptedCommand } from "../env/memory.js";
import type { ExecOptions, ExecResult } from "../env/types.js";

/**
 * Stands for a line the recording never showed: two ASCII control characters (SOH, STX), which a
 * real text file does not hold as a line of its own, and which no tool treats as binary. ASCII, so
 * a file that is otherwise ASCII stays a one-byte string (half the memory, faster searches) and
 * the read tool's ASCII fast path applies. Kept short so unknown stretches of a large file cost
 * little, and so our edit tool's "closest line" hints skip them (it ignores lines much shorter
 * than the text it looks for).
 */
export const UNKNOWN_LINE = "\u0001\u0002";

/**
 * Lines of a file the recording revealed: `count` lines from line `start` (1-based), joined by
 * `\n` in `text`; the file has `total` lines in all.
 */
export interface RevealedPage {
	readonly start: number;
	readonly text: string;
	readonly count: number;
	readonly total: number;
}

/** `count` unknown lines joined by line breaks, as a file holds a stretch the recording never showed. */
function unknownLines(count: number): string {
	return `${UNKNOWN_LINE}\n`.repeat(count - 1) + UNKNOWN_LINE;
}

/** Number of lines of a text (`text.split("\n").length`), counted without splitting it. */
function lineCount(text: string): number {
	return 1 + countLineBreaks(text);
}

interface FileState {
	stale: boolean;
	staleBecause: string | undefined;
}

export type MergeResult =
	| { readonly kind: "seeded" }
	| { readonly kind: "merged"; readonly filled: number }
	| { readonly kind: "conflict"; readonly message: string };

/** Every this many lines, a line's start offset is kept (`FileLines`). */
const STRIDE = 64;

/**
 * The lines of a text, found by offsets rather than split out: most callers look at a few lines
 * of a file, or check lines for `UNKNOWN_LINE`, and splitting makes a string of every line. Only
 * every 64th line start is kept, plus a cursor at the line asked for last, so walking through
 * lines in order costs one search per line and a far jump at most 63.
 */
export class FileLines {
	/** `marks[k]` is where line `k * STRIDE` starts, for the lines found so far. */
	private readonly marks: number[] = [0];
	/** The furthest line found so far, and where it starts. */
	private farLine = 0;
	private farStart = 0;
	/** The line asked for last, and where it starts. */
	private cursorLine = 0;
	private cursorStart = 0;
	/** Number of lines (`split("\n").length`), once the end has been reached. */
	private total = -1;

	constructor(readonly text: string) {}

	/**
	 * The lines of `text`, a new version of `earlier`'s text whose first `unchanged` lines are the
	 * same (the caller knows it: it made the change): the line starts found there are taken over
	 * instead of being searched for again.
	 */
	static after(text: string, earlier: FileLines, unchanged: number): FileLines {
		const lines = new FileLines(text);
		// Marks of lines before `unchanged` hold, and so do their starts (the text before them is the same).
		const keep = Math.min(earlier.marks.length, Math.floor(Math.max(0, unchanged - 1) / STRIDE) + 1);
		if (keep <= 1) return lines;
		for (let k = 1; k < keep; k++) lines.marks.push(earlier.marks[k] as number);
		lines.farLine = (keep - 1) * STRIDE;
		lines.farStart = lines.marks[keep - 1] as number;
		lines.cursorLine = lines.farLine;
		lines.cursorStart = lines.farStart;
		return lines;
	}

	/** Where line `index` (from 0) starts in the text, or -1 past the last line. */
	offsetOf(index: number): number {
		return this.start(index);
	}

	/** Whether line `index` (from 0) exists. */
	has(index: number): boolean {
		return this.start(index) !== -1;
	}

	/** Where line `index` (from 0) starts, or -1 past the last line. */
	private start(index: number): number {
		if (index < 0 || !Number.isInteger(index)) return -1;
		if (this.total >= 0 && index >= this.total) return -1;
		let line: number;
		let pos: number;
		if (index >= this.cursorLine && index - this.cursorLine < STRIDE) {
			line = this.cursorLine;
			pos = this.cursorStart;
		} else {
			const mark = Math.min(Math.floor(index / STRIDE), this.marks.length - 1);
			line = mark * STRIDE;
			pos = this.marks[mark] as number;
			if (this.farLine > line && this.farLine <= index) {
				line = this.farLine;
				pos = this.farStart;
			}
		}
		const text = this.text;
		while (line < index) {
			const at = text.indexOf("\n", pos);
			if (at === -1) {
				this.total = line + 1;
				return -1;
			}
			line++;
			pos = at + 1;
			if (line > this.farLine) {
				this.farLine = line;
				this.farStart = pos;
				if (line % STRIDE === 0) this.marks.push(pos);
			}
		}
		this.cursorLine = line;
		this.cursorStart = pos;
		return pos;
	}

	/** Where the line starting at `start` ends (its newline, or the end of the text). */
	private endFrom(start: number): number {
		const at = this.text.indexOf("\n", start);
		return at === -1 ? this.text.length : at;
	}

	get length(): number {
		if (this.total < 0) this.total = this.farLine + 1 + countLineBreaks(this.text, this.farStart);
		return this.total;
	}

	/** Line `index` (from 0), or undefined past the end. */
	line(index: number): string | undefined {
		const start = this.start(index);
		return start === -1 ? undefined : this.text.slice(start, this.endFrom(start));
	}

	/** Whether line `index` is exactly `expected` (false past the end). */
	is(index: number, expected: string): boolean {
		const start = this.start(index);
		if (start === -1) return false;
		return this.endFrom(start) - start === expected.length && this.text.startsWith(expected, start);
	}

	/**
	 * The text with some lines replaced (by index from 0, each within the text), built from slices
	 * of the text: no array of every line is made for a change to a few.
	 */
	withLines(replacements: ReadonlyMap<number, string>): string {
		const indices = [...replacements.keys()].sort((a, b) => a - b);
		const text = this.text;
		let out = "";
		let from = 0;
		for (const index of indices) {
			const start = this.start(index);
			out += text.slice(from, start) + replacements.get(index);
			from = this.endFrom(start);
		}
		return out + text.slice(from);
	}

	/** Lines `[from, to)` (from 0) as one string, joined by their line breaks; undefined past the end. */
	slice(from: number, to: number): string | undefined {
		const start = this.start(from);
		const last = this.start(to - 1);
		if (start === -1 || last === -1) return undefined;
		return this.text.slice(start, this.endFrom(last));
	}

	/** Line `from` (from 0, within the text) and every line after it. */
	rest(from: number): string {
		return this.text.slice(this.start(from));
	}
}

interface CachedText {
	readonly text: string;
	lines: FileLines | undefined;
	/** Whether the text holds an `UNKNOWN_LINE`, once asked. */
	partial?: boolean;
}

/** A recorded command's answer: what it printed (stdout) and how it exited. */
export interface RecordedAnswer {
	readonly command: string;
	readonly output: string;
	readonly exitCode: number;
}

/**
 * The memory env the replay runs on. It counts changes, so the replay can keep the text of the
 * files it inspects between calls instead of decoding and splitting them again each time, and it
 * answers the one command the replay expects next directly: the scripted shell's machinery (a
 * command log, decoders, an abort controller per command) serves tests that inspect it, which the
 * replay does not. Anything else goes to the scripted shell.
 */
export class ReplayEnv extends MemoryExecutionEnv {
	/**
	 * Texts of files as last read or written by the replay, by absolute path. A write drops its
	 * file's entry; anything that may change other files (a command not answered from the
	 * recording, a rename, a removal) drops them all.
	 */
	readonly texts = new Map<string, CachedText>();
	/** The answer for the next command, not yet handed to the scripted shell. */
	private expected: RecordedAnswer | undefined;
	/** Answers handed to the scripted shell and not used yet, by command. */
	private readonly scripted = new Map<string, number>();
	/** Someone else added scripted commands: every command then goes through the scripted shell. */
	private foreign = false;

	/**
	 * Answer the next exec of exactly `answer.command`, as a scripted command used once would: an
	 * answer left unused stays scripted and answers a later exec of the same command first.
	 */
	expect(answer: RecordedAnswer): void {
		this.scriptPending();
		this.expected = answer;
	}

	/** A scripted command answering exactly `command` once, tried after the existing ones. */
	scriptOnce(command: string, script: Omit<ScriptedCommand, "match" | "once">): void {
		this.scriptPending();
		this.scripted.set(command, (this.scripted.get(command) ?? 0) + 1);
		super.addCommands({ ...script, match: (c) => c === command, once: true });
	}

	override addCommands(...commands: ScriptedCommand[]): void {
		this.scriptPending();
		this.foreign = true;
		super.addCommands(...commands);
	}

	private scriptPending(): void {
		const answer = this.expected;
		this.expected = undefined;
		if (answer) this.scriptOnce(answer.command, { stdout: answer.output, exitCode: answer.exitCode });
	}

	override async exec(command: string, options: ExecOptions = {}): Promise<Result<ExecResult, ExecutionError>> {
		const answer = this.expected;
		const onStdout = options?.onStdout;
		if (
			answer === undefined ||
			answer.command !== command ||
			this.foreign ||
			this.scripted.has(command) ||
			command.includes("\0") ||
			onStdout === undefined ||
			options.captureOutput === true ||
			// A timeout cannot fire before an answer given at once; an invalid one is the shell's to refuse.
			(options.timeout !== undefined && !(Number.isFinite(options.timeout) && options.timeout > 0)) ||
			options.env !== undefined ||
			(options.cwd !== undefined && options.cwd !== this.cwd) ||
			options.signal?.aborted === true ||
			!(this.cwdIsFolder ?? (await this.cwdFolder()))
		) {
			this.scriptPending();
			const result = await this.changingTree(() => super.exec(command, options));
			const used = this.scripted.get(command);
			if (used !== undefined && this.commandLog.at(-1)?.matched === true) {
				if (used > 1) this.scripted.set(command, used - 1);
				else this.scripted.delete(command);
			}
			return result;
		}
		this.expected = undefined;
		const started = Date.now();
		if (answer.output !== "") {
			try {
				// Honour backpressure like any env: wait for a returned promise; a rejection is swallowed.
				await onStdout(encodePooled(answer.output));
			} catch {
				// As in any env: a listener's failure does not change the command's outcome.
			}
		}
		return ok({ exitCode: answer.exitCode, stdout: "", stderr: "", durationMs: Date.now() - started });
	}

	private forget(path: string): void {
		this.cwdIsFolder = undefined;
		const key = this.textKey(path);
		if (key !== undefined) this.texts.delete(key);
		else this.texts.clear();
	}

	/** Absolute paths by given path (the cwd never changes, so neither does the answer). */
	private readonly keys = new Map<string, string | undefined>();

	/** The key of `path` in `texts`: the absolute path, as every caller names the file. */
	textKey(path: string): string | undefined {
		if (typeof path !== "string") return undefined;
		if (this.keys.has(path)) return this.keys.get(path);
		const absolute = this.absolutePath(path);
		const key = absolute.ok ? absolute.value : undefined;
		if (this.keys.size > 4096) this.keys.clear();
		this.keys.set(path, key);
		return key;
	}

	/**
	 * Whether the cwd was a folder when last looked at; dropped by every write, rename, removal and
	 * folder creation. Only a removal or rename can end a folder, so a kept `true` stays right; a
	 * stale `false` only sends a command the slow way.
	 */
	private cwdIsFolder: boolean | undefined;

	private async cwdFolder(): Promise<boolean> {
		if (this.cwdIsFolder === undefined) {
			const info = await this.fileInfo(this.cwd);
			this.cwdIsFolder = info.ok && info.value.kind === "directory";
		}
		return this.cwdIsFolder;
	}

	/** The file's text, read at once (the replay reads many files between its awaits). */
	textNow(path: string): Result<string, FileError> {
		return this.readTextFileNow(path);
	}

	/**
	 * Run a change to one file with its cached text dropped before and after. The memory env
	 * writes before its promise is made, so this needs no await (one promise less per write, and
	 * the replay writes a lot).
	 */
	private changingFile<T>(path: string, change: () => T): T {
		this.forget(path);
		const result = change();
		this.forget(path);
		return result;
	}

	/** Run something that may change any file, with everything cached dropped before and after. */
	private async changingTree<T>(change: () => Promise<T>): Promise<T> {
		this.texts.clear();
		this.cwdIsFolder = undefined;
		try {
			return await change();
		} finally {
			this.texts.clear();
			this.cwdIsFolder = undefined;
		}
	}

	override writeFile(...args: Parameters<MemoryExecutionEnv["writeFile"]>) {
		return this.changingFile(args[0], () => super.writeFile(...args));
	}

	override appendFile(...args: Parameters<MemoryExecutionEnv["appendFile"]>) {
		return this.changingFile(args[0], () => super.appendFile(...args));
	}

	override rename(...args: Parameters<MemoryExecutionEnv["rename"]>) {
		return this.changingTree(() => super.rename(...args));
	}

	override remove(...args: Parameters<MemoryExecutionEnv["remove"]>) {
		return this.changingTree(() => super.remove(...args));
	}

	override createDir(...args: Parameters<MemoryExecutionEnv["createDir"]>) {
		return this.changingTree(() => super.createDir(...args));
	}
}

export class RecordedFiles {
	readonly env: ReplayEnv;
	private readonly states = new Map<string, FileState>();

	constructor(cwd: string) {
		// Unmatched commands would mean a bash call the replay did not script: fail loudly.
		this.env = new ReplayEnv({
			cwd,
			clock: () => 0,
			unmatched: (command) => ({ exitCode: 127, stderr: `replay: no recorded answer for ${command}\n` }),
		});
	}

	/**
	 * Write `text`. The next look at the file takes its text from the env, which keeps well-formed
	 * text as it was written (the same string, not a copy) and decodes anything else from its bytes.
	 */
	async write(path: string, text: string): Promise<void> {
		await this.env.writeFile(path, text);
	}

	/** Absolute path the way our tools resolve it (a leading `@` dropped, relative to cwd). */
	resolve(path: string): string | undefined {
		const absolute = this.env.absolutePath(path.startsWith("@") ? path.slice(1) : path);
		return absolute.ok ? absolute.value : undefined;
	}

	has(path: string): boolean {
		return this.states.has(path);
	}

	isStale(path: string): boolean {
		return this.states.get(path)?.stale === true;
	}

	staleReason(path: string): string | undefined {
		return this.states.get(path)?.staleBecause;
	}

	/** The file's lines (`UNKNOWN_LINE` where unknown), or undefined when the env has no such file. */
	lines(path: string): FileLines | undefined {
		const entry = this.entry(path);
		if (entry === undefined) return undefined;
		entry.lines ??= new FileLines(entry.text);
		return entry.lines;
	}

	content(path: string): string | undefined {
		return this.entry(path)?.text;
	}

	/** Whether some line of the file is unknown (`UNKNOWN_LINE`); undefined for a file not held. */
	partial(path: string): boolean | undefined {
		const entry = this.entry(path);
		if (entry === undefined) return undefined;
		entry.partial ??= hasUnknownLine(entry.text);
		return entry.partial;
	}

	/** Remember `lines` as the index of the file's current text (when the text is the file's). */
	private keepLines(path: string, lines: FileLines): void {
		const entry = this.entry(path);
		if (entry !== undefined && entry.text === lines.text) entry.lines = lines;
	}

	private entry(path: string): CachedText | undefined {
		const key = this.key(path);
		const hit = key === undefined ? undefined : this.env.texts.get(key);
		if (hit) return hit;
		const text = this.env.textNow(path);
		if (!text.ok) return undefined;
		const entry: CachedText = { text: text.value, lines: undefined };
		if (key !== undefined) this.env.texts.set(key, entry);
		return entry;
	}

	private key(path: string): string | undefined {
		return this.env.textKey(path);
	}

	/** Something outside the recorded calls may have changed every file (`reason` may be worded lazily). */
	markAllStale(reason: string | (() => string)): void {
		let because: string | undefined;
		for (const state of this.states.values()) {
			if (!state.stale) {
				// Worded only when some file was still fresh.
				because ??= typeof reason === "string" ? reason : reason();
				state.stale = true;
				state.staleBecause = because;
			}
		}
	}

	markStale(path: string, reason: string): void {
		const state = this.states.get(path);
		if (state && !state.stale) {
			state.stale = true;
			state.staleBecause = reason;
		}
	}

	/** The file is exactly `content` (a write, or a read of the whole file). */
	async setContent(path: string, content: string): Promise<void> {
		await this.write(path, content);
		this.states.set(path, { stale: false, staleBecause: undefined });
	}

	/** Our tool changed the file: it stays tracked with its staleness. */
	touch(path: string): void {
		if (!this.states.has(path)) this.states.set(path, { stale: false, staleBecause: undefined });
	}

	/** Nothing is known about the file any more. */
	async forget(path: string): Promise<void> {
		this.states.delete(path);
		await this.env.remove(path);
	}

	/** Replace what is known by this page alone. */
	async seed(path: string, page: RevealedPage): Promise<void> {
		const before = page.start - 1;
		const after = Math.max(0, page.total - before - page.count);
		await this.write(path, `${`${UNKNOWN_LINE}\n`.repeat(before)}${page.text}${`\n${UNKNOWN_LINE}`.repeat(after)}`);
		// Whatever was known before is dropped, so nothing known is stale.
		this.states.set(path, { stale: false, staleBecause: undefined });
	}

	/**
	 * Add a page to what is known. A page that disagrees with a known line or with the line count
	 * is a conflict (the caller decides whether that is a mismatch or an outside change) and
	 * changes nothing.
	 */
	async merge(path: string, page: RevealedPage): Promise<MergeResult> {
		const current = this.states.has(path) ? this.lines(path) : undefined;
		if (current === undefined) {
			await this.seed(path, page);
			return { kind: "seeded" };
		}
		if (current.length !== page.total) {
			return {
				kind: "conflict",
				message: `the recorded result shows ${page.total} lines, the replayed file has ${current.length}`,
			};
		}
		// The usual pages: all of their lines unknown so far (the page goes in whole), or all known
		// and the same. Each is one comparison of the region; other pages are merged line by line.
		const region = page.count > 0 ? current.slice(page.start - 1, page.start - 1 + page.count) : undefined;
		if (region !== undefined && region === page.text) return this.merged(path, current.text, 0);
		if (region !== undefined && region === unknownLines(page.count)) {
			const before = current.offsetOf(page.start - 1);
			const nextText = `${current.text.slice(0, before)}${page.text}${current.text.slice(before + region.length)}`;
			await this.write(path, nextText);
			return this.merged(path, nextText, page.count);
		}
		const fills = new Map<number, string>();
		for (let i = 0, from = 0; i < page.count; i++) {
			const index = page.start - 1 + i;
			let end = page.text.indexOf("\n", from);
			if (end === -1) end = page.text.length;
			const shown = page.text.slice(from, end);
			from = end + 1;
			if (current.is(index, UNKNOWN_LINE)) fills.set(index, shown);
			else if (!current.is(index, shown)) {
				return {
					kind: "conflict",
					message: `line ${index + 1}: the recorded result shows ${JSON.stringify(shown)}, the replayed file has ${JSON.stringify(current.line(index))}`,
				};
			}
		}
		const filled = fills.size;
		let nextText = current.text;
		if (filled > 0) {
			nextText = current.withLines(fills);
			await this.write(path, nextText);
		}
		return this.merged(path, nextText, filled);
	}

	/** A merge done: a file now wholly known is no longer stale (every line was just confirmed). */
	private merged(path: string, text: string, filled: number): MergeResult {
		if (!hasUnknownLine(text)) {
			const state = this.states.get(path);
			if (state) {
				state.stale = false;
				state.staleBecause = undefined;
			}
		}
		return { kind: "merged", filled };
	}

	/**
	 * Apply a recorded edit's changed lines as a patch, for an edit our tool could not replay: the
	 * `-` lines (old numbers) go, the `+` lines (new numbers) come in, every other line keeps its
	 * content (known or not). False, changing nothing, when the diff contradicts a known line or
	 * does not fit the file.
	 */
	async applyChangedLines(path: string, changed: readonly DiffLine[]): Promise<boolean> {
		const before = this.lines(path);
		if (!before || changed.length === 0) return false;
		const removed = new Set<number>();
		const added = new Map<number, string>();
		for (const entry of changed) {
			if (entry.kind === "-") {
				const index = entry.line - 1;
				if (!before.has(index) || removed.has(entry.line)) return false;
				if (!before.is(index, UNKNOWN_LINE) && !before.is(index, entry.text)) return false;
				removed.add(entry.line);
			} else {
				if (added.has(entry.line)) return false;
				added.set(entry.line, entry.text);
			}
		}
		// Old lines between changes are copied as runs (slices of the text), not line by line.
		const removedLines = [...removed].sort((x, y) => x - y);
		const addedLines = [...added.keys()].sort((x, y) => x - y);
		const pieces: string[] = [];
		let written = 0;
		let old = 1;
		let r = 0;
		let a = 0;
		while (true) {
			if (a < addedLines.length && addedLines[a] === written + 1) {
				pieces.push(added.get(written + 1)!);
				written++;
				a++;
				continue;
			}
			if (!before.has(old - 1)) break;
			if (r < removedLines.length && removedLines[r] === old) {
				old++;
				r++;
				continue;
			}
			const nextRemoved = r < removedLines.length ? removedLines[r]! : Number.POSITIVE_INFINITY;
			const nextAdded = a < addedLines.length ? addedLines[a]! - 1 : Number.POSITIVE_INFINITY;
			const run = Math.min(nextRemoved - old, nextAdded - written);
			if (run === Number.POSITIVE_INFINITY) {
				// No change follows: the rest of the file, as it is.
				pieces.push(before.rest(old - 1));
				break;
			}
			const taken = before.slice(old - 1, old - 1 + run);
			if (taken === undefined) {
				// The file ends within the run: what is left of it, then only added lines may follow.
				const rest = before.rest(old - 1);
				pieces.push(rest);
				written += lineCount(rest);
				old = Number.POSITIVE_INFINITY;
				continue;
			}
			pieces.push(taken);
			old += run;
			written += run;
		}
		// An added line past the end, or one that did not land where it says: the diff does not fit.
		if (a !== addedLines.length) return false;
		await this.write(path, pieces.join("\n"));
		return true;
	}

	/**
	 * Fill unknown lines from `lines` (line number → text). Nothing changes when a given line
	 * contradicts a known one or lies outside the file. Returns how many lines were filled.
	 */
	async fillLines(path: string, lines: ReadonlyMap<number, string>): Promise<number> {
		const current = this.lines(path);
		if (!current || lines.size === 0) return 0;
		// Known lines given here equal the file's already, so only the unknown ones are replaced.
		const fills = new Map<number, string>();
		for (const [line, text] of lines) {
			const unknown = current.is(line - 1, UNKNOWN_LINE);
			if (!unknown && !current.is(line - 1, text)) return 0;
			if (unknown) fills.set(line - 1, text);
		}
		if (fills.size === 0) return 0;
		const text = current.withLines(fills);
		await this.write(path, text);
		this.keepLines(path, FileLines.after(text, current, Math.min(...fills.keys())));
		return fills.size;
	}

	/** Whether every line the page covers is known (no `UNKNOWN_LINE` within it). */
	covers(path: string, page: RevealedPage): boolean {
		if (!this.states.has(path)) return false;
		// Every line of a file without unknown lines is known.
		const partial = this.partial(path);
		if (partial !== true) return partial === false;
		const lines = this.lines(path);
		if (!lines) return false;
		const end = page.start - 1 + page.count;
		for (let i = page.start - 1; i < end && lines.has(i); i++) if (lines.is(i, UNKNOWN_LINE)) return false;
		return true;
	}
}

/** Whether a line of `text` is exactly `UNKNOWN_LINE` (found without splitting the text into lines). */
export function hasUnknownLine(text: string): boolean {
	for (let at = text.indexOf(UNKNOWN_LINE); at !== -1; at = text.indexOf(UNKNOWN_LINE, at + 1)) {
		const end = at + UNKNOWN_LINE.length;
		if ((at === 0 || text.charCodeAt(at - 1) === 10) && (end === text.length || text.charCodeAt(end) === 10))
			return true;
	}
	return false;
}

/**
 * The last paragraph of `text` (from its last blank line on, or all of it), and where it starts: a
 * notice or status line at the end of a result lies within it, so patterns anchored at the end
 * need not scan a long result.
 */
export function lastParagraph(text: string): { tail: string; at: number } {
	const at = Math.max(0, text.lastIndexOf("\n\n"));
	return { tail: at === 0 ? text : text.slice(at), at };
}

// Continuation notices of the recorded agent's read tool, older and newer wording.
const OLD_MORE = /\n\n\.\.\. \((\d+) more lines not shown\. Use offset=(\d+) to continue reading\)$/;
const NEW_MORE = /\n\n\[(\d+) more lines in file\. Use offset=(\d+) to continue\.\]$/;
const NEW_SHOWING = /\n\n\[Showing lines (\d+)-(\d+) of (\d+)(?: \([^)\]]*\))?\. Use offset=(\d+) to continue\.\]$/;
const LINE_TOO_LONG = /^\[Line \d+ is .* exceeds .*\]$/s;

/**
 * What a recorded (successful, text) read result reveals. `undefined` when it reveals no lines or
 * its notice does not add up (an unknown format is never guessed at).
 */
export function pageFromRead(text: string, offset: number | undefined): RevealedPage | undefined {
	const start = offset !== undefined && offset > 0 ? Math.floor(offset) : 1;
	if (LINE_TOO_LONG.test(text)) return undefined;
	// A notice holds no blank line: it starts at the last one, so only that part is matched.
	const { tail, at } = lastParagraph(text);
	let match = OLD_MORE.exec(tail) ?? NEW_MORE.exec(tail);
	if (match) {
		const shown = text.slice(0, at + match.index);
		const count = lineCount(shown);
		const remaining = Number(match[1]);
		if (Number(match[2]) !== start + count) return undefined;
		return { start, text: shown, count, total: start - 1 + count + remaining };
	}
	match = NEW_SHOWING.exec(tail);
	if (match) {
		const shown = text.slice(0, at + match.index);
		const count = lineCount(shown);
		const first = Number(match[1]);
		const last = Number(match[2]);
		if (first !== start || last - first + 1 !== count || Number(match[4]) !== last + 1) return undefined;
		return { start, text: shown, count, total: Number(match[3]) };
	}
	const count = lineCount(text);
	return { start, text, count, total: start - 1 + count };
}

/** One changed line of a recorded edit diff: `-` lines carry old line numbers, `+` lines new ones. */
export interface DiffLine {
	readonly kind: "-" | "+";
	readonly line: number;
	readonly text: string;
}

/** One row of a recorded numbered diff: a line with its kind and number, or a `...` gap. */
interface DiffRow {
	readonly kind: " " | "-" | "+" | "gap";
	readonly line: number;
	readonly text: string;
}

const PLUS = 43;
const MINUS = 45;
const SPACE = 32;
const GAP = "...";

/**
 * The row `diff.slice(from, end)`: `^([+ -]) *(\d+)( (.*))?$`, read by hand (a regular
 * expression per row cost more than the rest of checking an edit), or a `...` gap, or undefined.
 */
function parseRow(diff: string, from: number, end: number): DiffRow | undefined {
	const kind = diff.charCodeAt(from);
	if (kind === PLUS || kind === MINUS || kind === SPACE) {
		let i = from + 1;
		while (i < end && diff.charCodeAt(i) === SPACE) i++;
		const digits = i;
		let line = 0;
		for (let code = diff.charCodeAt(i); i < end && code >= 48 && code <= 57; code = diff.charCodeAt(++i))
			line = line * 10 + (code - 48);
		if (i > digits && (i === end || diff.charCodeAt(i) === SPACE)) {
			return {
				kind: kind === PLUS ? "+" : kind === MINUS ? "-" : " ",
				line,
				text: i < end ? diff.slice(i + 1, end) : "",
			};
		}
	}
	// A gap: `...` with only white space around it.
	return diff.slice(from, end).trim() === GAP ? { kind: "gap", line: 0, text: "" } : undefined;
}

/** The rows of a recorded edit's `details.diff`, or undefined when there is no such string. */
function diffRows(details: unknown): readonly DiffRow[] | undefined {
	if (typeof details !== "object" || details === null) return undefined;
	const diff = (details as { diff?: unknown }).diff;
	if (typeof diff !== "string") return undefined;
	const rows: DiffRow[] = [];
	for (let from = 0; from <= diff.length; ) {
		let end = diff.indexOf("\n", from);
		if (end === -1) end = diff.length;
		const row = parseRow(diff, from, end);
		if (row) rows.push(row);
		from = end + 1;
	}
	return rows;
}

/**
 * The changed lines of a recorded edit's numbered diff (`details.diff`: lines like `+ 12 text`,
 * `- 12 text`, `  12 text`, `   ...`). Context lines are left out: the recorded agent numbered the
 * leading context unreliably. `undefined` when there is no diff in a form this understands.
 */
export function changedLinesFromDiff(details: unknown): DiffLine[] | undefined {
	const rows = diffRows(details);
	if (rows === undefined || (details as { diff: string }).diff === "") return undefined;
	const out: DiffLine[] = [];
	for (const row of rows) if (row.kind === "-" || row.kind === "+") out.push(row as DiffLine);
	return out;
}

/**
 * Lines of the file before a recorded edit that its diff reveals, by old line number: the removed
 * lines, and the unchanged context lines whose numbers are consistent with them. The recorded agent
 * numbered some leading context wrongly (from 1), so a context line counts only when its number is
 * exactly where the removed and context lines around it put it.
 */
export function linesBeforeFromDiff(details: unknown): Map<number, string> {
	const out = new Map<number, string>();
	const rows = diffRows(details);
	if (rows === undefined) return out;
	const first = rows.findIndex((row) => row.kind === "-" || row.kind === "+");
	if (first === -1) return out;
	// Before the first change old and new numbering agree, so the leading context must end right
	// before the first changed line.
	let expected = rows[first]!.line;
	for (let i = first - 1; i >= 0; i--) {
		const row = rows[i]!;
		if (row.kind !== " ") break;
		expected--;
		if (row.line !== expected) break;
		out.set(row.line, row.text);
	}
	// From the first change on, removed and context lines advance the old line number.
	let pointer = rows[first]!.line;
	for (let i = first; i < rows.length; i++) {
		const row = rows[i]!;
		if (row.kind === "gap") break;
		if (row.kind === "+") continue;
		if (row.line !== pointer) break;
		out.set(row.line, row.text);
		pointer++;
	}
	return out;
}
