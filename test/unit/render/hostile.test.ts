/** The renderer never throws: hostile arguments, content and fields fall back to lines that say what they can. */
import { describe, expect, it } from "vitest";
import { renderToolCall, renderToolResult } from "../../../src/render/renderer.js";
import { plainTheme } from "../../../src/render/theme.js";
import { hostileObjects, revoked } from "../contract/_hostile.js";

describe("renderer: hostile arguments and results", () => {
	it.each(hostileObjects())("renderToolCall with %s as arguments falls back without throwing", (_name, value) => {
		const block = renderToolCall(undefined, value, plainTheme, 80, { name: "t" });
		expect(block.fallback).toBe(true);
		expect(block.lines.length).toBeGreaterThan(0);
	});

	it.each(hostileObjects())("renderToolResult with %s as content gives one line saying so", (_name, value) => {
		const result = { content: value, details: value } as never;
		const block = renderToolResult(undefined, result, { expanded: true, isPartial: false }, plainTheme, 80);
		expect(block.fallback).toBe(true);
		expect(block.lines.length).toBeGreaterThan(0);
	});

	it("a text block whose text is not a string, and an image whose fields are hostile, are shown", () => {
		const result = {
			content: [
				{ type: "text", text: Object.create(null) },
				{ type: "image", data: revoked(), mimeType: revoked() },
			],
			details: {},
		} as never;
		const block = renderToolResult(undefined, result, { expanded: true, isPartial: false }, plainTheme, 80);
		expect(block.error).toBeUndefined();
		expect(block.lines.join("\n")).toContain("[image a value that cannot be read");
	});
});
