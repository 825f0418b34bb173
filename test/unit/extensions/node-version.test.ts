import { describe, expect, it } from "vitest";
import { API_VERSION } from "../../../src/extensions/api.js";
import { checkEngines } from "../../../src/extensions/node-version.js";

describe("checkEngines", () => {
	it("accepts no range and ranges that include API_VERSION", () => {
		expect(API_VERSION).toBe("1.2.0");
		for (const range of [undefined, "^1", "^1.0.0", ">=1", "1.x", "*", ">=0.9 <2"]) {
			expect(checkEngines(range, "/ext/a.ts", "package.json")).toBeUndefined();
		}
	});

	it("rejects a range that excludes API_VERSION, saying what is required and what this is", () => {
		expect(checkEngines("^2.0.0", "/ext/a.ts", "package.json")).toEqual({
			severity: "error",
			code: "E_INCOMPATIBLE",
			message:
				"/ext/a.ts requires toolsmith ^2.0.0; this is 1.2.0. The extension was not loaded: use a toolsmith whose API version matches, or update the extension.",
			path: "/ext/a.ts",
		});
		expect(checkEngines("<1", "/ext/a.ts", "package.json")?.code).toBe("E_INCOMPATIBLE");
	});

	it("rejects values that are not semver ranges", () => {
		for (const range of ["banana", 2, { min: 1 }, "^1 ||| x"]) {
			expect(checkEngines(range, "/ext/a.ts", "package.json")?.code, String(range)).toBe("E_INVALID_ENGINES");
		}
		expect(checkEngines("banana", "/ext/a.ts", "package.json")?.message).toBe(
			'/ext/a.ts declares engines.toolsmith "banana" in package.json, which is not a valid semver range (for example "^1"); the extension was not loaded.',
		);
	});
});
