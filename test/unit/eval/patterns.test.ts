import { describe, expect, it } from "vitest";
import { checkExpectations, describeValue, matchesText, valueMismatches } from "../../../src/eval/matchers.js";
import { dataPattern, MAX_PATTERN_CHARS, revivePatterns, type ScenarioDataError } from "../../../src/eval/patterns.js";

function problemsOf(value: unknown): readonly string[] {
	try {
		revivePatterns(value);
	} catch (error) {
		return (error as ScenarioDataError).problems;
	}
	return [];
}

describe("patterns written as data ($regex)", () => {
	it("match on the linear-time engine, with JavaScript's syntax and the i, m, s flags", () => {
		// (a+)+$ against "aaa…a!" never ends on a backtracking engine; RE2 answers no.
		const catastrophic = dataPattern("^(a+)+$");
		expect(matchesText(catastrophic, `${"a".repeat(50_000)}!`)).toBe(false);
		expect(matchesText(catastrophic, "aaaa")).toBe(true);
		expect(matchesText(dataPattern("^paris$", "i"), "PARIS")).toBe(true);
		expect(matchesText(dataPattern("^two$", "m"), "one\ntwo")).toBe(true);
		expect(matchesText(dataPattern("a.b", "s"), "a\nb")).toBe(true);
		expect(matchesText(dataPattern("a.b"), "a\nb")).toBe(false);
		expect(matchesText(dataPattern("\\u0041\\d"), "A1")).toBe(true);
	});

	it("show themselves as /source/flags in failures, JSON and strings", () => {
		const pattern = dataPattern("^paris$", "i");
		expect(describeValue(pattern)).toBe("/^paris$/i");
		expect(describeValue({ city: pattern })).toBe('{"city":"/^paris$/i"}');
		expect(JSON.stringify({ city: pattern })).toBe('{"city":"/^paris$/i"}');
		expect(String(pattern)).toBe("/^paris$/i");
		expect(valueMismatches({ city: pattern }, { city: "Lyon" })).toEqual(['/city: expected /^paris$/i, got "Lyon"']);
		expect(valueMismatches({ city: pattern }, { city: 5 })).toEqual([
			"/city: expected a string matching /^paris$/i, got 5",
		]);
		expect(checkExpectations({ answer: pattern }, { calls: [], turns: 1, answer: "Lyon", files: {} })).toEqual([
			expect.objectContaining({ message: 'the answer should be /^paris$/i; it was "Lyon"' }),
		]);
	});

	it("revive every { $regex } of a parsed scenario, leaving the rest as it is", () => {
		const revived = revivePatterns({
			name: "s",
			expect: { calls: [{ tool: "t", args: { city: { $regex: "^p", flags: "i" }, n: 1 } }], answer: { $regex: "x" } },
		}) as { expect: { calls: [{ args: { city: unknown; n: number } }]; answer: unknown } };
		expect(describeValue(revived.expect.calls[0].args.city)).toBe("/^p/i");
		expect(revived.expect.calls[0].args.n).toBe(1);
		expect(typeof revived.expect.answer).toBe("function");
	});

	it("refuse what RE2 cannot run, unknown flags and malformed pattern objects, naming each JSON path", () => {
		expect(
			problemsOf({
				expect: {
					calls: [{ tool: "t", args: { city: { $regex: "(?=P)aris" }, "odd key": { $regex: "(a)\\1" } } }],
					answer: { $regex: "a", flags: "x" },
					files: { "a.txt": { $regex: 5 }, "b.txt": { $regex: "b", flag: "i" }, "c.txt": { $regex: "c", flags: 1 } },
				},
			}),
		).toEqual([
			expect.stringMatching(/^expect\.calls\[0\]\.args\.city: the pattern "\(\?=P\)aris" cannot be used: .*lookaround/),
			expect.stringMatching(/^expect\.calls\[0\]\.args\["odd key"\]: .*invalid escape sequence.*backreferences/),
			expect.stringMatching(/^expect\.answer: .*unsupported flag "x"/),
			'expect.files["a.txt"]: "$regex" must be a string (the pattern), got 5',
			'expect.files["b.txt"]: a pattern object holds only "$regex" and "flags"; remove "flag"',
			'expect.files["c.txt"]: "flags" must be a string such as "i" or "ims", got 1',
		]);
	});

	it("refuse nesting past the limit and more pattern text than the limit, once", () => {
		let deep: unknown = 1;
		for (let i = 0; i < 600; i++) deep = { d: deep };
		expect(problemsOf({ deep })).toEqual([expect.stringMatching(/nests deeper than 512 levels$/)]);
		const big = "a".repeat(MAX_PATTERN_CHARS / 4 + 1);
		const problems = problemsOf({ list: Array.from({ length: 8 }, () => ({ $regex: big })) });
		expect(problems).toEqual([
			expect.stringMatching(/^list\[3\]: the file's patterns hold more than 65536 characters/),
		]);
	});

	it("keep a __proto__ key as plain data", () => {
		const revived = revivePatterns(JSON.parse('{"args":{"__proto__":{"polluted":true}}}')) as {
			args: Record<string, unknown>;
		};
		expect(Object.hasOwn(revived.args, "__proto__")).toBe(true);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});
});
