/**
 * Rendered lines → HTML for the inspector page (src/inspector/page/ansi.ts): tool output is
 * untrusted, so text is always escaped and only http(s) hyperlinks survive.
 */
import { describe, expect, it } from "vitest";
import { ansiToHtml, stripAnsi } from "../../../src/inspector/page/ansi.js";
import { ansiTheme } from "../../../src/render/theme.js";

const ESC = "\u001b";
const link = (url: string, text: string) => `${ESC}]8;;${url}${ESC}\\${text}${ESC}]8;;${ESC}\\`;

describe("ansiToHtml", () => {
	it("escapes every character of text that HTML would read", () => {
		const html = ansiToHtml([`<img src=x onerror="alert(1)">`, `${ESC}[31m<script>&'</script>${ESC}[0m`]);
		expect(html).not.toContain("<img");
		expect(html).not.toContain("<script");
		expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
		expect(html).toContain('<span class="ansi-red-fg">&lt;script&gt;&amp;&#x27;&lt;/script&gt;</span>');
	});

	it("colours with classes for the 16 colours and joins lines with newlines", () => {
		const theme = ansiTheme;
		const html = ansiToHtml([theme.fg("success", "ok"), theme.bold(theme.fg("toolTitle", "hello"))]);
		expect(html.split("\n")).toHaveLength(2);
		expect(html).toContain('class="ansi-green-fg"');
		expect(html).toContain("ansi-bright-white-fg");
		expect(html).toContain("font-weight:bold");
	});

	it("keeps http and https hyperlinks and drops every other scheme", () => {
		expect(ansiToHtml([link("https://example.com/?a=1&b=2", "docs")])).toBe(
			'<a href="https://example.com/?a=1&amp;b=2">docs</a>',
		);
		for (const url of [
			"javascript:alert(1)",
			"JavaScript:alert(1)",
			"data:text/html,x",
			"constructor:x",
			"__proto__:x",
			"toString:x",
		]) {
			expect(ansiToHtml([link(url, "click")])).not.toContain("<a");
		}
		expect(ansiToHtml([link('https://x/"><script>', "t")])).not.toContain("<script");
	});
});

describe("stripAnsi", () => {
	it("removes colour and hyperlink sequences", () => {
		expect(stripAnsi(`${ESC}[1m${ESC}[31mreload failed${ESC}[0m ${link("https://x", "hello.ts")}`)).toBe(
			"reload failed hello.ts",
		);
	});
});
