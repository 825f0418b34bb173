/**
 * Terminal width arithmetic: how many columns a string takes once ANSI escapes are ignored, and how
 * to cut it to fit. Runtime-neutral (uses only `Intl.Segmenter`, present in Node 20 and browsers).
 */

// CSI sequences (colors, cursor moves), OSC sequences (hyperlinks, titles) ended by BEL or ST, and
// two-byte escapes. Anchored at ESC so a plain `[` in text is never touched.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ESC and BEL is the point
const ANSI_PATTERN = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ESC and BEL is the point
const ANSI_AT_START = /^\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/;
// Anything that is not printable ASCII: the fast path below skips segmentation without it.
const NON_SIMPLE = /[^\x20-\x7e]/;

/** `text` without ANSI escape sequences. */
export function stripAnsi(text: string): string {
	return text.includes("\x1b") ? text.replace(ANSI_PATTERN, "") : text;
}

let segmenter: Intl.Segmenter | undefined;
function graphemes(text: string): Iterable<{ segment: string }> {
	segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
	return segmenter.segment(text);
}

/**
 * Columns one grapheme cluster takes: 2 for East Asian wide/fullwidth characters and emoji
 * presentation, 0 for controls and zero-width marks, 1 otherwise.
 */
export function graphemeWidth(cluster: string): number {
	const first = cluster.codePointAt(0);
	if (first === undefined) return 0;
	if (first < 0x20 || (first >= 0x7f && first < 0xa0)) return 0;
	if (isZeroWidth(first) && cluster.length <= 2) return 0;
	if (isWide(first)) return 2;
	// Regional indicators pair up into flags, which terminals draw two columns wide.
	if (first >= 0x1f1e6 && first <= 0x1f1ff) return 2;
	// A text-default symbol followed by VS16, or a keycap/ZWJ sequence, is shown as an emoji.
	if (cluster.includes("\uFE0F") || cluster.includes("\u200D")) return 2;
	return 1;
}

/** How many terminal columns `text` takes (ANSI escapes ignored, wide characters count 2). */
export function visibleWidth(text: string): number {
	const plain = stripAnsi(text);
	if (!NON_SIMPLE.test(plain)) return plain.length;
	let width = 0;
	for (const { segment } of graphemes(plain)) width += graphemeWidth(segment);
	return width;
}

/**
 * Cut `text` so it takes at most `width` columns, ending with `ellipsis` when something was cut.
 * ANSI escapes are kept (they take no room); when the text is cut after an escape, a reset is added
 * so the style does not leak into whatever is printed next.
 */
export function truncateToWidth(text: string, width: number, ellipsis = "…"): string {
	if (width <= 0) return "";
	if (visibleWidth(text) <= width) return text;
	const ellipsisWidth = visibleWidth(ellipsis);
	const room = ellipsisWidth > width ? 0 : width - ellipsisWidth;
	let out = "";
	let used = 0;
	let sawEscape = false;
	let rest = text;
	while (rest.length > 0) {
		const sequence = rest.startsWith("\x1b") ? ANSI_AT_START.exec(rest) : null;
		if (sequence) {
			out += sequence[0];
			sawEscape = true;
			rest = rest.slice(sequence[0].length);
			continue;
		}
		const nextEscape = rest.indexOf("\x1b", 1);
		const chunk = nextEscape === -1 ? rest : rest.slice(0, nextEscape);
		let full = false;
		for (const { segment } of graphemes(chunk)) {
			const w = graphemeWidth(segment);
			if (used + w > room) {
				full = true;
				break;
			}
			out += segment;
			used += w;
		}
		if (full) break;
		rest = nextEscape === -1 ? "" : rest.slice(nextEscape);
	}
	const tail = ellipsisWidth > width ? "" : ellipsis;
	return sawEscape ? `${out}\x1b[0m${tail}` : out + tail;
}

/** Tabs replaced by spaces up to the next multiple of `tabSize` columns, so widths are predictable. */
export function expandTabs(line: string, tabSize = 4): string {
	if (!line.includes("\t")) return line;
	const parts = line.split("\t");
	let out = parts[0] ?? "";
	for (let i = 1; i < parts.length; i++) {
		const column = visibleWidth(out);
		out += " ".repeat(tabSize - (column % tabSize)) + (parts[i] ?? "");
	}
	return out;
}

/** Code points that take no column on their own: combining marks, joiners, variation selectors. */
function isZeroWidth(cp: number): boolean {
	return (
		(cp >= 0x0300 && cp <= 0x036f) ||
		(cp >= 0x200b && cp <= 0x200f) ||
		(cp >= 0x2028 && cp <= 0x202e) ||
		(cp >= 0x2060 && cp <= 0x2064) ||
		(cp >= 0xfe00 && cp <= 0xfe0f) ||
		cp === 0xfeff ||
		(cp >= 0x1ab0 && cp <= 0x1aff) ||
		(cp >= 0x1dc0 && cp <= 0x1dff) ||
		(cp >= 0x20d0 && cp <= 0x20ff) ||
		(cp >= 0xfe20 && cp <= 0xfe2f) ||
		(cp >= 0xe0100 && cp <= 0xe01ef)
	);
}

// East Asian Wide (W) and Fullwidth (F) blocks, plus emoji shown in emoji presentation by default.
// Sorted, non-overlapping [start, end] pairs; a coarse but well-behaved subset of Unicode's table.
const WIDE_RANGES: readonly (readonly [number, number])[] = [
	[0x1100, 0x115f],
	[0x231a, 0x231b],
	[0x2329, 0x232a],
	[0x23e9, 0x23ec],
	[0x23f0, 0x23f0],
	[0x23f3, 0x23f3],
	[0x25fd, 0x25fe],
	[0x2614, 0x2615],
	[0x2648, 0x2653],
	[0x267f, 0x267f],
	[0x2693, 0x2693],
	[0x26a1, 0x26a1],
	[0x26aa, 0x26ab],
	[0x26bd, 0x26be],
	[0x26c4, 0x26c5],
	[0x26ce, 0x26ce],
	[0x26d4, 0x26d4],
	[0x26ea, 0x26ea],
	[0x26f2, 0x26f3],
	[0x26f5, 0x26f5],
	[0x26fa, 0x26fa],
	[0x26fd, 0x26fd],
	[0x2705, 0x2705],
	[0x270a, 0x270b],
	[0x2728, 0x2728],
	[0x274c, 0x274c],
	[0x274e, 0x274e],
	[0x2753, 0x2755],
	[0x2757, 0x2757],
	[0x2795, 0x2797],
	[0x27b0, 0x27b0],
	[0x27bf, 0x27bf],
	[0x2b1b, 0x2b1c],
	[0x2b50, 0x2b50],
	[0x2b55, 0x2b55],
	[0x2e80, 0x303e],
	[0x3041, 0x33ff],
	[0x3400, 0x4dbf],
	[0x4e00, 0x9fff],
	[0xa000, 0xa4cf],
	[0xa960, 0xa97f],
	[0xac00, 0xd7a3],
	[0xf900, 0xfaff],
	[0xfe10, 0xfe19],
	[0xfe30, 0xfe6f],
	[0xff00, 0xff60],
	[0xffe0, 0xffe6],
	[0x16fe0, 0x16fe4],
	[0x17000, 0x18cff],
	[0x1b000, 0x1b2ff],
	[0x1f004, 0x1f004],
	[0x1f0cf, 0x1f0cf],
	[0x1f18e, 0x1f18e],
	[0x1f191, 0x1f19a],
	[0x1f200, 0x1f2ff],
	[0x1f300, 0x1f320],
	[0x1f32d, 0x1f335],
	[0x1f337, 0x1f37c],
	[0x1f37e, 0x1f393],
	[0x1f3a0, 0x1f3ca],
	[0x1f3cf, 0x1f3d3],
	[0x1f3e0, 0x1f3f0],
	[0x1f3f4, 0x1f3f4],
	[0x1f3f8, 0x1f43e],
	[0x1f440, 0x1f440],
	[0x1f442, 0x1f4fc],
	[0x1f4ff, 0x1f53d],
	[0x1f54b, 0x1f54e],
	[0x1f550, 0x1f567],
	[0x1f57a, 0x1f57a],
	[0x1f595, 0x1f596],
	[0x1f5a4, 0x1f5a4],
	[0x1f5fb, 0x1f64f],
	[0x1f680, 0x1f6c5],
	[0x1f6cc, 0x1f6cc],
	[0x1f6d0, 0x1f6d2],
	[0x1f6d5, 0x1f6d7],
	[0x1f6dc, 0x1f6df],
	[0x1f6eb, 0x1f6ec],
	[0x1f6f4, 0x1f6fc],
	[0x1f7e0, 0x1f7eb],
	[0x1f7f0, 0x1f7f0],
	[0x1f90c, 0x1f93a],
	[0x1f93c, 0x1f945],
	[0x1f947, 0x1f9ff],
	[0x1fa70, 0x1faff],
	[0x20000, 0x2fffd],
	[0x30000, 0x3fffd],
];

function isWide(cp: number): boolean {
	if (cp < 0x1100) return false;
	let lo = 0;
	let hi = WIDE_RANGES.length - 1;
	while (lo <= hi) {
		const mid = (lo + hi) >> 1;
		const range = WIDE_RANGES[mid]!;
		if (cp < range[0]) hi = mid - 1;
		else if (cp > range[1]) lo = mid + 1;
		else return true;
	}
	return false;
}
