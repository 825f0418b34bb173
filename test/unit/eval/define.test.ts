import { describe, expect, it } from "vitest";
import { defineEval, EvalScenarioError } from "../../../src/eval/define.js";
import type { EvalScenario } from "../../../src/eval/types.js";

const base: EvalScenario = { name: "s", prompt: "do it", expect: { calls: [{ tool: "a" }] } };

describe("defineEval", () => {
	it("gives a valid scenario back as it is", () => {
		expect(defineEval(base)).toBe(base);
	});

	it("refuses a scenario with no expectations, a pass rate outside 0..1, an unknown order", () => {
		expect(() => defineEval({ ...base, expect: {} })).toThrow(/no expectation given/);
		expect(() => defineEval({ ...base, passRate: 1.5 })).toThrow(/passRate: must be between 0 and 1/);
		expect(() => defineEval({ ...base, passRate: -0.1 })).toThrow(EvalScenarioError);
		expect(() => defineEval({ ...base, expect: { calls: [], order: "sorted" as never } })).toThrow(
			/unknown order "sorted" \(use strict, unordered, subset, superset\)/,
		);
	});

	it("lists every problem at once, with the scenario's name", () => {
		let message = "";
		try {
			defineEval({ name: "bad", prompt: "", trials: 0, expect: { calls: [{} as never], maxCalls: -1 } });
		} catch (error) {
			message = (error as Error).message;
		}
		expect(message).toContain('Eval scenario "bad" is not valid');
		expect(message).toContain("prompt: a non-empty string is required");
		expect(message).toContain("trials: must be a whole number ≥ 1");
		expect(message).toContain("expect.calls[0]: needs a tool name");
		expect(message).toContain("expect.maxCalls: must be a whole number ≥ 0");
	});

	it("refuses unknown expectation keys and a bad world", () => {
		expect(() => defineEval({ ...base, expect: { calls: [], cals: [] } as never })).toThrow(/expect.cals: unknown/);
		expect(() => defineEval({ ...base, world: { env: "disk" as never } })).toThrow(/world.env/);
	});
});
