import { afterAll, afterEach, describe, expect, it } from "vitest";
import { plainTheme } from "../../../src/render/theme.js";
import { createGrepTool, type GrepToolParams } from "../../../src/tools/grep.js";
import { allToolEnvs, type FixtureFiles, stopToolEnvs, type ToolFixture, textOf } from "./_env.js";

const envs = await allToolEnvs();
afterAll(stopToolEnvs);

const grep = createGrepTool();

describe.each(envs)("grep on %s", (_name, make) => {
	let fx: ToolFixture;
	const setup = async (spec: FixtureFiles = {}) => {
		fx = await make(spec);
		return fx;
	};
	afterEach(async () => fx?.cleanup());
	const call = (args: GrepToolParams, tool = grep) => tool.execute("id", args, undefined, undefined, fx.ctx);

	it("prints path:line: text in code point order, searching hidden files, honoring .ignore, skipping binary files and .git", async () => {
		await setup({
			files: {
				"b.txt": "one\nneedle here\r\nthree needle\n",
				"a/z.ts": "needle\n",
				"a-b.txt": "x needle\n",
				".hidden": "needle hidden\n",
				"skipped/x.txt": "needle\n",
				".ignore": "skipped/\n",
				"bin.dat": new Uint8Array([110, 101, 101, 100, 108, 101, 0, 1]),
				".git/config": "needle\n",
			},
		});
		expect(textOf(await call({ pattern: "needle" }))).toBe(
			[
				".hidden:1: needle hidden",
				"a/z.ts:1: needle",
				"a-b.txt:1: x needle",
				"b.txt:2: needle here",
				"b.txt:3: three needle",
			].join("\n"),
		);
		expect(textOf(await call({ pattern: "needle", path: "b.txt" }))).toBe(
			"b.txt:2: needle here\nb.txt:3: three needle",
		);
		expect(textOf(await call({ pattern: "needle", glob: "*.ts" }))).toBe("a/z.ts:1: needle");
		// A file named as the path is searched whatever the glob, as rg searches a file it is given.
		expect(textOf(await call({ pattern: "needle", path: "b.txt", glob: "*.ts" }))).toBe(
			"b.txt:2: needle here\nb.txt:3: three needle",
		);
		expect((await call({ pattern: "absent" })).content).toEqual([{ type: "text", text: "No matches found" }]);
	});

	it("supports ignoreCase, literal and context lines (path-line- text)", async () => {
		await setup({ files: { "f.txt": "a\nb\nFOO.bar\nc\nd\ne\n" } });
		expect(textOf(await call({ pattern: "foo", ignoreCase: true }))).toBe("f.txt:3: FOO.bar");
		expect(textOf(await call({ pattern: "O.b", literal: true }))).toBe("f.txt:3: FOO.bar");
		expect(textOf(await call({ pattern: "O\\.b" }))).toBe("f.txt:3: FOO.bar");
		expect(textOf(await call({ pattern: "(", literal: true }))).toBe("No matches found");
		expect(textOf(await call({ pattern: "FOO", context: 2 }))).toBe(
			["f.txt-1- a", "f.txt-2- b", "f.txt:3: FOO.bar", "f.txt-4- c", "f.txt-5- d"].join("\n"),
		);
	});

	it("matches lines as rg does: a CRLF ending's \\r is not part of the line, an empty file has none, .rgignore counts", async () => {
		await setup({
			files: {
				"crlf.txt": "foo bar\r\nmid\rdle\r\n",
				"empty.txt": "",
				"gone.txt": "foo\n",
				".rgignore": "gone.txt\n",
			},
		});
		expect(textOf(await call({ pattern: "bar$" }))).toBe("crlf.txt:1: foo bar");
		// The line is shown without any \r, but only the ending's is left out of the match.
		expect(textOf(await call({ pattern: "middle", literal: true }))).toBe("No matches found");
		expect(textOf(await call({ pattern: "mid\rdle" }))).toBe("crlf.txt:2: middle");
		expect(textOf(await call({ pattern: "^$" }))).toBe("No matches found");
		expect(textOf(await call({ pattern: "foo" }))).toBe("crlf.txt:1: foo bar");
	});

	it("names an invalid pattern and a missing path", async () => {
		await setup({ files: { "f.txt": "x\n" } });
		await expect(call({ pattern: "a(b" })).rejects.toThrow(
			/^Invalid regular expression "a\(b": missing closing \).*linear-time engine.*; pass literal: true/,
		);
		await expect(call({ pattern: "x", path: "nope" })).rejects.toThrow(`Path not found: ${fx.path("nope")}`);
	});

	it("stops at the match limit with the reference's notice, and cuts long lines", async () => {
		await setup({ files: { "f.txt": "m1\nm2\nm3\n", "long.txt": `${"L".repeat(600)}\n` } });
		expect(textOf(await call({ pattern: "m", limit: 2 }))).toBe(
			"f.txt:1: m1\nf.txt:2: m2\n\n[2 matches limit reached. Use limit=4 for more, or refine pattern]",
		);
		const long = await call({ pattern: "L" });
		expect(textOf(long)).toBe(
			`long.txt:1: ${"L".repeat(500)}... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]`,
		);
		expect(long.details).toEqual({ linesTruncated: true });
	});

	it("holds the output to the byte budget with a notice", async () => {
		await setup({ files: { "f.txt": "hit 1\nhit 2\nhit 3\nhit 4\n" } });
		const cut = await call({ pattern: "hit" }, createGrepTool({ maxBytes: 30 }));
		expect(textOf(cut)).toBe("f.txt:1: hit 1\nf.txt:2: hit 2\n\n[30B limit reached]");
		const lines = grep.renderResult?.(cut as never, { expanded: false, isPartial: false }, plainTheme) as string[];
		expect(lines.at(-1)).toBe("[Truncated: 30B limit]");
	});
});

describe("grep renderers", () => {
	it("shows the pattern, path, glob and limit", () => {
		expect(grep.renderCall?.({ pattern: "x" }, plainTheme)).toBe("grep /x/ in .");
		expect(grep.renderCall?.({ pattern: "x", path: "src", glob: "*.ts", limit: 5 }, plainTheme)).toBe(
			"grep /x/ in src (*.ts) limit 5",
		);
	});
});
