/**
 * Layering: runtime-neutral code never reaches a `node:` module or a Node-only package, directly
 * or through the relative imports it follows. Then tools, the executor and the memory env run in
 * workers, browsers and edge runtimes, and the `toolsmith-sdk` entry stays importable there.
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
const NODE_ONLY_ENTRIES = new Set(["src/node.ts", "src/harness/index.ts", "src/harness/vitest.ts"]);

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
});
