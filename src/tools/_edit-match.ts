/**
 * Locating a batch of `{oldText, newText}` edits in a file, with the rules the edit tool promises:
 * every edit is found in the original text, exactly once, without overlapping another.
 *
 * Everything here works on the file's text with its BOM removed and CRLF folded to LF (the "LF
 * view"); the edit tool maps the resulting offsets back onto the original bytes, so whatever lies
 * outside the matched regions is written back exactly as it was.
 */
import { isWhiteSpace } from "../contract/text.js";

export interface EditInput {
	readonly oldText: string;
	readonly newText: string;
}

/** One edit located in the LF view: replace `[start, end)` with `newText` (LF line endings). */
export interface LocatedEdit {
	/** Position of the edit in the call's `edits` array. */
	readonly index: number;
	readonly start: number;
	readonly end: number;
	readonly newText: string;
	/** Found only after tolerant normalization (trailing spaces, typographic quotes, dashes, spaces). */
	readonly tolerant: boolean;
}

/** Fold CRLF to LF, the form every comparison here uses. */
export function toLF(text: string): string {
	return text.indexOf("\r\n") === -1 ? text : text.replace(/\r\n/g, "\n");
}

const SINGLE_QUOTES = /[\u2018\u2019\u201A\u201B]/g;
const DOUBLE_QUOTES = /[\u201C\u201D\u201E\u201F]/g;
const DASHES = /[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g;
const SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

/** Any character one of the four replacements below changes: most texts have none. */
const FOLDED = /[\u2018-\u201F\u2010-\u2015\u2212\u00A0\u2000-\u200A\u202F\u205F\u3000]/;

/**
 * Each replacement maps one UTF-16 unit to one, so positions inside a line survive the mapping;
 * only trailing whitespace changes lengths, and it is handled per line.
 */
function foldCharacters(text: string): string {
	if (!FOLDED.test(text)) return text;
	return text.replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, '"').replace(DASHES, "-").replace(SPACES, " ");
}

/** The tolerant form of a text: trailing whitespace dropped per line, look-alike characters folded. */
export function tolerantForm(text: string): string {
	return foldCharacters(
		text
			.split("\n")
			.map((line) => line.trimEnd())
			.join("\n"),
	);
}

/**
 * The tolerant form of a whole file plus a way back to LF-view offsets. Lines keep their positions
 * apart from dropped trailing whitespace, so a per-line table is enough (no per-character map).
 */
interface TolerantView {
	readonly text: string;
	/** Start of each line in the tolerant text; undefined when no line lost anything (same offsets). */
	readonly tolerantStarts: Int32Array | undefined;
	/** Start of each line in the LF view. */
	readonly lfStarts: Int32Array | undefined;
}

/**
 * Whitespace at the end of a line (or before a line terminator other than LF, which only makes
 * the check answer yes more often): when it finds none, trimming changes no line.
 */
const TRAILING_WHITESPACE = /[^\S\n]$/m;

/** Rarer white space and line terminators: without any, only spaces and tabs need looking at. */
const RARE_SPACE = /[\v\f\r\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/** `TRAILING_WHITESPACE.test(text)`, with native searches for the usual cases. */
function hasTrailingWhiteSpace(text: string): boolean {
	if (RARE_SPACE.test(text)) return TRAILING_WHITESPACE.test(text);
	const last = text.charCodeAt(text.length - 1);
	return last === 32 || last === 9 || text.includes(" \n") || text.includes("\t\n");
}

/**
 * Anything tolerant matching changes in a text that a needle could reach: a look-alike character,
 * a rarer white space or line terminator, or a space or tab before a line break. White space at
 * the very end of the text needs no view: a needle's lines are trimmed, so none ends inside it.
 * One pass finds out that most files need no tolerant view of their own. Made from the two sets
 * above, so it cannot miss a character either of them is told about.
 */
const TOLERANCE_AT_WORK = new RegExp(`${FOLDED.source}|${RARE_SPACE.source}|[ \\t]\\n`);

function buildTolerantView(lf: string): TolerantView {
	if (!TOLERANCE_AT_WORK.test(lf)) {
		return { text: lf, tolerantStarts: undefined, lfStarts: undefined };
	}
	// Folding maps one unit to one and never makes or unmakes trailing whitespace (the folded
	// spaces are whitespace before and after), so the whole text folds at once and lines trim after.
	// Folded lines are as long as the lines they come from, so they give the LF view's offsets too.
	const folded = foldCharacters(lf);
	if (!hasTrailingWhiteSpace(folded)) return { text: folded, tolerantStarts: undefined, lfStarts: undefined };
	const lines = folded.split("\n");
	const tolerantStarts = new Int32Array(lines.length);
	const lfStarts = new Int32Array(lines.length);
	const parts: string[] = [];
	let tolerantPos = 0;
	let lfPos = 0;
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] ?? "";
		const kept = line.trimEnd();
		tolerantStarts[i] = tolerantPos;
		lfStarts[i] = lfPos;
		parts.push(kept);
		tolerantPos += kept.length + 1;
		lfPos += line.length + 1;
	}
	return { text: parts.join("\n"), tolerantStarts, lfStarts };
}

/** Index of the last element `<= value` in an ascending array (0 when none is). */
function lastAtMost(sorted: ArrayLike<number>, value: number): number {
	let lo = 0;
	let hi = sorted.length - 1;
	while (lo < hi) {
		const mid = (lo + hi + 1) >> 1;
		if ((sorted[mid] ?? 0) <= value) lo = mid;
		else hi = mid - 1;
	}
	return lo;
}

function tolerantToLF(view: TolerantView, position: number): number {
	if (view.tolerantStarts === undefined || view.lfStarts === undefined) return position;
	const line = lastAtMost(view.tolerantStarts, position);
	return (view.lfStarts[line] ?? 0) + (position - (view.tolerantStarts[line] ?? 0));
}

/**
 * Start offsets of the first `limit` occurrences of `needle` (overlapping ones included). Each
 * native search costs up to the needle's length, so callers keep `limit` small.
 */
function occurrences(haystack: string, needle: string, limit: number): number[] {
	const found: number[] = [];
	let at = haystack.indexOf(needle);
	while (at !== -1 && found.length < limit) {
		found.push(at);
		at = haystack.indexOf(needle, at + 1);
	}
	return found;
}

interface Found {
	/** How many times the needle occurs (overlapping occurrences included), counted up to `ENOUGH`. */
	count: number;
	/** The first start offsets, in order. */
	readonly first: number[];
}

const KEPT_POSITIONS = 10;
/**
 * Matching only needs to know whether a needle occurs never, once or more: counting stops at two.
 * The one needle an error names is counted in full afterwards (`countAll`), in linear time.
 */
const ENOUGH = 2;

/**
 * Every occurrence of `needle` (overlapping ones included), counted with Knuth-Morris-Pratt: linear
 * in both lengths whatever the texts, where repeated native searches cost the needle's length per
 * occurrence (half a million `a`s in a million took minutes). Keeps the first `KEPT_POSITIONS` offsets.
 */
function countAll(haystack: string, needle: string): Found {
	const m = needle.length;
	const found: Found = { count: 0, first: [] };
	if (m === 0 || m > haystack.length) return found;
	const fail = new Int32Array(m);
	for (let i = 1, k = 0; i < m; i++) {
		const code = needle.charCodeAt(i);
		while (k > 0 && needle.charCodeAt(k) !== code) k = fail[k - 1] as number;
		if (needle.charCodeAt(k) === code) k++;
		fail[i] = k;
	}
	for (let i = 0, k = 0; i < haystack.length; i++) {
		const code = haystack.charCodeAt(i);
		while (k > 0 && needle.charCodeAt(k) !== code) k = fail[k - 1] as number;
		if (needle.charCodeAt(k) === code) k++;
		if (k === m) {
			found.count++;
			if (found.first.length < KEPT_POSITIONS) found.first.push(i - m + 1);
			k = fail[k - 1] as number;
		}
	}
	return found;
}

const HASH_BASE = 0x01000193;
/** Up to this many needles, two native `indexOf` scans each beat one pass of the rolling hash. */
const FEW_NEEDLES = 4;

/**
 * Occurrences of every needle in one pass (Rabin-Karp over a window of the shortest needle's
 * length), instead of two full `indexOf` scans per needle: a call with hundreds of edits on a large
 * file then costs one scan. Needles shorter than 8 characters, and all needles of a call with only
 * a few, use `indexOf`. Each needle is counted up to `ENOUGH` only. Callers pass distinct needles:
 * a repeated one would be compared at every place where it occurs, once per copy.
 */
function findAll(haystack: string, needles: readonly string[]): Found[] {
	const found: Found[] = needles.map(() => ({ count: 0, first: [] }));
	const long: number[] = [];
	// A few needles are found faster by the native search than by one scan of the hash loop.
	const few = needles.length <= FEW_NEEDLES;
	needles.forEach((needle, i) => {
		if (needle.length >= 8 && !few) {
			long.push(i);
			return;
		}
		const at = occurrences(haystack, needle, ENOUGH);
		found[i] = { count: at.length, first: at };
	});
	if (long.length === 0) return found;
	let window = 32;
	for (const i of long) window = Math.min(window, (needles[i] as string).length);
	if (haystack.length < window) return found;
	const hashOf = (text: string) => {
		let h = 0;
		for (let k = 0; k < window; k++) h = (Math.imul(h, HASH_BASE) + text.charCodeAt(k)) | 0;
		return h;
	};
	let top = 1;
	for (let k = 1; k < window; k++) top = Math.imul(top, HASH_BASE);
	const byHash = new Map<number, number[]>();
	const filter = new Uint8Array(1 << 16);
	for (const i of long) {
		const h = hashOf(needles[i] as string);
		const list = byHash.get(h);
		if (list) list.push(i);
		else byHash.set(h, [i]);
		filter[(h ^ (h >>> 16)) & 0xffff] = 1;
	}
	let h = hashOf(haystack);
	const last = haystack.length - window;
	for (let p = 0; ; p++) {
		if (filter[(h ^ (h >>> 16)) & 0xffff] === 1) {
			const candidates = byHash.get(h);
			if (candidates) {
				for (let k = 0; k < candidates.length; k++) {
					const i = candidates[k] as number;
					if (!haystack.startsWith(needles[i] as string, p)) continue;
					const entry = found[i] as Found;
					entry.count++;
					entry.first.push(p);
					if (entry.count < ENOUGH) continue;
					// Counted enough: a needle found that often is not compared again.
					candidates[k--] = candidates[candidates.length - 1] as number;
					candidates.pop();
				}
				if (candidates.length === 0) byHash.delete(h);
			}
		}
		if (p >= last) break;
		h = (Math.imul((h - Math.imul(haystack.charCodeAt(p), top)) | 0, HASH_BASE) + haystack.charCodeAt(p + window)) | 0;
	}
	return found;
}

/** 1-based line numbers of offsets in a text, computed in one pass. */
function lineNumbersOf(text: string, offsets: readonly number[]): number[] {
	const sorted = [...offsets].sort((a, b) => a - b);
	const result: number[] = [];
	let line = 1;
	let pos = 0;
	for (const offset of sorted) {
		for (let nl = text.indexOf("\n", pos); nl !== -1 && nl < offset; nl = text.indexOf("\n", nl + 1)) {
			line++;
			pos = nl + 1;
		}
		result.push(line);
	}
	return result;
}

function listLines(lines: readonly number[], total = lines.length): string {
	const shown = lines.slice(0, KEPT_POSITIONS).join(", ");
	return total > KEPT_POSITIONS ? `${shown}, …` : shown;
}

/**
 * Dice similarity over character pairs, in [0, 1], of a fixed text `a` against many lines. The
 * pairs of `a` sit in an open-addressing table held in one typed array (a pair's slot is found
 * without hashing a key object), and a line is dropped as soon as it can no longer reach the
 * minimum.
 */
class PairSimilarity {
	/**
	 * Four numbers per slot: the pair (`first << 16 | second`), how often it occurs in `a` (0 for an
	 * empty slot), how often the current line has used it, and the stamp of the line that last did
	 * (the use count is valid only while that is the current stamp).
	 */
	private readonly slots: Int32Array;
	private stamp = 0;
	private readonly mask: number;

	constructor(private readonly a: string) {
		let size = 16;
		while (size < a.length * 2) size *= 2;
		this.mask = size - 1;
		this.slots = new Int32Array(size * 4);
		for (let i = 1; i < a.length; i++) {
			const at = this.slot(a.charCodeAt(i - 1), a.charCodeAt(i), true);
			this.slots[at + 1] = (this.slots[at + 1] as number) + 1;
		}
	}

	/** Where a pair's slot starts; with `add`, an empty slot is claimed for it, else -1 when absent. */
	private slot(first: number, second: number, add: boolean): number {
		const key = (first << 16) | second;
		let index = (Math.imul(first, 0x9e3779b1) ^ Math.imul(second, 0x85ebca6b)) & this.mask;
		for (;;) {
			const at = index * 4;
			if (this.slots[at + 1] === 0) {
				if (!add) return -1;
				this.slots[at] = key;
				return at;
			}
			if (this.slots[at] === key) return at;
			index = (index + 1) & this.mask;
		}
	}

	/**
	 * The similarity of `text.slice(from, to)` to `a`, or -1 once it is certain to be below
	 * `minimum`. Works on the range, so a line is scored without being cut out of its file.
	 */
	score(text: string, from: number, to: number, minimum: number): number {
		const a = this.a;
		const slots = this.slots;
		const length = to - from;
		if (length === a.length && text.startsWith(a, from)) return 1;
		if (a.length < 2 || length < 2) return 0;
		const stamp = ++this.stamp;
		const pairs = a.length - 1 + (length - 1);
		// Shared pairs needed to reach the minimum; each pair of the line adds at most one.
		const needed = (minimum * pairs) / 2 - 1e-9;
		let shared = 0;
		let previous = text.charCodeAt(from);
		for (let i = from + 1; i < to; i++) {
			if (shared + (to - i) < needed) return -1;
			const code = text.charCodeAt(i);
			const at = this.slot(previous, code, false);
			previous = code;
			if (at === -1) continue;
			if (slots[at + 3] !== stamp) {
				slots[at + 3] = stamp;
				slots[at + 2] = 0;
			}
			if ((slots[at + 2] as number) < (slots[at + 1] as number)) {
				slots[at + 2] = (slots[at + 2] as number) + 1;
				shared++;
			}
		}
		return (2 * shared) / pairs;
	}
}

/** Lowest similarity a line needs to be named in the hint. */
const CLOSE_ENOUGH = 0.6;

function quoteLine(text: string): string {
	return JSON.stringify(text.length > 160 ? `${text.slice(0, 160)}…` : text);
}

/** Whether a trimmed line of length `b` passes the length filters for a needle of length `a`. */
function passesLengthFilters(a: number, b: number): boolean {
	if (b === 0 || b > a * 2 + 8 || a > b * 2 + 8) return false;
	return b === a || couldBeClose(a, b);
}

/** Whether texts of these lengths can reach `CLOSE_ENOUGH` at all (the best case: every pair shared). */
function couldBeClose(a: number, b: number): boolean {
	if (a < 2 || b < 2) return false;
	return (2 * (Math.min(a, b) - 1)) / (a - 1 + (b - 1)) >= CLOSE_ENOUGH;
}

/** A hint naming the file lines most like the first non-blank line of `oldText`. */
function closestLinesHint(lf: string, oldText: string): string {
	const oldLines = oldText.split("\n");
	const firstIndex = oldLines.findIndex((line) => line.trim() !== "");
	if (firstIndex === -1) return "";
	const needle = (oldLines[firstIndex] ?? "").trim();
	const similarity = new PairSimilarity(needle);
	const scored: { line: number; score: number; text: string }[] = [];
	// A line shorter than the shortest length that passes the filters below cannot pass them once
	// trimmed either: such lines (most of a file, and every unknown line) are skipped unread.
	let shortest = 1;
	while (shortest < needle.length && !passesLengthFilters(needle.length, shortest)) shortest++;
	for (let start = 0, line = 1; start < lf.length; line++) {
		let end = lf.indexOf("\n", start);
		if (end === -1) end = lf.length;
		const lineStart = start;
		start = end + 1;
		if (end - lineStart < shortest) continue;
		// The line without leading and trailing white space, as offsets.
		let from = lineStart;
		let to = end;
		while (from < to && isWhiteSpace(lf.charCodeAt(from))) from++;
		while (to > from && isWhiteSpace(lf.charCodeAt(to - 1))) to--;
		// Cheap length filters first: lines of very different length cannot be close.
		if (!passesLengthFilters(needle.length, to - from)) continue;
		const score = similarity.score(lf, from, to, CLOSE_ENOUGH);
		if (score < CLOSE_ENOUGH) continue;
		scored.push({ line, score, text: lf.slice(lineStart, end) });
	}
	if (scored.length === 0) {
		return " No similar line was found: read the file again to see its current content.";
	}
	scored.sort((a, b) => b.score - a.score || a.line - b.line);
	const best = scored.slice(0, 3).sort((a, b) => a.line - b.line);
	const exact = best.filter((s) => s.score === 1);
	const lead =
		exact.length > 0 && oldLines.length > 1
			? `The first line of oldText appears at line ${exact.map((s) => s.line).join(", ")}, but the lines after it differ.`
			: `Closest line${best.length > 1 ? "s" : ""}:`;
	return ` ${lead} ${best.map((s) => `line ${s.line}: ${quoteLine(s.text)}`).join("; ")}. Read the file again around there and copy the text exactly.`;
}

/**
 * Locate every edit in `lf` (the file's LF view). Throws an Error naming the failing edit and what
 * to do; returns the edits sorted by position.
 */
export function locateEdits(lf: string, edits: readonly EditInput[], displayPath: string): LocatedEdit[] {
	const located: LocatedEdit[] = [];
	const oldTexts = edits.map((edit) => toLF(edit.oldText));
	oldTexts.forEach((oldText, i) => {
		if (oldText.length === 0) {
			throw new Error(
				`edits[${i}].oldText is empty in ${displayPath}. Give the exact text to replace; to insert, include a neighbouring line in both oldText and newText.`,
			);
		}
	});
	// Each distinct text is looked up once, however many edits repeat it: 20,000 copies of one
	// oldText cost what one does.
	const exact = lookUp(lf, oldTexts);
	// The tolerant view and search, only for the texts not found exactly, all in one pass too.
	// The first such text is looked up on its own: when it is missing (the usual mistake) the call
	// fails without tolerant forms of the others being made and searched for.
	let tolerant: TolerantView | undefined;
	let needles: string[] = [];
	let looseAll: ((i: number) => Found) | undefined;
	const loose = (i: number): Found => {
		if (looseAll) return looseAll(i);
		const view = tolerant as TolerantView;
		if (needles.length === 0) {
			needles = oldTexts.map((text, k) => (k === i ? tolerantForm(text) : ""));
			const needle = needles[i] as string;
			return needle.length > 0 ? (findAll(view.text, [needle])[0] as Found) : NOT_FOUND;
		}
		needles = oldTexts.map((text, k) => (exact(k).count > 0 ? "" : tolerantForm(text)));
		looseAll = lookUp(view.text, needles);
		return looseAll(i);
	};
	for (let i = 0; i < edits.length; i++) {
		const edit = edits[i] as EditInput;
		const oldText = oldTexts[i] as string;
		const newText = toLF(edit.newText);
		const found = exact(i);
		if (found.count > 1) {
			const all = countAll(lf, oldText);
			throw new Error(
				`edits[${i}].oldText occurs ${all.count} times in ${displayPath} (lines ${listLines(lineNumbersOf(lf, all.first), all.count)}). It must occur exactly once: add surrounding lines to make it unique.`,
			);
		}
		if (found.count === 1) {
			const start = found.first[0] ?? 0;
			located.push({ index: i, start, end: start + oldText.length, newText, tolerant: false });
			continue;
		}
		tolerant ??= buildTolerantView(lf);
		const view = tolerant;
		const near = loose(i);
		const needle = needles[i] as string;
		if (near.count === 0) {
			throw new Error(
				`Could not find edits[${i}].oldText in ${displayPath}. It must match the file exactly, including whitespace and line breaks.${closestLinesHint(lf, oldText)}`,
			);
		}
		if (near.count > 1) {
			const all = countAll(view.text, needle);
			const lines = lineNumbersOf(
				lf,
				all.first.map((at) => tolerantToLF(view, at)),
			);
			throw new Error(
				`edits[${i}].oldText was not found exactly in ${displayPath}, and ignoring trailing whitespace and typographic quotes, dashes and spaces it occurs ${all.count} times (lines ${listLines(lines, all.count)}). Copy the exact text, with enough surrounding lines to make it unique.`,
			);
		}
		const at = near.first[0] ?? 0;
		const start = tolerantToLF(view, at);
		const end = tolerantToLF(view, at + needle.length);
		located.push({ index: i, start, end, newText, tolerant: true });
	}
	located.sort((a, b) => a.start - b.start || a.end - b.end);
	for (let k = 1; k < located.length; k++) {
		const previous = located[k - 1] as LocatedEdit;
		const current = located[k] as LocatedEdit;
		if (current.start < previous.end) {
			const [a, b] = [previous.index, current.index].sort((x, y) => x - y);
			throw new Error(
				`edits[${a}] and edits[${b}] overlap in ${displayPath}. Every oldText must cover a separate part of the original file: merge the two into one edit.`,
			);
		}
	}
	return located;
}

const NOT_FOUND: Found = { count: 0, first: [] };

/**
 * Looks up the distinct non-empty texts of `texts` in `haystack`, all at once (`findAll`); gives the
 * answer for `texts[i]`, counted up to `ENOUGH`. An empty text is not looked up (not found).
 */
function lookUp(haystack: string, texts: readonly string[]): (i: number) => Found {
	const slotOf = new Map<string, number>();
	const distinct: string[] = [];
	const slots = new Int32Array(texts.length);
	for (let i = 0; i < texts.length; i++) {
		const text = texts[i] as string;
		if (text.length === 0) {
			slots[i] = -1;
			continue;
		}
		let slot = slotOf.get(text);
		if (slot === undefined) {
			slot = distinct.length;
			slotOf.set(text, slot);
			distinct.push(text);
		}
		slots[i] = slot;
	}
	const found = findAll(haystack, distinct);
	return (i) => {
		const slot = slots[i] as number;
		return slot < 0 ? NOT_FOUND : (found[slot] as Found);
	};
}

/** `lf` with the located edits applied (edits sorted by position, as `locateEdits` returns them). */
export function applyLocatedEdits(lf: string, located: readonly LocatedEdit[]): string {
	const parts: string[] = [];
	let pos = 0;
	for (const edit of located) {
		parts.push(lf.slice(pos, edit.start), edit.newText);
		pos = edit.end;
	}
	parts.push(lf.slice(pos));
	return parts.join("");
}
