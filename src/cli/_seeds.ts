/**
 * Finding replay fixture files, and what `toolsmith check` seeds its behavioral checks with: the
 * files of `--files` folders and of fixtures, the fixtures' scripted commands, and samples from
 * `--sample` and from the fixtures' calls.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join, posix, relative, resolve, sep } from "node:path";
import { UsageError } from "../command/args.js";
import { CommandError } from "../command/node-command.js";
import { errorMessage } from "../contract/errors.js";
import type { MemorySeedFile, ScriptedCommand } from "../env/memory.js";
import { displayPath } from "../extensions/node-event-lines.js";
import { loadReplayFixture } from "../harness/node-replay.js";
import { fixtureCommands } from "../harness/replay.js";

/**
 * A project's own JSON configuration: never a fixture, so a search of the project folder itself
 * (`toolsmith test .`) skips it.
 */
const CONFIG_JSON = /^(package|package-lock|npm-shrinkwrap|tsconfig(\..+)?|jsconfig(\..+)?)\.json$/;

/**
 * Fixture files named by `inputs`: files as they are, folders searched for `*.json` (not
 * `node_modules`, dot-folders or package and TypeScript configuration files).
 */
export async function findFixtures(inputs: readonly string[], cwd: string): Promise<string[]> {
	const found: string[] = [];
	const walk = async (dir: string) => {
		const entries = await readdir(dir, { withFileTypes: true });
		entries.sort((a, b) => a.name.localeCompare(b.name));
		for (const entry of entries) {
			const path = join(dir, entry.name);
			if (entry.isDirectory() && entry.name !== "node_modules" && !entry.name.startsWith(".")) await walk(path);
			else if (entry.isFile() && entry.name.endsWith(".json") && !CONFIG_JSON.test(entry.name)) found.push(path);
		}
	};
	for (const input of inputs) {
		const path = resolve(cwd, input);
		let info: Awaited<ReturnType<typeof stat>>;
		try {
			info = await stat(path);
		} catch {
			throw new CommandError(`fixture path ${input} does not exist`);
		}
		if (info.isDirectory()) await walk(path);
		else found.push(path);
	}
	return [...new Set(found)];
}

/** What the behavioral checks of `toolsmith check` start from, besides the generated samples. */
export interface CheckSeeds {
	/** Files of the memory env, by path relative to its cwd (the command's cwd). */
	readonly files: Record<string, MemorySeedFile>;
	readonly commands: readonly ScriptedCommand[];
	/** Samples by tool name, in the order given: `--sample` ones first, then the fixtures' calls. */
	readonly samples: ReadonlyMap<string, readonly unknown[]>;
	/** One line saying where the seeds came from, or undefined when there are none. */
	readonly summary: string | undefined;
}

/** Folders skipped when a `--files` folder is read: what no tool sample wants and what could be huge. */
const SKIPPED_FOLDERS = new Set(["node_modules", ".git"]);

/** Every regular file under `root`, by its path relative to `root` with `/` separators. */
async function readFolder(root: string, given: string): Promise<Record<string, MemorySeedFile>> {
	let info: Awaited<ReturnType<typeof stat>>;
	try {
		info = await stat(root);
	} catch {
		throw new CommandError(`--files ${given} does not exist: give the folder whose files the tools should find`);
	}
	if (!info.isDirectory()) {
		throw new CommandError(
			`--files ${given} is not a folder: give the folder whose files the tools should find (its files keep their paths relative to it)`,
		);
	}
	const files: Record<string, MemorySeedFile> = {};
	const walk = async (dir: string) => {
		const entries = await readdir(dir, { withFileTypes: true });
		for (const entry of entries) {
			const path = join(dir, entry.name);
			if (entry.isDirectory() && !SKIPPED_FOLDERS.has(entry.name)) await walk(path);
			else if (entry.isFile()) files[relative(root, path).split(sep).join("/")] = new Uint8Array(await readFile(path));
		}
	};
	await walk(root);
	return files;
}

/** `tool={"json":"args"}` as the tool's name and its parsed arguments; a usage error for anything else. */
function parseSample(spec: string): { tool: string; args: Record<string, unknown> } {
	const equals = spec.indexOf("=");
	const tool = equals === -1 ? "" : spec.slice(0, equals).trim();
	if (tool === "") {
		throw new UsageError(
			`invalid --sample '${spec}': expected <tool>=<JSON arguments>, as in word_count='{"path":"notes.txt"}'`,
		);
	}
	let args: unknown;
	try {
		args = JSON.parse(spec.slice(equals + 1));
	} catch (error) {
		throw new UsageError(
			`invalid --sample for ${tool}: the arguments are not JSON (${errorMessage(error)}); quote them for the shell, as in ${tool}='{"path":"notes.txt"}'`,
		);
	}
	if (typeof args !== "object" || args === null || Array.isArray(args)) {
		throw new UsageError(`invalid --sample for ${tool}: the arguments must be a JSON object, as a model sends them`);
	}
	return { tool, args: args as Record<string, unknown> };
}

/** A fixture's file path made relative to its cwd where it lies inside it (the env of the checks has another cwd). */
function relativeToFixture(path: string, cwd: string): string {
	const root = cwd.endsWith("/") ? cwd : `${cwd}/`;
	return path.startsWith(root) ? posix.normalize(path.slice(root.length)) : path;
}

/**
 * The seeds of `--files` folders, `--fixtures` (files, commands, and the arguments of every call
 * not expected to fail, as samples of its tool) and `--sample` values. `tools` are the names of the
 * checked tools: a `--sample` for another one is a usage error; fixture calls to other tools (a
 * built-in, say) are left out. Where two sources give the same file, `--files` wins over fixtures,
 * a later folder or fixture over an earlier one.
 */
export async function loadCheckSeeds(options: {
	readonly files: readonly string[];
	readonly samples: readonly string[];
	readonly fixtures: readonly string[];
	readonly tools: readonly string[];
	readonly cwd: string;
}): Promise<CheckSeeds> {
	const { cwd, tools } = options;
	const parsedSamples = options.samples.map(parseSample);
	const unknown = [...new Set(parsedSamples.map((s) => s.tool).filter((tool) => !tools.includes(tool)))];
	if (unknown.length > 0) {
		throw new UsageError(
			`--sample names ${unknown.join(", ")}, which is not a checked tool (the tools are ${tools.join(", ") || "none"})`,
		);
	}
	const samples = new Map<string, unknown[]>();
	const add = (tool: string, args: unknown) => {
		const list = samples.get(tool) ?? [];
		list.push(args);
		samples.set(tool, list);
	};
	for (const { tool, args } of parsedSamples) add(tool, args);

	const files: Record<string, MemorySeedFile> = {};
	const commands: ScriptedCommand[] = [];
	const fixtureFiles = options.fixtures.length > 0 ? await findFixtures(options.fixtures, cwd) : [];
	if (options.fixtures.length > 0 && fixtureFiles.length === 0) {
		throw new CommandError(`--fixtures: no fixture files (*.json) found in ${options.fixtures.join(", ")}`);
	}
	let fixtureSamples = 0;
	for (const file of fixtureFiles) {
		let fixture: Awaited<ReturnType<typeof loadReplayFixture>>;
		try {
			fixture = await loadReplayFixture(file);
		} catch (error) {
			throw new CommandError(`--fixtures: ${errorMessage(error)}`);
		}
		const fixtureCwd = fixture.cwd ?? "/project";
		for (const [path, content] of Object.entries(fixture.files ?? {}))
			files[relativeToFixture(path, fixtureCwd)] = content;
		commands.push(...fixtureCommands(fixture));
		for (const step of fixture.steps) {
			for (const call of step.calls) {
				if (call.expect?.isError === true || !tools.includes(call.tool)) continue;
				add(call.tool, call.args ?? {});
				fixtureSamples++;
			}
		}
	}
	for (const folder of options.files) Object.assign(files, await readFolder(resolve(cwd, folder), folder));

	const sources = [
		...options.files.map((folder) => `--files ${folder}`),
		...(fixtureFiles.length > 0
			? [
					`${fixtureFiles.length} fixture${fixtureFiles.length === 1 ? "" : "s"} (${fixtureFiles.map((f) => displayPath(f, cwd)).join(", ")})`,
				]
			: []),
		...(parsedSamples.length > 0 ? [`--sample ×${parsedSamples.length}`] : []),
	];
	const fileCount = Object.keys(files).length;
	const sampleCount = parsedSamples.length + fixtureSamples;
	const perTool = [...samples].map(([tool, list]) => `${tool} ${list.length}`).join(", ");
	const summary =
		sources.length === 0
			? undefined
			: `seeded from ${sources.join(", ")}: ${fileCount} file${fileCount === 1 ? "" : "s"}, ${commands.length > 0 ? `${commands.length} scripted command${commands.length === 1 ? "" : "s"}, ` : ""}${sampleCount} sample${sampleCount === 1 ? "" : "s"}${perTool ? ` (${perTool})` : ""}`;
	return { files, commands, samples, summary };
}
