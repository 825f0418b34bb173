import { afterAll, afterEach, describe, expect, it } from "vitest";
import { plainTheme } from "../../../src/render/theme.js";
import { createLsTool, type LsToolDetails } from "../../../src/tools/ls.js";
import { allToolEnvs, type FixtureFiles, stopToolEnvs, type ToolFixture, textOf } from "./_env.js";

const envs = await allToolEnvs();
afterAll(stopToolEnvs);

const ls = createLsTool();

describe.each(envs)("ls on %s", (_name, make) => {
	let fx: ToolFixture;
	const setup = async (spec: FixtureFiles = {}) => {
		fx = await make(spec);
		return fx;
	};
	afterEach(async () => fx?.cleanup());
	const call = (args: { path?: string; limit?: number }, tool = ls) =>
		tool.execute("id", args, undefined, undefined, fx.ctx);

	it("lists dotfiles, sorts ignoring case, marks folders and symlinks to folders, skips dangling links", async () => {
		await setup({
			files: { "b.txt": "", "A.md": "", ".env": "", "c/inner.txt": "", _x: "" },
			dirs: ["Zeta"],
			symlinks: { "link-dir": "c", "link-file": "b.txt", dangling: "missing" },
		});
		const result = await call({});
		expect(textOf(result)).toBe(["_x", ".env", "A.md", "b.txt", "c/", "link-dir/", "link-file", "Zeta/"].join("\n"));
		expect(result.details).toBeUndefined();
		expect(textOf(await call({ path: "c" }))).toBe("inner.txt");
		expect(textOf(await call({ path: fx.path("c") }))).toBe("inner.txt");
	});

	it("says so for an empty folder, a missing path and a file", async () => {
		await setup({ dirs: ["empty"], files: { "f.txt": "x" } });
		expect(textOf(await call({ path: "empty" }))).toBe("(empty directory)");
		await expect(call({ path: "nope" })).rejects.toThrow(`Path not found: ${fx.path("nope")}`);
		await expect(call({ path: "f.txt" })).rejects.toThrow(`Not a directory: ${fx.path("f.txt")}`);
	});

	it("stops at the entry limit exactly, with a notice giving a larger limit", async () => {
		await setup({ files: { a: "", b: "", c: "" } });
		expect(textOf(await call({ limit: 3 }))).toBe("a\nb\nc");
		const cut = await call({ limit: 2 });
		expect(textOf(cut)).toBe("a\nb\n\n[2 entries limit reached. Use limit=4 for more]");
		expect(cut.details).toEqual({ entryLimitReached: 2 });
	});

	it("stops at the byte budget with a notice naming it", async () => {
		const files: Record<string, string> = {};
		for (let i = 0; i < 10; i++) files[`file-${i}`] = "";
		await setup({ files });
		const small = createLsTool({ maxBytes: 20 });
		const cut = await call({}, small);
		expect(textOf(cut)).toBe("file-0\nfile-1\nfile-2\n\n[20B limit reached]");
		const details = cut.details as LsToolDetails;
		expect(details.truncation?.truncatedBy).toBe("bytes");
		expect(details.entryLimitReached).toBeUndefined();
		const both = await call({ limit: 5 }, small);
		expect(textOf(both)).toBe(
			"file-0\nfile-1\nfile-2\n\n[5 entries limit reached. Use limit=10 for more. 20B limit reached]",
		);
		const lines = ls.renderResult?.(both as never, { expanded: false, isPartial: false }, plainTheme) as string[];
		expect(lines.at(-1)).toBe("[Truncated: 5 entries limit, 20B limit]");
	});
});

describe("ls renderers", () => {
	it("shows the path (. by default) and the limit", () => {
		expect(ls.renderCall?.({}, plainTheme)).toBe("ls .");
		expect(ls.renderCall?.({ path: "src", limit: 3 }, plainTheme)).toBe("ls src (limit 3)");
	});
});
