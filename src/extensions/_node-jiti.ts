/**
 * Importing one extension module fresh with jiti, and reporting which local files it pulled in.
 *
 * Why synchronous evaluation: in jiti's async mode, `.mjs` files and `.js` files of `"type":
 * "module"` packages are handed to Node's native `import()`, whose cache can never be cleared, so
 * an edited helper would never be seen again. Evaluated synchronously, jiti transpiles them like
 * `.ts` files into a module table we own (the `cache` option), which is fresh for every import and
 * lists exactly the files that were loaded. Files Node itself requires (plain CommonJS) land in
 * `require.cache`; the local ones are noted and evicted so the next import re-reads them too.
 * Modules with top-level `await` cannot be evaluated synchronously; after any syntax error of the
 * synchronous attempt they are evaluated again in async mode.
 */
import { chmodSync, lstatSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { extname, isAbsolute, join } from "node:path";
import type { Jiti } from "jiti";
import { errorMessage } from "../contract/errors.js";
import { withTimeout } from "./_timeout.js";
import type { ExtensionDiagnostic } from "./api.js";
import { isProcessExitRefusal } from "./node-process-guard.js";

const nodeRequire = createRequire(import.meta.url);

export type ImportOutcome =
	| {
			readonly ok: true;
			readonly module: unknown;
			readonly modules: string[];
			/** Every file jiti evaluated for this import, `node_modules` included. */
			readonly evaluated: string[];
	  }
	| { readonly ok: false; readonly diagnostic: ExtensionDiagnostic; readonly modules: string[] };

/** Thrown in place of a module whose evaluation did not settle in time; never leaves this file. */
class EvaluationTimeout extends Error {}

type CreateJiti = (id: string, options: Record<string, unknown>) => Jiti;
let createJitiPromise: Promise<CreateJiti> | undefined;

/** jiti is loaded on first use, so importing `toolsmith-sdk/node` stays cheap. */
function loadJiti(): Promise<CreateJiti> {
	createJitiPromise ??= import("jiti").then((mod) => mod.createJiti as unknown as CreateJiti);
	return createJitiPromise;
}

const instances = new WeakMap<Record<string, unknown>, Jiti>();

let cacheFolder: string | false | undefined;

/**
 * Where jiti may keep what it transpiled: a folder of this user's own, made private (0700, owned
 * by this user, not a link), in the user's cache folder (`$XDG_CACHE_HOME` or `~/.cache`,
 * `toolsmith/jiti`), else `<tmp>/toolsmith-jiti-<uid>`; `false` (no cache: every load transpiles)
 * where no such folder can be had. Never jiti's default: `node_modules/.cache/jiti` under the
 * working folder is where confined tools write, and `<tmp>/jiti` any local user can make first. A
 * file there that ends with the right source hash is run as the module it names, so whoever can
 * write the folder runs code as whoever loads extensions (root's `toolsmith` included).
 */
export function transpileCache(): string | false {
	if (cacheFolder !== undefined) return cacheFolder;
	const uid = process.getuid?.();
	const home = process.env.HOME;
	const base = process.env.XDG_CACHE_HOME || (home ? join(home, ".cache") : undefined);
	const candidates = [
		...(base && isAbsolute(base) ? [join(base, "toolsmith", "jiti")] : []),
		join(tmpdir(), `toolsmith-jiti-${uid ?? "user"}`),
	];
	cacheFolder = candidates.find((folder) => privateFolder(folder, uid)) ?? false;
	return cacheFolder;
}

/** Whether `folder` is (or could be made) a folder only this user can write: made 0700 if missing. */
function privateFolder(folder: string, uid: number | undefined): boolean {
	try {
		mkdirSync(folder, { recursive: true, mode: 0o700 });
		const stats = lstatSync(folder);
		if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid)) return false;
		if ((stats.mode & 0o022) !== 0) chmodSync(folder, 0o700);
		return (lstatSync(folder).mode & 0o022) === 0;
	} catch {
		return false;
	}
}

/**
 * One jiti instance per set of virtual modules. Freshness does not need new instances: the
 * module cache is off and every import gets its own module table.
 */
function jitiFor(createJiti: CreateJiti, virtualModules: Record<string, unknown>): Jiti {
	let jiti = instances.get(virtualModules);
	if (!jiti) {
		jiti = createJiti(import.meta.url, {
			moduleCache: false,
			interopDefault: true,
			virtualModules,
			fsCache: transpileCache(),
		});
		instances.set(virtualModules, jiti);
	}
	return jiti;
}

function isLocal(file: string): boolean {
	return !file.includes("/node_modules/") && !file.startsWith("node:");
}

/** Position and file of a parse error, from the message jiti builds for it or a V8 SyntaxError stack. */
function syntaxPosition(error: Error, fallback: string): { path: string; line?: number; column?: number } {
	const jitiStyle = /\s(\/[^\s]+?):(\d+):(\d+)\s*$/.exec(error.message);
	// jiti reports the parser's 0-based column; diagnostics use 1-based columns like editors do.
	if (jitiStyle) return { path: jitiStyle[1] as string, line: Number(jitiStyle[2]), column: Number(jitiStyle[3]) + 1 };
	const v8Style = /^(\/[^\n]+?):(\d+)\n/.exec(error.stack ?? "");
	if (v8Style) {
		// V8 marks the column with carets under the source line; count them when present.
		const lines = (error.stack ?? "").split("\n");
		const caret = lines.findIndex((line) => /^\s*\^+\s*$/.test(line));
		const column = caret > 0 ? (lines[caret]?.indexOf("^") ?? -1) + 1 : 0;
		return { path: v8Style[1] as string, line: Number(v8Style[2]), ...(column > 0 ? { column } : {}) };
	}
	return { path: fallback };
}

/** The first stack frame in a local, non-toolsmith file. */
function throwPosition(error: unknown, files: readonly string[]): { path?: string; line?: number; column?: number } {
	const stack = error instanceof Error ? error.stack : undefined;
	if (!stack) return {};
	for (const frame of stack.split("\n").slice(1)) {
		for (const file of files) {
			const at = frame.indexOf(`${file}:`);
			if (at < 0) continue;
			const match = /^:(\d+):(\d+)/.exec(frame.slice(at + file.length));
			if (match) return { path: file, line: Number(match[1]), column: Number(match[2]) };
		}
	}
	return {};
}

function cleanMessage(message: string): string {
	return message.replace(/\s*\n\s*/g, " ").trim();
}

/**
 * Whether a module did not compile: jiti's parse error (an `Error` whose message starts with
 * `ParseError:`/`SyntaxError:` and ends with the position), or V8's SyntaxError for the transpiled
 * code, whose stack starts with `file:line` and the offending source line. A SyntaxError thrown while
 * a module runs (`JSON.parse`, `new RegExp`) is neither: it is the module's own error, thrown at its
 * own line, and is reported as such.
 */
function isCompileError(error: unknown): boolean {
	if (!(error instanceof Error)) return false;
	if (/^(ParseError|SyntaxError)\b/.test(error.message)) return true;
	return error.name === "SyntaxError" && /^\/[^\n]+?:\d+\n/.test(error.stack ?? "");
}

/**
 * Import `path` (absolute) with a fresh module table. Never throws: a module that does not parse,
 * cannot resolve an import, throws while evaluating, or whose top-level `await` does not settle
 * within `timeoutMs` comes back as a diagnostic naming the file (with line and column when known).
 * `modules` lists the local files that were loaded, entry first. A synchronous endless loop at the
 * top level cannot be bounded: it holds the thread.
 */
export async function importFresh(
	path: string,
	virtualModules: Record<string, unknown>,
	timeoutMs: number,
): Promise<ImportOutcome> {
	const createJiti = await loadJiti();
	// One module table per attempt: a failed attempt leaves its half-evaluated modules in its table
	// (an importer whose exports read an import that never finished), and an attempt that found them
	// would "succeed" with undefined imports, turning a syntax error of an imported module into a
	// crash of the entry's default export.
	const tables: Record<string, unknown>[] = [];
	const freshTable = (): Record<string, unknown> => {
		const table: Record<string, unknown> = Object.create(null);
		tables.push(table);
		return table;
	};
	const requireCache = nodeRequire.cache;
	const before = new Set(Object.keys(requireCache));
	const loadedFiles = new Set<string>([path]);
	const collect = (): string[] => {
		for (const table of tables) for (const file of Object.keys(table)) if (isLocal(file)) loadedFiles.add(file);
		for (const file of Object.keys(requireCache)) {
			if (before.has(file) || !isLocal(file)) continue;
			loadedFiles.add(file);
			delete requireCache[file];
		}
		return [...loadedFiles];
	};
	let source: string;
	try {
		source = readFileSync(path, "utf8");
	} catch (error) {
		return {
			ok: false,
			diagnostic: {
				severity: "error",
				code: "E_EXTENSION_LOAD",
				message: `Could not read ${path}: ${errorMessage(error)}.`,
				path,
			},
			modules: [path],
		};
	}
	const jiti = jitiFor(createJiti, virtualModules);
	const evaluate = (async: boolean): unknown => {
		// Also evicts the local CommonJS files a previous attempt left in require.cache.
		collect();
		return jiti.evalModule(source, {
			id: path,
			filename: path,
			ext: extname(path),
			cache: freshTable() as never,
			async,
			// A `.cjs` entry is transpiled too, so its `require`s of aliased packages reach the aliases.
			forceTranspile: true,
		});
	};
	try {
		let module: unknown;
		try {
			module = evaluate(false);
		} catch (error) {
			// A top-level `await` does not always say so ("await is only valid…"): inside an
			// expression the synchronous attempt reports some other syntax error. Any syntax error is
			// retried asynchronously; if that fails to parse too, the first error (and its position)
			// is the one reported.
			if (!isCompileError(error)) throw error;
			try {
				// The evaluation cannot be cancelled: after the timeout it is left to settle (or not)
				// on its own, and whatever it gives is dropped.
				module = await withTimeout(Promise.resolve(evaluate(true)), timeoutMs, () => new EvaluationTimeout());
			} catch (again) {
				throw isCompileError(again) ? error : again;
			}
		}
		return { ok: true, module, modules: collect(), evaluated: Object.keys(tables.at(-1) ?? {}) };
	} catch (error) {
		const modules = collect();
		if (error instanceof EvaluationTimeout) {
			return {
				ok: false,
				diagnostic: {
					severity: "error",
					code: "E_LOAD_TIMEOUT",
					message: `${path} did not finish evaluating within ${timeoutMs} ms (a top-level await that never settles?); the extension was not loaded. Move slow work into a session_start handler or a tool.`,
					path,
				},
				modules,
			};
		}
		const err = error instanceof Error ? error : new Error(errorMessage(error));
		if (isCompileError(err)) {
			const where = syntaxPosition(err, path);
			const message = cleanMessage(
				err.message.replace(/\s*\n\s*\/[^\s]+:\d+:\d+\s*$/, "").replace(/^(ParseError|SyntaxError):\s*/, ""),
			);
			return {
				ok: false,
				diagnostic: {
					severity: "error",
					code: "E_SYNTAX",
					message: `${where.path}${where.line !== undefined ? `:${where.line}${where.column !== undefined ? `:${where.column}` : ""}` : ""} does not parse: ${message}${where.path !== path ? ` (imported by the extension ${path})` : ""}. The extension was not loaded.`,
					...where,
				},
				modules,
			};
		}
		const where = throwPosition(err, modules);
		if (isProcessExitRefusal(error)) {
			return {
				ok: false,
				diagnostic: {
					severity: "error",
					code: "E_PROCESS_EXIT",
					message: `${path} tried to end the process while its module was evaluated: ${err.message} The extension was not loaded.`,
					path: where.path ?? path,
					...(where.line !== undefined ? { line: where.line, column: where.column } : {}),
				},
				modules,
			};
		}
		const notFound = (err as { code?: unknown }).code === "MODULE_NOT_FOUND";
		const first = cleanMessage(err.message.split("\nRequire stack:")[0] ?? err.message);
		if (!notFound && where.path !== undefined && where.path !== path && where.line !== undefined) {
			// A module the entry imports threw: it is the one to fix, so the message starts there.
			return {
				ok: false,
				diagnostic: {
					severity: "error",
					code: "E_EXTENSION_LOAD",
					message: `${where.path}:${where.line}:${where.column} threw while its module was evaluated: ${first} (imported by the extension ${path}). The extension was not loaded.`,
					path: where.path,
					line: where.line,
					...(where.column !== undefined ? { column: where.column } : {}),
				},
				modules,
			};
		}
		return {
			ok: false,
			diagnostic: {
				severity: "error",
				code: "E_EXTENSION_LOAD",
				message: notFound
					? `${path} could not be loaded: ${first}. Install the package in the extension's folder (npm install) or fix the import.`
					: `${path} threw while its module was evaluated: ${first}. The extension was not loaded.`,
				path: where.path ?? path,
				...(where.line !== undefined ? { line: where.line, column: where.column } : {}),
			},
			modules,
		};
	}
}
