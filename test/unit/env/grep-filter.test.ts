/**
 * The whole-file filter of grep: running the search regex once over a file in multiline mode
 * never skips a file that has a matching line. Checked against matching every line, over contents
 * that probe line ends (CRLF, lone CR, U+2028, no final newline), anchors, word boundaries,
 * classes that could span a line break, case folding and invalid UTF-8.
 */
import { describe, expect, it } from "vitest";
import { compileSearchPattern, fileFilter, matchChunks, matchFile } from "../../../src/env/_grep.js";

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

describe("matchChunks", () => {
	async function* pieces(bytes: Uint8Array, cuts: number[]): AsyncGenerator<Uint8Array> {
		let start = 0;
		for (const cut of [...cuts, bytes.length]) {
			yield bytes.subarray(start, Math.max(start, cut));
			start = Math.max(start, cut);
		}
	}

	it("finds what matchFile finds on the whole bytes, however the file is cut", async () => {
		const extra = [
			enc.encode("é needle\r\nneedle é\n".repeat(7)),
			enc.encode("a\nneedle\nb\nc\nneedle\nd"),
			new Uint8Array([...enc.encode("needle\n"), 0xe2, 0x82, 0xac, 0x0a, 0x6e]),
		];
		let seed = 7;
		const random = () => {
			seed = (seed * 1103515245 + 12345) % 2 ** 31;
			return seed / 2 ** 31;
		};
		let compared = 0;
		for (const [pattern, literal, ignoreCase] of PATTERNS) {
			const regex = compileSearchPattern(pattern, literal, ignoreCase);
			for (const bytes of [...CONTENTS, BAD_UTF8, ...extra]) {
				for (const context of [0, 2]) {
					for (const room of [1, 3, 100]) {
						const whole = matchFile("f", bytes, { regex, filter: undefined, context }, room);
						const cuts = Array.from({ length: 3 }, () => Math.floor(random() * (bytes.length + 1))).sort(
							(a, b) => a - b,
						);
						const label = `${pattern} ctx ${context} room ${room} cuts ${cuts} on ${JSON.stringify(new TextDecoder().decode(bytes))}`;
						for (const filter of [undefined, fileFilter(regex)]) {
							const got = await matchChunks("f", pieces(bytes, cuts), { regex, filter, context }, room);
							expect(got, `${label}${filter ? " filtered" : ""}`).toEqual(whole);
						}
						compared++;
					}
				}
			}
		}
		expect(compared).toBeGreaterThan(1000);
	});

	it("is undefined for a NUL byte anywhere, also after the matches are taken", async () => {
		const regex = compileSearchPattern("needle", false, false);
		const bytes = new Uint8Array([...enc.encode("needle\n".repeat(100)), 0]);
		expect(
			await matchChunks("f", pieces(bytes, [10, 300]), { regex, filter: undefined, context: 0 }, 1),
		).toBeUndefined();
	});
});
