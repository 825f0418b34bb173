/**
 * The whole-file filter of grep: running the search regex once over a file in multiline mode
 * never skips a file that has a matching line. Checked against matching every line, over contents
 * that probe line ends (CRLF, lone CR, U+2028, no final newline), anchors, word boundaries,
 * classes that could span a line break, case folding and invalid UTF-8.
 */
import { describe, expect, it } from "vitest";
import type { SearchTextMatch } from "../../../src/contract/env.js";
import {
	compileSearchPattern,
	type FileFilter,
	fileFilter,
	MatchCollector,
	type SearchPattern,
	scanBytes,
	scanFile,
} from "../../../src/env/grep.js";

type Search = { regex: SearchPattern; filter: FileFilter | undefined; context: number };
const settings = (search: Search) => ({ ...search, maxBytes: 1e9, maxLineChars: Number.POSITIVE_INFINITY });

/** The matches of a file's whole bytes, at most `room`; undefined when it is binary. */
async function matchFile(path: string, bytes: Uint8Array, search: Search, room: number) {
	const collector = new MatchCollector(room);
	const text = await scanBytes(path, bytes, settings(search), collector, undefined);
	return text ? (collector.matches as SearchTextMatch[]) : undefined;
}

/** The same, the file given in pieces. */
async function matchChunks(path: string, pieces: AsyncIterable<Uint8Array>, search: Search, room: number) {
	const collector = new MatchCollector(room);
	const text = await scanFile(path, pieces, settings(search), collector, undefined);
	return text ? (collector.matches as SearchTextMatch[]) : undefined;
}

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
	["\\Aneedle", false, false],
	["needle\\z", false, false],
	["(?i)NEEDLE", false, false],
	["(?-m)^needle", false, false],
	["(?s)a.b", false, false],
	["strasse", false, true],
	["\u00e4", false, true],
	["\uFFFD", false, false],
	["^\uFEFF", false, false],
	["sep$", false, false],
	["^sep", false, false],
];

describe("fileFilter", () => {
	it("never skips a file that has a matching line", async () => {
		let filtered = 0;
		for (const [pattern, literal, ignoreCase] of PATTERNS) {
			const regex = compileSearchPattern(pattern, literal, ignoreCase);
			const filter = fileFilter(regex);
			for (const bytes of [...CONTENTS, BAD_UTF8]) {
				for (const context of [0, 1]) {
					const plain = await matchFile("f", bytes, { regex, filter: undefined, context }, 100);
					const withFilter = await matchFile("f", bytes, { regex, filter, context }, 100);
					expect(withFilter, `${pattern} on ${JSON.stringify(new TextDecoder().decode(bytes))}`).toEqual(plain);
					if (filter && plain?.length === 0 && !filter.mayMatch(new TextDecoder().decode(bytes))) filtered++;
				}
			}
		}
		// The filter does skip files: it is not vacuously equal.
		expect(filtered).toBeGreaterThan(50);
	});

	it("is not used for \\A, \\z or a flag group that could turn multiline mode off", () => {
		for (const pattern of ["\\Aa", "a\\z", "(?-m)^a", "(?m:a)"]) {
			expect(fileFilter(compileSearchPattern(pattern, false, false)), pattern).toBeUndefined();
		}
		expect(fileFilter(compileSearchPattern("(?m", true, false))).toBeDefined();
		expect(fileFilter(compileSearchPattern("a(b)c", false, false))).toBeDefined();
	});

	it("a binary file (a NUL byte anywhere) is undefined with or without it", async () => {
		const regex = compileSearchPattern("needle", false, false);
		const bytes = new Uint8Array([...enc.encode("needle\n"), 0]);
		expect(await matchFile("f", bytes, { regex, filter: fileFilter(regex), context: 0 }, 10)).toBeUndefined();
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
						const whole = await matchFile("f", bytes, { regex, filter: undefined, context }, room);
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
