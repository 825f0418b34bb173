/** A small line diff for reports: expected vs actual, with a few lines of context. */

const CONTEXT = 2;
/** Above this many changed-region cells the diff falls back to a plain before/after block. */
const MAX_CELLS = 4_000_000;

type Op = { readonly kind: " " | "-" | "+"; readonly text: string };

function lcsOps(a: readonly string[], b: readonly string[]): Op[] {
	const n = a.length;
	const m = b.length;
	if (n * m > MAX_CELLS) {
		return [...a.map((text) => ({ kind: "-" as const, text })), ...b.map((text) => ({ kind: "+" as const, text }))];
	}
	// lengths[i][j]: LCS length of a[i..] and b[j..], stored row-major in one array.
	const width = m + 1;
	const lengths = new Uint32Array((n + 1) * width);
	for (let i = n - 1; i >= 0; i--) {
		for (let j = m - 1; j >= 0; j--) {
			lengths[i * width + j] =
				a[i] === b[j]
					? lengths[(i + 1) * width + j + 1]! + 1
					: Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
		}
	}
	const ops: Op[] = [];
	let i = 0;
	let j = 0;
	while (i < n && j < m) {
		if (a[i] === b[j]) {
			ops.push({ kind: " ", text: a[i]! });
			i++;
			j++;
		} else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) {
			ops.push({ kind: "-", text: a[i++]! });
		} else {
			ops.push({ kind: "+", text: b[j++]! });
		}
	}
	while (i < n) ops.push({ kind: "-", text: a[i++]! });
	while (j < m) ops.push({ kind: "+", text: b[j++]! });
	return ops;
}

/** Make invisible differences visible: trailing whitespace, tabs and carriage returns. */
function show(text: string): string {
	return text.replace(/\r/g, "␍").replace(/[ \t]+$/, (tail) => tail.replace(/ /g, "·").replace(/\t/g, "→"));
}

/**
 * A unified-style diff of two texts (`- expected`, `+ actual`), unchanged lines shown only near a
 * change. Returns an empty string when the texts are equal.
 */
export function textDiff(
	expected: string,
	actual: string,
	labels = { expected: "expected", actual: "actual" },
): string {
	if (expected === actual) return "";
	const a = expected.split("\n");
	const b = actual.split("\n");
	let start = 0;
	while (start < a.length && start < b.length && a[start] === b[start]) start++;
	let endA = a.length;
	let endB = b.length;
	while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
		endA--;
		endB--;
	}
	const ops: Op[] = [
		...a.slice(0, start).map((text) => ({ kind: " " as const, text })),
		...lcsOps(a.slice(start, endA), b.slice(start, endB)),
		...a.slice(endA).map((text) => ({ kind: " " as const, text })),
	];
	const keep = new Array<boolean>(ops.length).fill(false);
	ops.forEach((op, index) => {
		if (op.kind === " ") return;
		for (let k = Math.max(0, index - CONTEXT); k <= Math.min(ops.length - 1, index + CONTEXT); k++) keep[k] = true;
	});
	const out = [`--- ${labels.expected}`, `+++ ${labels.actual}`];
	let lineA = 0;
	let lineB = 0;
	let skipped = false;
	ops.forEach((op, index) => {
		if (op.kind !== "+") lineA++;
		if (op.kind !== "-") lineB++;
		if (!keep[index]) {
			skipped = true;
			return;
		}
		if (skipped || out.length === 2) out.push(`@@ line ${op.kind === "+" ? lineB : lineA} @@`);
		skipped = false;
		out.push(`${op.kind} ${show(op.text)}`);
	});
	if (expected.endsWith("\n") !== actual.endsWith("\n")) {
		out.push(`(${expected.endsWith("\n") ? labels.expected : labels.actual} ends with a newline, the other does not)`);
	}
	return out.join("\n");
}
