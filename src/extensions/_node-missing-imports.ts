/**
 * Named imports an extension takes from a compatibility module that does not implement them (Node
 * only: reads the extension's files). The compatibility modules give every reference export, and
 * the ones toolsmith does not implement are stubs that do nothing (marked with the registry symbol
 * `toolsmith.compat-stub`); a name the module lacks altogether would be `undefined`. Either way the
 * extension may fail or do less only when it runs, far from the cause; so each becomes a
 * `W_UNSUPPORTED_API` warning naming the member, the module and the file when the extension loads.
 * Static `import { … } from` and `export { … } from` statements are read; type-only imports are
 * skipped (TypeScript erases them).
 */
import { readFileSync } from "node:fs";
import type { ExtensionDiagnostic } from "./api.js";

const STUB = Symbol.for("toolsmith.compat-stub");

/** Whether a compatibility module lacks `name` or only stubs it. */
function unimplemented(module: Record<string, unknown>, name: string): "missing" | "stub" | undefined {
	if (!(name in module)) return "missing";
	const value = module[name];
	const marked =
		(typeof value === "function" || (typeof value === "object" && value !== null)) &&
		(value as { [STUB]?: unknown })[STUB] === true;
	return marked ? "stub" : undefined;
}

const STATEMENT = /\b(import|export)\s+(type\s+)?(?:[\w$]+\s*,\s*)?\{([^}]*)\}\s*from\s*(["'])([^"']+)\4/g;

/** The members named in one `{ … }` list that are values (not `type X`), by their exported names. */
function namedMembers(list: string): string[] {
	const names: string[] = [];
	for (const raw of list.split(",")) {
		const item = raw.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "").trim();
		if (item === "" || item.startsWith("type ")) continue;
		const name = item.split(/\s+as\s+/)[0]?.trim();
		if (name && name !== "default" && /^[\w$]+$/.test(name)) names.push(name);
	}
	return names;
}

/**
 * The warnings for the files of one extension (`entry` first): a value named in an import from a
 * key of `modules` that the module lacks.
 */
export function missingImports(
	entry: string,
	files: readonly string[],
	modules: Readonly<Record<string, unknown>>,
): ExtensionDiagnostic[] {
	const out: ExtensionDiagnostic[] = [];
	const seen = new Set<string>();
	for (const file of files) {
		let source: string;
		try {
			source = readFileSync(file, "utf8");
		} catch {
			continue;
		}
		for (const match of source.matchAll(STATEMENT)) {
			const [, , typeOnly, list, , specifier] = match;
			if (typeOnly || specifier === undefined || !Object.hasOwn(modules, specifier)) continue;
			const module = modules[specifier] as Record<string, unknown>;
			for (const name of namedMembers(list ?? "")) {
				const lack = unimplemented(module, name);
				if (lack === undefined) continue;
				const key = `${file}\0${specifier}\0${name}`;
				if (seen.has(key)) continue;
				seen.add(key);
				const by = file === entry ? "" : ` (a module of the extension ${entry})`;
				out.push({
					severity: "warning",
					code: "W_UNSUPPORTED_API",
					message:
						lack === "stub"
							? `${file}${by} imports \`${name}\` from ${specifier}, which toolsmith's compatibility module only stubs: it does nothing there (each use reports W_UNSUPPORTED_API), so code that relies on it does less or fails when it runs.`
							: `${file}${by} imports \`${name}\` from ${specifier}, which toolsmith's compatibility module does not provide: it is undefined there, and code that uses it fails when it runs.`,
					path: file,
				});
			}
		}
	}
	return out;
}
