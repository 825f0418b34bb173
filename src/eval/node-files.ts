/**
 * Finding and loading scenario files (`*.eval.ts` and kin, loaded with jiti as extensions are, or
 * `*.eval.json`, read as data), and the scripted models `--model scripted:<file>` names. JSON is
 * read from regular files only, up to {@link MAX_JSON_FILE_BYTES}.
 */
import { readdir, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { errorMessage } from "../contract/errors.js";
import { NodeExecutionEnv } from "../env/node.js";
import { importModule } from "../extensions/node-loader.js";
import { defineEval } from "./define.js";
import { revivePatterns } from "./patterns.js";
import { type ModelScript, scriptedModel } from "./scripted.js";
import type { EvalModel, EvalScenario } from "./types.js";

/** The names scenario files have. */
export const SCENARIO_FILE = /\.eval\.(?:ts|mts|cts|js|mjs|cjs|json)$/;

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

function mebibytes(bytes: number): string {
	return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** A module about to be imported: a regular file (a FIFO would hang the import). */
async function checkModule(file: string): Promise<void> {
	const info = await stat(file).catch(() => undefined);
	if (info === undefined) throw new ScenarioFileError(file, "no such file");
	if (!info.isFile()) throw new ScenarioFileError(file, "not a regular file");
}

/**
 * The text of a JSON file: a regular file (a FIFO or a device is refused without waiting on it) of
 * at most {@link MAX_JSON_FILE_BYTES}, read through a Node env.
 */
async function readJsonText(file: string): Promise<string> {
	const env = new NodeExecutionEnv({ cwd: dirname(file) });
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
async function readJson(file: string): Promise<unknown> {
	const text = await readJsonText(file);
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch (error) {
		throw new ScenarioFileError(file, `not valid JSON (${errorMessage(error)})`);
	}
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
export async function loadScenarioFile(path: string): Promise<EvalScenario[]> {
	const file = resolve(path);
	if (file.endsWith(".json")) return scenariosOf(await readJson(file), file);
	await checkModule(file);
	const loaded = await importModule(file);
	if (!loaded.ok) throw new ScenarioFileError(file, loaded.diagnostic.message);
	const value = defaultOf(loaded.module);
	if (value === undefined) {
		throw new ScenarioFileError(file, "has no default export; export default defineEval({…}) or a list of scenarios");
	}
	return scenariosOf(value, file);
}

/**
 * The model a module exports (`--model scripted:<file>`): its default export (or `model`), either an
 * EvalModel (an object with `turn(request)`) or a script for `scriptedModel` (a list of turns or a
 * function of the request).
 */
export async function loadScriptedModel(file: string): Promise<EvalModel> {
	const loaded = await importModule(file);
	if (!loaded.ok) throw new Error(loaded.diagnostic.message);
	const mod = loaded.module as Record<string, unknown>;
	const value = defaultOf(mod) ?? mod.model;
	if (typeof value === "object" && value !== null && typeof (value as EvalModel).turn === "function") {
		const model = value as EvalModel;
		return typeof model.id === "string"
			? model
			: { id: `scripted/${file.split("/").pop()}`, turn: (request) => model.turn(request) };
	}
	if (Array.isArray(value) || typeof value === "function") {
		return scriptedModel(value as ModelScript, { id: `scripted/${file.split("/").pop()}` });
	}
	throw new Error(
		`${file}: export default an EvalModel ({ id, turn(request) }) or a script for scriptedModel (a list of turns or a function)`,
	);
}
