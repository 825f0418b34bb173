import { cpSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolCall } from "../../../src/contract/content.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { executeToolCalls } from "../../../src/exec/execute.js";
import type { ExtensionDiagnostic } from "../../../src/extensions/api.js";
import { type LoadExtensionsResult, loadExtension, loadExtensions } from "../../../src/extensions/node-loader.js";

const fixtures = realpathSync(fileURLToPath(new URL("../../fixtures/extensions", import.meta.url)));
const rel = (path: string) => (path.startsWith(fixtures) ? path.slice(fixtures.length + 1) : path);
const brief = (d: ExtensionDiagnostic) => [d.severity, d.code, rel(d.path), d.line, d.column];

function call(name: string, args: unknown = {}): ToolCall {
	return { type: "toolCall", id: `id-${name}`, name, arguments: args };
}

async function run(result: LoadExtensionsResult, name: string, args: unknown = {}) {
	const { results } = await executeToolCalls([call(name, args)], result.registry.executorConfig());
	const message = results[0];
	return { isError: message?.isError, text: message?.content.map((c) => (c.type === "text" ? c.text : "")).join("") };
}

describe("loading the fixture folder", () => {
	let loaded: LoadExtensionsResult;
	beforeAll(async () => {
		loaded = await loadExtensions([fixtures], { cwd: fixtures, loadTimeoutMs: 300 });
	});

	it("reports exactly the broken extensions, each naming its file", () => {
		expect(loaded.diagnostics.map(brief)).toEqual([
			["error", "E_SYNTAX", "broken-syntax.ts", 4, 2],
			["warning", "W_DUPLICATE_TOOL", "dup-b.ts", undefined, undefined],
			["error", "E_LOAD_TIMEOUT", "hangs.ts", undefined, undefined],
			["error", "E_INCOMPATIBLE", "incompatible-pkg/index.ts", undefined, undefined],
			["error", "E_INVALID_ENGINES", "invalid-range.ts", undefined, undefined],
			["error", "E_INVALID_TOOL", "invalid-tool.ts", undefined, undefined],
			["error", "E_NO_FACTORY", "no-default.ts", undefined, undefined],
			["error", "E_NO_FACTORY", "not-function.ts", undefined, undefined],
			["info", "I_BUILTIN_OVERRIDDEN", "override-read.ts", undefined, undefined],
			["error", "E_FACTORY_FAILED", "rejects.ts", 3, 9],
			["error", "E_FACTORY_FAILED", "throws.ts", 2, 9],
		]);
		const messages = loaded.diagnostics.map((d) => d.message.split(`${fixtures}/`).join(""));
		expect(messages).toEqual([
			"broken-syntax.ts:4:2 does not parse: Unexpected token. The extension was not loaded.",
			'Tool "dup_tool" is registered by both dup-a.ts and dup-b.ts; the one from dup-a.ts (loaded first) is used.',
			"The default export of hangs.ts did not settle within 300 ms; the extension was not loaded. Move slow work into a session_start handler or a tool.",
			"incompatible-pkg/index.ts requires toolsmith ^2.0.0; this is 1.2.0. The extension was not loaded: use a toolsmith whose API version matches, or update the extension.",
			'invalid-range.ts declares engines.toolsmith "not a range" in its `engines` export, which is not a valid semver range (for example "^1"); the extension was not loaded.',
			'Tool "bad name!" from invalid-tool.ts was rejected: name "bad name!" must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, "_" and "-", at most 64); description must be a non-empty string (the model reads it to decide when to call the tool).',
			"no-default.ts has no default export; an extension must default-export a function that receives the extension API (export default function (api) { … }).",
			"not-function.ts default-exports an object, not a function; an extension must default-export a function that receives the extension API (export default function (api) { … }).",
			'Tool "read" from override-read.ts replaces the built-in tool of the same name.',
			"The default export of rejects.ts threw: the async factory gave up. The extension was not loaded.",
			"The default export of throws.ts threw: the factory gave up. The extension was not loaded.",
		]);
	});

	it("loads every healthy extension, in discovery order", () => {
		expect(loaded.extensions.map((e) => [rel(e.path), e.tools])).toEqual([
			["cjs-ext/index.js", ["cjs_tool"]],
			["dup-a.ts", ["dup_tool"]],
			["dup-b.ts", ["dup_tool"]],
			["folder-index/index.ts", ["folder_tool"]],
			["invalid-tool.ts", ["valid_sibling"]],
			["manifest-pkg/src/main.ts", ["manifest_tool"]],
			["mjs-helper.ts", ["mjs_tool"]],
			["override-read.ts", ["read"]],
			["own-deps/index.ts", ["double"]],
			["pi-manifest/ext.ts", ["pi_manifest_tool"]],
			["valid-file.ts", ["greet"]],
		]);
		expect(loaded.registry.getActiveTools()).toEqual([
			"bash",
			"edit",
			"write",
			"cjs_tool",
			"dup_tool",
			"folder_tool",
			"valid_sibling",
			"manifest_tool",
			"mjs_tool",
			"read",
			"double",
			"pi_manifest_tool",
			"greet",
		]);
		expect(loaded.registry.get("read")?.source).toEqual({
			kind: "extension",
			path: join(fixtures, "override-read.ts"),
		});
	});

	it("lists the local modules each extension imported, without node_modules", () => {
		const modules = Object.fromEntries(loaded.extensions.map((e) => [rel(e.path), e.modules.map(rel)]));
		expect(modules["folder-index/index.ts"]).toEqual(["folder-index/index.ts", "folder-index/helper.ts"]);
		expect(modules["mjs-helper.ts"]).toEqual(["mjs-helper.ts", "helpers/format.mjs"]);
		expect(modules["cjs-ext/index.js"]).toEqual(["cjs-ext/index.js", "cjs-ext/helper.cjs"]);
		expect(modules["own-deps/index.ts"]).toEqual(["own-deps/index.ts"]);
		expect(loaded.extensions.find((e) => rel(e.path) === "manifest-pkg/src/main.ts")?.engines).toBe("^1.0.0");
	});

	it("runs the tools of every kind of extension through the executor", async () => {
		expect(await run(loaded, "greet", { who: "Ada" })).toEqual({ isError: false, text: "Hello, Ada!" });
		expect(await run(loaded, "folder_tool", { text: "hi" })).toEqual({ isError: false, text: "HI!" });
		expect(await run(loaded, "manifest_tool")).toEqual({ isError: false, text: "from the manifest" });
		expect(await run(loaded, "pi_manifest_tool", { mode: "fast" })).toEqual({ isError: false, text: "mode fast" });
		expect(await run(loaded, "mjs_tool", { text: "x" })).toEqual({ isError: false, text: "[x]" });
		expect(await run(loaded, "cjs_tool", { text: "abc" })).toEqual({ isError: false, text: "cba" });
		expect(await run(loaded, "double", { n: 21 })).toEqual({ isError: false, text: "42" });
		expect(await run(loaded, "dup_tool")).toEqual({ isError: false, text: "a" });
		expect(await run(loaded, "read", { path: "x" })).toEqual({ isError: false, text: "pretend I read x" });
	});
});

describe("loading with an in-memory env", () => {
	it("gives extension and built-in tools the env it was given", async () => {
		const env = new MemoryExecutionEnv({ files: { "notes.txt": "from memory\n" } });
		const loaded = await loadExtensions([join(fixtures, "valid-file.ts")], { env, cwd: fixtures });
		expect(loaded.diagnostics).toEqual([]);
		expect(await run(loaded, "read", { path: "notes.txt" })).toEqual({ isError: false, text: "from memory\n" });
		expect(await run(loaded, "greet", { who: "memory" })).toEqual({ isError: false, text: "Hello, memory!" });
	});
});

describe("one extension at a time", () => {
	let dir: string;
	beforeAll(() => {
		dir = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-loader-")));
		cpSync(join(fixtures, "mjs-helper.ts"), join(dir, "mjs-helper.ts"));
		cpSync(join(fixtures, "helpers"), join(dir, "helpers"), { recursive: true });
		cpSync(join(fixtures, "cjs-ext"), join(dir, "cjs-ext"), { recursive: true });
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("re-imports the entry and its .mjs and .cjs helpers fresh, and keeps the last good version", async () => {
		const loaded = await loadExtensions([dir], { cwd: dir });
		expect(loaded.diagnostics).toEqual([]);
		expect(await run(loaded, "mjs_tool", { text: "a" })).toEqual({ isError: false, text: "[a]" });
		expect(await run(loaded, "cjs_tool", { text: "ab" })).toEqual({ isError: false, text: "ba" });

		writeFileSync(join(dir, "helpers/format.mjs"), "export function bracket(text) {\n\treturn '<' + text + '>';\n}\n");
		writeFileSync(join(dir, "cjs-ext/helper.cjs"), "exports.reverse = (text) => 'reversed ' + text;\n");
		const entry = join(dir, "mjs-helper.ts");
		const again = await loadExtension(entry, loaded.runtime);
		expect(again.diagnostics).toEqual([]);
		expect(again.modules).toEqual([entry, join(dir, "helpers/format.mjs")]);
		await loadExtension(join(dir, "cjs-ext/index.js"), loaded.runtime);
		expect(await run(loaded, "mjs_tool", { text: "a" })).toEqual({ isError: false, text: "<a>" });
		expect(await run(loaded, "cjs_tool", { text: "ab" })).toEqual({ isError: false, text: "reversed ab" });

		writeFileSync(
			entry,
			'import { bracket } from "./helpers/format.mjs";\nexport default (api) => {\n\tapi.registerTool(\n',
		);
		const broken = await loadExtension(entry, loaded.runtime);
		expect(broken.extension).toBeUndefined();
		expect(broken.diagnostics.map((d) => [d.code, d.path, d.line])).toEqual([["E_SYNTAX", entry, 4]]);
		expect(await run(loaded, "mjs_tool", { text: "still" })).toEqual({ isError: false, text: "<still>" });
		expect(loaded.runtime.extensions().map((e) => e.path)).toEqual([join(dir, "cjs-ext/index.js"), entry]);
	});

	it("loads a module with top-level await", async () => {
		const file = join(dir, "tla.ts");
		writeFileSync(
			file,
			[
				'import { Type } from "toolsmith-sdk";',
				"const greeting: string = await Promise.resolve('awaited');",
				"export default function (api: import('toolsmith-sdk').ExtensionAPI) {",
				"\tapi.registerTool({ name: 'tla', label: 'tla', description: 'Top-level await.', parameters: Type.Object({}),",
				"\t\tasync execute() { return { content: [{ type: 'text', text: greeting }], details: {} }; } });",
				"}",
				"",
			].join("\n"),
		);
		const loaded = await loadExtensions([file], { cwd: dir, builtins: false });
		expect(loaded.diagnostics).toEqual([]);
		expect(await run(loaded, "tla")).toEqual({ isError: false, text: "awaited" });
	});

	it("resolves toolsmith-sdk and its old name toolsmith to the loading instance", async () => {
		const file = join(dir, "both-names.ts");
		writeFileSync(
			file,
			[
				'import * as current from "toolsmith-sdk";',
				'import * as old from "toolsmith";',
				"export default function (api: import('toolsmith-sdk').ExtensionAPI) {",
				"\tconst same = current.defineTool === old.defineTool && current.Type === old.Type;",
				"\tapi.registerTool(old.defineTool({ name: 'names', label: 'names', description: 'Both names.',",
				"\t\tparameters: current.Type.Object({}),",
				"\t\tasync execute() { return { content: [{ type: 'text', text: String(same) }], details: {} }; } }));",
				"}",
				"",
			].join("\n"),
		);
		const loaded = await loadExtensions([file], { cwd: dir, builtins: false });
		expect(loaded.diagnostics).toEqual([]);
		expect(await run(loaded, "names")).toEqual({ isError: false, text: "true" });
	});

	it("resolves toolsmith-sdk/node, /runtime, /render and /providers to the loading instance, with nothing installed", async () => {
		const file = join(dir, "node-entries.ts");
		writeFileSync(
			file,
			[
				'import { defineTool, Type } from "toolsmith-sdk";',
				'import { loadMcpTools, NodeExecutionEnv } from "toolsmith-sdk/node";',
				'import { toOpenAIChatTools } from "toolsmith-sdk/providers";',
				'import { renderToolCall } from "toolsmith-sdk/render";',
				'import { createToolRegistry } from "toolsmith-sdk/runtime";',
				"export default function (api: import('toolsmith-sdk').ExtensionAPI) {",
				"	const seen = (globalThis as Record<string, unknown>).__toolsmithEntries as Record<string, unknown>;",
				"	const same = seen.loadMcpTools === loadMcpTools && seen.NodeExecutionEnv === NodeExecutionEnv && seen.createToolRegistry === createToolRegistry && seen.renderToolCall === renderToolCall && seen.toOpenAIChatTools === toOpenAIChatTools;",
				"	api.registerTool(defineTool({ name: 'entries', label: 'entries', description: 'The Node entries.',",
				"		parameters: Type.Object({}),",
				"		async execute() { return { content: [{ type: 'text', text: String(same) }], details: {} }; } }));",
				"}",
				"",
			].join("\n"),
		);
		const [node, runtime, render, providers] = await Promise.all([
			import("../../../src/node.js"),
			import("../../../src/runtime.js"),
			import("../../../src/render/index.js"),
			import("../../../src/providers/index.js"),
		]);
		const global = globalThis as Record<string, unknown>;
		global.__toolsmithEntries = {
			loadMcpTools: node.loadMcpTools,
			NodeExecutionEnv: node.NodeExecutionEnv,
			createToolRegistry: runtime.createToolRegistry,
			renderToolCall: render.renderToolCall,
			toOpenAIChatTools: providers.toOpenAIChatTools,
		};
		try {
			// `dir` is a temp folder: no node_modules there or above to resolve the entries from.
			const loaded = await loadExtensions([file], { cwd: dir, builtins: false });
			expect(loaded.diagnostics).toEqual([]);
			expect(await run(loaded, "entries")).toEqual({ isError: false, text: "true" });
		} finally {
			delete global.__toolsmithEntries;
		}
	});

	it("reports a missing import and a module that throws while evaluated", async () => {
		const missing = join(dir, "missing-dep.ts");
		writeFileSync(missing, 'import "no-such-package-anywhere";\nexport default () => {};\n');
		const throwing = join(dir, "throws-at-top.ts");
		writeFileSync(throwing, 'const x = 1;\nthrow new Error("top-level failure " + x);\nexport default () => {};\n');
		const loaded = await loadExtensions([missing, throwing], { cwd: dir, builtins: false });
		expect(loaded.diagnostics.map((d) => [d.code, d.path, d.line])).toEqual([
			["E_EXTENSION_LOAD", missing, 1],
			["E_EXTENSION_LOAD", throwing, 2],
		]);
		expect(loaded.diagnostics[0]?.message).toContain("Cannot find module 'no-such-package-anywhere'");
		expect(loaded.diagnostics[1]?.message).toContain("threw while its module was evaluated: top-level failure 1");
	});

	it("reports a module that throws a value String() cannot convert (a null-prototype object)", async () => {
		const file = join(dir, "throws-null-proto.ts");
		writeFileSync(
			file,
			'const value = Object.create(null);\nvalue.reason = "odd";\nthrow value;\nexport default () => {};\n',
		);
		const loaded = await loadExtensions([file], { cwd: dir, builtins: false });
		expect(loaded.diagnostics.map((d) => [d.code, d.path])).toEqual([["E_EXTENSION_LOAD", file]]);
		expect(loaded.diagnostics[0]?.message).toContain('{"reason":"odd"}');
	});

	it("fails an extension that calls an action method during load, naming the method", async () => {
		const file = join(dir, "too-early.ts");
		writeFileSync(file, "export default (api) => {\n\tapi.getAllTools();\n};\n");
		const loaded = await loadExtensions([file], { cwd: dir, builtins: false });
		expect(loaded.diagnostics.map((d) => [d.code, d.line])).toEqual([["E_FACTORY_FAILED", 2]]);
		expect(loaded.diagnostics[0]?.message).toContain("api.getAllTools() is not available while");
	});
});
