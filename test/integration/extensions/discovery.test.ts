import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discoverExtensions } from "../../../src/extensions/node-discovery.js";

let root: string;

function write(path: string, content = "export default () => {};\n"): string {
	const full = join(root, path);
	mkdirSync(dirname(full), { recursive: true });
	writeFileSync(full, content);
	return full;
}

beforeEach(() => {
	root = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-discovery-")));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const rel = (path: string) => path.slice(root.length + 1);

describe("discoverExtensions", () => {
	it("scans a folder one level deep: module files and package sub-folders, sorted", async () => {
		write("exts/b.ts");
		write("exts/a.mjs");
		write("exts/c.js");
		write("exts/d.mts");
		write("exts/types.d.ts");
		write("exts/notes.md", "# not code");
		write("exts/.hidden.ts");
		write("exts/helper.cjs");
		write("exts/with-index/index.ts");
		write("exts/with-index/inner.ts");
		write("exts/js-index/index.js");
		write("exts/plain-folder/lib.ts");
		write("exts/deep/nested/index.ts");
		write("exts/node_modules/pkg/index.ts");
		write(
			"exts/tsm/package.json",
			JSON.stringify({
				toolsmith: { extensions: ["./one.ts", "two"] },
				pi: { extensions: ["./ignored.ts"] },
				engines: { toolsmith: "^1" },
			}),
		);
		write("exts/tsm/one.ts");
		write("exts/tsm/two/index.ts");
		write("exts/pi/package.json", JSON.stringify({ pi: { extensions: ["./main.ts"] } }));
		write("exts/pi/main.ts");
		const { extensions, diagnostics } = await discoverExtensions(["exts"], { cwd: root });
		expect(diagnostics).toEqual([]);
		expect(extensions.map((e) => [rel(e.path), e.kind, rel(e.root), e.engines])).toEqual([
			["exts/a.mjs", "file", "exts", undefined],
			["exts/b.ts", "file", "exts", undefined],
			["exts/c.js", "file", "exts", undefined],
			["exts/d.mts", "file", "exts", undefined],
			["exts/js-index/index.js", "index", "exts/js-index", undefined],
			["exts/pi/main.ts", "manifest", "exts/pi", undefined],
			["exts/tsm/one.ts", "manifest", "exts/tsm", "^1"],
			["exts/tsm/two/index.ts", "manifest", "exts/tsm", "^1"],
			["exts/with-index/index.ts", "index", "exts/with-index", undefined],
		]);
	});

	it("treats a folder that is itself a package as one extension", async () => {
		write("pkg/package.json", JSON.stringify({ name: "pkg" }));
		write("pkg/index.ts");
		write("pkg/other.ts");
		const { extensions } = await discoverExtensions([join(root, "pkg")]);
		expect(extensions.map((e) => [rel(e.path), e.kind, e.packageJson && rel(e.packageJson)])).toEqual([
			["pkg/index.ts", "index", "pkg/package.json"],
		]);
	});

	it("de-duplicates by real path, keeping the first occurrence", async () => {
		const file = write("exts/one.ts");
		symlinkSync(file, join(root, "alias.ts"));
		symlinkSync(join(root, "exts"), join(root, "linked-exts"));
		const { extensions } = await discoverExtensions(["alias.ts", "exts", "linked-exts", file], { cwd: root });
		expect(extensions.map((e) => rel(e.path))).toEqual(["exts/one.ts"]);
	});

	it("reports missing paths, bad manifests and unloadable files, and goes on", async () => {
		write("ok.ts");
		write("broken-json/package.json", "{ not json");
		write("broken-json/index.ts");
		write("bad-entry/package.json", JSON.stringify({ toolsmith: { extensions: ["./missing.ts", "./here.ts"] } }));
		write("bad-entry/here.ts");
		write("readme.txt", "text");
		const { extensions, diagnostics } = await discoverExtensions(
			["nowhere", "ok.ts", "broken-json", "bad-entry", "readme.txt", "~/surely-missing-toolsmith-path"],
			{ cwd: root },
		);
		expect(extensions.map((e) => rel(e.path))).toEqual(["ok.ts", "bad-entry/here.ts"]);
		expect(diagnostics.map((d) => [d.code, d.path.startsWith(root) ? rel(d.path) : "~"])).toEqual([
			["E_PATH_NOT_FOUND", "nowhere"],
			["E_MANIFEST", "broken-json/package.json"],
			["E_MANIFEST", "bad-entry/package.json"],
			["E_EXTENSION_LOAD", "readme.txt"],
			["E_PATH_NOT_FOUND", "~"],
		]);
		expect(diagnostics[0]?.message).toBe(
			`Extension path ${join(root, "nowhere")} does not exist (given as "nowhere").`,
		);
		expect(diagnostics[2]?.message).toBe(
			`${join(root, "bad-entry/package.json")} names the extension entry "./missing.ts", which does not exist; fix the path in its manifest.`,
		);
	});

	it("accepts explicit .cts and .cjs files", async () => {
		write("a.cjs", "module.exports = () => {};\n");
		write("b.cts", "export = () => {};\n");
		const { extensions, diagnostics } = await discoverExtensions(["a.cjs", "b.cts"], { cwd: root });
		expect(diagnostics).toEqual([]);
		expect(extensions.map((e) => rel(e.path))).toEqual(["a.cjs", "b.cts"]);
	});
});
