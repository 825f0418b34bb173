/** FileLines: the lines of a text, found by offsets instead of split out, and counted without splitting. */
import { countLineBreaks } from "../contract/text.js";

/** Number of lines of a text (`text.split("\n").length`), counted without splitting it. */
export function lineCount(text: string): number {
	return 1 + countLineBreaks(text);
}

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

/**
 * Stands for a line the recording never showed: two ASCII control characters (SOH, STX), which a
 * real text file does not hold as a line of its own, and which no tool treats as binary. ASCII, so
 * a file that is otherwise ASCII stays a one-byte string (half the memory, faster searches) and
 * the read tool's ASCII fast path applies. Kept short so unknown stretches of a large file cost
 * little, and so our edit tool's "closest line" hints skip them (it ignores lines much shorter
 * than the text it looks for).
 */
export const UNKNOWN_LINE = "\u0001\u0002";
