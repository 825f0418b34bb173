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

/** Files (relative to the project) that must stay runtime-neutral, by path prefix. */
const NEUTRAL_PREFIXES = [
	"src/index.ts",
	"src/contract/",
	"src/env/index.ts",
	"src/env/types",
	"src/env/memory",
	"src/env/_memory",
	"src/env/_path",
	"src/env/_errors",
	"src/env/_byte-pool",
	"src/env/mutation-queue",
	"src/tools/",
	"src/exec/",
	"src/prompt/",
	"src/providers/",
	"src/render/",
	"src/extensions/registry",
	"src/extensions/api",
];

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

/** Walk relative imports from `roots`; report each Node-only import with the chain that reaches it. */
function findNodeImports(roots: readonly string[], shown: (file: string) => string): string[] {
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
				if (target) queue.push({ file: target, chain: [...chain, shown(target)] });
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
	const neutral = sourceFiles(join(projectRoot, "src")).filter((file) =>
		NEUTRAL_PREFIXES.some((prefix) => show(file).startsWith(prefix)),
	);

	it("covers the runtime-neutral entry and the memory env", () => {
		const names = neutral.map(show);
		expect(names).toContain("src/index.ts");
		expect(names).toContain("src/env/memory.ts");
		expect(names).toContain("src/contract/index.ts");
	});

	it("keeps runtime-neutral code free of node: modules and Node-only packages", () => {
		expect(findNodeImports(neutral, show)).toEqual([]);
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
			const found = findNodeImports([join(dir, "entry.ts"), join(dir, "d.ts")], (file) => relative(dir, file));
			expect(found).toEqual([
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
