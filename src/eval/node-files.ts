/**
 * Finding and loading scenario files (`*.eval.ts` and kin, loaded with jiti as extensions are, or
 * `*.eval.json`, read as data), and the scripted models `--model scripted:<file>` names (a module,
 * or a `.json` list of turns read as data). JSON is read from regular files only, up to
 * {@link MAX_JSON_FILE_BYTES}; with `within`, only from inside that folder (symlinks resolved).
 */
import { readdir, realpath, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { errorMessage } from "../contract/errors.js";
import { NodeExecutionEnv } from "../env/node.js";
import { importModule } from "../extensions/node-loader.js";
import { defineEval } from "./define.js";
import { revivePatterns } from "./patterns.js";
import { type ModelScript, type ScriptedTurn, scriptedModel } from "./scripted.js";
import type { EvalModel, EvalScenario } from "./types.js";

/** The names scenario files have. */
export const SCENARIO_FILE = /\.eval\.(?:ts|mts|cts|js|mjs|cjs|json)$/;

/** The names of scenario files that are code (imported to be read), not data. */
export const CODE_SCENARIO_FILE = /\.eval\.(?:ts|mts|cts|js|mjs|cjs)$/;

/** The largest JSON file (scenario or scripted model) read: 16 MiB. */
export const MAX_JSON_FILE_BYTES = 16 * 1024 * 1024;

/** A scenario file (or scripted model) that cannot be used: `reason` says why, `file` is its absolute path. */
export class ScenarioFileError extends Error {
	override readonly name = "ScenarioFileError";
	constructor(
		readonly file: string,
		readonly reason: string,
	) {
		super(`${file}: ${reason}`);
	}
}

/** Where loading reads from. */
export interface ScenarioFileOptions {
	/**
	 * Read and import only inside this folder: a file whose real path (every symlink resolved) lies
	 * outside is refused, and JSON is read through an env confined to the folder, so a link swapped
	 * in meanwhile cannot lead out either. Default: anywhere the process can read.
	 */
	readonly within?: string;
}

function mebibytes(bytes: number): string {
	return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Whether `file`'s real path (every symlink resolved) lies inside `folder`'s; false when either cannot be resolved. */
export async function realPathInside(file: string, folder: string): Promise<boolean> {
	const [real, root] = await Promise.all([
		realpath(file).catch(() => undefined),
		realpath(folder).catch(() => undefined),
	]);
	if (real === undefined || root === undefined) return false;
	const rel = relative(root, real);
	return rel !== "" && rel.split(sep)[0] !== ".." && !isAbsolute(rel);
}

/** `file` refused unless it lies inside `options.within` (when given). */
async function checkWithin(file: string, options: ScenarioFileOptions): Promise<void> {
	if (options.within === undefined) return;
	if (file.includes("\0")) throw new ScenarioFileError(file, "a path with a NUL byte names no file");
	if (!(await realPathInside(file, options.within))) {
		const exists = await stat(file).then(
			() => true,
			() => false,
		);
		throw new ScenarioFileError(
			file,
			exists ? `outside ${options.within} (symlinks resolved): only files inside it are read` : "no such file",
		);
	}
}

/** A module about to be imported: inside `within` (when given) and a regular file (a FIFO would hang the import). */
async function checkModule(file: string, options: ScenarioFileOptions): Promise<void> {
	await checkWithin(file, options);
	const info = await stat(file).catch(() => undefined);
	if (info === undefined) throw new ScenarioFileError(file, "no such file");
	if (!info.isFile()) throw new ScenarioFileError(file, "not a regular file");
}

/**
 * The text of a JSON file: a regular file (a FIFO or a device is refused without waiting on it) of
 * at most {@link MAX_JSON_FILE_BYTES}, read through a Node env (confined to `within` when given).
 */
async function readJsonText(file: string, options: ScenarioFileOptions): Promise<string> {
	await checkWithin(file, options);
	const within = options.within;
	const env = new NodeExecutionEnv({
		cwd: within ?? dirname(file),
		...(within !== undefined ? { policy: { read: [within], write: [] } } : {}),
	});
	const info = await env.fileInfo(file);
	if (!info.ok) {
		throw new ScenarioFileError(file, info.error.code === "not_found" ? "no such file" : info.error.message);
	}
	if (info.value.kind !== "file") {
		throw new ScenarioFileError(file, `not a regular file (a ${info.value.kind.replace("_", " ")}): give a .json file`);
	}
	const tooBig = (size: string) =>
		new ScenarioFileError(
			file,
			`${size}; JSON files are read up to ${mebibytes(MAX_JSON_FILE_BYTES).replace(".0", "")}: split it into several files`,
		);
	if (info.value.size > MAX_JSON_FILE_BYTES) throw tooBig(`is ${mebibytes(info.value.size)}`);
	const bytes = await env.readRange(file, 0, MAX_JSON_FILE_BYTES + 1);
	if (!bytes.ok) throw new ScenarioFileError(file, bytes.error.message);
	if (bytes.value.length > MAX_JSON_FILE_BYTES) throw tooBig("grew past the limit while it was read");
	return new TextDecoder().decode(bytes.value).replace(/^\uFEFF/, "");
}

/** Parsed JSON of `file`, its `$regex` patterns revived (a problem names its JSON path). */
async function readJson(file: string, options: ScenarioFileOptions, revive: boolean): Promise<unknown> {
	const text = await readJsonText(file, options);
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch (error) {
		throw new ScenarioFileError(file, `not valid JSON (${errorMessage(error)})`);
	}
	if (!revive) return parsed;
	try {
		return revivePatterns(parsed);
	} catch (error) {
		throw new ScenarioFileError(file, errorMessage(error));
	}
}

async function walk(dir: string, found: string[]): Promise<void> {
	let entries: import("node:fs").Dirent[];
	try {
		entries = await readdir(dir, { withFileTypes: true });
	} catch {
		return;
	}
	entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
	for (const entry of entries) {
		if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
		const path = resolve(dir, entry.name);
		if (entry.isDirectory()) await walk(path, found);
		else if (entry.isFile() && SCENARIO_FILE.test(entry.name)) found.push(path);
	}
}

/**
 * The scenario files `paths` name (files as they are; folders searched for `*.eval.{ts,js,json,…}`,
 * `node_modules` and dot-folders skipped), or under `cwd` when `paths` is empty. Sorted, no repeats.
 * Throws for a path that does not exist.
 */
export async function findScenarioFiles(paths: readonly string[], cwd: string): Promise<string[]> {
	const found: string[] = [];
	for (const path of paths.length > 0 ? paths : ["."]) {
		const absolute = resolve(cwd, path);
		const info = await stat(absolute).catch(() => undefined);
		if (!info) throw new Error(`${path}: no such file or folder`);
		if (info.isDirectory()) await walk(absolute, found);
		else found.push(absolute);
	}
	return [...new Set(found)];
}

function scenariosOf(value: unknown, file: string): EvalScenario[] {
	const list = Array.isArray(value) ? value : [value];
	if (list.length === 0 || list.some((item) => typeof item !== "object" || item === null)) {
		throw new ScenarioFileError(
			file,
			file.endsWith(".json")
				? "hold a scenario (an object) or a list of them"
				: "export default a scenario (defineEval({…})) or a list of them",
		);
	}
	return list.map((scenario) => {
		try {
			return defineEval({ ...(scenario as EvalScenario), dir: dirname(file) });
		} catch (error) {
			throw new ScenarioFileError(file, errorMessage(error));
		}
	});
}

function defaultOf(mod: unknown): unknown {
	if (typeof mod === "object" && mod !== null && "default" in mod) return (mod as { default: unknown }).default;
	return mod;
}

/**
 * The scenarios of one file (its default export, or a `.json` file's content: a scenario or a
 * list), each with `dir` set to the file's folder. Throws a {@link ScenarioFileError} saying why
 * when the file cannot be read, parsed, imported, or holds no valid scenario.
 */
export async function loadScenarioFile(path: string, options: ScenarioFileOptions = {}): Promise<EvalScenario[]> {
	const file = resolve(path);
	if (file.endsWith(".json")) return scenariosOf(await readJson(file, options, true), file);
	await checkModule(file, options);
	const loaded = await importModule(file);
	if (!loaded.ok) throw new ScenarioFileError(file, loaded.diagnostic.message);
	const value = defaultOf(loaded.module);
	if (value === undefined) {
		throw new ScenarioFileError(file, "has no default export; export default defineEval({…}) or a list of scenarios");
	}
	return scenariosOf(value, file);
}

const TURN_KEYS = ["text", "calls", "usage"];
const CALL_KEYS = ["tool", "args", "id"];
const USAGE_KEYS = ["inputTokens", "outputTokens", "costUsd"];

function unknownKeys(record: Record<string, unknown>, known: readonly string[], at: string, problems: string[]): void {
	for (const key of Object.keys(record)) {
		if (!known.includes(key)) problems.push(`${at}.${key}: unknown field (a turn has ${known.join(", ")})`);
	}
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every problem of one scripted turn read from JSON. */
function turnProblems(turn: unknown, at: string): string[] {
	if (!isRecord(turn))
		return [`${at}: a turn is an object ({ "text": "…" } or { "calls": [{ "tool": "…", "args": {…} }] })`];
	const problems: string[] = [];
	unknownKeys(turn, TURN_KEYS, at, problems);
	if (turn.text !== undefined && typeof turn.text !== "string") problems.push(`${at}.text: must be a string`);
	if (turn.calls !== undefined) {
		if (!Array.isArray(turn.calls)) problems.push(`${at}.calls: must be a list of { "tool": "…", "args": {…} }`);
		else {
			turn.calls.forEach((call: unknown, index) => {
				const where = `${at}.calls[${index}]`;
				if (!isRecord(call) || typeof call.tool !== "string" || call.tool === "") {
					problems.push(`${where}: needs a tool name ({ "tool": "…", "args": {…} })`);
					return;
				}
				for (const key of Object.keys(call)) {
					if (!CALL_KEYS.includes(key))
						problems.push(`${where}.${key}: unknown field (a call has ${CALL_KEYS.join(", ")})`);
				}
				if (call.id !== undefined && typeof call.id !== "string") problems.push(`${where}.id: must be a string`);
			});
		}
	}
	if (turn.usage !== undefined) {
		if (!isRecord(turn.usage)) problems.push(`${at}.usage: must be an object of ${USAGE_KEYS.join(", ")}`);
		else {
			for (const [key, value] of Object.entries(turn.usage)) {
				if (!USAGE_KEYS.includes(key))
					problems.push(`${at}.usage.${key}: unknown field (usage has ${USAGE_KEYS.join(", ")})`);
				else if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
					problems.push(`${at}.usage.${key}: must be a number ≥ 0`);
				}
			}
		}
	}
	return problems;
}

/** A scripted model read as data: a `.json` list of turns, checked turn by turn. */
async function loadJsonScriptedModel(file: string, options: ScenarioFileOptions): Promise<EvalModel> {
	const value = await readJson(file, options, false);
	if (!Array.isArray(value) || value.length === 0) {
		throw new ScenarioFileError(
			file,
			'a scripted model in JSON is a list of turns: [{ "calls": [{ "tool": "…", "args": {…} }] }, { "text": "…" }]',
		);
	}
	const problems = value.flatMap((turn, index) => turnProblems(turn, `[${index}]`));
	if (problems.length > 0) {
		const more = problems.length > 20 ? `; and ${problems.length - 20} more` : "";
		throw new ScenarioFileError(file, `${problems.slice(0, 20).join("; ")}${more}`);
	}
	return scriptedModel(value as ScriptedTurn[], { id: `scripted/${basename(file)}` });
}

/**
 * The model `--model scripted:<file>` names. A `.json` file is read as data: a list of turns for
 * `scriptedModel` (no code runs). Any other file is imported: its default export (or `model`),
 * either an EvalModel (an object with `turn(request)`) or a script for `scriptedModel` (a list of
 * turns or a function of the request). Throws a {@link ScenarioFileError} saying why it cannot be
 * used.
 */
export async function loadScriptedModel(path: string, options: ScenarioFileOptions = {}): Promise<EvalModel> {
	const file = resolve(path);
	if (file.endsWith(".json")) return loadJsonScriptedModel(file, options);
	await checkModule(file, options);
	const loaded = await importModule(file);
	if (!loaded.ok) throw new ScenarioFileError(file, loaded.diagnostic.message);
	const mod = loaded.module as Record<string, unknown>;
	const value = defaultOf(mod) ?? mod.model;
	const id = `scripted/${basename(file)}`;
	if (typeof value === "object" && value !== null && typeof (value as EvalModel).turn === "function") {
		const model = value as EvalModel;
		return typeof model.id === "string" ? model : { id, turn: (request) => model.turn(request) };
	}
	if (Array.isArray(value) || typeof value === "function") return scriptedModel(value as ModelScript, { id });
	throw new ScenarioFileError(
		file,
		"export default an EvalModel ({ id, turn(request) }) or a script for scriptedModel (a list of turns or a function)",
	);
}
