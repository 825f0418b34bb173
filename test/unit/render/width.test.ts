import { describe, expect, it } from "vitest";
import { expandTabs, stripAnsi, truncateToWidth, visibleWidth } from "../../../src/render/width.js";

const red = (s: string) => `\x1b[31m${s}\x1b[39m`;

describe("visibleWidth", () => {
	it("counts ASCII by length and ignores SGR, OSC hyperlinks and other escapes", () => {
		expect(visibleWidth("hello")).toBe(5);
		expect(visibleWidth(red("hello"))).toBe(5);
		expect(visibleWidth("\x1b[1;38;2;10;20;30mX\x1b[0m")).toBe(1);
		expect(visibleWidth("\x1b]8;;https://example.com\x07link\x1b]8;;\x07")).toBe(4);
		expect(visibleWidth("\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\")).toBe(4);
	});

	it("counts East Asian wide characters, fullwidth forms and emoji as 2 columns", () => {
		expect(visibleWidth("日本語")).toBe(6);
		expect(visibleWidth("한국")).toBe(4);
		expect(visibleWidth("ＡＢ")).toBe(4);
		expect(visibleWidth("a😀b")).toBe(4);
		expect(visibleWidth("👩‍💻")).toBe(2);
		expect(visibleWidth("🇫🇷")).toBe(2);
		expect(visibleWidth("❤️")).toBe(2);
	});

	it("gives combining marks and zero-width characters no column", () => {
		expect(visibleWidth("e\u0301")).toBe(1);
		expect(visibleWidth("a\u200bb")).toBe(2);
		expect(visibleWidth("ü")).toBe(1);
	});

	it("stripAnsi leaves text without escapes untouched", () => {
		expect(stripAnsi("a[31mb")).toBe("a[31mb");
		expect(stripAnsi(red("x") + red("y"))).toBe("xy");
	});
});

describe("truncateToWidth", () => {
	it("leaves text that fits alone", () => {
		expect(truncateToWidth("hello", 5)).toBe("hello");
		expect(truncateToWidth(red("hello"), 5)).toBe(red("hello"));
	});

	it("cuts to the width including the ellipsis", () => {
		expect(truncateToWidth("hello world", 8)).toBe("hello w…");
		expect(visibleWidth(truncateToWidth("hello world", 8))).toBe(8);
		expect(truncateToWidth("hello world", 8, "")).toBe("hello wo");
		expect(truncateToWidth("hello", 0)).toBe("");
	});

	it("never splits a wide character across the edge", () => {
		const cut = truncateToWidth("日本語テキスト", 6);
		expect(cut).toBe("日本…");
		expect(visibleWidth(cut)).toBe(5);
	});

	it("keeps escapes and resets the style when it cuts after one", () => {
		const cut = truncateToWidth(`${red("error")}: something long`, 8);
		expect(stripAnsi(cut)).toBe("error: …");
		expect(cut.startsWith("\x1b[31merror\x1b[39m")).toBe(true);
		expect(cut).toContain("\x1b[0m");
	});

	it("expandTabs aligns on tab stops", () => {
		expect(expandTabs("a\tb")).toBe("a   b");
		expect(expandTabs("abcd\te")).toBe("abcd    e");
		expect(expandTabs("\t")).toBe("    ");
		expect(expandTabs("日\tx")).toBe("日  x");
	});
});
