import { describe, expect, it } from "vitest";
import {
	activatesOnRegistration,
	callableToolNames,
	exposureOf,
	isActivatable,
	isToolCallable,
	isToolExposure,
} from "../../../src/contract/exposure.js";
import type { ToolExposure } from "../../../src/contract/tool.js";

const ALL: ToolExposure[] = ["direct", "model-only", "codemode", "deferred", "hidden"];

describe("tool exposure rules (pi 1.x)", () => {
	it("a tool without exposure is direct; only the five names are exposures", () => {
		expect(exposureOf({})).toBe("direct");
		expect(ALL.every(isToolExposure)).toBe(true);
		expect(isToolExposure("Direct")).toBe(false);
		expect(isToolExposure(undefined)).toBe(false);
	});

	it("registration activates direct and model-only tools, unless defaultActive is false", () => {
		expect(ALL.filter((exposure) => activatesOnRegistration({ exposure }))).toEqual(["direct", "model-only"]);
		expect(activatesOnRegistration({})).toBe(true);
		expect(activatesOnRegistration({ defaultActive: false })).toBe(false);
		// defaultActive: true cannot make a codemode tool active on registration.
		expect(activatesOnRegistration({ exposure: "codemode", defaultActive: true })).toBe(false);
	});

	it("every exposure but hidden may be activated", () => {
		expect(ALL.filter(isActivatable)).toEqual(["direct", "model-only", "codemode", "deferred"]);
	});

	it("callable: codemode and deferred always, direct while active, model-only and hidden never", () => {
		const table = ALL.map((exposure) => [exposure, isToolCallable(exposure, true), isToolCallable(exposure, false)]);
		expect(table).toEqual([
			["direct", true, false],
			["model-only", false, false],
			["codemode", true, true],
			["deferred", true, true],
			["hidden", false, false],
		]);
		const tools = ALL.map((exposure) => ({ name: exposure, exposure }));
		expect(callableToolNames(tools, ["direct", "model-only", "hidden"])).toEqual(["direct", "codemode", "deferred"]);
		expect(callableToolNames(tools, [])).toEqual(["codemode", "deferred"]);
	});
});
