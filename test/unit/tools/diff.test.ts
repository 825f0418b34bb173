import { describe, expect, it } from "vitest";
import { diffReplacements } from "../../../src/tools/_diff.js";
import { applyLocatedEdits, locateEdits, tolerantForm } from "../../../src/tools/_edit-match.js";
import { sniffImageMime } from "../../../src/tools/_image.js";
import { toBase64 } from "../../../src/tools/_utf8.js";

function change(text: string, edits: { oldText: string; newText: string }[]) {
	const located = locateEdits(text, edits, "f.txt");
	const after = applyLocatedEdits(text, located);
	return { after, ...diffReplacements(text, after, located, "f.txt") };
}

const numbered = (count: number) => `${Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n")}\n`;

describe("numbered diff", () => {
	it("shows four lines of context and marks skipped lines", () => {
		const { diff, firstChangedLine } = change(numbered(30), [{ oldText: "line 15\n", newText: "fifteen\n" }]);
		expect(diff).toBe(
			[
				"    ...",
				" 11 line 11",
				" 12 line 12",
				" 13 line 13",
				" 14 line 14",
				"-15 line 15",
				"+15 fifteen",
				" 16 line 16",
				" 17 line 17",
				" 18 line 18",
				" 19 line 19",
				"    ...",
			].join("\n"),
		);
		expect(firstChangedLine).toBe(15);
	});

	it("joins nearby changes and numbers added lines in the new file", () => {
		const { diff } = change(numbered(12), [
			{ oldText: "line 2\n", newText: "line 2\nnew a\nnew b\n" },
			{ oldText: "line 6\n", newText: "" },
		]);
		expect(diff).toBe(
			[
				"  1 line 1",
				"  2 line 2",
				"+ 3 new a",
				"+ 4 new b",
				"  3 line 3",
				"  4 line 4",
				"  5 line 5",
				"- 6 line 6",
				"  7 line 7",
				"  8 line 8",
				"  9 line 9",
				" 10 line 10",
				"    ...",
			].join("\n"),
		);
	});

	it("numbers lines right when one edit follows another on the text it left", () => {
		const ten = Array.from({ length: 10 }, (_, i) => `a${i + 1}`).join("\n");
		const first = change(ten, [{ oldText: "\na10", newText: "" }]);
		expect(first.diff.split("\n")).toContain("-10 a10");
		// Nine lines now: one digit is enough for every number of the next diff.
		const second = change(first.after, [{ oldText: "a1\n", newText: "b1\n" }]);
		expect(second.diff.split("\n").slice(0, 3)).toEqual(["-1 a1", "+1 b1", " 2 a2"]);
		const third = change(second.after, [{ oldText: "a9", newText: "a9\na10\na11" }]);
		expect(third.diff.split("\n").slice(-4)).toEqual(["- 9 a9", "+ 9 a9", "+10 a10", "+11 a11"]);
	});

	it("stays small for many edits in a large file", () => {
		const text = numbered(60_000);
		const edits = Array.from({ length: 200 }, (_, i) => ({
			oldText: `line ${i * 300 + 7}\n`,
			newText: `LINE ${i * 300 + 7}\n`,
		}));
		const { diff, patch } = change(text, edits);
		expect(diff.split("\n").filter((l) => l.startsWith("-")).length).toBe(200);
		expect(patch.split("\n").filter((l) => l.startsWith("@@")).length).toBe(200);
	});
});

describe("unified patch", () => {
	it("writes hunks with three lines of context", () => {
		const { patch } = change(numbered(10), [{ oldText: "line 5", newText: "five" }]);
		expect(patch).toBe(
			[
				"--- f.txt",
				"+++ f.txt",
				"@@ -2,7 +2,7 @@",
				" line 2",
				" line 3",
				" line 4",
				"-line 5",
				"+five",
				" line 6",
				" line 7",
				" line 8",
				"",
			].join("\n"),
		);
	});

	it("marks a last line without a newline", () => {
		const { patch } = change("a\nb", [{ oldText: "b", newText: "c" }]);
		expect(patch).toBe(
			[
				"--- f.txt",
				"+++ f.txt",
				"@@ -1,2 +1,2 @@",
				" a",
				"-b",
				"\\ No newline at end of file",
				"+c",
				"\\ No newline at end of file",
				"",
			].join("\n"),
		);
	});

	it("handles deleting everything and inserting into an empty file", () => {
		expect(change("only\n", [{ oldText: "only\n", newText: "" }]).patch).toBe(
			["--- f.txt", "+++ f.txt", "@@ -1,1 +0,0 @@", "-only", ""].join("\n"),
		);
	});
});

describe("tolerant matching", () => {
	it("folds trailing whitespace, typographic quotes, dashes and unusual spaces", () => {
		expect(tolerantForm("a \u2018b\u2019 \u201cc\u201d\u2014d\u00a0e  \nf\t")).toBe("a 'b' \"c\"-d e\nf");
	});

	it("maps the match back to the original text, keeping what is outside it", () => {
		const text = "x = \u201cone\u201d;  \ny = \u201ctwo\u201d;  \n";
		const located = locateEdits(text, [{ oldText: 'y = "two";', newText: 'y = "2";' }], "f.txt");
		expect(located[0]).toMatchObject({ tolerant: true });
		expect(applyLocatedEdits(text, located)).toBe('x = \u201cone\u201d;  \ny = "2";  \n');
	});

	it("reports ambiguous tolerant matches with their lines", () => {
		expect(() => locateEdits("a  \nb\na\n", [{ oldText: "a \nb\na \n", newText: "x" }], "f.txt")).not.toThrow();
		expect(() => locateEdits("\u2018q\u2019\n'q'\n", [{ oldText: "\u201cq\u201d", newText: "x" }], "f.txt")).toThrow(
			/Could not find edits\[0\]/,
		);
		expect(() => locateEdits("\u2018q\u2019\n\u2019q\u2018\n", [{ oldText: "'q'", newText: "x" }], "f.txt")).toThrow(
			/occurs 2 times \(lines 1, 2\)/,
		);
	});
});

describe("content sniffing and base64", () => {
	it("does not take text starting with BM for a bitmap", () => {
		expect(sniffImageMime(new TextEncoder().encode("BMW is a car maker and more text"))).toBeUndefined();
	});

	it("encodes base64 like the standard", () => {
		for (const length of [0, 1, 2, 3, 4, 5, 100, 70_000]) {
			const bytes = new Uint8Array(length).map((_, i) => (i * 37 + 11) & 255);
			expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString("base64"));
		}
	});
});

describe("diffs of random edits", () => {
	let seed = 99;
	const random = (n: number) => {
		seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
		return seed % n;
	};

	/**
	 * Apply a unified patch to `text` the plain way, on lines that keep their line break (a row
	 * followed by "\\ No newline at end of file" has none): every hunk's context and removals
	 * must be there.
	 */
	function applyPatch(text: string, patch: string): string {
		const old = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
		const out: string[] = [];
		let pos = 0;
		const rows = patch.split("\n").slice(2, -1);
		for (let i = 0; i < rows.length; ) {
			const header = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@$/.exec(rows[i] ?? "");
			if (!header) throw new Error(`bad hunk header ${rows[i]}`);
			const count = Number(header[2] ?? 1);
			const start = count === 0 ? Number(header[1]) : Number(header[1]) - 1;
			while (pos < start) out.push(old[pos++] as string);
			for (i++; i < rows.length && !(rows[i] ?? "").startsWith("@@"); i++) {
				const row = rows[i] as string;
				if (row.startsWith("\\")) continue;
				const line = row.slice(1) + ((rows[i + 1] ?? "").startsWith("\\") ? "" : "\n");
				if (row.startsWith("+")) out.push(line);
				else {
					expect(old[pos]).toBe(line);
					if (row.startsWith(" ")) out.push(line);
					pos++;
				}
			}
		}
		while (pos < old.length) out.push(old[pos++] as string);
		return out.join("");
	}

	/** Lines both sides share in order, at most: a smallest diff removes and adds everything else. */
	function longestCommon(a: readonly string[], b: readonly string[]): number {
		let row = new Array<number>(b.length + 1).fill(0);
		for (const line of a) {
			const next = [0];
			for (let j = 0; j < b.length; j++)
				next.push(line === b[j] ? (row[j] as number) + 1 : Math.max(row[j + 1] as number, next[j] as number));
			row = next;
		}
		return row[b.length] as number;
	}

	it("changes as few lines as possible when a whole region is rewritten", () => {
		for (let round = 0; round < 200; round++) {
			// Lines from a small set (many repeats) mixed with lines found on one side only.
			const pick = (side: string, k: number) =>
				random(4) === 0 ? `${side} only ${round}.${k}` : `common ${random(12)}`;
			const before = Array.from({ length: 20 + random(60) }, (_, k) => pick("old", k));
			const after = Array.from({ length: 20 + random(60) }, (_, k) => pick("new", k));
			const text = `head\n${before.join("\n")}\ntail\n`;
			const oldText = `head\n${before.join("\n")}\n`;
			const newText = `head\n${after.join("\n")}\n`;
			if (oldText === newText) continue;
			const { patch, diff, after: result } = change(text, [{ oldText, newText }]);
			expect(applyPatch(text, patch)).toBe(result);
			const rows = patch.split("\n").slice(2);
			const changed = rows.filter((row) => row.startsWith("+") || row.startsWith("-")).length;
			const smallest = before.length + after.length - 2 * longestCommon(before, after);
			expect(changed).toBe(smallest);
			expect(diff.split("\n").filter((row) => /^[+-]/.test(row)).length).toBe(smallest);
		}
	});

	it("give a patch that turns the old text into the new one and a numbered diff that quotes both", () => {
		for (let round = 0; round < 300; round++) {
			const count = 1 + random(400);
			const lines = Array.from({ length: count }, (_, i) => `row ${i} ${"x".repeat(random(5))}`);
			const text = lines.join("\n") + (random(2) ? "\n" : "");
			// Up to three separate edits anywhere: near the top, in the middle, at the very end.
			const picks = [...new Set(Array.from({ length: 1 + random(3) }, () => random(count)))].sort((a, b) => a - b);
			const edits = picks
				.filter((line, k) => k === 0 || line > (picks[k - 1] as number) + 2)
				.map((line) => {
					// Now and then a long stretch rewritten line by line (a large region to diff).
					const long = random(8) === 0;
					const span = long ? 20 + random(40) : 1 + random(3);
					const oldText = lines.slice(line, line + span).join("\n");
					if (long) {
						const rewritten = lines.slice(line, line + span).map((l, k) => (random(3) === 0 ? `${l} changed ${k}` : l));
						return { oldText, newText: rewritten.join("\n") };
					}
					const kind = random(3);
					const newText =
						kind === 0
							? ""
							: kind === 1
								? `${oldText}\nadded ${line}`
								: `changed ${line}\n${"new\n".repeat(random(3))}`;
					return { oldText, newText };
				})
				.filter((e) => e.oldText !== e.newText);
			let result: ReturnType<typeof change>;
			try {
				result = change(text, edits);
			} catch {
				continue; // an edit that is not unique or overlaps another: not what this checks
			}
			expect(applyPatch(text, result.patch)).toBe(result.after);
			const oldLines = text.split("\n");
			const newLines = result.after.split("\n");
			for (const row of result.diff.split("\n")) {
				const m = /^([+ -]) *(\d+) (.*)$/s.exec(row);
				if (!m) continue;
				const quoted = m[1] === "+" ? newLines : oldLines;
				expect(quoted[Number(m[2]) - 1]).toBe(m[3]);
			}
		}
	});
});
