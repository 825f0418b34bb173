/**
 * Members the compatibility modules gained for published pi packages: pi-coding-agent's
 * `parseFrontmatter`/`stripFrontmatter` (the answers pi 1.6.0 gives for the same inputs),
 * `getLanguageFromPath`, `highlightCode`; pi-ai's model calls, which fail headless with an error
 * saying so; pi-tui's `Image`, `imageFallback`, `fuzzyMatch`, `fuzzyFilter`; and TypeBox's
 * `Compile`/`Value` taking a 1.x `Type.Unsafe` JSON Schema.
 */
import { Type } from "@sinclair/typebox";
import { afterEach, describe, expect, it } from "vitest";
import type { ExtensionDiagnostic } from "../../../src/extensions/api.js";
import { VIRTUAL_MODULES } from "../../../src/extensions/node-compat/index.js";
import {
	complete,
	completeSimple,
	getModel,
	getModels,
	getProviders,
	NoModelError,
	stream,
	streamSimple,
} from "../../../src/extensions/node-compat/pi-ai.js";
import {
	getLanguageFromPath,
	highlightCode,
	isPowerShellToolResult,
	parseFrontmatter,
	stripFrontmatter,
} from "../../../src/extensions/node-compat/pi-coding-agent.js";
import { fuzzyFilter, fuzzyMatch, Image, imageFallback } from "../../../src/extensions/node-compat/pi-tui.js";
import { setCompatReporter } from "../../../src/extensions/node-compat/state.js";
import { typeboxCompile, typeboxValue } from "../../../src/extensions/node-compat/typebox.js";

describe("parseFrontmatter and stripFrontmatter", () => {
	// Inputs and what pi-coding-agent 1.6.0 returns for them.
	const cases: [string, unknown, string][] = [
		["no front\nmatter", {}, "no front\nmatter"],
		["---\ntitle: Hi\ntags: [a, b]\n---\nBody here\n", { title: "Hi", tags: ["a", "b"] }, "Body here"],
		["---\r\ntitle: Hi\r\n---\r\nBody\r\n", { title: "Hi" }, "Body"],
		["---\n---\nbody", {}, "body"],
		["---\n- a\n- b\n---\nbody", ["a", "b"], "body"],
		["---\ntitle: x\nbody without end", {}, "---\ntitle: x\nbody without end"],
		["\n---\na: 1\n---\nb", {}, "\n---\na: 1\n---\nb"],
		["---\na: 1\n---", { a: 1 }, ""],
		["---\na: 1\n---\n\n\nb\n", { a: 1 }, "b"],
		["---\nn: 5\nd: 2024-01-01\n---\nb", { n: 5, d: "2024-01-01" }, "b"],
		["  hi \r\nthere  \n", {}, "  hi \nthere  \n"],
		["---\na: 1\n---b\nc", { a: 1 }, "b\nc"],
		["---\n# only comment\n---\nb", {}, "b"],
		["---\na: 1\nb: |\n  x\n  y\n---\nz", { a: 1, b: "x\ny\n" }, "z"],
		["----\na: 1\n---\nb", { a: 1 }, "b"],
		["---\na: 1\n...\nb", {}, "---\na: 1\n...\nb"],
		["---\na: 1\n---\nb\n---\nc: 2\n---\nd", { a: 1 }, "b\n---\nc: 2\n---\nd"],
		["---\nfoo\n---\nb", "foo", "b"],
	];

	it.each(cases)("%j", (content, frontmatter, body) => {
		expect(parseFrontmatter(content)).toEqual({ frontmatter, body });
		expect(stripFrontmatter(content)).toBe(body);
	});

	it("throws on YAML that does not parse, as pi does", () => {
		expect(() => parseFrontmatter("---\ntitle: [unclosed\n---\nb")).toThrow(/Flow sequence/);
	});
});

describe("getLanguageFromPath and highlightCode", () => {
	it("name languages by extension as pi does, and leave the rest unnamed", () => {
		const named: Record<string, string | undefined> = {
			"a.ts": "typescript",
			"a.TSX": "typescript",
			"x/y.mjs": "javascript",
			"a.py": "python",
			"a.zsh": "bash",
			"a.yml": "yaml",
			"a.md": "markdown",
			"a.tf": "hcl",
			"a.gradle": "groovy",
			"a.proto": "protobuf",
			"a.mts": undefined,
			Dockerfile: undefined,
			"a.txt": undefined,
			".bashrc": undefined,
			noext: undefined,
		};
		for (const [path, language] of Object.entries(named))
			expect([path, getLanguageFromPath(path)]).toEqual([path, language]);
	});

	it("highlightCode gives the plain lines; isPowerShellToolResult narrows pi 1.x's powershell tool", () => {
		expect(highlightCode("const a = 1;\nb", "typescript")).toEqual(["const a = 1;", "b"]);
		expect([isPowerShellToolResult({ toolName: "powershell" }), isPowerShellToolResult({ toolName: "bash" })]).toEqual([
			true,
			false,
		]);
	});
});

describe("pi-ai's model calls in a headless host", () => {
	const heard: ExtensionDiagnostic[] = [];
	setCompatReporter((d) => heard.push(d));
	afterEach(() => {
		heard.length = 0;
	});

	it("complete and completeSimple reject with an error that says no model is available, and warn", async () => {
		await expect(complete({}, { messages: [] })).rejects.toThrow(
			/^No model is available in toolsmith's headless runtime: complete\(\) from pi-ai/,
		);
		await expect(completeSimple()).rejects.toBeInstanceOf(NoModelError);
		expect(heard.map((d) => [d.code, /called (\w+)\(\)/.exec(d.message)?.[1], d.path.endsWith(".test.ts")])).toEqual([
			["W_UNSUPPORTED_API", "complete", true],
			["W_UNSUPPORTED_API", "completeSimple", true],
		]);
	});

	it("stream and streamSimple fail when iterated, and their result() rejects", async () => {
		const iterate = async () => {
			for await (const _event of streamSimple({}, { messages: [] })) {
				// never reached
			}
		};
		await expect(iterate()).rejects.toThrow(/streamSimple\(\)/);
		await expect(stream().result()).rejects.toThrow(/No model is available/);
		expect(heard.map((d) => /called (\w+)\(\)/.exec(d.message)?.[1])).toEqual(["streamSimple", "stream"]);
	});

	it("warns once per extension and member; getModel finds nothing", async () => {
		await complete().catch(() => {});
		await streamSimple()
			.result()
			.catch(() => {});
		expect(heard).toEqual([]);
		expect(getModel("anthropic", "x")).toBeUndefined();
		expect([getModels(), getProviders()]).toEqual([[], []]);
	});

	it("the pi-ai specifiers all resolve to these members", () => {
		for (const specifier of [
			"@mariozechner/pi-ai",
			"@mariozechner/pi-ai/compat",
			"@earendil-works/pi-ai",
			"@earendil-works/pi-ai/compat",
		]) {
			const module = VIRTUAL_MODULES[specifier] as Record<string, unknown>;
			for (const member of ["complete", "completeSimple", "stream", "streamSimple", "getModel", "Type", "StringEnum"]) {
				expect([specifier, member, module[member] !== undefined]).toEqual([specifier, member, true]);
			}
		}
	});
});

describe("pi-tui: Image, imageFallback, fuzzyMatch, fuzzyFilter", () => {
	it("draws an image as pi-tui's text fallback, in the theme's fallback color", () => {
		expect(imageFallback("image/png", { widthPx: 100, heightPx: 50 }, "a.png")).toBe(
			"[Image: a.png [image/png] 100x50]",
		);
		expect(imageFallback("image/jpeg")).toBe("[Image: [image/jpeg]]");
		const image = new Image("AAAA", "image/png", { fallbackColor: (t) => `<${t}>` }, { filename: "p.png" });
		expect(image.render(80)).toEqual(["<[Image: p.png [image/png]]>"]);
		expect(image.render(10)[0]?.length).toBeLessThanOrEqual(12);
	});

	it("fuzzyMatch matches characters in order, fuzzyFilter keeps every token's matches, best first", () => {
		expect(fuzzyMatch("abc", "aXbXc").matches).toBe(true);
		expect(fuzzyMatch("abc", "acb")).toEqual({ matches: false, score: 0 });
		expect(fuzzyMatch("", "x")).toEqual({ matches: true, score: 0 });
		expect(fuzzyMatch("abc", "ABC").score).toBeLessThan(fuzzyMatch("abc", "aXbXc").score);
		// The orders pi-tui 1.6.0 gives for these.
		expect(fuzzyFilter(["read", "grep", "core", "write", "rename"], "re", (x) => x)).toEqual([
			"read",
			"rename",
			"grep",
			"core",
			"write",
		]);
		expect(fuzzyFilter(["foo bar", "bar foo", "baz"], "bar foo", (x) => x)).toEqual(["foo bar", "bar foo"]);
		expect(fuzzyFilter(["read", "grep"], "", (x) => x)).toEqual(["read", "grep"]);
	});
});

describe("TypeBox subpaths and a 1.x Type.Unsafe JSON Schema", () => {
	const Flag = Type.Unsafe({ anyOf: [{ type: "string" }, { type: "boolean" }] });
	const schema = Type.Object({ flag: Flag });

	it("Compile checks it (0.34's compiler alone refuses the kind)", () => {
		const Compile = typeboxCompile.Compile as (s: unknown) => {
			Check(v: unknown): boolean;
			Errors(v: unknown): unknown[];
		};
		const check = Compile(schema);
		expect([check.Check({ flag: "x" }), check.Check({ flag: false }), check.Check({ flag: 3 })]).toEqual([
			true,
			true,
			false,
		]);
		expect(check.Errors({ flag: 3 }).length).toBeGreaterThan(0);
	});

	it("the Value functions take it too", () => {
		const Value = typeboxValue.Value as { Check(s: unknown, v: unknown): boolean };
		const Check = typeboxValue.Check as (s: unknown, v: unknown) => boolean;
		const Errors = typeboxValue.Errors as (s: unknown, v: unknown) => unknown[];
		expect([Value.Check(schema, { flag: true }), Check(Flag, 3), Errors(schema, { flag: [] }).length > 0]).toEqual([
			true,
			false,
			true,
		]);
	});
});
