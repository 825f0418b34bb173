/**
 * Replay fixtures from files, with the extensions given and those the fixture names loaded by the
 * real loader, and the files near a fixture that may hold a tool it calls but nobody loaded (Node only).
 */
import { type Dirent, existsSync, realpathSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, parse, relative, resolve, sep } from "node:path";
import { errorMessage } from "../contract/errors.js";
import { discoverExtensions } from "../extensions/node-discovery.js";
import { parseReplayFixtureText, type ReplayFixture, ReplayFixtureError } from "./fixture.js";
import type { InlineExtension } from "./harness.js";
import { createTestHarness } from "./node-harness.js";
import { type ReplayCallReport, type ReplayOptions, type ReplayReport, replay } from "./replay.js";

/**
 * Read and validate a fixture file. Its `extensions` come back as absolute paths, resolved against
 * the fixture's folder (where they were written relative to). Rejects with a `ReplayFixtureError`
 * naming the file and the JSON path.
 */
export async function loadReplayFixture(path: string): Promise<ReplayFixture> {
	let text: string;
	try {
		text = await readFile(path, "utf8");
	} catch (error) {
		const reason = errorMessage(error);
		throw new ReplayFixtureError([{ path: "(root)", message: `cannot read the file: ${reason}` }], path);
	}
	const fixture = parseReplayFixtureText(text, path);
	if (!fixture.extensions) return fixture;
	const dir = dirname(resolve(path));
	return { ...fixture, extensions: fixture.extensions.map((entry) => resolve(dir, entry)) };
}

/** Options for `replayFile`: those of `replay`, with extensions given as paths (loaded from disk) or factories. */
export interface ReplayFileOptions extends Omit<ReplayOptions, "createHarness" | "extensions" | "source"> {
	/**
	 * Extension files or folders (relative to `process.cwd()`) and/or factories, loaded in addition
	 * to those the fixture names in its `extensions` field.
	 */
	readonly extensions?: readonly (string | InlineExtension)[];
}

/**
 * Load a fixture file and replay it with the extensions of `options` and of the fixture. The
 * report carries the file's path; a call to an unknown tool names the extension files near the
 * fixture that match it.
 */
export async function replayFile(
	path: string,
	options: ReplayFileOptions = {},
): Promise<ReplayReport & { file: string }> {
	const fixture = await loadReplayFixture(path);
	const { extensions = [], ...rest } = options;
	const all = [...extensions, ...(fixture.extensions ?? [])];
	const report = await replay(fixture, {
		...rest,
		source: path,
		createHarness: (harnessOptions) =>
			createTestHarness({ ...harnessOptions, ...(all.length > 0 ? { extensions: all } : {}) }),
	});
	return { ...(await withCandidates(report, path, all)), file: path };
}

/** The report with the likely extension files filled in for each call to an unknown tool. */
async function withCandidates(
	report: ReplayReport,
	fixtureFile: string,
	extensions: readonly (string | InlineExtension)[],
): Promise<ReplayReport> {
	if (!report.steps.some((step) => step.calls.some((call) => call.unknownTool))) return report;
	const paths = extensions.filter((e): e is string => typeof e === "string").map((p) => resolve(p));
	const loaded = (await discoverExtensions(paths)).extensions.map((e) => e.path);
	const byTool = new Map<string, Promise<string[]>>();
	const fill = async (call: ReplayCallReport): Promise<ReplayCallReport> => {
		if (!call.unknownTool) return call;
		let candidates = byTool.get(call.tool);
		if (!candidates) {
			candidates = findExtensionCandidates(call.tool, resolve(fixtureFile), loaded);
			byTool.set(call.tool, candidates);
		}
		return { ...call, unknownTool: { ...call.unknownTool, candidates: await candidates } };
	};
	const steps = await Promise.all(
		report.steps.map(async (step) => ({ ...step, calls: await Promise.all(step.calls.map(fill)) })),
	);
	return { ...report, steps };
}

// Files and folders near a fixture whose name matches a tool it calls, so a report on an unknown
// tool can say which extension was probably meant.

const MODULE = /\.(ts|mts|cts|js|mjs|cjs)$/;
const INDEX_FILES = ["index.ts", "index.mts", "index.js", "index.mjs", "package.json"];
const SKIPPED = new Set(["node_modules", "dist", "build", "coverage"]);
/** Bounds that keep the search quick in a large tree: it only feeds a hint. */
const MAX_DEPTH = 4;
const MAX_FOLDERS = 400;

/** `read_many`, `read-many`, `readMany` and `ReadMany` all name one tool. */
function key(name: string): string {
	return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}

function realPath(path: string): string {
	try {
		return realpathSync.native(path);
	} catch {
		return path;
	}
}

/**
 * The nearest folder holding a package.json, from the fixture's own folder up. Outside a package,
 * the fixture's parent (so `tools/` next to `fixtures/` is seen), but never the filesystem root.
 */
function projectRoot(fixtureDir: string): string {
	for (let dir = fixtureDir; ; dir = dirname(dir)) {
		if (existsSync(join(dir, "package.json"))) return dir;
		if (dirname(dir) === dir) break;
	}
	const parent = dirname(fixtureDir);
	return dirname(parent) === parent ? fixtureDir : parent;
}

/**
 * Extension files (`shout.ts`) and extension folders (`shout/` with an index or a package.json)
 * named like `tool`, around the fixture first, then in its whole project; leaving out the entries
 * in `exclude` (real paths of the extension entries that were loaded) and folders holding one.
 * Paths come back relative to the fixture's folder, as its `extensions` field takes them.
 */
async function findExtensionCandidates(
	tool: string,
	fixtureFile: string,
	exclude: readonly string[] = [],
): Promise<string[]> {
	const wanted = key(tool);
	if (wanted === "") return [];
	const fixtureDir = dirname(fixtureFile);
	// An entry that was loaded registers other names, and so does a folder holding one: neither is a candidate.
	const loaded = (path: string) => {
		const real = realPath(path);
		return exclude.some((e) => e === real || e.startsWith(`${real}${sep}`));
	};
	const found: string[] = [];
	// The fixture's own neighbourhood first (two levels down), so a large project cannot use up the
	// bound before it is seen.
	const queue = [
		{ dir: fixtureDir, depth: MAX_DEPTH - 2 },
		{ dir: projectRoot(fixtureDir), depth: 0 },
	];
	const visited = new Set<string>();
	while (queue.length > 0 && visited.size < MAX_FOLDERS) {
		const { dir, depth } = queue.shift()!;
		if (visited.has(dir)) continue;
		visited.add(dir);
		let entries: Dirent[];
		try {
			entries = await readdir(dir, { withFileTypes: true });
		} catch {
			continue;
		}
		entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
		for (const entry of entries) {
			if (entry.name.startsWith(".")) continue;
			const path = join(dir, entry.name);
			if (entry.isFile()) {
				const { name, ext } = parse(entry.name);
				if (MODULE.test(ext) && !/\.d$/.test(name) && key(name) === wanted && !loaded(path)) found.push(path);
			} else if (entry.isDirectory() && !SKIPPED.has(entry.name)) {
				if (key(entry.name) === wanted && !loaded(path) && INDEX_FILES.some((f) => existsSync(join(path, f)))) {
					found.push(path);
				} else if (depth < MAX_DEPTH) {
					queue.push({ dir: path, depth: depth + 1 });
				}
			}
		}
	}
	return [...new Set(found)].map((path) => {
		const rel = relative(fixtureDir, path).split(sep).join("/");
		return rel.startsWith("../") ? rel : `./${rel}`;
	});
}
