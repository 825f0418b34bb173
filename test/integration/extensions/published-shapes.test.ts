/**
 * Shapes found in pi packages as they are published, loaded for real (jiti, files in a temp dir):
 * top-level `await` inside an expression, TypeBox's `value`/`compile`/`compiler` subpaths (as 1.x
 * and 0.34 extensions import them), and a `session_start` handler that reads `ctx.sessionManager`
 * and `ctx.isProjectTrusted()`. A module that really does not parse still names its first error.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { loadExtensions } from "../../../src/extensions/node-loader.js";
import { runTool } from "./_run-tool.js";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures");

const extension = `
import Value, { Check } from "typebox/value";
import Compile from "typebox/compile";
import { Compile as CompileNamed } from "@sinclair/typebox/compile";
import { Value as SinclairValue } from "@sinclair/typebox/value";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Type } from "typebox";
// Top-level await inside an expression: the synchronous attempt reports "Unexpected identifier".
const extra = process.env.TOOLSMITH_NO_EXTRA ? undefined : (await import("./extra.ts")).default;
const schema = Type.Object({ n: Type.Number() });
let seen = "session_start not run";
export default function (pi) {
	pi.on("session_start", async (_event, ctx) => {
		const sm = ctx.sessionManager;
		seen = JSON.stringify({
			cwd: sm.getCwd(), file: sm.getSessionFile() ?? null, entries: sm.getEntries(), branch: sm.getBranch(),
			leaf: sm.getLeafId(), header: sm.getHeader().type, id: typeof sm.getSessionId(), trusted: ctx.isProjectTrusted(),
		});
	});
	pi.registerTool({
		name: "shapes", label: "shapes", description: "Reports what the module saw when it loaded.", parameters: schema,
		async execute() {
			const checks = [
				Value.Check(schema, { n: 1 }), Check(schema, { n: "x" }), Compile(schema).Check({ n: 2 }),
				CompileNamed(schema).Errors({ n: "y" }).length > 0, SinclairValue.Check(schema, { n: 3 }),
				TypeCompiler.Compile(schema).Check({ n: 4 }),
			];
			return { content: [{ type: "text", text: JSON.stringify({ extra: extra?.value, checks, seen }) }], details: {} };
		},
	});
}
`;

describe("extensions shaped as published pi packages", () => {
	let root: string;
	beforeAll(() => {
		root = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-shapes-")));
		writeFileSync(join(root, "extra.ts"), "export default { value: 42 };\n");
		writeFileSync(join(root, "ext.ts"), extension);
		writeFileSync(join(root, "broken.ts"), "export const ok = 1;\nconst = 2;\n");
	});
	afterAll(() => rmSync(root, { recursive: true, force: true }));

	it("load and run: top-level await in an expression, TypeBox subpaths, the headless session", async () => {
		const loaded = await loadExtensions([join(root, "ext.ts")], {
			cwd: root,
			env: new NodeExecutionEnv({ cwd: root }),
		});
		expect(loaded.diagnostics).toEqual([]);
		expect(await loaded.runtime.emit({ type: "session_start", reason: "startup" })).toEqual([]);
		const { text } = await runTool(loaded, "shapes", { n: 1 });
		expect(JSON.parse(text ?? "{}")).toEqual({
			extra: 42,
			checks: [true, false, true, true, true, true],
			seen: JSON.stringify({
				cwd: root,
				file: null,
				entries: [],
				branch: [],
				leaf: null,
				header: "session",
				id: "string",
				trusted: true,
			}),
		});
	});

	it("pi-tui's common components draw plain lines; a named import the compat module only stubs is a warning at load", async () => {
		writeFileSync(
			join(root, "tui.ts"),
			`import { Box, Markdown, Key, matchesKey, parseKey, TruncatedText, Text, SelectList } from "@mariozechner/pi-tui";
import type { Component } from "@mariozechner/pi-tui";
import { BorderedLoader, DynamicBorder, getMarkdownTheme, keyHint, type ExtensionAPI } from "@mariozechner/pi-coding-agent";
export { CancellableLoader } from "@mariozechner/pi-tui";
export default function (pi: ExtensionAPI) {
	pi.registerTool({
		name: "tui", label: "tui", description: "Draws pi-tui components as text.",
		parameters: { type: "object", properties: {} } as never,
		async execute() {
			const box = new Box(2, 1);
			box.addChild(new Markdown("**bold** words wrapped here", 0, 0, {}));
			box.addChild(new TruncatedText("a very long line that is cut", 0, 0));
			box.addChild(new Text("t", 0, 0));
			box.addChild(new DynamicBorder());
			const styled = [getMarkdownTheme().heading("H"), keyHint("app.interrupt", "to stop")];
			const keys = [Key.enter, Key.ctrl("c"), matchesKey("\\r", Key.enter), matchesKey("\\x03", Key.ctrl("c")), matchesKey("x", Key.enter), parseKey("\\x1b")];
			const missing = [typeof SelectList, typeof BorderedLoader];
			return { content: [{ type: "text", text: JSON.stringify({ lines: box.render(16), keys, missing, styled }) }], details: {} };
		},
	});
}
`,
		);
		const loaded = await loadExtensions([join(root, "tui.ts")], {
			cwd: root,
			env: new NodeExecutionEnv({ cwd: root }),
		});
		const warnings = loaded.diagnostics.filter((d) => d.code === "W_UNSUPPORTED_API");
		expect(warnings.map((d) => /imports `(\w+)` from (\S+),/.exec(d.message)?.slice(1))).toEqual([
			["SelectList", "@mariozechner/pi-tui"],
			["BorderedLoader", "@mariozechner/pi-coding-agent"],
			["CancellableLoader", "@mariozechner/pi-tui"],
		]);
		expect(warnings.every((d) => d.path === join(root, "tui.ts") && d.severity === "warning")).toBe(true);
		expect(loaded.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
		const { text } = await runTool(loaded, "tui", {});
		expect(JSON.parse(text ?? "{}")).toEqual({
			lines: ["", "  **bold**", "  words", "  wrapped here", "  a very long…", "  t", "  ────────────", ""],
			keys: ["enter", "ctrl+c", true, true, false, "escape"],
			// stubs: every reference export resolves (see _stubs.ts)
			missing: ["function", "function"],
			styled: ["H", "app.interrupt to stop"],
		});
	});

	it("a module that does not parse in either mode names its first error's position", async () => {
		const loaded = await loadExtensions([join(root, "broken.ts")], {
			cwd: root,
			env: new NodeExecutionEnv({ cwd: root }),
		});
		const error = loaded.diagnostics.find((d) => d.code === "E_SYNTAX");
		expect(error?.path).toBe(join(root, "broken.ts"));
		expect(error?.line).toBe(2);
		expect(error?.message).toContain(`${join(root, "broken.ts")}:2:`);
	});

	it("a pi package installed under node_modules: its own modules' missing imports are warnings too, its dependencies' are not", async () => {
		const installed = join(fixtures, "pi-installed", "node_modules", "pi-inner-imports");
		const loaded = await loadExtensions([installed], { cwd: root, env: new NodeExecutionEnv({ cwd: root }) });
		expect(loaded.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
		const warnings = loaded.diagnostics.filter((d) => d.code === "W_UNSUPPORTED_API");
		expect(warnings.map((d) => [d.path, /imports `(\w+)` from (\S+),/.exec(d.message)?.slice(1)])).toEqual([
			[join(installed, "lib", "describe.ts"), ["SelectList", "@earendil-works/pi-tui"]],
		]);
		expect(warnings[0]?.message).toContain(`(a module of the extension ${join(installed, "index.ts")})`);
		expect((await runTool(loaded, "inner_imports", {})).text).toBe("function function");
	});
});
