/**
 * RecordedFiles: what a recorded session reveals about its files, and no more, held in a ReplayEnv.
 *
 * A file enters when a recorded result shows some of it (a read's page) or when a call writes it
 * whole. A line the recording never showed is held as `UNKNOWN_LINE`, so the env's content always
 * has the real number of lines and every known line sits at its real position; our tools run on
 * that content unchanged. Files also carry a `stale` flag: set when something outside the recorded
 * tool calls (a shell command that may write, the user between turns) may have changed them. A
 * result that disagrees with a stale file is unknowable; one that disagrees with a fresh file is a
 * mismatch.
 */
import { FileLines, lineCount, UNKNOWN_LINE } from "./_file-lines.js";
import type { DiffLine, RevealedPage } from "./_recorded-formats.js";
import { type CachedText, ReplayEnv } from "./_replay-env.js";

export { UNKNOWN_LINE };

/** `count` unknown lines joined by line breaks, as a file holds a stretch the recording never showed. */
function unknownLines(count: number): string {
	return `${UNKNOWN_LINE}\n`.repeat(count - 1) + UNKNOWN_LINE;
}

interface FileState {
	stale: boolean;
	staleBecause: string | undefined;
}

export type MergeResult =
	| { readonly kind: "seeded" }
	| { readonly kind: "merged"; readonly filled: number }
	| { readonly kind: "conflict"; readonly message: string };

/** The files of a recorded session as far as the recording revealed them, on a ReplayEnv. */
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
			// A line the page does not show in full tells nothing.
			if (shown === UNKNOWN_LINE) continue;
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
