/**
 * What the shipped declarations import, checked without a compiler run: a bundler that inlines a
 * dependency's types drags in the dependency's own relative imports (`'../schema/index.mjs'`),
 * which no consumer has. Every specifier must be a file inside `dist/`, a `node:` module, a declared
 * dependency, or a subpath that dependency exports.
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

interface PackageJson {
	readonly dependencies?: Record<string, string>;
	readonly peerDependencies?: Record<string, string>;
	readonly exports?: unknown;
}

/** Every module specifier and type reference a declaration file names (comments are not code). */
export function declarationSpecifiers(text: string): string[] {
	const info = ts.preProcessFile(text, true, true);
	return [
		...info.importedFiles.map((file) => file.fileName),
		...info.referencedFiles.map((file) => file.fileName),
		...info.typeReferenceDirectives.map((directive) => directive.fileName),
	];
}

/**
 * Problems with the imports of the `.d.ts` files under `dist/` of an installed package, one line
 * each; empty when all is well. Dependencies are looked up in `nodeModules` (the consumer's).
 */
export async function declarationImportProblems(packageDir: string, nodeModules: string): Promise<string[]> {
	const manifest = JSON.parse(await readFile(join(packageDir, "package.json"), "utf8")) as PackageJson;
	const declared = new Set([
		...Object.keys(manifest.dependencies ?? {}),
		...Object.keys(manifest.peerDependencies ?? {}),
	]);
	const dist = join(packageDir, "dist");
	const problems: string[] = [];
	const files = (await readdir(dist, { recursive: true })).filter((name) => name.endsWith(".d.ts"));
	if (files.length === 0) problems.push(`no declaration files in ${dist}`);
	for (const file of files) {
		const path = join(dist, file);
		for (const specifier of declarationSpecifiers(await readFile(path, "utf8"))) {
			const problem = await checkSpecifier(specifier, path, dist, declared, nodeModules);
			if (problem) problems.push(`${relative(packageDir, path)}: ${JSON.stringify(specifier)} ${problem}`);
		}
	}
	return problems;
}

async function checkSpecifier(
	specifier: string,
	from: string,
	dist: string,
	declared: ReadonlySet<string>,
	nodeModules: string,
): Promise<string | undefined> {
	if (specifier.startsWith("node:") || specifier === "node") return undefined;
	if (specifier.startsWith(".") || specifier.startsWith("/")) {
		const target = resolve(dirname(from), specifier);
		if (target !== dist && !target.startsWith(dist + sep)) return "points outside dist/";
		const declaration = target.replace(/\.(m|c)?js$/, ".d.$1ts");
		return existsSync(declaration) || existsSync(`${target}.d.ts`) ? undefined : "names no file in dist/";
	}
	const parts = specifier.split("/");
	const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
	if (!declared.has(name)) return "is not a dependency or peer dependency";
	if (name === specifier) return undefined;
	const subpath = `.${specifier.slice(name.length)}`;
	const dependency = join(nodeModules, name, "package.json");
	if (!existsSync(dependency)) return `is a subpath of ${name}, which is not installed to check it`;
	const { exports } = JSON.parse(await readFile(dependency, "utf8")) as PackageJson;
	const exported = typeof exports === "object" && exports !== null && subpath in exports;
	return exported ? undefined : `is a deep path: ${name} does not export ${subpath}`;
}
