/**
 * The whole-file filter of grep: running the search regex once over a file in multiline mode
 * never skips a file that has a matching line. Checked against matching every line, over contents
 * that probe line ends (CRLF, lone CR, U+2028, no final newline), anchors, word boundaries,
 * classes that could span a line break, case folding and invalid UTF-8.
 */
import { describe, expect, it } from "vitest";
import { compileSearchPattern, fileFilter, matchFile } from "../../../src/env/_grep.js";

const enc = new TextEncoder();
const CONTENTS: readonly Uint8Array[] = [
	"needle one\nno\nneedle two\n",
	"a\r\nNeedle crlf\r\nfoo bar\r\n",
	"mid\rline needle\nne\rdle\n",
	"last line needle without newline",
	"",
	"\n\n\n",
	"\uFEFFneedle after a BOM\n",
	"needle\u2028sep\nfoo|bar\na.b a-b [x]\n",
	"word\nneedle\nend",
	"x needle\r\n\r\nneedle$\n",
	"ÄÖÜ needle ß straße STRASSE K k\n",
	"a\nb\n",
	"ab\n",
	" \n\t\n",
].map((text) => enc.encode(text));
const BAD_UTF8 = new Uint8Array([0x62, 0x61, 0x64, 0x20, 0xff, 0xc3, 0x20, 0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x0a]);

const PATTERNS: readonly [pattern: string, literal: boolean, ignoreCase: boolean][] = [
	["needle", false, false],
	["needle", true, true],
	["^needle", false, false],
	["needle$", false, false],
	["^$", false, false],
	["", false, false],
	["crlf$", false, true],
	["\\bneedle\\b", false, false],
	["\\Bdle", false, false],
	["e$", false, false],
	["^\\s*$", false, false],
	["a\\sb", false, false],
	["a[^x]b", false, false],
	["[\\s\\S]+", false, false],
	["b$|^a", false, false],
	["needle$", true, false],
	["(?<=\\n)needle", false, false],
	["needle(?!\\r)", false, false],
	["(?<!x )needle", false, false],
	["(?=n)needle", false, false],
	["strasse", false, true],
	["\u00e4", false, true],
	["\uFFFD", false, false],
	["^\uFEFF", false, false],
	["sep$", false, false],
	["^sep", false, false],
];

describe("fileFilter", () => {
	it("never skips a file that has a matching line", () => {
		let filtered = 0;
		for (const [pattern, literal, ignoreCase] of PATTERNS) {
			const regex = compileSearchPattern(pattern, literal, ignoreCase);
			const filter = fileFilter(regex);
			for (const bytes of [...CONTENTS, BAD_UTF8]) {
				for (const context of [0, 1]) {
					const plain = matchFile("f", bytes, { regex, filter: undefined, context }, 100);
					const withFilter = matchFile("f", bytes, { regex, filter, context }, 100);
					expect(withFilter, `${pattern} on ${JSON.stringify(new TextDecoder().decode(bytes))}`).toEqual(plain);
					if (filter && plain?.length === 0 && !filter.test(new TextDecoder().decode(bytes))) filtered++;
				}
			}
		}
		// The filter does skip files: it is not vacuously equal.
		expect(filtered).toBeGreaterThan(50);
	});

	it("is not used for a pattern with a lookaround, which could see across a line break", () => {
		for (const pattern of ["(?<=\\n)a", "a(?!\\r)", "(?<!x)a", "(?=a)a"]) {
			expect(fileFilter(compileSearchPattern(pattern, false, false)), pattern).toBeUndefined();
		}
		expect(fileFilter(compileSearchPattern("(?=", true, false))).toBeDefined();
		expect(fileFilter(compileSearchPattern("a(b)c", false, false))?.flags).toBe("mu");
	});

	it("a binary file (a NUL byte anywhere) is undefined with or without it", () => {
		const regex = compileSearchPattern("needle", false, false);
		const bytes = new Uint8Array([...enc.encode("needle\n"), 0]);
		expect(matchFile("f", bytes, { regex, filter: fileFilter(regex), context: 0 }, 10)).toBeUndefined();
	});
});
