/**
 * The extension host with real files in temp folders and real chokidar: every change is made on
 * disk and the test waits for the host's reload event (never for a fixed time).
 */
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ExtensionDiagnostic } from "../../../src/extensions/api.js";
import { createExtensionHost, type ExtensionHost } from "../../../src/extensions/node-host.js";
import { answer, brief, call, nextReload, tempDir, toolSource, write } from "./_helpers.js";

type Probe = { loads: Record<string, number>; events: string[]; release?: () => void };
const probe = (): Probe => {
	const g = globalThis as { __hostProbe?: Probe };
	g.__hostProbe ??= { loads: {}, events: [] };
	return g.__hostProbe;
};
/** Module top-level code that counts how often the module was evaluated. */
const count = (key: string) =>
	`const __p = (globalThis.__hostProbe ??= { loads: {}, events: [] }); __p.loads[${JSON.stringify(key)}] = (__p.loads[${JSON.stringify(key)}] ?? 0) + 1;`;
/** Factory code that records the session events this version gets. */
const record = (label: string) =>
	`api.on("session_start", (e) => { globalThis.__hostProbe.events.push(${JSON.stringify(label)} + " start " + e.reason); });
	api.on("session_shutdown", (e) => { globalThis.__hostProbe.events.push(${JSON.stringify(label)} + " shutdown " + e.reason); });`;

let dir: string;
let cleanup: () => void;
let host: ExtensionHost | undefined;

beforeEach(() => {
	({ dir, cleanup } = tempDir("watch"));
	const g = globalThis as { __hostProbe?: Probe };
	g.__hostProbe = { loads: {}, events: [] };
});

afterEach(async () => {
	await host?.close();
	host = undefined;
	cleanup();
});

async function start(paths: string[], diagnostics?: ExtensionDiagnostic[]): Promise<ExtensionHost> {
	host = createExtensionHost({ paths, cwd: dir, watch: true, builtins: false, shutdownTimeoutMs: 2_000 });
	if (diagnostics) host.on("diagnostic", (d) => diagnostics.push(d));
	const ready = await host.ready;
	expect(ready.watching).toBe(true);
	return host;
}

describe("hot reload over real files", () => {
	it("answers with the new version after an edit, and re-imports only the edited extension", async () => {
		const exts = join(dir, "exts");
		write(join(exts, "a.ts"), toolSource("alpha", '"a1"', { top: count("a"), extra: record("a1") }));
		write(join(exts, "b.ts"), toolSource("beta", '"b1"', { top: count("b") }));
		const h = await start([exts]);
		expect(await answer(h, "alpha")).toBe("a1");
		expect(probe().events).toEqual(["a1 start startup"]);

		const reloaded = nextReload(h, (e) => e.path === join(exts, "a.ts"));
		write(join(exts, "a.ts"), toolSource("alpha", '"a2"', { top: count("a"), extra: record("a2") }));
		const event = await reloaded;
		expect(event).toMatchObject({
			kind: "reload",
			ok: true,
			trigger: "watch",
			files: [join(exts, "a.ts")],
			added: [],
			removed: [],
			changed: ["alpha"],
			diagnostics: [],
		});
		expect(event.durationMs).toBeGreaterThan(0);
		expect(await answer(h, "alpha")).toBe("a2");
		expect(await answer(h, "beta")).toBe("b1");
		expect(probe().loads).toEqual({ a: 2, b: 1 });
		// The old version's shutdown runs right before the swap, the new one's start right after.
		expect(probe().events).toEqual(["a1 start startup", "a1 shutdown reload", "a2 start reload"]);
	});

	it("keeps the last good version when a broken one is saved, and recovers when it is fixed", async () => {
		const file = join(dir, "ext.ts");
		write(file, toolSource("alpha", '"good 1"', { extra: record("v1") }));
		const seen: ExtensionDiagnostic[] = [];
		const h = await start([file], seen);

		const failed = nextReload(h, (e) => e.path === file);
		write(file, 'export default function (api) {\n\tapi.registerTool({ name: "alpha",\n\t\tdescription: ]\n});\n}\n');
		const event = await failed;
		expect(event.ok).toBe(false);
		expect(event.kind).toBe("reload");
		// The column is checked loosely: the loader reports 0-based parse columns for now.
		expect(event.diagnostics.map((d) => brief(d, dir))).toEqual([
			["error", "E_SYNTAX", "ext.ts", 3, expect.any(Number)],
		]);
		expect(seen).toEqual(event.diagnostics);
		expect(await answer(h, "alpha")).toBe("good 1");
		// A version that does not load never got to run the old one's shutdown.
		expect(probe().events).toEqual(["v1 start startup"]);

		const thrown = nextReload(h, (e) => e.path === file);
		write(file, "export default function (api) {\n\tconst x = 1;\n\tthrow new Error('broken ' + x);\n}\n");
		const throwing = await thrown;
		expect(throwing.ok).toBe(false);
		expect(throwing.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([
			["E_FACTORY_FAILED", 3, expect.any(Number)],
		]);
		expect(await answer(h, "alpha")).toBe("good 1");

		const fixed = nextReload(h, (e) => e.path === file);
		write(file, toolSource("alpha", '"good 2"', { extra: record("v2") }));
		expect(await fixed).toMatchObject({ ok: true, changed: ["alpha"], diagnostics: [] });
		expect(await answer(h, "alpha")).toBe("good 2");
		expect(probe().events).toEqual(["v1 start startup", "v1 shutdown reload", "v2 start reload"]);
	});

	it("retries an extension whose missing module appears", async () => {
		const exts = join(dir, "exts");
		const entry = join(exts, "needs.ts");
		write(entry, toolSource("needs", "text", { imports: 'import { text } from "./lib/later.mjs";' }));
		const seen: ExtensionDiagnostic[] = [];
		const h = await start([exts], seen);
		expect(seen.map((d) => [d.code, d.path])).toEqual([["E_EXTENSION_LOAD", entry]]);
		const loaded = nextReload(h, (e) => e.path === entry);
		write(join(exts, "lib", "later.mjs"), 'export const text = "here now";\n');
		expect(await loaded).toMatchObject({ kind: "load", ok: true, added: ["needs"] });
		expect(await answer(h, "needs")).toBe("here now");
	});

	it("rejects a new version with an invalid tool as a whole", async () => {
		const file = join(dir, "ext.ts");
		write(file, toolSource("alpha", '"ok"'));
		const h = await start([file]);
		const failed = nextReload(h, (e) => e.path === file);
		write(
			file,
			`${toolSource("alpha", '"new"')}\nexport const unused = 1;\n`.replace('name: "alpha"', 'name: "bad name!"'),
		);
		const event = await failed;
		expect(event.ok).toBe(false);
		expect(event.diagnostics.map((d) => d.code)).toEqual(["E_INVALID_TOOL"]);
		expect(event.diagnostics[0]?.message).toContain("the previous one stays active");
		expect(await answer(h, "alpha")).toBe("ok");
	});

	it("picks up a change to an .mjs helper, and reloads every extension that imports it", async () => {
		const exts = join(dir, "exts");
		write(join(exts, "helpers", "fmt.mjs"), "export const wrap = (t) => '[' + t + ']';\n");
		const imports = 'import { wrap } from "./helpers/fmt.mjs";';
		write(join(exts, "one.ts"), toolSource("one", 'wrap("1")', { imports }));
		write(join(exts, "two.ts"), toolSource("two", 'wrap("2")', { imports, top: count("two") }));
		write(join(exts, "three.ts"), toolSource("three", '"3"', { top: count("three") }));
		const h = await start([exts]);
		expect([await answer(h, "one"), await answer(h, "two")]).toEqual(["[1]", "[2]"]);

		const one = nextReload(h, (e) => e.path === join(exts, "one.ts"));
		const two = nextReload(h, (e) => e.path === join(exts, "two.ts"));
		write(join(exts, "helpers", "fmt.mjs"), "export const wrap = (t) => '<' + t + '>';\n");
		const events = await Promise.all([one, two]);
		for (const event of events) {
			expect(event).toMatchObject({ ok: true, files: [join(exts, "helpers", "fmt.mjs")], changed: [] });
		}
		expect([await answer(h, "one"), await answer(h, "two")]).toEqual(["<1>", "<2>"]);
		expect(probe().loads).toEqual({ two: 2, three: 1 });
	});

	it("reloads .mts, .cjs and ESM .js extensions when a helper of theirs changes", async () => {
		const exts = join(dir, "exts");
		write(join(exts, "esm", "package.json"), '{ "type": "module" }\n');
		write(join(exts, "esm", "helper.js"), 'export const text = "esm 1";\n');
		write(
			join(exts, "esm", "index.js"),
			toolSource("esm_tool", "text", { imports: 'import { text } from "./helper.js";' }),
		);
		write(join(exts, "lib", "util.mts"), 'export const text: string = "mts 1";\n');
		write(
			join(exts, "typed.mts"),
			toolSource("mts_tool", "text", { imports: 'import { text } from "./lib/util.mts";' }),
		);
		const cjs = join(dir, "solo.cjs");
		write(join(dir, "cjs-lib", "helper.cjs"), 'exports.text = "cjs 1";\n');
		write(
			cjs,
			toolSource("cjs_tool", "text", {}).replace(
				"export default function (api) {",
				'const { text } = require("./cjs-lib/helper.cjs");\nmodule.exports = function (api) {',
			),
		);
		const h = await start([exts, cjs]);
		expect([await answer(h, "esm_tool"), await answer(h, "mts_tool"), await answer(h, "cjs_tool")]).toEqual([
			"esm 1",
			"mts 1",
			"cjs 1",
		]);
		const edits: [string, string, string, string][] = [
			[join(exts, "esm", "helper.js"), 'export const text = "esm 2";\n', join(exts, "esm", "index.js"), "esm_tool"],
			[join(exts, "lib", "util.mts"), 'export const text: string = "mts 2";\n', join(exts, "typed.mts"), "mts_tool"],
			[join(dir, "cjs-lib", "helper.cjs"), 'exports.text = "cjs 2";\n', cjs, "cjs_tool"],
		];
		for (const [helper, text, entry, tool] of edits) {
			const reloaded = nextReload(h, (e) => e.path === entry);
			write(helper, text);
			expect(await reloaded).toMatchObject({ ok: true, files: [helper] });
			expect(await answer(h, tool)).toBe(text.match(/"(.*)"/)?.[1]);
		}
	});

	it("loads an extension file added to a watched folder and unloads a deleted one", async () => {
		const exts = join(dir, "exts");
		write(join(exts, "a.ts"), toolSource("alpha", '"a"'));
		const h = await start([exts]);
		const added = nextReload(h, (e) => e.kind === "load");
		write(join(exts, "c.ts"), toolSource("gamma", '"c"', { extra: record("c") }));
		expect(await added).toMatchObject({ path: join(exts, "c.ts"), ok: true, added: ["gamma"], removed: [] });
		expect(await answer(h, "gamma")).toBe("c");
		expect(probe().events).toEqual(["c start startup"]);
		expect(h.extensions().map((e) => e.path)).toEqual([join(exts, "a.ts"), join(exts, "c.ts")]);

		const removed = nextReload(h, (e) => e.kind === "unload");
		rmSync(join(exts, "c.ts"));
		expect(await removed).toMatchObject({ path: join(exts, "c.ts"), ok: true, added: [], removed: ["gamma"] });
		expect(await answer(h, "gamma")).toMatch(/^error: Tool gamma not found/);
		expect(probe().events).toEqual(["c start startup", "c shutdown exit"]);
		expect(h.extensions().map((e) => e.path)).toEqual([join(exts, "a.ts")]);
	});

	it("loads a package folder created inside a watched folder", async () => {
		const exts = join(dir, "exts");
		write(join(exts, "a.ts"), toolSource("alpha", '"a"'));
		const h = await start([exts]);
		const added = nextReload(h, (e) => e.kind === "load" && e.ok);
		write(join(exts, "pkg", "helper.ts"), 'export const text = "from pkg";\n');
		write(
			join(exts, "pkg", "index.ts"),
			toolSource("pkg_tool", "text", { imports: 'import { text } from "./helper.ts";' }),
		);
		expect(await added).toMatchObject({ path: join(exts, "pkg", "index.ts"), added: ["pkg_tool"] });
		expect(await answer(h, "pkg_tool")).toBe("from pkg");

		const changed = nextReload(h, (e) => e.path === join(exts, "pkg", "index.ts"));
		write(join(exts, "pkg", "helper.ts"), 'export const text = "changed";\n');
		expect(await changed).toMatchObject({ ok: true, files: [join(exts, "pkg", "helper.ts")] });
		expect(await answer(h, "pkg_tool")).toBe("changed");
	});

	it("follows an extension file given by path through deletion and re-creation", async () => {
		const file = join(dir, "solo.ts");
		write(file, toolSource("solo", '"one"'));
		const h = await start([file]);
		const gone = nextReload(h, (e) => e.kind === "unload");
		rmSync(file);
		await gone;
		expect(await answer(h, "solo")).toMatch(/^error: /);
		const back = nextReload(h, (e) => e.kind === "load");
		write(file, toolSource("solo", '"two"'));
		expect(await back).toMatchObject({ ok: true, added: ["solo"] });
		expect(await answer(h, "solo")).toBe("two");
	});

	it("handles saves that write a temp file and rename it over the entry", async () => {
		const exts = join(dir, "exts");
		const file = join(exts, "a.ts");
		write(file, toolSource("alpha", '"v1"'));
		const h = await start([exts]);
		for (const version of ["v2", "v3", "v4"]) {
			const reloaded = nextReload(h, (e) => e.path === file && e.kind === "reload");
			const temp = join(exts, `.a.ts.${version}.tmp`);
			writeFileSync(temp, toolSource("alpha", JSON.stringify(version)));
			renameSync(temp, file);
			expect(await reloaded).toMatchObject({ ok: true, changed: ["alpha"] });
			expect(await answer(h, "alpha")).toBe(version);
		}
		expect(h.extensions().map((e) => e.path)).toEqual([file]);
	});

	it("lets an in-flight call finish on the version it started with", async () => {
		const file = join(dir, "slow.ts");
		const slow = (label: string) =>
			toolSource("slow", JSON.stringify(label)).replace(
				"async execute() {",
				`async execute() {
			if (${JSON.stringify(label)} === "old") await new Promise((resolve) => { globalThis.__hostProbe.release = resolve; });`,
			);
		write(file, slow("old"));
		const h = await start([file]);
		const inFlight = h.execute([call("slow")]);
		while (!probe().release) await new Promise((resolve) => setTimeout(resolve, 5));

		const reloaded = nextReload(h, (e) => e.path === file);
		write(file, slow("new"));
		expect(await reloaded).toMatchObject({ ok: true });
		expect(await answer(h, "slow")).toBe("new");
		probe().release?.();
		const { results } = await inFlight;
		expect(results[0]?.content).toEqual([{ type: "text", text: "old" }]);
	});

	it("stops watching on close, runs the shutdown handlers once, and is idempotent", async () => {
		const file = join(dir, "ext.ts");
		write(file, toolSource("alpha", '"a"', { extra: record("a") }));
		const h = await start([file]);
		const events: string[] = [];
		h.on("reload", (e) => events.push(e.path));
		await Promise.all([h.close(), h.close()]);
		await h.close();
		expect(probe().events).toEqual(["a start startup", "a shutdown exit"]);
		// A change after close is not picked up: a manual reload proves the host would have answered.
		write(file, toolSource("alpha", '"b"'));
		await h.reload(file);
		expect(events).toEqual([]);
	});
});
