/**
 * Errors of a module the extension's entry imports (the project layout of the templates: an entry
 * that imports every tool from `src/tools/`) are reported at that module, and each tool's file is
 * the module that defines it. Real files, real jiti imports.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toolFile } from "../../../src/extensions/node-event-lines.js";
import { loadExtension, loadExtensions } from "../../../src/extensions/node-loader.js";

const ENTRY = `import { defineExtension } from "toolsmith-sdk";
import * as tools from "./tools/index.js";

export default defineExtension((api) => {
	for (const tool of Object.values(tools)) api.registerTool(tool);
});
`;

const tool = (name: string, ident: string, top = "") => `import { defineTool, Type } from "toolsmith-sdk";
${top}
export const ${ident} = defineTool({
	name: "${name}",
	label: "${name}",
	description: "The ${name} tool, for tests.",
	parameters: Type.Object({}),
	async execute() {
		return { content: [{ type: "text", text: "${name}" }], details: {} };
	},
});
`;

let dir: string;
let entry: string;
let jsonGet: string;

beforeEach(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-imported-errors-")));
	mkdirSync(join(dir, "src/tools"), { recursive: true });
	entry = join(dir, "src/index.ts");
	jsonGet = join(dir, "src/tools/json-get.ts");
	writeFileSync(entry, ENTRY);
	writeFileSync(
		join(dir, "src/tools/index.ts"),
		'export { hello } from "./hello.js";\nexport { jsonGet } from "./json-get.js";\n',
	);
	writeFileSync(join(dir, "src/tools/hello.ts"), tool("hello", "hello"));
	writeFileSync(jsonGet, tool("json_get", "jsonGet"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const load = () => loadExtensions([entry], { cwd: dir, builtins: false });
const brief = (d: { code: string; path: string; line?: number; column?: number }) => [
	d.code,
	d.path.slice(dir.length + 1),
	d.line,
	d.column,
];

describe("an error in a module the entry imports", () => {
	it("a syntax error is E_SYNTAX at that module's line and column, not a crash of the entry", async () => {
		// Line 9 of the module, at the `;` of `return { …, details: {} ;` (the closing brace is missing).
		writeFileSync(jsonGet, tool("json_get", "jsonGet").replace("details: {} };", "details: {} ;"));
		const loaded = await load();
		expect(loaded.diagnostics.map(brief)).toEqual([["E_SYNTAX", "src/tools/json-get.ts", 9, 71]]);
		expect(loaded.diagnostics[0]?.message).toBe(
			`${jsonGet}:9:71 does not parse: Unexpected token, expected "," (imported by the extension ${entry}). The extension was not loaded.`,
		);
		expect(loaded.extensions).toEqual([]);
	});

	it("a syntax error in a module that also has a top-level await is still E_SYNTAX at that module", async () => {
		writeFileSync(jsonGet, tool("json_get", "jsonGet", "const ready = await Promise.resolve(1);\nconst x = 1 as;"));
		const loaded = await load();
		expect(loaded.diagnostics.map(brief)).toEqual([["E_SYNTAX", "src/tools/json-get.ts", 3, 15]]);
	});

	it("a module with a top-level await loads, with its siblings", async () => {
		writeFileSync(jsonGet, tool("json_get", "jsonGet", "const ready = await Promise.resolve(1);"));
		const loaded = await load();
		expect(loaded.diagnostics).toEqual([]);
		expect(loaded.extensions.map((e) => e.tools)).toEqual([["hello", "json_get"]]);
	});

	it("a throw at the module's top level is that error, at that module's line", async () => {
		writeFileSync(jsonGet, tool("json_get", "jsonGet", 'if (!process.env.NEVER_SET_X) throw new Error("no config");'));
		const loaded = await load();
		expect(loaded.diagnostics.map(brief)).toEqual([["E_EXTENSION_LOAD", "src/tools/json-get.ts", 2, 37]]);
		expect(loaded.diagnostics[0]?.message).toBe(
			`${jsonGet}:2:37 threw while its module was evaluated: no config (imported by the extension ${entry}). The extension was not loaded.`,
		);
	});

	it("a SyntaxError thrown while the module runs (JSON.parse) is the thrown error, not a parse failure", async () => {
		writeFileSync(jsonGet, tool("json_get", "jsonGet", 'const config = JSON.parse("{oops");'));
		const loaded = await load();
		expect(loaded.diagnostics.map(brief)).toEqual([["E_EXTENSION_LOAD", "src/tools/json-get.ts", 2, 21]]);
		expect(loaded.diagnostics[0]?.message).toContain("threw while its module was evaluated: Expected property name");
	});

	it("after the fix, a reload brings the tools back from the files that define them", async () => {
		writeFileSync(jsonGet, "export const jsonGet = {\n");
		const loaded = await load();
		expect(loaded.diagnostics.map(brief)).toEqual([["E_SYNTAX", "src/tools/json-get.ts", 2, 1]]);
		writeFileSync(jsonGet, tool("json_get", "jsonGet"));
		const again = await loadExtension(entry, loaded.runtime);
		expect(again.diagnostics).toEqual([]);
		const extensions = loaded.runtime.extensions();
		const files = loaded.registry
			.snapshot()
			.active.map((e) => [e.name, toolFile(e, extensions)?.slice(dir.length + 1)]);
		expect(files).toEqual([
			["hello", "src/tools/hello.ts"],
			["json_get", "src/tools/json-get.ts"],
		]);
	});
});

describe("the file that defines a tool", () => {
	it("is the entry for a tool defined there, or made without defineTool", async () => {
		writeFileSync(
			entry,
			`import { defineTool, Type } from "toolsmith-sdk";
import * as tools from "./tools/index.js";
const parameters = Type.Object({});
export default (api) => {
	for (const tool of Object.values(tools)) api.registerTool(tool);
	api.registerTool(defineTool({ name: "inline", label: "inline", description: "Defined in the entry.", parameters,
		async execute() { return { content: [], details: {} }; } }));
	api.registerTool({ name: "plain", label: "plain", description: "A plain object, no defineTool.", parameters,
		async execute() { return { content: [], details: {} }; } });
};
`,
		);
		const loaded = await load();
		expect(loaded.diagnostics).toEqual([]);
		const extensions = loaded.runtime.extensions();
		const files = Object.fromEntries(
			loaded.registry.snapshot().active.map((e) => [e.name, toolFile(e, extensions)?.slice(dir.length + 1)]),
		);
		expect(files).toEqual({
			hello: "src/tools/hello.ts",
			json_get: "src/tools/json-get.ts",
			inline: "src/index.ts",
			plain: "src/index.ts",
		});
	});
});
