import { describe, expect, it } from "vitest";
import type { AgentToolResult } from "../../../src/contract/tool.js";
import { HOOK_FIELDS, mergeAfterHook, RESULT_FIELDS } from "../../../src/exec/after-hook.js";
import type { AfterToolCallResult } from "../../../src/exec/types.js";

const result = (): AgentToolResult<unknown> => ({
	content: [{ type: "text", text: "original" }],
	details: { n: 1 },
	addedToolNames: ["extra"],
});

describe("mergeAfterHook", () => {
	it("replaces each field the patch sets, as a whole, and keeps the rest of the base", () => {
		const base = result();
		const merged = mergeAfterHook(
			base,
			{ content: [{ type: "text", text: "patched" }], terminate: true },
			RESULT_FIELDS,
		);
		expect(merged).toEqual({
			content: [{ type: "text", text: "patched" }],
			details: { n: 1 },
			addedToolNames: ["extra"],
			terminate: true,
		});
	});

	it("leaves fields the patch leaves undefined, and adds no key for them", () => {
		const merged = mergeAfterHook(result(), { content: undefined, details: undefined }, RESULT_FIELDS);
		expect(merged).toEqual(result());
		expect(Object.keys(merged)).toEqual(["content", "details", "addedToolNames"]);
	});

	it("lets a null replace a field (only undefined leaves it)", () => {
		const merged = mergeAfterHook(result(), { details: null }, RESULT_FIELDS);
		expect(merged.details).toBeNull();
	});

	it("takes only the listed fields", () => {
		const base: AfterToolCallResult = { content: [], details: 1, isError: false, terminate: false };
		const patch: AfterToolCallResult = { isError: true, terminate: true };
		const merged = mergeAfterHook(base, patch, ["content", "details", "isError"]);
		expect(merged).toEqual({ content: [], details: 1, isError: true, terminate: false });
	});

	it("returns a new object and does not change the base", () => {
		const base = result();
		const merged = mergeAfterHook(base, { details: { n: 2 } }, RESULT_FIELDS);
		expect(merged).not.toBe(base);
		expect(base).toEqual(result());
		expect(mergeAfterHook(base, {}, RESULT_FIELDS)).not.toBe(base);
	});

	it("merges one hook answer on top of another: the later one wins where it sets a field", () => {
		const first: AfterToolCallResult = { content: [{ type: "text", text: "first" }], details: "a", isError: true };
		const second: AfterToolCallResult = { details: "b", isError: false, terminate: true };
		expect(mergeAfterHook(first, second, HOOK_FIELDS)).toEqual({
			content: [{ type: "text", text: "first" }],
			details: "b",
			isError: false,
			terminate: true,
		});
	});
});
