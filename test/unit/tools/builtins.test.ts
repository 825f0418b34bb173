import { describe, expect, it } from "vitest";
import { BUILTIN_TOOL_SETS, builtinsFromOption, createBuiltinTools } from "../../../src/tools/builtins.js";

describe("createBuiltinTools", () => {
	it("keeps the four coding tools as the default, for createBuiltinTools() and for hosts", () => {
		expect(createBuiltinTools().map((t) => t.name)).toEqual(["read", "bash", "edit", "write"]);
		expect(createBuiltinTools({ set: "coding" }).map((t) => t.name)).toEqual(["read", "bash", "edit", "write"]);
		expect(builtinsFromOption(undefined).map((t) => t.name)).toEqual(["read", "bash", "edit", "write"]);
	});

	it("creates each set's tools in the listed order, with fresh definitions", () => {
		for (const set of ["coding", "readOnly", "all"] as const) {
			expect(createBuiltinTools({ set }).map((t) => t.name)).toEqual(BUILTIN_TOOL_SETS[set]);
		}
		expect(BUILTIN_TOOL_SETS.readOnly).not.toContain("bash");
		expect(BUILTIN_TOOL_SETS.readOnly).not.toContain("write");
		expect(BUILTIN_TOOL_SETS.readOnly).not.toContain("edit");
		expect(createBuiltinTools({ set: "all" })[0]).not.toBe(createBuiltinTools({ set: "all" })[0]);
	});

	it("passes each tool its own options", () => {
		const [ls] = createBuiltinTools({ set: "readOnly", ls: { defaultLimit: 7 } }).filter((t) => t.name === "ls");
		expect(ls?.description).toContain("At most 7 entries");
		const [grep] = createBuiltinTools({ set: "all", grep: { defaultLimit: 9 } }).filter((t) => t.name === "grep");
		expect(grep?.description).toContain("At most 9 matches");
	});

	it("names the sets when given an unknown one", () => {
		expect(() => createBuiltinTools({ set: "everything" as never })).toThrow(
			'Unknown built-in tool set "everything": use "coding", "readOnly" or "all"',
		);
	});
});
