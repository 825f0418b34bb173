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

describe("defineEval: world paths", () => {
	it("refuses keys of world.files and expect.files that would leave the world's folder, naming each", () => {
		let message = "";
		try {
			defineEval({
				...base,
				world: { files: { "/etc/passwd": "x", "a/../../b": "y", "": "z", "ok/file.txt": "fine" } },
				expect: { files: { "../secret": "x", "C:\\secret": null, "a\u0000b": "x", "notes/ok.md": /x/ } },
			});
		} catch (error) {
			message = (error as Error).message;
		}
		expect(message.split("\n").filter((line) => line.includes(".files["))).toEqual([
			'  - expect.files["../secret"]: must stay inside the world\'s folder: a relative path without ".." segments',
			'  - expect.files["C:\\\\secret"]: must be a path relative to the world\'s folder, not an absolute one (the world is a fresh folder of its own)',
			'  - expect.files["a\\u0000b"]: holds a NUL byte, which no file name may hold',
			'  - world.files["/etc/passwd"]: must be a path relative to the world\'s folder, not an absolute one (the world is a fresh folder of its own)',
			'  - world.files["a/../../b"]: must stay inside the world\'s folder: a relative path without ".." segments',
			'  - world.files[""]: an empty path names no file',
		]);
	});

	it("takes relative paths inside the world, dotted names included", () => {
		const scenario: EvalScenario = {
			...base,
			world: { files: { "a/b.txt": "x", ".env": "y", "..hidden": "z" } },
			expect: { files: { "./a/b.txt": "x", "a/./c": null } },
		};
		expect(defineEval(scenario)).toBe(scenario);
	});
});
