import { describe, expect, it } from "vitest";
import type { RenderComponent, Theme } from "../../../src/contract/render.js";
import type { AgentToolResult } from "../../../src/contract/tool.js";
import {
	type RenderableTool,
	renderToLines,
	renderToolBlock,
	renderToolCall,
	renderToolResult,
	sanitizeText,
	shellLayout,
	type ToolRendererSource,
	toolRenderersFor,
	toolShell,
} from "../../../src/render/renderer.js";
import { ansiTheme, plainTheme } from "../../../src/render/theme.js";
import { stripAnsi } from "../../../src/render/width.js";

const text = (t: string): AgentToolResult<unknown> => ({ content: [{ type: "text", text: t }], details: {} });
const opts = { expanded: true, isPartial: false };

describe("renderToLines", () => {
	it("splits strings on newlines (CRLF too) and takes lines as they are", () => {
		expect(renderToLines("a\nb\r\nc", 80)).toEqual(["a", "b", "c"]);
		expect(renderToLines("", 80)).toEqual([]);
		expect(renderToLines(["x", "y\nz"], 80)).toEqual(["x", "y", "z"]);
	});

	it("asks a component to render at the given width", () => {
		const widths: number[] = [];
		const component: RenderComponent = {
			render(width) {
				widths.push(width);
				return ["-".repeat(width)];
			},
		};
		expect(renderToLines(component, 7)).toEqual(["-------"]);
		expect(widths).toEqual([7]);
	});

	it("truncates long lines unless overflow is keep, and expands tabs", () => {
		expect(renderToLines("abcdefghij", 5)).toEqual(["abcd…"]);
		expect(renderToLines("abcdefghij", 5, { overflow: "keep" })).toEqual(["abcdefghij"]);
		expect(renderToLines("a\tb", 80)).toEqual(["a   b"]);
	});

	it("rejects output that is not renderable with a message saying what to return", () => {
		expect(() => renderToLines(42 as never, 80)).toThrow(/renderer returned number; return a string/);
		expect(() => renderToLines({} as never, 80)).toThrow(/an object without render\(width\)/);
		expect(() => renderToLines(["ok", 3] as never, 80)).toThrow(/holds number where a string line/);
		expect(() => renderToLines({ render: () => "nope" } as never, 80)).toThrow(/render\(width\) returned string/);
	});
});

describe("renderToolCall", () => {
	it("uses the tool's renderCall with the theme", () => {
		const tool: RenderableTool = {
			name: "greet",
			renderCall: (args, theme) => `${theme.bold("greet")} ${(args as { who: string }).who}`,
		};
		const block = renderToolCall(tool, { who: "ada" }, ansiTheme, 80);
		expect(block).toEqual({ lines: ["\x1b[1mgreet\x1b[22m ada"], fallback: false });
	});

	it("falls back to the name and arguments when there is no renderer", () => {
		expect(renderToolCall({ name: "greet" }, { who: "ada" }, plainTheme, 80)).toEqual({
			lines: ['greet {"who":"ada"}'],
			fallback: true,
		});
		expect(renderToolCall(undefined, {}, plainTheme, 80, { name: "ghost" }).lines).toEqual(["ghost"]);
	});

	it("falls back and reports the error when the renderer throws or returns junk", () => {
		const throwing: RenderableTool = {
			name: "greet",
			renderCall: () => {
				throw new Error("boom");
			},
		};
		expect(renderToolCall(throwing, { who: "ada" }, plainTheme, 80)).toEqual({
			lines: ['greet {"who":"ada"}'],
			fallback: true,
			error: "renderCall of greet failed: boom",
		});
		const junk: RenderableTool = { name: "greet", renderCall: () => null as never };
		expect(renderToolCall(junk, {}, plainTheme, 80).error).toBe(
			"renderCall of greet failed: renderer returned null; return a string, an array of strings, or an object with render(width)",
		);
	});

	it("passes the render context and keeps `this` bound to the definition", () => {
		const tool = {
			name: "ctx",
			prefix: ">",
			renderCall(this: { prefix: string }, _args: unknown, _theme: Theme, context?: { cwd?: string }) {
				return `${this.prefix} ${context?.cwd}`;
			},
		};
		expect(renderToolCall(tool as RenderableTool, {}, plainTheme, 80, { cwd: "/w" }).lines).toEqual(["> /w"]);
	});
});

describe("renderToolResult", () => {
	it("uses renderResult and passes expanded/isPartial through", () => {
		const seen: unknown[] = [];
		const tool: RenderableTool = {
			name: "t",
			renderResult: (result, options) => {
				seen.push(options);
				return [`${options.isPartial ? "…" : "✓"} ${(result.content[0] as { text: string }).text}`];
			},
		};
		expect(renderToolResult(tool, text("done"), { expanded: false, isPartial: true }, plainTheme, 80).lines).toEqual([
			"… done",
		]);
		expect(seen).toEqual([{ expanded: false, isPartial: true }]);
	});

	it("falls back to the text content, with images as a note and errors in the error color", () => {
		const result: AgentToolResult<unknown> = {
			content: [
				{ type: "text", text: "line 1\nline 2\n" },
				{ type: "image", data: "AAAA", mimeType: "image/png" },
			],
			details: {},
		};
		expect(renderToolResult({ name: "t" }, result, opts, plainTheme, 80).lines).toEqual([
			"line 1",
			"line 2",
			"[image image/png, 3 bytes]",
		]);
		const failed = renderToolResult({ name: "t" }, text("nope"), opts, ansiTheme, 80, { isError: true });
		expect(failed.lines).toEqual(["\x1b[31mnope\x1b[39m"]);
	});

	it("shows a preview of the text when not expanded", () => {
		const long = text(Array.from({ length: 15 }, (_, i) => `l${i + 1}`).join("\n"));
		const block = renderToolResult(
			{ name: "t" },
			long,
			{ expanded: false, isPartial: false },
			plainTheme,
			80,
			{},
			{
				previewLines: 3,
			},
		);
		expect(block.lines).toEqual(["l1", "l2", "l3", "… 12 more lines"]);
	});

	it("falls back when renderResult throws, when a component's render throws, and reports why", () => {
		const throwing: RenderableTool = {
			name: "t",
			renderResult: () => {
				throw new TypeError("cannot read details.items");
			},
		};
		expect(renderToolResult(throwing, text("raw"), opts, plainTheme, 80)).toEqual({
			lines: ["raw"],
			fallback: true,
			error: "renderResult of t failed: cannot read details.items",
		});
		const badComponent: RenderableTool = {
			name: "t",
			renderResult: () => ({
				render: () => {
					throw "string thrown";
				},
			}),
		};
		expect(renderToolResult(badComponent, text("raw"), opts, plainTheme, 80).error).toBe(
			"renderResult of t failed: string thrown",
		);
	});

	it("shows tool output without escapes or control characters that would garble the terminal", () => {
		const noisy = text("\x1b[2J\x1b[31mred\x1b[0m\r\nbell\x07 back\bspace\x1b]0;title\x07\tend");
		expect(renderToolResult(undefined, noisy, opts, plainTheme, 80).lines).toEqual(["red", "bell backspace  end"]);
		expect(sanitizeText("a\x9bb\x00c")).toBe("abc");
	});

	it("cuts fallback lines to the width", () => {
		const block = renderToolResult(undefined, text("x".repeat(30)), opts, ansiTheme, 10);
		expect(stripAnsi(block.lines[0] ?? "")).toBe(`${"x".repeat(9)}…`);
	});
});

describe("renderShell", () => {
	const self: RenderableTool = { name: "own", renderShell: "self", renderCall: () => "call" };
	const framed: RenderableTool = { name: "framed", renderCall: () => "call" };

	it("decides where a host draws results: indented under the call, or at the whole width", () => {
		expect([toolShell(self), toolShell(framed), toolShell(undefined)]).toEqual(["self", "default", "default"]);
		expect(shellLayout(framed, 80, 2)).toEqual({ indent: "  ", width: 78 });
		expect(shellLayout(self, 80, 2)).toEqual({ indent: "", width: 80 });
	});

	it("frames a row as pi does under the default shell, and leaves a self-framed one alone", () => {
		const result = { content: [{ type: "text" as const, text: "out" }], details: undefined };
		expect(renderToolBlock(framed, { args: {}, result }, plainTheme, 20, { outputPad: 2 }).lines).toEqual([
			"",
			"",
			"  call",
			"  out",
			"",
		]);
		expect(renderToolBlock(self, { args: {}, result }, plainTheme, 20).lines).toEqual(["", "call", "out"]);
	});

	it("comes from a tool renderer resolver as well as from the tool", () => {
		const runtime: ToolRendererSource = {
			resolveToolRenderers: (_name, next) => ({ ...next(), renderShell: "self" }),
		};
		expect(toolShell(toolRenderersFor(runtime, "framed", framed))).toBe("self");
	});
});
