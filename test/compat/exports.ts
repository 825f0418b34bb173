/**
 * npm run compat:exports: the value exports of the reference's public modules, read from the
 * releases `npm run compat:setup` installed (each entry point imported under the Node its release
 * needs, in a child process, and its `Object.keys` listed with the kind of each value), written as
 * data to test/compat/exports/<package>@<version>.json. Then, from those files alone, the union per
 * compatibility module is written to src/extensions/node-compat/_reference-<module>.ts (one file per
 * module) and gathered in _reference-names.ts, which the compatibility modules use to stub every name
 * they do not implement.
 *
 *   npm run compat:exports              read the releases, write the lists and the names module
 *   npm run compat:exports -- --names   only rewrite the names module from the committed lists
 *
 * test/unit/extensions/pi-compat-surface.test.ts checks the compatibility modules against the
 * committed lists, without the cache.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findRelease, nodeFor, type Release } from "./_reference.js";

const here = dirname(fileURLToPath(import.meta.url));
export const exportsDir = join(here, "exports");
const namesModule = join(here, "..", "..", "src", "extensions", "node-compat", "_reference-names.ts");

/** The releases whose surfaces toolsmith covers, one of each line. */
const RELEASES: readonly { scope: Release["scope"]; version: string }[] = [
	{ scope: "@mariozechner", version: "0.73.1" },
	{ scope: "@earendil-works", version: "1.6.0" },
];

/** Public entry points read per release: package (without scope, or a bare name) → subpaths. */
const ENTRIES: readonly { pkg: string; scoped: boolean; subpaths: readonly string[] }[] = [
	{ pkg: "pi-coding-agent", scoped: true, subpaths: ["."] },
	{ pkg: "pi-ai", scoped: true, subpaths: [".", "./compat"] },
	{ pkg: "pi-tui", scoped: true, subpaths: ["."] },
	{ pkg: "pi-agent-core", scoped: true, subpaths: ["."] },
	{ pkg: "typebox", scoped: false, subpaths: [".", "./compile", "./value"] },
];

/** Kind of one exported value: what a stub must be to stand in for it. */
export type ExportKind = "class" | "function" | "object" | "string" | "number" | "boolean" | "undefined" | "symbol";

/** One committed list: a package of one release, its entry points and their value exports. */
export interface ExportList {
	readonly package: string;
	readonly version: string;
	/** The reference release (pi-coding-agent) whose node_modules it was read from. */
	readonly release: string;
	/** Subpath → exported name → kind. */
	readonly entries: Readonly<Record<string, Readonly<Record<string, ExportKind>>>>;
	/** Subpath → name → value, for exports that are strings, numbers or booleans. */
	readonly constants: Readonly<Record<string, Readonly<Record<string, string | number | boolean>>>>;
}

/** The child's script: imports each specifier of argv, prints `{ specifier: { name: [kind, value?] } }`. */
const LISTER = `
const out = {};
for (const specifier of process.argv.slice(1)) {
	let module;
	try { module = await import(specifier); } catch (error) { out[specifier] = { error: String(error) }; continue; }
	const names = {};
	for (const name of Object.keys(module).sort()) {
		const value = module[name];
		const kind = typeof value === "function"
			? (/^class\\b/.test(Function.prototype.toString.call(value)) ? "class" : "function")
			: value === null ? "object" : typeof value;
		names[name] = kind === "string" || kind === "number" || kind === "boolean" ? [kind, value] : [kind];
	}
	out[specifier] = { names };
}
console.log(JSON.stringify(out));
`;

function specifierOf(scope: string, entry: (typeof ENTRIES)[number], subpath: string): string {
	const base = entry.scoped ? `${scope}/${entry.pkg}` : entry.pkg;
	return subpath === "." ? base : `${base}/${subpath.slice(2)}`;
}

/** Read one release's entry points in a child process working in its node_modules. */
function readRelease(release: Release): ExportList[] {
	const modules = dirname(dirname(release.dir));
	const specifiers = ENTRIES.flatMap((entry) => entry.subpaths.map((sub) => specifierOf(release.scope, entry, sub)));
	const child = spawnSync(nodeFor(release), ["--input-type=module", "-e", LISTER, ...specifiers], {
		cwd: modules,
		encoding: "utf8",
		maxBuffer: 64 * 1024 * 1024,
	});
	if (child.status !== 0) throw new Error(`reading ${release.scope} ${release.version} failed: ${child.stderr}`);
	const read = JSON.parse(child.stdout) as Record<
		string,
		{ names?: Record<string, [ExportKind, unknown?]>; error?: string }
	>;
	const lists: ExportList[] = [];
	for (const entry of ENTRIES) {
		const name = entry.scoped ? `${release.scope}/${entry.pkg}` : entry.pkg;
		const manifest = JSON.parse(readFileSync(join(modules, name, "package.json"), "utf8")) as { version: string };
		const entries: Record<string, Record<string, ExportKind>> = {};
		const constants: Record<string, Record<string, string | number | boolean>> = {};
		for (const sub of entry.subpaths) {
			const result = read[specifierOf(release.scope, entry, sub)];
			if (!result?.names) {
				if (sub === ".") throw new Error(`${name}: ${result?.error ?? "not read"}`);
				continue; // an entry point this release does not have (pi-ai/compat before 1.x)
			}
			entries[sub] = {};
			for (const [key, [kind, value]] of Object.entries(result.names)) {
				(entries[sub] as Record<string, ExportKind>)[key] = kind;
				if (value !== undefined) {
					constants[sub] ??= {};
					(constants[sub] as Record<string, string | number | boolean>)[key] = value as string | number | boolean;
				}
			}
		}
		lists.push({
			package: name,
			version: manifest.version,
			release: `${release.scope}/pi-coding-agent@${release.version}`,
			entries,
			constants,
		});
	}
	return lists;
}

/** The committed lists, as files in test/compat/exports/. */
export function committedLists(): ExportList[] {
	return readdirSync(exportsDir)
		.filter((file) => file.endsWith(".json"))
		.sort()
		.map((file) => JSON.parse(readFileSync(join(exportsDir, file), "utf8")) as ExportList);
}

/** The compatibility module (its key in the names module) a package's entry point maps to. */
export function compatModuleOf(pkg: string, subpath: string): string {
	const bare = pkg.replace(/^@[^/]+\//, "");
	if (bare === "typebox") return subpath === "." ? "typebox" : `typebox/${subpath.slice(2)}`;
	return bare; // pi-ai's root and /compat are one module
}

/** The file of one compatibility module's names, beside the names module (`pi-ai` → `_reference-pi-ai.ts`). */
function moduleFileOf(key: string): string {
	return `_reference-${key.replace(/\//g, "-")}`;
}

/** The identifier a module's names are imported under in the names module (`typebox/value` → `typeboxValue`). */
function identifierOf(key: string): string {
	return key.replace(/[-/]([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/** Write `text` to `file` formatted as `npm run check` wants it, so regenerating changes nothing. */
function writeFormatted(file: string, text: string): void {
	writeFileSync(file, text);
	const biome = join(here, "..", "..", "node_modules", ".bin", "biome");
	const formatted = spawnSync(biome, ["format", "--write", file], { encoding: "utf8" });
	if (formatted.status !== 0) throw new Error(`biome format failed: ${formatted.stderr}`);
	console.log(`wrote ${file}`);
}

/**
 * The names module and, beside it, one file per compatibility module with its names (one file for
 * all would be far over the line limit of a source file).
 */
function writeNamesModule(lists: readonly ExportList[]): void {
	const kinds = new Map<string, Map<string, ExportKind>>();
	const constants = new Map<string, Map<string, string | number | boolean>>();
	// Oldest first, so where releases disagree the newer one's kind and value win.
	const ordered = [...lists].sort(
		(a, b) => (a.release.startsWith("@mariozechner") ? -1 : 0) - (b.release.startsWith("@mariozechner") ? -1 : 0),
	);
	for (const list of ordered) {
		for (const [sub, names] of Object.entries(list.entries)) {
			const key = compatModuleOf(list.package, sub);
			const byName = kinds.get(key) ?? new Map<string, ExportKind>();
			kinds.set(key, byName);
			for (const [name, kind] of Object.entries(names)) byName.set(name, kind);
			for (const [name, value] of Object.entries(list.constants[sub] ?? {})) {
				const values = constants.get(key) ?? new Map<string, string | number | boolean>();
				constants.set(key, values);
				values.set(name, value);
			}
		}
	}
	const sorted = [...kinds.keys()].sort();
	const byName = <T>(entries: Iterable<[string, T]>): [string, T][] =>
		[...entries].sort((a, b) => (a[0] < b[0] ? -1 : 1));
	const folder = dirname(namesModule);
	for (const key of sorted) {
		const lines = [
			"/**",
			` * Generated by \`npm run compat:exports\` from test/compat/exports/*.json: do not edit. The value`,
			` * exports of the reference's \`${key}\` (pi 0.73.1 and 1.6.0) with the kind of value each is, and`,
			" * the values of its string, number and boolean constants. Read through `_reference-names.ts`.",
			" */",
			"",
			// No import of `ReferenceKind`: the names module types these when it gathers them, so the
			// per-module files import nothing and no import runs back to the names module.
			"export const EXPORTS = {",
			...byName(kinds.get(key) ?? []).map(([name, kind]) => `\t${JSON.stringify(name)}: ${JSON.stringify(kind)},`),
			"} as const;",
		];
		const values = constants.get(key);
		if (values) {
			lines.push(
				"",
				"export const CONSTANTS: Readonly<Record<string, string | number | boolean>> = {",
				...byName(values).map(([name, value]) => `\t${JSON.stringify(name)}: ${JSON.stringify(value)},`),
				"};",
			);
		}
		writeFormatted(join(folder, `${moduleFileOf(key)}.ts`), `${lines.join("\n")}\n`);
	}
	const lines = [
		"/**",
		" * Generated by `npm run compat:exports` from test/compat/exports/*.json: do not edit. Every value",
		" * export of the reference's public modules (pi 0.73.1 and 1.6.0), by compatibility module, with",
		" * the kind of value it is; strings, numbers and booleans with their value. The compatibility",
		" * modules stub each name they do not implement from this list. Each module's names are in a file",
		" * of their own beside this one (`_reference-<module>.ts`).",
		" */",
		...sorted.map((key) => `import * as ${identifierOf(key)} from "./${moduleFileOf(key)}.js";`),
		"",
		'export type ReferenceKind = "class" | "function" | "object" | "string" | "number" | "boolean" | "undefined" | "symbol";',
		"",
		"export const REFERENCE_EXPORTS: Readonly<Record<string, Readonly<Record<string, ReferenceKind>>>> = {",
		...sorted.map((key) => `\t${JSON.stringify(key)}: ${identifierOf(key)}.EXPORTS,`),
		"};",
		"",
		"export const REFERENCE_CONSTANTS: Readonly<Record<string, Readonly<Record<string, string | number | boolean>>>> = {",
		...sorted
			.filter((key) => constants.has(key))
			.map((key) => `\t${JSON.stringify(key)}: ${identifierOf(key)}.CONSTANTS,`),
		"};",
	];
	writeFormatted(namesModule, `${lines.join("\n")}\n`);
}

async function main(): Promise<void> {
	if (!process.argv.includes("--names")) {
		mkdirSync(exportsDir, { recursive: true });
		for (const { scope, version } of RELEASES) {
			const release = findRelease(scope, version);
			if (!release) throw new Error(`${scope}/pi-coding-agent@${version} is not installed: run npm run compat:setup`);
			for (const list of readRelease(release)) {
				const file = join(exportsDir, `${list.package.replace("/", "+")}@${list.version}.json`);
				writeFileSync(file, `${JSON.stringify(list, null, "\t")}\n`);
				const count = Object.entries(list.entries)
					.map(([sub, names]) => `${sub} ${Object.keys(names).length}`)
					.join(", ");
				console.log(`${list.package}@${list.version} (${release.scope} ${version}): ${count}`);
			}
		}
	}
	writeNamesModule(committedLists());
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
