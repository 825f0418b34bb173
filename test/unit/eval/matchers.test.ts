import { describe, expect, it } from "vitest";
import type { ToolCall } from "../../../src/contract/content.js";
import { checkExpectations, matchCalls, valueMismatches } from "../../../src/eval/matchers.js";
import type { ExpectedCall } from "../../../src/eval/types.js";

const call = (name: string, args: unknown = {}, id = name): ToolCall => ({
	type: "toolCall",
	id,
	name,
	arguments: args,
});

describe("valueMismatches", () => {
	it("matches objects as deep subsets, arrays element by element", () => {
		expect(valueMismatches({ a: 1, b: { c: "x" } }, { a: 1, b: { c: "x", d: 2 }, e: 3 })).toEqual([]);
		expect(valueMismatches({ list: [1, 2] }, { list: [1, 2] })).toEqual([]);
		expect(valueMismatches({ list: [1, 2] }, { list: [1, 2, 3] })).toEqual([
			"/list: expected 2 items, got 3 ([1,2,3])",
		]);
		expect(valueMismatches({ b: { c: "x" } }, { b: { c: "y" } })).toEqual(['/b/c: expected "x", got "y"']);
		expect(valueMismatches({ missing: 1 }, {})).toEqual(["/missing: expected 1, missing"]);
	});

	it("takes RegExp and predicate values", () => {
		expect(valueMismatches({ city: /^par/i }, { city: "Paris" })).toEqual([]);
		expect(valueMismatches({ city: /^par/i }, { city: "Lyon" })).toEqual(['/city: expected /^par/i, got "Lyon"']);
		expect(valueMismatches({ city: /x/ }, { city: 3 })).toEqual(["/city: expected a string matching /x/, got 3"]);
		const positive = (value: unknown) => typeof value === "number" && value > 0;
		expect(valueMismatches({ n: positive }, { n: 2 })).toEqual([]);
		expect(valueMismatches({ n: positive }, { n: -1 })).toEqual(["/n: <predicate positive> refused -1"]);
		const throws = () => {
			throw new Error("boom");
		};
		expect(valueMismatches({ n: throws }, { n: 1 })).toHaveLength(1);
	});
});

describe("matchCalls: the orders as agentevals defines them", () => {
	const expected: ExpectedCall[] = [{ tool: "a" }, { tool: "b", args: { x: 1 } }];

	it("strict: the same calls in the same order, no more, no less", () => {
		expect(matchCalls(expected, [call("a"), call("b", { x: 1 })], "strict")).toEqual([]);
		expect(matchCalls(expected, [call("b", { x: 1 }), call("a")], "strict")).toHaveLength(2);
		expect(matchCalls(expected, [call("a")], "strict").map((f) => f.message)).toEqual([
			'strict: call 2 should be b({"x":1}); the model made only 1 call',
		]);
		const extra = matchCalls(expected, [call("a"), call("b", { x: 1 }), call("c")], "strict");
		expect(extra.map((f) => f.actual)).toEqual([{ tool: "c", args: {} }]);
	});

	it("unordered: the same calls in any order", () => {
		expect(matchCalls(expected, [call("b", { x: 1 }), call("a")], "unordered")).toEqual([]);
		expect(matchCalls(expected, [call("b", { x: 1 }), call("a"), call("a")], "unordered")).toHaveLength(1);
		expect(matchCalls(expected, [call("a")], "unordered")).toHaveLength(1);
	});

	it("subset: every actual call is an expected one (expected ones may be missing)", () => {
		expect(matchCalls(expected, [call("a")], "subset")).toEqual([]);
		expect(matchCalls(expected, [], "subset")).toEqual([]);
		const failures = matchCalls(expected, [call("a"), call("c")], "subset");
		expect(failures).toHaveLength(1);
		expect(failures[0]?.message).toContain('c({}) is none of the expected calls (a, b({"x":1}))');
		// a call counts once: two calls of a need two expected a's
		expect(matchCalls(expected, [call("a"), call("a")], "subset")).toHaveLength(1);
	});

	it("superset: every expected call is among the actual ones (others allowed)", () => {
		expect(matchCalls(expected, [call("c"), call("b", { x: 1, y: 2 }), call("a")], "superset")).toEqual([]);
		expect(matchCalls(expected, [call("a")], "superset")).toHaveLength(1);
		expect(matchCalls([{ tool: "a" }, { tool: "a" }], [call("a")], "superset")).toHaveLength(1);
	});

	it("pairs calls so a loose expectation does not take the only partner of a strict one", () => {
		const loose: ExpectedCall[] = [{ tool: "w" }, { tool: "w", args: { p: "x" } }];
		expect(matchCalls(loose, [call("w", { p: "x" }), call("w", { p: "y" })], "unordered")).toEqual([]);
	});

	it("shows the closest actual call beside the expected one", () => {
		const [failure] = matchCalls(
			[{ tool: "weather", args: { city: "Paris", unit: "celsius" } }],
			[call("search", { q: "paris" }), call("weather", { city: "Paris", unit: "kelvin" })],
			"superset",
		);
		expect(failure?.expectation).toBe("calls");
		expect(failure?.expected).toEqual({ tool: "weather", args: { city: "Paris", unit: "celsius" } });
		expect(failure?.actual).toEqual({ tool: "weather", args: { city: "Paris", unit: "kelvin" } });
		expect(failure?.message).toContain('/unit: expected "celsius", got "kelvin"');
		const [none] = matchCalls([{ tool: "weather" }], [call("search")], "superset");
		expect(none?.message).toBe("superset: expected weather; the model called search");
	});

	it("parses arguments the model sent as a JSON string", () => {
		expect(matchCalls([{ tool: "a", args: { x: 1 } }], [call("a", '{"x":1}')])).toEqual([]);
	});
});

describe("checkExpectations", () => {
	const outcome = {
		calls: [call("read", { path: "a.txt" }), call("rm", { path: "b" })],
		turns: 3,
		answer: "Done: 42 lines",
		files: { "out.txt": "hello\n", "gone.txt": null, "kept.txt": "x" },
	};

	it("passes when every expectation holds", () => {
		expect(
			checkExpectations(
				{
					calls: [{ tool: "read" }],
					forbid: ["write"],
					maxCalls: 2,
					maxTurns: 3,
					files: { "out.txt": "hello\n", "gone.txt": null, "kept.txt": /x/ },
					answer: /\d+ lines/,
				},
				outcome,
			),
		).toEqual([]);
	});

	it("reports forbid, maxCalls, maxTurns, files and answer with expected beside actual", () => {
		const failures = checkExpectations(
			{
				forbid: ["rm"],
				maxCalls: 1,
				maxTurns: 2,
				files: { "out.txt": "bye\n", "gone.txt": "x", "kept.txt": null, "p.txt": (t) => t.length > 5 },
				answer: "Done",
			},
			outcome,
		);
		expect(failures.map((f) => f.expectation)).toEqual([
			"forbid",
			"maxCalls",
			"maxTurns",
			"files",
			"files",
			"files",
			"files",
			"answer",
		]);
		expect(failures[0]?.message).toBe('rm must not be called; the model called it 1 time, first with {"path":"b"}');
		expect(failures[3]).toMatchObject({ expected: '"bye\\n"', actual: "hello\n" });
		expect(failures[4]?.message).toBe('gone.txt should be "x"; it does not exist');
		expect(failures[5]?.message).toBe('kept.txt must not exist; it holds "x"');
		expect(failures[7]).toMatchObject({ expected: '"Done"', actual: "Done: 42 lines" });
	});
});
