/**
 * Layering, two rules in one test.
 *
 * 1. Runtime-neutral code never reaches a `node:` module or a Node-only package, directly or
 *    through the relative imports it follows. Then tools, the executor and the memory env run in
 *    workers, browsers and edge runtimes, and the `toolsmith-sdk` entry stays importable there.
 * 2. The rooms (docs/architecture.md, "Rooms and the import rule"): the top-level folders of `src/`
 *    stand in layers and a lower one never imports a higher one; folders on one layer do not import
 *    each other (one named exception); entries import anything and nothing imports an entry; a
 *    `_x.ts` file is private to its folder; no two modules import each other in a circle (runtime
 *    imports; type-only imports are erased and may circle); no folder circle; no source file over
 *    700 lines.
 */
import { existsSync, promises as fs, readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * The one convention marking Node-only modules: a file or folder under `src/` whose name starts with
 * `node` (`node.ts`, `node-host.ts`, `_node-jiti.ts`, `node-compat/`), the `toolsmith` bin in
 * `src/cli/`, and the entries of the Node-only package exports. Everything else is runtime-neutral.
 */
const NODE_ONLY_ENTRIES = new Set([
	"src/node.ts",
	"src/harness/index.ts",
	"src/harness/vitest.ts",
	"src/eval/index.ts",
]);

/** Whether a project-relative source path is Node-only by the convention above. */
function isNodeOnlyModule(path: string): boolean {
	if (NODE_ONLY_ENTRIES.has(path) || path.startsWith("src/cli/")) return true;
	return path
		.split("/")
		.slice(1)
		.some((segment) => /^_?node(?:[-.]|$)/.test(segment));
}

/** Packages that only work on Node (beyond the built-in modules). */
const NODE_ONLY_PACKAGES = new Set(["jiti", "chokidar", "fsevents", "esbuild", "tsx", "vitest", "tsup"]);
const BUILTINS = new Set(builtinModules);

/** Whether an import specifier names something that needs Node. */
function isNodeOnlySpecifier(specifier: string): boolean {
	if (specifier.startsWith("node:")) return true;
	if (specifier.startsWith(".") || specifier.startsWith("/")) return false;
	const parts = specifier.split("/");
	const pkg = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
	return BUILTINS.has(pkg) || BUILTINS.has(specifier) || NODE_ONLY_PACKAGES.has(pkg);
}

/** Every module specifier a source file imports, re-exports, requires or imports dynamically. */
function specifiersOf(file: string): string[] {
	const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
	return info.importedFiles.map((entry) => entry.fileName);
}

/** The source file a relative specifier points at (`./x.js` → `x.ts`), if it exists. */
function resolveRelative(from: string, specifier: string): string | undefined {
	const base = resolve(dirname(from), specifier);
	const stem = base.replace(/\.(m|c)?js$/, "");
	for (const candidate of [base, `${stem}.ts`, `${stem}.mts`, `${stem}.tsx`, join(base, "index.ts")]) {
		if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
	}
	return undefined;
}

/**
 * Walk relative imports from `roots`; report each Node-only import (a package, or a module that is
 * Node-only by name) with the chain that reaches it.
 */
function findNodeImports(
	roots: readonly string[],
	shown: (file: string) => string,
	nodeOnlyModule: (file: string) => boolean = () => false,
): string[] {
	const problems: string[] = [];
	const seen = new Set<string>();
	const queue = roots.map((file) => ({ file, chain: [shown(file)] }));
	while (queue.length > 0) {
		const { file, chain } = queue.shift()!;
		if (seen.has(file)) continue;
		seen.add(file);
		for (const specifier of specifiersOf(file)) {
			if (isNodeOnlySpecifier(specifier)) {
				problems.push(`${chain.join(" → ")} imports "${specifier}"`);
			} else if (specifier.startsWith(".")) {
				const target = resolveRelative(file, specifier);
				if (target && nodeOnlyModule(target)) problems.push(`${chain.join(" → ")} imports "${specifier}" (Node-only)`);
				else if (target) queue.push({ file: target, chain: [...chain, shown(target)] });
			}
		}
	}
	return problems;
}

function sourceFiles(folder: string): string[] {
	const out: string[] = [];
	for (const entry of readdirSync(folder, { withFileTypes: true })) {
		const path = join(folder, entry.name);
		if (entry.isDirectory()) out.push(...sourceFiles(path));
		else if (/\.(m|c)?tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(path);
	}
	return out;
}

/**
 * The rooms of the import rule, lowest layer first (docs/architecture.md, "Rooms and the import
 * rule"). A folder may import its own files and the folders of lower layers, never a higher one.
 */
const LAYERS: readonly (readonly string[])[] = [
	["shared"],
	["contract"],
	["env", "exec", "render", "prompt"],
	["tools", "providers", "command"],
	["extensions"],
	["harness", "mcp"],
	["eval"],
	["inspector"],
	["cli", "create-tool"],
];

/** Folders on one layer do not import each other, except these (`from → to`). */
const SAME_LAYER_ALLOWED = new Set(["cli → create-tool"]);

/**
 * The entries (package exports and bins): they may import anything (each other and themselves
 * included), and nothing in a room imports them.
 */
const ENTRIES = new Set([
	"src/index.ts",
	"src/node.ts",
	"src/runtime.ts",
	"src/render/index.ts",
	"src/providers/index.ts",
	"src/harness/index.ts",
	"src/harness/vitest.ts",
	"src/eval/index.ts",
	"src/cli/main.ts",
	"create-tool/src/index.ts",
]);

/** The most lines a source file may have (generated files included: their generator splits them). */
const MAX_LINES = 700;

/** One import between two source files, as project-relative paths. */
interface ImportEdge {
	readonly from: string;
	readonly to: string;
	/** `import type` / `export type` / `import("x").T`: erased when compiled. */
	readonly typeOnly: boolean;
}

/** The room (top-level folder) of a project-relative source path; undefined for a file directly in `src/`. */
function roomOf(path: string): string | undefined {
	if (path.startsWith("create-tool/src/")) return "create-tool";
	const parts = path.split("/");
	return parts[0] === "src" && parts.length > 2 ? parts[1] : undefined;
}

/** The layer of a room (0 = lowest), or -1 when the room is in no layer. */
function layerOf(room: string): number {
	return LAYERS.findIndex((layer) => layer.includes(room));
}

/** Every import that breaks the folder order, the same-layer rule, the entries rule or `_` privacy. */
function importRuleProblems(edges: readonly ImportEdge[], entries: ReadonlySet<string> = ENTRIES): string[] {
	const problems: string[] = [];
	for (const { from, to } of edges) {
		if (entries.has(to) && !entries.has(from)) problems.push(`${from} imports the entry ${to}`);
		const name = to.slice(to.lastIndexOf("/") + 1);
		const home = to.slice(0, to.lastIndexOf("/") + 1);
		if (name.startsWith("_") && !from.startsWith(home)) problems.push(`${from} imports ${to}, private to ${home}`);
		if (entries.has(from)) continue;
		const fromRoom = roomOf(from);
		const toRoom = roomOf(to);
		if (fromRoom === undefined || toRoom === undefined) {
			if (!entries.has(to)) problems.push(`${from} imports ${to}: outside the rooms`);
			continue;
		}
		if (fromRoom === toRoom) continue;
		const fromLayer = layerOf(fromRoom);
		const toLayer = layerOf(toRoom);
		if (fromLayer < 0 || toLayer < 0) {
			problems.push(`${from} imports ${to}: ${fromLayer < 0 ? fromRoom : toRoom} is in no layer`);
		} else if (toLayer > fromLayer) {
			problems.push(`${from} imports ${to}: ${fromRoom} is below ${toRoom}`);
		} else if (toLayer === fromLayer && !SAME_LAYER_ALLOWED.has(`${fromRoom} → ${toRoom}`)) {
			problems.push(`${from} imports ${to}: ${fromRoom} and ${toRoom} share a layer`);
		}
	}
	return problems;
}

/**
 * The circles of a directed graph, one per strongly connected component with more than one node
 * (or a node that reaches itself), each shown as a path `a → b → … → a` through the component.
 */
function circles(nodes: Iterable<string>, next: (node: string) => readonly string[]): string[] {
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const components: string[][] = [];
	const connect = (node: string): void => {
		index.set(node, index.size);
		low.set(node, index.get(node)!);
		stack.push(node);
		onStack.add(node);
		for (const target of next(node)) {
			if (!index.has(target)) {
				connect(target);
				low.set(node, Math.min(low.get(node)!, low.get(target)!));
			} else if (onStack.has(target)) {
				low.set(node, Math.min(low.get(node)!, index.get(target)!));
			}
		}
		if (low.get(node) === index.get(node)) {
			const component: string[] = [];
			let member: string;
			do {
				member = stack.pop()!;
				onStack.delete(member);
				component.push(member);
			} while (member !== node);
			if (component.length > 1 || next(node).includes(node)) components.push(component.sort());
		}
	};
	for (const node of [...nodes].sort()) if (!index.has(node)) connect(node);
	return components.map((component) => {
		// The shortest way from the component's first node back to itself, within the component.
		const inside = new Set(component);
		const start = component[0]!;
		const cameFrom = new Map<string, string>();
		const queue = [start];
		for (let i = 0; i < queue.length; i++) {
			const node = queue[i]!;
			for (const target of next(node)) {
				if (!inside.has(target) || cameFrom.has(target)) continue;
				cameFrom.set(target, node);
				if (target === start) {
					const path: string[] = [];
					for (let at = node; at !== start; at = cameFrom.get(at)!) path.unshift(at);
					return [start, ...path, start].join(" → ");
				}
				queue.push(target);
			}
		}
		return component.join(" → ");
	});
}

/**
 * Circles between modules, over runtime imports, dynamic ones included (type-only imports are erased
 * and may circle). An entry importing itself (the Node entry hands its own namespace to the
 * extensions it loads) is one module, not a circle.
 */
function moduleCircles(edges: readonly ImportEdge[], entries: ReadonlySet<string> = ENTRIES): string[] {
	const next = new Map<string, string[]>();
	for (const { from, to, typeOnly } of edges) {
		if (typeOnly || (from === to && entries.has(from))) continue;
		next.set(from, [...(next.get(from) ?? []), to]);
	}
	return circles(next.keys(), (node) => next.get(node) ?? []);
}

/** Circles between rooms, over every import (type-only ones included); entries are left out. */
function folderCircles(edges: readonly ImportEdge[], entries: ReadonlySet<string> = ENTRIES): string[] {
	const next = new Map<string, Set<string>>();
	for (const { from, to } of edges) {
		if (entries.has(from) || entries.has(to)) continue;
		const fromRoom = roomOf(from);
		const toRoom = roomOf(to);
		if (fromRoom === undefined || toRoom === undefined || fromRoom === toRoom) continue;
		next.set(fromRoom, (next.get(fromRoom) ?? new Set()).add(toRoom));
	}
	return circles(next.keys(), (room) => [...(next.get(room) ?? [])]);
}

/** The relative imports of one source file's text, each marked type-only or not. */
function importsOf(text: string): { specifier: string; typeOnly: boolean }[] {
	const source = ts.createSourceFile("file.ts", text, ts.ScriptTarget.Latest, false);
	const found: { specifier: string; typeOnly: boolean }[] = [];
	const visit = (node: ts.Node): void => {
		if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
			found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.importClause?.isTypeOnly ?? false });
		} else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
			found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
		} else if (
			ts.isCallExpression(node) &&
			node.expression.kind === ts.SyntaxKind.ImportKeyword &&
			node.arguments[0] !== undefined &&
			ts.isStringLiteralLike(node.arguments[0])
		) {
			found.push({ specifier: node.arguments[0].text, typeOnly: false });
		} else if (
			ts.isImportTypeNode(node) &&
			ts.isLiteralTypeNode(node.argument) &&
			ts.isStringLiteral(node.argument.literal)
		) {
			found.push({ specifier: node.argument.literal.text, typeOnly: true });
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found.filter((entry) => entry.specifier.startsWith("."));
}

/** The import edges among `files` (absolute paths), shown relative to `root`. */
function importEdges(files: readonly string[], root: string): ImportEdge[] {
	const edges: ImportEdge[] = [];
	for (const file of files) {
		for (const { specifier, typeOnly } of importsOf(readFileSync(file, "utf8"))) {
			const target = resolveRelative(file, specifier);
			if (target) edges.push({ from: relative(root, file), to: relative(root, target), typeOnly });
		}
	}
	return edges;
}

/** Lines of a text as `wc -l` counts them. */
function lineCount(text: string): number {
	return text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

describe("layering", () => {
	const show = (file: string) => relative(projectRoot, file);
	const all = sourceFiles(join(projectRoot, "src"));
	const neutral = all.filter((file) => !isNodeOnlyModule(show(file)));

	it("covers the runtime-neutral entry, the memory env and the neutral parts of every folder", () => {
		const names = neutral.map(show);
		for (const name of ["src/index.ts", "src/runtime.ts", "src/env/memory.ts", "src/harness/replay.ts"]) {
			expect(names).toContain(name);
		}
		for (const name of ["src/env/node.ts", "src/extensions/node-host.ts", "src/harness/node-harness.ts"]) {
			expect(names).not.toContain(name);
		}
		expect(neutral.length).toBeGreaterThan(all.length / 2);
	});

	it("keeps every module not named Node-only free of node: modules, Node-only packages and Node-only modules", () => {
		expect(findNodeImports(neutral, show, (file) => isNodeOnlyModule(show(file)))).toEqual([]);
	});

	it("marks Node-only modules by name: node.ts, node-*, _node-*, node-*/ folders, the bin and the Node entries", () => {
		expect(isNodeOnlyModule("src/env/node.ts")).toBe(true);
		expect(isNodeOnlyModule("src/env/_node-process.ts")).toBe(true);
		expect(isNodeOnlyModule("src/extensions/node-compat/pi-ai.ts")).toBe(true);
		expect(isNodeOnlyModule("src/cli/_args.ts")).toBe(true);
		expect(isNodeOnlyModule("src/harness/vitest.ts")).toBe(true);
		expect(isNodeOnlyModule("src/harness/replay.ts")).toBe(false);
		expect(isNodeOnlyModule("src/tools/_normalize-node.ts")).toBe(false);
		expect(isNodeOnlyModule("src/nodes/x.ts")).toBe(false);
	});

	it("detects a Node import reached through relative imports, in every import form", async () => {
		const dir = await fs.mkdtemp(join(tmpdir(), "toolsmith-layering-"));
		try {
			await fs.writeFile(join(dir, "entry.ts"), 'export { b } from "./b.js";\nimport type { C } from "./c.js";\n');
			await fs.writeFile(
				join(dir, "b.ts"),
				'import { readFile } from "node:fs/promises";\nexport const b = readFile;\n',
			);
			await fs.writeFile(
				join(dir, "c.ts"),
				'export type C = 1;\nconst p = () => import("child_process");\nimport "jiti";\nimport x from "path";\nexport { p, x };\n',
			);
			await fs.writeFile(join(dir, "d.ts"), 'import { Type } from "@sinclair/typebox";\nexport const d = Type;\n');
			await fs.writeFile(join(dir, "e.ts"), 'import { n } from "./node-n.js";\nexport const e = n;\n');
			await fs.writeFile(join(dir, "node-n.ts"), "export const n = 1;\n");
			const found = findNodeImports(
				[join(dir, "entry.ts"), join(dir, "d.ts"), join(dir, "e.ts")],
				(file) => relative(dir, file),
				(file) => relative(dir, file).startsWith("node-"),
			);
			expect(found).toEqual([
				'e.ts imports "./node-n.js" (Node-only)',
				'entry.ts → b.ts imports "node:fs/promises"',
				'entry.ts → c.ts imports "child_process"',
				'entry.ts → c.ts imports "jiti"',
				'entry.ts → c.ts imports "path"',
			]);
		} finally {
			await fs.rm(dir, { recursive: true, force: true });
		}
	});

	describe("rooms", () => {
		const files = [...all, ...sourceFiles(join(projectRoot, "create-tool", "src"))];
		const edges = importEdges(files, projectRoot);

		it("puts every folder of src/ in one layer, and only entries directly in src/", () => {
			const rooms = readdirSync(join(projectRoot, "src"), { withFileTypes: true });
			for (const entry of rooms) {
				if (entry.isDirectory()) expect(layerOf(entry.name), entry.name).toBeGreaterThanOrEqual(0);
				else if (/\.tsx?$/.test(entry.name)) expect(ENTRIES, entry.name).toContain(`src/${entry.name}`);
			}
			for (const entry of ENTRIES) expect(existsSync(join(projectRoot, entry)), entry).toBe(true);
			expect(edges.length).toBeGreaterThan(files.length);
		});

		it("imports only down the layers, never an entry, never another folder's `_` file", () => {
			expect(importRuleProblems(edges)).toEqual([]);
		});

		it("has no circle between modules and none between rooms", () => {
			expect(moduleCircles(edges)).toEqual([]);
			expect(folderCircles(edges)).toEqual([]);
		});

		it(`keeps every source file within ${MAX_LINES} lines`, () => {
			const long = files
				.map((file) => ({ path: show(file), lines: lineCount(readFileSync(file, "utf8")) }))
				.filter(({ lines }) => lines > MAX_LINES)
				.map(({ path, lines }) => `${path}: ${lines} lines`);
			expect(long).toEqual([]);
		});

		it("finds a planted import against the order, across a layer, of an entry and of a `_` file", () => {
			const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({ from, to, typeOnly });
			expect(
				importRuleProblems([
					edge("src/contract/tool.ts", "src/env/types.ts", true),
					edge("src/tools/read.ts", "src/providers/names.ts"),
					edge("src/extensions/api.ts", "src/index.ts"),
					edge("src/cli/_inspect.ts", "src/mcp/_loopback.ts"),
					edge("create-tool/src/create.ts", "src/cli/_program.ts"),
					edge("src/cli/_new.ts", "create-tool/src/generator.ts"),
					edge("src/env/node-x/a.ts", "src/env/_b.ts"),
					edge("src/env/a.ts", "src/env/node-x/_b.ts"),
					edge("src/node.ts", "src/env/node.ts"),
					edge("src/node.ts", "src/index.ts"),
					edge("src/cli/main.ts", "src/node.ts"),
					edge("src/tools/read.ts", "src/contract/tool.ts"),
					edge("src/weird/a.ts", "src/shared/listeners.ts"),
				]),
			).toEqual([
				"src/contract/tool.ts imports src/env/types.ts: contract is below env",
				"src/tools/read.ts imports src/providers/names.ts: tools and providers share a layer",
				"src/extensions/api.ts imports the entry src/index.ts",
				"src/cli/_inspect.ts imports src/mcp/_loopback.ts, private to src/mcp/",
				"create-tool/src/create.ts imports src/cli/_program.ts, private to src/cli/",
				"create-tool/src/create.ts imports src/cli/_program.ts: create-tool and cli share a layer",
				"src/env/a.ts imports src/env/node-x/_b.ts, private to src/env/node-x/",
				"src/weird/a.ts imports src/shared/listeners.ts: weird is in no layer",
			]);
		});

		it("finds a planted circle between modules (runtime imports) and between rooms (every import)", () => {
			const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({ from, to, typeOnly });
			const edges = [
				edge("src/extensions/node-loader.ts", "src/extensions/node-host.ts"),
				edge("src/extensions/node-host.ts", "src/mcp/node-server.ts"),
				edge("src/mcp/node-server.ts", "src/extensions/node-loader.ts"),
				edge("src/mcp/node-server.ts", "src/mcp/tools.ts"),
				edge("src/exec/a.ts", "src/exec/b.ts"),
				edge("src/exec/b.ts", "src/exec/a.ts", true),
				edge("src/shared/self.ts", "src/shared/self.ts"),
				edge("src/cli/_new.ts", "create-tool/src/generator.ts"),
				edge("create-tool/src/create.ts", "src/cli/_args.ts", true),
				edge("src/node.ts", "src/mcp/tools.ts"),
				edge("src/mcp/tools.ts", "src/node.ts", true),
				edge("src/node.ts", "src/node.ts"),
				edge("src/runtime.ts", "src/extensions/registry.ts"),
				edge("src/extensions/registry.ts", "src/runtime.ts"),
			];
			expect(moduleCircles(edges)).toEqual([
				"src/extensions/node-host.ts → src/mcp/node-server.ts → src/extensions/node-loader.ts → src/extensions/node-host.ts",
				"src/extensions/registry.ts → src/runtime.ts → src/extensions/registry.ts",
				"src/shared/self.ts → src/shared/self.ts",
			]);
			expect(folderCircles(edges)).toEqual(["cli → create-tool → cli", "extensions → mcp → extensions"]);
		});

		it("counts lines as wc -l does", () => {
			expect(lineCount("")).toBe(0);
			expect(lineCount("a\n")).toBe(1);
			expect(lineCount("a\nb")).toBe(2);
		});

		it("reads every relative import form, marking the type-only ones", () => {
			const text = [
				'import { a } from "./a.js";',
				'import type { B } from "./b.js";',
				'export { c } from "./c.js";',
				'export type { D } from "./d.js";',
				'import "./e.js";',
				'const f = () => import("./f.js");',
				'type G = import("./g.js").G;',
				'import { type H } from "./h.js";',
				'import { readFile } from "node:fs";',
			].join("\n");
			expect(importsOf(text)).toEqual([
				{ specifier: "./a.js", typeOnly: false },
				{ specifier: "./b.js", typeOnly: true },
				{ specifier: "./c.js", typeOnly: false },
				{ specifier: "./d.js", typeOnly: true },
				{ specifier: "./e.js", typeOnly: false },
				{ specifier: "./f.js", typeOnly: false },
				{ specifier: "./g.js", typeOnly: true },
				{ specifier: "./h.js", typeOnly: false },
			]);
		});
	});
});
