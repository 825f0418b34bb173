/**
 * Diffs for the edit tool: a numbered diff for people and a unified patch for programs.
 *
 * The edit tool knows exactly which regions it replaced, so only those regions (widened to whole
 * lines) are diffed; the lines in between are known to be equal. That keeps the cost proportional
 * to the size of the change, not of the file. Inside a region a Myers diff over interned lines
 * finds the smallest change (lines found on one side only are set aside first, as they cannot
 * match); a region whose diff would be too costly is shown as a plain replacement instead.
 */

import { countLineBreaks } from "../contract/text.js";

/**
 * A replaced region of the old text: `[start, end)` became `newText`. Sorted, non-overlapping, and
 * together exactly what turns the old text into the new one.
 */
export interface Replacement {
	readonly start: number;
	readonly end: number;
	readonly newText: string;
}

export interface EditDiff {
	/** Numbered diff: `+NN added`, `-NN removed`, ` NN context`, `     ...` for skipped lines. */
	readonly diff: string;
	/** Unified diff (`---`/`+++`/`@@` hunks) with 3 lines of context. */
	readonly patch: string;
	/** 1-based line of the first change in the new text; undefined when nothing changed. */
	readonly firstChangedLine: number | undefined;
}

type Op =
	| { readonly kind: "equal"; readonly oldStart: number; readonly newStart: number; readonly count: number }
	| { readonly kind: "delete"; readonly oldStart: number; readonly newStart: number; readonly count: number }
	| {
			readonly kind: "insert";
			readonly oldStart: number;
			readonly newStart: number;
			readonly lines: readonly string[];
	  };

/** Lines kept before the first one asked for: more than any diff shows as leading context. */
const LEAD = 8;

/**
 * Lines of a text, found by offsets only where callers look: from a few lines before a given
 * offset (the first change) on, and only as far as they ask. Lines before that are counted, not
 * stored, so an edit far down a large file does not index every line above it.
 */
class LineIndex {
	/** Line number of `starts[0]`. */
	private base = 0;
	/** Start offsets of lines `base`, `base + 1`, … found so far. */
	private starts: number[] = [0];
	private scanned = false;
	private counted = -1;
	readonly endsWithNewline: boolean;

	constructor(
		readonly text: string,
		near = 0,
	) {
		this.endsWithNewline = text.endsWith("\n");
		if (near <= 0) return;
		let line = 0;
		let start = 0;
		for (let at = text.indexOf("\n"); at !== -1 && at < near; at = text.indexOf("\n", at + 1)) {
			line++;
			start = at + 1;
		}
		for (let back = 0; back < LEAD && line > 0; back++) {
			line--;
			start = line === 0 ? 0 : text.lastIndexOf("\n", start - 2) + 1;
		}
		this.base = line;
		this.starts = [start];
	}

	/** Index from line 0 again (a caller asked for a line before `base`). */
	private rebase(): void {
		this.base = 0;
		this.starts = [0];
		this.scanned = false;
	}

	/** Find one more line start; false at the end of the text. */
	private extend(): boolean {
		if (this.scanned) return false;
		const at = this.text.indexOf("\n", this.starts[this.starts.length - 1] as number);
		if (at === -1) {
			this.scanned = true;
			return false;
		}
		this.starts.push(at + 1);
		return true;
	}

	/** `text.split("\n").length`: what line counts mean in the tools' messages. */
	get splitLength(): number {
		if (this.counted < 0) {
			let count = this.base + this.starts.length;
			if (!this.scanned) count += countLineBreaks(this.text, this.starts[this.starts.length - 1] as number);
			this.counted = count;
		}
		return this.counted;
	}

	/** Lines without the empty piece after a final newline. */
	get realCount(): number {
		if (this.text.length === 0) return 0;
		return this.endsWithNewline ? this.splitLength - 1 : this.splitLength;
	}

	/** Index of the line holding offset `position` (the phantom line after a final newline counts). */
	lineOf(position: number): number {
		if (position < (this.starts[0] as number)) this.rebase();
		const starts = this.starts;
		while ((starts[starts.length - 1] as number) <= position && this.extend());
		let lo = 0;
		let hi = starts.length - 1;
		while (lo < hi) {
			const mid = (lo + hi + 1) >> 1;
			if ((starts[mid] ?? 0) <= position) lo = mid;
			else hi = mid - 1;
		}
		return this.base + lo;
	}

	/** Offset where line `index` starts, or the text length past the last line. */
	startOf(index: number): number {
		if (index < this.base) this.rebase();
		const local = index - this.base;
		while (this.starts.length <= local && this.extend());
		return local < this.starts.length ? (this.starts[local] as number) : this.text.length;
	}

	line(index: number): string {
		const start = this.startOf(index);
		const local = index + 1 - this.base;
		const next = this.startOf(index + 1);
		return this.text.slice(start, local < this.starts.length ? next - 1 : this.text.length);
	}
}

/** Marks the last line of a text without a final newline, so it never equals the same text with one. */
const NO_EOL = "\u0000no-eol";

/** Split a piece of text into lines, dropping the empty piece after a final newline. */
function splitReal(text: string): string[] {
	if (text.length === 0) return [];
	const lines = text.split("\n");
	if (text.endsWith("\n")) lines.pop();
	return lines;
}

type Step = "equal" | "delete" | "insert";

/**
 * Myers' O(ND) diff of two id sequences. Returns undefined when the edit distance exceeds
 * `maxCost`, so the caller can fall back to a plain replacement. The V array of every round is
 * kept for the backtrack in one growing buffer: round `d` holds the `2d + 3` diagonals from
 * `-d - 1` to `d + 1`, starting at offset `(d + 1)^2 - 1`.
 */
function myers<T>(a: ArrayLike<T>, b: ArrayLike<T>, maxCost: number): Step[] | undefined {
	const n = a.length;
	const m = b.length;
	const max = Math.min(n + m, maxCost);
	const offset = max + 1;
	const v = new Int32Array(2 * max + 3);
	let trace = new Int32Array(256);
	for (let d = 0; d <= max; d++) {
		const base = roundStart(d);
		const need = base + 2 * d + 3;
		if (need > trace.length) {
			const grown = new Int32Array(Math.max(need, trace.length * 2));
			grown.set(trace);
			trace = grown;
		}
		trace.set(v.subarray(offset - d - 1, offset + d + 2), base);
		for (let k = -d; k <= d; k += 2) {
			let x: number;
			if (k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number)))
				x = v[offset + k + 1] as number;
			else x = (v[offset + k - 1] as number) + 1;
			let y = x - k;
			while (x < n && y < m && a[x] === b[y]) {
				x++;
				y++;
			}
			v[offset + k] = x;
			if (x >= n && y >= m) return backtrack(trace, d, n, m);
		}
	}
	return undefined;
}

/** Where round `d` starts in Myers' round buffer (rounds before it hold 3, 5, 7, … diagonals). */
function roundStart(d: number): number {
	return (d + 1) * (d + 1) - 1;
}

function backtrack(trace: Int32Array, finalD: number, n: number, m: number): Step[] {
	const steps: Step[] = [];
	let x = n;
	let y = m;
	for (let d = finalD; d > 0; d--) {
		// Round d's saved V (as it was before the round) holds diagonals -d-1 … d+1.
		const base = roundStart(d);
		const at = (k: number) => trace[base + k + d + 1] as number;
		const k = x - y;
		const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
		const prevK = down ? k + 1 : k - 1;
		const prevX = at(prevK);
		const prevY = prevX - prevK;
		while (x > prevX && y > prevY) {
			steps.push("equal");
			x--;
			y--;
		}
		steps.push(down ? "insert" : "delete");
		x = prevX;
		y = prevY;
	}
	while (x > 0 && y > 0) {
		steps.push("equal");
		x--;
		y--;
	}
	return steps.reverse();
}

/** Above this many line pairs (old lines × new lines), lines are numbered before they are diffed. */
const SMALL_REGION = 256;

/** Both line lists as numbers, equal numbers for equal lines, and how many distinct lines there are. */
function intern(a: readonly string[], b: readonly string[]): [Int32Array, Int32Array, number] {
	const ids = new Map<string, number>();
	const number = (keys: readonly string[]) => {
		const out = new Int32Array(keys.length);
		for (let i = 0; i < keys.length; i++) {
			const key = keys[i] as string;
			let id = ids.get(key);
			if (id === undefined) {
				id = ids.size;
				ids.set(key, id);
			}
			out[i] = id;
		}
		return out;
	};
	const left = number(a);
	const right = number(b);
	return [left, right, ids.size];
}

/**
 * Myers over the lines that occur on both sides. A line found on only one side is a deletion or
 * an insertion in every common subsequence, so leaving it out keeps the longest common
 * subsequence (and so a smallest diff) while making the search much cheaper when a region was
 * largely rewritten: Myers costs grow with the number of differing lines.
 */
function diffShared(a: Int32Array, b: Int32Array, distinct: number, maxCost: number): Step[] | undefined {
	const inA = new Uint8Array(distinct);
	const inB = new Uint8Array(distinct);
	for (let i = 0; i < a.length; i++) inA[a[i] as number] = 1;
	for (let j = 0; j < b.length; j++) inB[b[j] as number] = 1;
	const keptA = keptIndices(a, inB);
	const keptB = keptIndices(b, inA);
	if (keptA.length === a.length && keptB.length === b.length) return myers(a, b, maxCost);
	const shared = keptA.length > 0 && keptB.length > 0 ? myers(idsAt(a, keptA), idsAt(b, keptB), maxCost) : [];
	if (shared === undefined) return undefined;
	// Put the left-out lines back: each becomes a deletion or insertion before the next kept line.
	const steps: Step[] = [];
	let x = 0;
	let y = 0;
	let i = 0;
	let j = 0;
	const catchUp = (toX: number, toY: number) => {
		for (; x < toX; x++) steps.push("delete");
		for (; y < toY; y++) steps.push("insert");
	};
	for (const step of shared) {
		catchUp(step === "insert" ? x : (keptA[i++] as number), step === "delete" ? y : (keptB[j++] as number));
		steps.push(step);
		if (step !== "insert") x++;
		if (step !== "delete") y++;
	}
	catchUp(a.length, b.length);
	return steps;
}

/** Indices of the ids in `ids` that `present` marks. */
function keptIndices(ids: Int32Array, present: Uint8Array): Int32Array {
	const kept = new Int32Array(ids.length);
	let count = 0;
	for (let i = 0; i < ids.length; i++) if (present[ids[i] as number] === 1) kept[count++] = i;
	return kept.subarray(0, count);
}

/** The ids at the given indices. */
function idsAt(ids: Int32Array, indices: Int32Array): Int32Array {
	const out = new Int32Array(indices.length);
	for (let k = 0; k < indices.length; k++) out[k] = ids[indices[k] as number] as number;
	return out;
}

/** Ops for one region: old lines `[a, b)` became `newLines`. */
function diffRegion(
	old: LineIndex,
	a: number,
	b: number,
	newLines: readonly string[],
	newKeys: readonly string[],
	newStart: number,
	ops: Op[],
): void {
	const oldKeys: string[] = [];
	for (let i = a; i < b; i++)
		oldKeys.push(i === old.realCount - 1 && !old.endsWithNewline ? old.line(i) + NO_EOL : old.line(i));
	let prefix = 0;
	while (prefix < oldKeys.length && prefix < newKeys.length && oldKeys[prefix] === newKeys[prefix]) prefix++;
	let suffix = 0;
	while (
		suffix < oldKeys.length - prefix &&
		suffix < newKeys.length - prefix &&
		oldKeys[oldKeys.length - 1 - suffix] === newKeys[newKeys.length - 1 - suffix]
	)
		suffix++;
	const push = (op: Op) => {
		const last = ops[ops.length - 1];
		if (op.kind === "equal" && op.count === 0) return;
		if (op.kind === "delete" && op.count === 0) return;
		if (op.kind === "insert" && op.lines.length === 0) return;
		if (last && last.kind === "equal" && op.kind === "equal") {
			ops[ops.length - 1] = { ...last, count: last.count + op.count };
			return;
		}
		ops.push(op);
	};
	push({ kind: "equal", oldStart: a, newStart, count: prefix });
	const oldMid = oldKeys.slice(prefix, oldKeys.length - suffix);
	const newMid = newKeys.slice(prefix, newKeys.length - suffix);
	let oldPos = a + prefix;
	let newPos = newStart + prefix;
	const maxCost = Math.max(64, Math.floor(2_000_000 / Math.max(1, oldMid.length + newMid.length)));
	// Lines are compared as they are when the regions are small; a larger diff compares each pair of
	// lines many times, and numbering the distinct lines first makes those comparisons cheap.
	const small = oldMid.length * newMid.length <= SMALL_REGION;
	const steps =
		oldMid.length > 0 && newMid.length > 0
			? small
				? myers(oldMid, newMid, maxCost)
				: diffShared(...intern(oldMid, newMid), maxCost)
			: undefined;
	const plain: Step[] = steps ?? [
		...new Array<Step>(oldMid.length).fill("delete"),
		...new Array<Step>(newMid.length).fill("insert"),
	];
	// Group each run of changes between equal lines as deletions first, then insertions.
	let i = 0;
	while (i < plain.length) {
		if (plain[i] === "equal") {
			let count = 0;
			while (i < plain.length && plain[i] === "equal") {
				count++;
				i++;
			}
			push({ kind: "equal", oldStart: oldPos, newStart: newPos, count });
			oldPos += count;
			newPos += count;
			continue;
		}
		let deleted = 0;
		const inserted: string[] = [];
		while (i < plain.length && plain[i] !== "equal") {
			if (plain[i] === "delete") deleted++;
			else inserted.push(newLines[newPos - newStart + inserted.length] ?? "");
			i++;
		}
		push({ kind: "delete", oldStart: oldPos, newStart: newPos, count: deleted });
		push({ kind: "insert", oldStart: oldPos + deleted, newStart: newPos, lines: inserted });
		oldPos += deleted;
		newPos += inserted.length;
	}
	push({ kind: "equal", oldStart: oldPos, newStart: newPos, count: suffix });
}

/** All ops for the whole file, equal runs between regions included. */
function buildOps(old: LineIndex, replacements: readonly Replacement[], newEndsWithNewline: boolean): Op[] {
	interface Group {
		a: number;
		b: number;
		members: Replacement[];
	}
	const groups: Group[] = [];
	for (const r of replacements) {
		const a = old.lineOf(r.start);
		const b = Math.min(old.lineOf(r.end) + 1, old.realCount);
		const last = groups[groups.length - 1];
		if (last && a < last.b) {
			last.b = Math.max(last.b, b);
			last.members.push(r);
		} else groups.push({ a, b: Math.max(a, b), members: [r] });
	}
	const ops: Op[] = [];
	let oldPos = 0;
	let delta = 0;
	for (const group of groups) {
		if (group.a > oldPos)
			ops.push({ kind: "equal", oldStart: oldPos, newStart: oldPos + delta, count: group.a - oldPos });
		const from = old.startOf(group.a);
		const to = group.b < old.splitLength ? old.startOf(group.b) : old.text.length;
		const pieces: string[] = [];
		let pos = from;
		for (const r of group.members) {
			pieces.push(old.text.slice(pos, r.start), r.newText);
			pos = r.end;
		}
		pieces.push(old.text.slice(pos, Math.max(pos, to)));
		const piece = pieces.join("");
		const newLines = splitReal(piece);
		const atEnd = group.b >= old.realCount;
		const newKeys = newLines.map((line, i) =>
			atEnd && i === newLines.length - 1 && !newEndsWithNewline ? line + NO_EOL : line,
		);
		const before = ops.length;
		diffRegion(old, group.a, group.b, newLines, newKeys, group.a + delta, ops);
		for (let i = before; i < ops.length; i++) {
			const op = ops[i] as Op;
			if (op.kind === "delete") delta -= op.count;
			if (op.kind === "insert") delta += op.lines.length;
		}
		oldPos = group.b;
	}
	if (oldPos < old.realCount)
		ops.push({ kind: "equal", oldStart: oldPos, newStart: oldPos + delta, count: old.realCount - oldPos });
	// Merge equal runs that touch (regions next to each other).
	const merged: Op[] = [];
	for (const op of ops) {
		const last = merged[merged.length - 1];
		if (last && last.kind === "equal" && op.kind === "equal")
			merged[merged.length - 1] = { ...last, count: last.count + op.count };
		else merged.push(op);
	}
	return merged;
}

function isChange(op: Op | undefined): boolean {
	return op !== undefined && op.kind !== "equal";
}

function numberedDiff(old: LineIndex, ops: readonly Op[], width: number, context: number): string {
	const out: string[] = [];
	const num = (n: number) => String(n).padStart(width, " ");
	const skipped = ` ${"".padStart(width, " ")} ...`;
	const contextLine = (index: number) => out.push(` ${num(index + 1)} ${old.line(index)}`);
	for (let i = 0; i < ops.length; i++) {
		const op = ops[i] as Op;
		if (op.kind === "delete") {
			for (let k = 0; k < op.count; k++) out.push(`-${num(op.oldStart + k + 1)} ${old.line(op.oldStart + k)}`);
			continue;
		}
		if (op.kind === "insert") {
			op.lines.forEach((line, k) => {
				out.push(`+${num(op.newStart + k + 1)} ${line}`);
			});
			continue;
		}
		const before = isChange(ops[i - 1]);
		const after = isChange(ops[i + 1]);
		const first = op.oldStart;
		const count = op.count;
		if (before && after) {
			if (count <= context * 2) for (let k = 0; k < count; k++) contextLine(first + k);
			else {
				for (let k = 0; k < context; k++) contextLine(first + k);
				out.push(skipped);
				for (let k = count - context; k < count; k++) contextLine(first + k);
			}
		} else if (before) {
			for (let k = 0; k < Math.min(context, count); k++) contextLine(first + k);
			if (count > context) out.push(skipped);
		} else if (after) {
			if (count > context) out.push(skipped);
			for (let k = Math.max(0, count - context); k < count; k++) contextLine(first + k);
		}
	}
	return out.join("\n");
}

function unifiedPatch(
	old: LineIndex,
	newEndsWithNewline: boolean,
	newRealCount: number,
	ops: readonly Op[],
	path: string,
	context: number,
): string {
	const out: string[] = [`--- ${path}`, `+++ ${path}`];
	const noEol = "\\ No newline at end of file";
	const oldLacksEol = old.realCount > 0 && !old.endsWithNewline;
	const newLacksEol = newRealCount > 0 && !newEndsWithNewline;
	// Find hunks: change ops plus context, joined when the equal run between them is short.
	let i = 0;
	while (i < ops.length) {
		while (i < ops.length && !isChange(ops[i])) i++;
		if (i >= ops.length) break;
		let end = i;
		while (end + 1 < ops.length) {
			const next = ops[end + 1] as Op;
			if (next.kind !== "equal") {
				end++;
				continue;
			}
			if (next.count <= context * 2 && isChange(ops[end + 2])) {
				end += 2;
				continue;
			}
			break;
		}
		const lines: string[] = [];
		const first = ops[i] as Op;
		const lead = ops[i - 1];
		const leadCount = lead && lead.kind === "equal" ? Math.min(context, lead.count) : 0;
		const oldStart = first.oldStart - leadCount;
		const newStart = first.newStart - leadCount;
		let oldLen = 0;
		let newLen = 0;
		const emitContext = (index: number) => {
			lines.push(` ${old.line(index)}`);
			oldLen++;
			newLen++;
			if (index === old.realCount - 1 && oldLacksEol) lines.push(noEol);
		};
		for (let k = oldStart; k < first.oldStart; k++) emitContext(k);
		for (let j = i; j <= end; j++) {
			const op = ops[j] as Op;
			if (op.kind === "equal") for (let k = 0; k < op.count; k++) emitContext(op.oldStart + k);
			else if (op.kind === "delete") {
				for (let k = 0; k < op.count; k++) {
					const index = op.oldStart + k;
					lines.push(`-${old.line(index)}`);
					oldLen++;
					if (index === old.realCount - 1 && oldLacksEol) lines.push(noEol);
				}
			} else {
				op.lines.forEach((line, k) => {
					lines.push(`+${line}`);
					newLen++;
					if (op.newStart + k === newRealCount - 1 && newLacksEol) lines.push(noEol);
				});
			}
		}
		const trail = ops[end + 1];
		if (trail && trail.kind === "equal") {
			for (let k = 0; k < Math.min(context, trail.count); k++) emitContext(trail.oldStart + k);
		}
		const range = (start: number, len: number) => `${len === 0 ? start : start + 1},${len}`;
		// One push per line: spreading a hunk of 100,000 lines into one call overflows the stack.
		out.push(`@@ -${range(oldStart, oldLen)} +${range(newStart, newLen)} @@`);
		for (const line of lines) out.push(line);
		i = end + 1;
	}
	return `${out.join("\n")}\n`;
}

/**
 * The diff between `oldText` and `newText`, where `newText` is `oldText` with `replacements`
 * applied. Both texts use LF line endings.
 */
export function diffReplacements(
	oldText: string,
	newText: string,
	replacements: readonly Replacement[],
	path: string,
	context = { numbered: 4, patch: 3 },
): EditDiff {
	const old = new LineIndex(oldText, replacements[0]?.start ?? 0);
	const newEndsWithNewline = newText.endsWith("\n");
	// The new text is the old one with the replacements applied, so its line count follows from
	// theirs without scanning the whole new text.
	let newSplitLength = old.splitLength;
	for (const r of replacements) newSplitLength += countLineBreaks(r.newText) - countLineBreaks(oldText, r.start, r.end);
	const newRealCount = newText.length === 0 ? 0 : newEndsWithNewline ? newSplitLength - 1 : newSplitLength;
	const ops = buildOps(old, replacements, newEndsWithNewline);
	const width = String(Math.max(old.splitLength, newSplitLength)).length;
	const firstChange = ops.find(isChange);
	return {
		diff: numberedDiff(old, ops, width, context.numbered),
		patch: unifiedPatch(old, newEndsWithNewline, newRealCount, ops, path, context.patch),
		firstChangedLine: firstChange ? firstChange.newStart + 1 : undefined,
	};
}
