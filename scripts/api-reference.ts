/**
 * The API reference (docs/api.md), made from the package's entries and the doc comments of what
 * they export. `npm run docs:api` writes it; test/unit/api/exports.test.ts fails when the file
 * differs from what this makes, so an export cannot appear, disappear or change its summary
 * without the reference changing in the same commit.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The package's entries, in the order the reference lists them, with what each is for. */
export const ENTRIES: readonly { readonly specifier: string; readonly source: string; readonly about: string }[] = [
	{
		specifier: "toolsmith-sdk",
		source: "src/index.ts",
		about:
			"Runtime-neutral, for tool authors: the tool contract, results and schemas, the envs, the built-in tools and their output budgets, and the extension API. What hosts, renderers and provider formats need lives on the entries below (docs/migration.md lists where each earlier name went).",
	},
	{
		specifier: "toolsmith-sdk/node",
		source: "src/node.ts",
		about:
			"Needs Node.js: the real disk and processes, finding and loading extensions from disk, watching them, the extension host, and serving a toolsmith extension to pi.",
	},
	{
		specifier: "toolsmith-sdk/harness",
		source: "src/harness/index.ts",
		about:
			"Testing tools without a model: the test harness, replay fixtures, recorded sessions, recording, and conformance checks. Its `node*` parts need Node.js.",
	},
	{
		specifier: "toolsmith-sdk/vitest",
		source: "src/harness/vitest.ts",
		about: "vitest integration: conformance suites and matchers (vitest is an optional peer dependency).",
	},
	{
		specifier: "toolsmith-sdk/eval",
		source: "src/eval/index.ts",
		about:
			"Tool-use evals: scenarios (`defineEval`), the loop that runs them against a model (`runEvals`), trajectory, argument, file and answer checks, a scripted model for tests, and the comparison of two runs with its uncertainty. Needs Node.js as a whole; its parts not named `node-*` are runtime-neutral.",
	},
	{
		specifier: "toolsmith-sdk/runtime",
		source: "src/runtime.ts",
		about:
			"Runtime-neutral, for hosts that run tools: the executor with its hooks, events and messages, argument validation, definitions turned into `AgentTool`s, the exposure rules, the built-in tools' limits and spill defaults, and the extension runtime and tool registry a host builds its own extension loading on. The extension host in `toolsmith-sdk/node` is built from these parts.",
	},
	{
		specifier: "toolsmith-sdk/render",
		source: "src/render/index.ts",
		about:
			"Runtime-neutral, for hosts and UIs that show tool calls, and renderers that measure text: drawing calls and results (with the fallbacks and pi's frame), the ANSI and plain themes, and terminal widths.",
	},
	{
		specifier: "toolsmith-sdk/providers",
		source: "src/providers/index.ts",
		about:
			"Runtime-neutral, for hosts that talk to a model: tools in each provider's wire format and what the provider changes, tool calls parsed from a provider's message, results in its format, tool-name checks, schema compilation, and the tools prompt.",
	},
];

/** What the reference says of exports whose declarations live outside this package. */
const FOREIGN: Readonly<Record<string, string>> = {
	Type: "TypeBox's schema builder, re-exported so a tool's parameters and toolsmith share one TypeBox.",
	Static: "TypeBox's type of the value a schema describes, re-exported with `Type`.",
	TSchema: "TypeBox's base schema type, re-exported with `Type`.",
	TObject: "TypeBox's object schema type, re-exported with `Type`.",
};

/** The headings exports are grouped under, by the folder that declares them. */
const AREAS: Readonly<Record<string, string>> = {
	contract: "Tool contract",
	env: "Execution env",
	exec: "Executor",
	extensions: "Extensions",
	prompt: "Prompt",
	providers: "Provider formats",
	render: "Rendering",
	tools: "Built-in tools",
	harness: "Harness",
	eval: "Evals",
	typebox: "TypeBox",
};

/** One export of one entry, as the reference lists it. */
export interface ApiExport {
	readonly name: string;
	readonly kind: "class" | "function" | "const" | "interface" | "type" | "enum";
	/** The first paragraph of its doc comment, or "" when it has none. */
	readonly summary: string;
	readonly deprecated: boolean;
	/** The area heading it is listed under. */
	readonly area: string;
	/** Where it is declared, relative to the project ("" for a re-export from another package). */
	readonly declaredIn: string;
}

function kindOf(symbol: ts.Symbol): ApiExport["kind"] {
	const flags = symbol.flags;
	if (flags & ts.SymbolFlags.Class) return "class";
	if (flags & ts.SymbolFlags.Function) return "function";
	if (flags & ts.SymbolFlags.Enum) return "enum";
	if (flags & ts.SymbolFlags.Variable) return "const";
	if (flags & ts.SymbolFlags.Interface) return "interface";
	return "type";
}

function firstParagraph(text: string): string {
	return (text.split(/\n\s*\n/)[0] ?? "").replace(/\s+/g, " ").trim();
}

/** Every export of every entry, read from the sources with the TypeScript checker. */
export function collectExports(): Map<string, ApiExport[]> {
	const program = ts.createProgram(
		ENTRIES.map((entry) => join(root, entry.source)),
		{
			module: ts.ModuleKind.NodeNext,
			moduleResolution: ts.ModuleResolutionKind.NodeNext,
			target: ts.ScriptTarget.ES2022,
			strict: true,
			noEmit: true,
			skipLibCheck: true,
		},
	);
	const checker = program.getTypeChecker();
	const result = new Map<string, ApiExport[]>();
	for (const entry of ENTRIES) {
		const file = program.getSourceFile(join(root, entry.source));
		const moduleSymbol = file && checker.getSymbolAtLocation(file);
		if (!moduleSymbol) throw new Error(`${entry.source}: not found or not a module`);
		const list: ApiExport[] = [];
		for (const exported of checker.getExportsOfModule(moduleSymbol)) {
			const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
			const declaration = target.declarations?.[0];
			const path = declaration ? relative(root, declaration.getSourceFile().fileName) : "";
			const foreign = path === "" || path.startsWith("node_modules");
			const docs = ts.displayPartsToString(target.getDocumentationComment(checker));
			const tags = target.getJsDocTags(checker);
			const folder = foreign ? "typebox" : (path.split("/")[1] ?? "");
			list.push({
				name: exported.name,
				kind: kindOf(target),
				summary: foreign ? (FOREIGN[exported.name] ?? "") : firstParagraph(docs),
				deprecated: tags.some((tag) => tag.name === "deprecated"),
				area: AREAS[folder.replace(/\.ts$/, "")] ?? folder,
				declaredIn: foreign ? "" : path,
			});
		}
		list.sort((a, b) => a.name.localeCompare(b.name, "en"));
		result.set(entry.specifier, list);
	}
	return result;
}

const cell = (text: string) => text.replaceAll("|", "\\|");

/** The text of docs/api.md for the given exports. */
export function renderReference(exports: Map<string, ApiExport[]>): string {
	const lines = [
		"# API reference",
		"",
		"Every export of every entry of `toolsmith-sdk`, with the first paragraph of its doc comment.",
		"The guides explain how the parts fit together: [tools](tools.md), [built-in tools](builtins.md),",
		"[env](env.md), [executor](executor.md), [extensions](extensions.md), [hot reload](hot-reload.md),",
		"[providers](providers.md), [testing](testing.md), [pi compatibility](pi-compat.md).",
		"",
		"This page is generated from the sources by `npm run docs:api`; a test fails when it is out of date,",
		"so an export cannot appear or disappear without this page changing with it.",
		"",
	];
	for (const entry of ENTRIES) {
		const list = exports.get(entry.specifier) ?? [];
		const values = list.filter((item) => ["class", "function", "const", "enum"].includes(item.kind)).length;
		lines.push(`## \`${entry.specifier}\``, "", entry.about, "");
		lines.push(`${list.length} exports: ${values} values, ${list.length - values} types.`, "");
		const areas = [...new Set(list.map((item) => item.area))].sort((a, b) => a.localeCompare(b, "en"));
		for (const area of areas) {
			if (areas.length > 1) lines.push(`### ${area}`, "");
			lines.push("| Export | Kind | What it is |", "| --- | --- | --- |");
			for (const item of list.filter((candidate) => candidate.area === area)) {
				const note = item.deprecated ? "**Deprecated.** " : "";
				lines.push(`| \`${item.name}\` | ${item.kind} | ${note}${cell(item.summary)} |`);
			}
			lines.push("");
		}
	}
	return `${lines.join("\n").trimEnd()}\n`;
}

export const REFERENCE_PATH = join(root, "docs", "api.md");

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
	const text = renderReference(collectExports());
	if (process.argv.includes("--check")) {
		if (readFileSync(REFERENCE_PATH, "utf8") !== text) {
			console.error("docs/api.md is out of date: run `npm run docs:api`.");
			process.exit(1);
		}
	} else {
		writeFileSync(REFERENCE_PATH, text);
		console.log(`wrote ${relative(process.cwd(), REFERENCE_PATH)}`);
	}
}
