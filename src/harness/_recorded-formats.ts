/**
 * Parsers of the recorded agent's result formats: the page a read result shows (from its
 * continuation notice), the output and ending of a bash result, and the changed and shown lines of
 * an edit's numbered diff. A form they do not understand gives undefined, never a guess.
 */
import { lineCount, UNKNOWN_LINE } from "./_file-lines.js";

/**
 * Lines of a file the recording revealed: `count` lines from line `start` (1-based), joined by
 * `\n` in `text`; the file has `total` lines in all.
 */
export interface RevealedPage {
	readonly start: number;
	readonly text: string;
	readonly count: number;
	readonly total: number;
	/**
	 * Lines the recorded release cut short for display (the earliest cut every line at 2000
	 * characters): they are `UNKNOWN_LINE` in `text`, since the rest of them is not in the recording.
	 */
	readonly cut?: number;
	/** The length lines were cut to, when `cut` is set. */
	readonly cutTo?: number;
}

/**
 * The last paragraph of `text` (from its last blank line on, or all of it), and where it starts: a
 * notice or status line at the end of a result lies within it, so patterns anchored at the end
 * need not scan a long result.
 */
function lastParagraph(text: string): { tail: string; at: number } {
	const at = Math.max(0, text.lastIndexOf("\n\n"));
	return { tail: at === 0 ? text : text.slice(at), at };
}

// Continuation notices of the recorded agent's read tool, older and newer wording (some releases
// end the bracketed ones without a period).
const OLD_MORE = /\n\n\.\.\. \((\d+) more lines not shown\. Use offset=(\d+) to continue reading\)$/;
const NEW_MORE = /\n\n\[(\d+) more lines in file\. Use offset=(\d+) to continue\.?\]$/;
const NEW_SHOWING = /\n\n\[Showing lines (\d+)-(\d+) of (\d+)(?: \([^)\]]*\))?\. Use offset=(\d+) to continue\.?\]$/;
// The earliest releases' notice when lines were cut short, alone or with the page's continuation.
const OLD_CUT =
	/\n\n\.\.\. \(Some lines were truncated to (\d+) characters for display(?:\. (\d+) more lines not shown\. Use offset=(\d+) to continue reading)?\)$/;
const LINE_TOO_LONG = /^\[Line (\d+) is [^\n\]]* exceeds [^\n]*\]$/;
/**
 * A last paragraph that reads like a notice of the tool (a bracketed or parenthesized line naming
 * an offset, a limit or lines not shown) but is none of the forms above: a wording of some release
 * not known here. Taken as file content it would corrupt the file the replay builds.
 */
const UNKNOWN_NOTICE =
	/\n\n(?:\[[^\n\]]*|\.\.\. \([^\n)]*)(?:offset=|more lines|lines? not shown|limit|Showing lines|truncated)[^\n]*[\])]$/;

/**
 * The line number of a read result that shows no line, only that the line at the offset is longer
 * than the byte limit (`[Line N is 60.0KB, exceeds 50.0KB limit. Use bash: …]`), else undefined.
 */
export function tooLongLineFromRead(text: string): number | undefined {
	const match = LINE_TOO_LONG.exec(text);
	return match ? Number(match[1]) : undefined;
}

/**
 * What a recorded (successful, text) read result reveals. `undefined` when it reveals no lines or
 * its notice does not add up (an unknown format is never guessed at).
 */
export function pageFromRead(text: string, offset: number | undefined): RevealedPage | undefined {
	const start = offset !== undefined && offset > 0 ? Math.floor(offset) : 1;
	if (LINE_TOO_LONG.test(text)) return undefined;
	// A notice holds no blank line: it starts at the last one, so only that part is matched.
	const { tail, at } = lastParagraph(text);
	const cut = OLD_CUT.exec(tail);
	if (cut) {
		const cutTo = Number(cut[1]);
		const lines = text.slice(0, at + cut.index).split("\n");
		// A line of exactly the cut length may have been longer: it stays unknown.
		const shown = lines.map((line) => (line.length === cutTo ? UNKNOWN_LINE : line));
		const count = shown.filter((line) => line === UNKNOWN_LINE).length;
		const remaining = cut[2] === undefined ? 0 : Number(cut[2]);
		if (cut[3] !== undefined && Number(cut[3]) !== start + lines.length) return undefined;
		const total = start - 1 + lines.length + remaining;
		return { start, text: shown.join("\n"), count: lines.length, total, cut: count, cutTo };
	}
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
	if (UNKNOWN_NOTICE.test(tail)) return undefined;
	const count = lineCount(text);
	return { start, text, count, total: start - 1 + count };
}

// Status lines and the truncation notice of the recorded agent's bash tool.
const EXIT_STATUS = /(?:^|\n\n)Command exited with code (\d+)$/;
const ABORTED_STATUS = /(?:^|\n\n)Command aborted$/;
const TIMEOUT_STATUS = /(?:^|\n\n)Command timed out after [\d.]+ seconds$/;
const TRUNCATED_LINES = /\n\n\[Showing lines (\d+)-(\d+) of (\d+)(?: \([\d.]+KB limit\))?\. Full output: [^\]\n]*\]$/;
/** Longer than the bash tool's byte limit (50 KB) and any line limit: one line no tail can include. */
const TOO_LONG_FOR_ANY_LIMIT = 64 * 1024;
const TRUNCATED_OUTPUT = /\n\n\[Showing (?:lines \d+-\d+ of \d+|last .* of line \d+)[^\]]*Full output: [^\]]*\]$/;

/** What a recorded bash result shows of its command: everything it printed, and how it ended. */
export interface RecordedCommand {
	readonly output: string;
	readonly exitCode: number;
	readonly aborted: boolean;
}

/** A recorded bash result that does not show its command's whole output and ending, and why. */
export interface UnusableBashResult {
	readonly unknowable: "timing" | "unreadable-result" | "unseen-region";
	readonly why: string;
}

/** The output and ending a recorded bash result describes (`isError`: the recorded error flag). */
export function commandFromBash(text: string, isError: boolean): RecordedCommand | UnusableBashResult {
	const { tail, at } = lastParagraph(text);
	if (TIMEOUT_STATUS.test(tail)) return { unknowable: "timing", why: "the command timed out (wall-clock time)" };
	let body = text;
	let exitCode = 0;
	let aborted = false;
	const exit = EXIT_STATUS.exec(tail);
	const abort = exit ? null : ABORTED_STATUS.exec(tail);
	if (exit) {
		exitCode = Number(exit[1]);
		body = text.slice(0, at + exit.index);
	} else if (abort) {
		aborted = true;
		body = text.slice(0, at + abort.index);
	} else if (isError) {
		return { unknowable: "unreadable-result", why: "an error result without an exit status" };
	}
	const last = lastParagraph(body);
	if (TRUNCATED_OUTPUT.test(last.tail)) {
		const lines = TRUNCATED_LINES.exec(last.tail);
		const first = lines ? Number(lines[1]) : 0;
		const total = lines ? Number(lines[3]) : 0;
		if (!lines || first < 2 || Number(lines[2]) !== total) {
			return { unknowable: "unseen-region", why: "the recording holds only the tail of the output" };
		}
		// Only the last lines are in the recording. Lines before them stand in for the rest, the
		// one just before too long to fit any limit, so a tool that keeps the same lines and counts
		// the same total shows what was recorded (how it frames the tail is then what is checked).
		const shown = body.slice(0, last.at + lines.index);
		const before = `${"\n".repeat(first - 2)}${"·".repeat(TOO_LONG_FOR_ANY_LIMIT)}\n`;
		return { output: `${before}${shown}`, exitCode, aborted };
	}
	if (body === "(no output)") body = "";
	return { output: body, exitCode, aborted };
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
