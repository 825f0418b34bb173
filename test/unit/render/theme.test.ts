import { describe, expect, it } from "vitest";
import { ansiTheme, createAnsiTheme, plainTheme } from "../../../src/render/theme.js";
import { stripAnsi } from "../../../src/render/width.js";

describe("plainTheme", () => {
	it("returns every string unchanged", () => {
		const t = plainTheme;
		for (const styled of [
			t.fg("error", "x"),
			t.bg("toolErrorBg", "x"),
			t.bold("x"),
			t.italic("x"),
			t.dim("x"),
			t.underline("x"),
			t.strikethrough("x"),
			t.inverse("x"),
		]) {
			expect(styled).toBe("x");
		}
		expect(t.name).toBe("plain");
	});
});

describe("ansiTheme", () => {
	it("wraps text in SGR open and close codes", () => {
		expect(ansiTheme.fg("error", "x")).toBe("\x1b[31mx\x1b[39m");
		expect(ansiTheme.bold("x")).toBe("\x1b[1mx\x1b[22m");
		expect(ansiTheme.italic("x")).toBe("\x1b[3mx\x1b[23m");
		expect(ansiTheme.dim("x")).toBe("\x1b[2mx\x1b[22m");
		expect(ansiTheme.underline("x")).toBe("\x1b[4mx\x1b[24m");
		expect(ansiTheme.strikethrough("x")).toBe("\x1b[9mx\x1b[29m");
		expect(ansiTheme.inverse("x")).toBe("\x1b[7mx\x1b[27m");
		expect(ansiTheme.bg("toolErrorBg", "x")).toBe("\x1b[48;5;52mx\x1b[49m");
	});

	it("shows unknown roles in the default color and the empty string as empty", () => {
		expect(ansiTheme.fg("someRoleNobodyKnows", "x")).toBe("x");
		expect(ansiTheme.bg("someRoleNobodyKnows", "x")).toBe("x");
		expect(ansiTheme.fg("text", "x")).toBe("x");
		expect(ansiTheme.fg("error", "")).toBe("");
	});

	it("re-opens the outer color after a nested one closes", () => {
		const nested = ansiTheme.fg("error", `a ${ansiTheme.fg("success", "b")} c`);
		expect(nested).toBe("\x1b[31ma \x1b[32mb\x1b[39m\x1b[31m c\x1b[39m");
		const boldInDim = ansiTheme.dim(`a${ansiTheme.bold("b")}c`);
		expect(boldInDim).toBe("\x1b[2ma\x1b[1mb\x1b[22m\x1b[2mc\x1b[22m");
		expect(stripAnsi(nested)).toBe("a b c");
	});

	it("takes color overrides by name, 256-color index and hex", () => {
		const theme = createAnsiTheme({
			name: "mine",
			colors: { accent: "brightMagenta", muted: 245, custom: "#ff8000", error: "default" },
			backgrounds: { selectedBg: "blue" },
		});
		expect(theme.name).toBe("mine");
		expect(theme.fg("accent", "x")).toBe("\x1b[95mx\x1b[39m");
		expect(theme.fg("muted", "x")).toBe("\x1b[38;5;245mx\x1b[39m");
		expect(theme.fg("custom", "x")).toBe("\x1b[38;2;255;128;0mx\x1b[39m");
		expect(theme.fg("error", "x")).toBe("x");
		expect(theme.fg("success", "x")).toBe("\x1b[32mx\x1b[39m");
		expect(theme.bg("selectedBg", "x")).toBe("\x1b[44mx\x1b[49m");
	});

	it("rejects a bad color with a message naming it", () => {
		expect(() => createAnsiTheme({ colors: { accent: 300 } })).toThrow(/300 is out of range/);
		expect(() => createAnsiTheme({ colors: { accent: "#12" } })).toThrow(/"#12" is not a #rrggbb/);
		expect(() => createAnsiTheme({ colors: { accent: "purple" as never } })).toThrow(/unknown ANSI color "purple"/);
	});
});
