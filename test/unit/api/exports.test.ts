/**
 * The public API, pinned: every entry names its exports (no `export *`), every export has a doc
 * comment, nothing private is exported, and docs/api.md lists exactly what the entries export —
 * so an export that appears or disappears without the reference changing fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collectExports, ENTRIES, REFERENCE_PATH, renderReference } from "../../../scripts/api-reference.js";

const root = join(import.meta.dirname, "..", "..", "..");
const exports = collectExports();

describe("public API", () => {
	it("has one entry per package export, built by tsup", () => {
		const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
			exports: Record<string, unknown>;
		};
		const subpaths = Object.keys(manifest.exports).filter((key) => key !== "./package.json");
		expect(ENTRIES.map((entry) => entry.specifier.replace(/^toolsmith-sdk/, "."))).toEqual(
			expect.arrayContaining(subpaths),
		);
		expect(ENTRIES).toHaveLength(subpaths.length);
		const tsup = readFileSync(join(root, "tsup.config.ts"), "utf8");
		for (const entry of ENTRIES) expect(tsup).toContain(`"${entry.source}"`);
	});

	it("names every export in every entry: no export *", () => {
		for (const entry of ENTRIES) {
			const source = readFileSync(join(root, entry.source), "utf8");
			expect(source, entry.source).not.toMatch(/export\s+(type\s+)?\*/);
		}
	});

	it("gives every export a doc comment", () => {
		const missing = [...exports].flatMap(([entry, list]) =>
			list.filter((item) => item.summary === "").map((item) => `${entry}: ${item.name} (${item.declaredIn})`),
		);
		expect(missing).toEqual([]);
	});

	it("exports nothing declared in a private (_-prefixed) module", () => {
		const leaked = [...exports].flatMap(([entry, list]) =>
			list
				.filter((item) => /(^|\/)_[^/]*$/.test(item.declaredIn))
				.map((item) => `${entry}: ${item.name} (${item.declaredIn})`),
		);
		expect(leaked).toEqual([]);
	});

	it("uses US spelling in exported names", () => {
		const names = [...exports.values()].flat().map((item) => item.name);
		expect(
			names.filter(
				(name) =>
					/is(e|ation|ing)(?![a-z])|our(?=[A-Z_]|$)/i.test(name) &&
					/normalis|serialis|initialis|colour|behaviour|summaris|sanitis|recognis|organis/i.test(name),
			),
		).toEqual([]);
	});

	it("is listed, export by export, in docs/api.md (run `npm run docs:api` after changing an export)", () => {
		const expected = renderReference(exports);
		const actual = readFileSync(REFERENCE_PATH, "utf8");
		if (actual !== expected) {
			const lines = (text: string) => new Set(text.split("\n"));
			const [have, want] = [lines(actual), lines(expected)];
			const stale = [...have].filter((line) => !want.has(line));
			const absent = [...want].filter((line) => !have.has(line));
			expect({ stale, absent }, "docs/api.md is out of date: run `npm run docs:api`").toEqual({
				stale: [],
				absent: [],
			});
		}
		expect(actual).toBe(expected);
	});

	it("keeps the main entry for tool authors; host plumbing, rendering and provider formats on their own subpaths", () => {
		const names = (specifier: string) => new Set((exports.get(specifier) ?? []).map((item) => item.name));
		const main = names("toolsmith-sdk");
		for (const name of [
			"defineTool",
			"defineExtension",
			"createBuiltinTools",
			"BUILTIN_TOOL_SETS",
			"createLsTool",
			"createGrepTool",
			"createFindTool",
			"findToolParameters",
			"truncateHead",
			"DEFAULT_MAX_BYTES",
			"SearchTextRequest",
			"SearchTextResult",
			"SearchTextMatch",
			"MemoryExecutionEnv",
			"createOperationsEnv",
			"Type",
			"Theme",
			"ToolsmithError",
		]) {
			expect(main.has(name), name).toBe(true);
		}
		const moved: Readonly<Record<string, readonly string[]>> = {
			"toolsmith-sdk/runtime": [
				"createExtensionRuntime",
				"createToolRegistry",
				"BUILTIN_SOURCE",
				"executeToolCalls",
				"ExecuteToolCallsConfig",
				"ToolExecutionEvent",
				"validateToolArguments",
				"wrapToolDefinitions",
				"isToolCallable",
				"ToolCall",
				"DEFAULT_MAX_SPILL_BYTES",
				"DEFAULT_GREP_LIMIT",
			],
			"toolsmith-sdk/render": [
				"renderToolCall",
				"ansiTheme",
				"DEFAULT_ANSI_COLORS",
				"plainTheme",
				"graphemeWidth",
				"visibleWidth",
			],
			"toolsmith-sdk/providers": ["toOpenAIChatTools", "parseToolCalls", "compileToolSchema", "buildToolsPrompt"],
		};
		for (const [specifier, list] of Object.entries(moved)) {
			const entry = names(specifier);
			for (const name of list) {
				expect(entry.has(name), `${specifier}: ${name}`).toBe(true);
				expect(main.has(name), `toolsmith-sdk: ${name}`).toBe(false);
			}
		}
	});

	it("lists in docs/migration.md the entry each moved name is exported from, and not the main entry", () => {
		const names = (specifier: string) => new Set((exports.get(specifier) ?? []).map((item) => item.name));
		const main = names("toolsmith-sdk");
		const migration = readFileSync(join(root, "docs", "migration.md"), "utf8");
		const rows = [
			...migration.matchAll(
				/^\| `(\w+)` +\| (?:type|value) +\| `import \{ (?:type )?\1 \} from "toolsmith-sdk"` +\| `import \{ (?:type )?\1 \} from "([\w/-]+)"` +\|$/gm,
			),
		];
		expect(rows.length).toBeGreaterThan(100);
		const wrong = rows.flatMap(([, name = "", specifier = ""]) =>
			names(specifier).has(name) && !main.has(name) ? [] : [`${name}: ${specifier}`],
		);
		expect(wrong).toEqual([]);
	});

	it("exports each name from one entry only", () => {
		const seen = new Map<string, string>();
		const twice: string[] = [];
		for (const [specifier, list] of exports) {
			for (const item of list) {
				const first = seen.get(item.name);
				if (first !== undefined) twice.push(`${item.name}: ${first} and ${specifier}`);
				else seen.set(item.name, specifier);
			}
		}
		expect(twice).toEqual([]);
	});
});
