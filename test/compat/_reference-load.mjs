/**
 * Loads extensions with a reference release's own loader, in a process of its own (the release may
 * need a newer Node than toolsmith runs on). Plain JavaScript, so any Node can run it as it is:
 *
 *   node _reference-load.mjs <release package folder> <result file> <cwd> <extension path>...
 *
 * Writes `{ extensions: [{ path, tools, commands }], errors: [{ path, error }], mcpServers,
 * renderedCalls }` as JSON to the result file: `mcpServers` are the servers extensions registered
 * (`pi.registerMcpServer`), `renderedCalls` maps each tool name listed (comma-separated) in
 * `TOOLSMITH_REFERENCE_RENDER_PROBES` to the lines the extensions' tool renderer resolvers draw
 * its call with (80 columns, a theme that adds no color; null when none draws it) (an extension may print anything on stdout), or `{ failed }` when the loader itself
 * could not run. The agent folder is an empty one of its own, so no installed extension joins in.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [release, resultFile, cwd, ...paths] = process.argv.slice(2);
const agentDir = mkdtempSync(join(tmpdir(), "toolsmith-reference-agent-"));
process.env.PI_CODING_AGENT_DIR = agentDir;

function names(collection) {
	if (collection instanceof Map) return [...collection.keys()];
	if (Array.isArray(collection)) return collection.map((item) => (typeof item === "string" ? item : item?.name));
	return [];
}

/** A theme whose every style returns the text as it is: `fg(color, text)`, `bold(text)`, … */
const plainTheme = new Proxy(
	{},
	{ get: (_target, key) => (key === "fg" || key === "bg" ? (_color, text) => text : (text) => text) },
);

function renderProbes(extensions) {
	const probes = (process.env.TOOLSMITH_REFERENCE_RENDER_PROBES ?? "").split(",").filter(Boolean);
	const resolvers = extensions.flatMap((extension) => extension.toolRenderers ?? []);
	const rendered = {};
	for (const name of probes) {
		const resolve = (index) =>
			index < resolvers.length ? resolvers[index](name, () => resolve(index + 1)) : undefined;
		const component = resolve(0)?.renderCall?.({}, plainTheme, {});
		rendered[name] = component ? component.render(80).map((line) => line.trimEnd()) : null;
	}
	return rendered;
}

let result;
try {
	const pi = await import(pathToFileURL(join(release, "dist", "index.js")).href);
	if (typeof pi.discoverAndLoadExtensions !== "function") {
		result = { failed: `${release} has no discoverAndLoadExtensions (it predates extensions)` };
	} else {
		const loaded = await pi.discoverAndLoadExtensions(paths, cwd, agentDir);
		result = {
			extensions: loaded.extensions.map((extension) => ({
				path: extension.path,
				tools: names(extension.tools).sort(),
				commands: names(extension.commands).sort(),
			})),
			errors: loaded.errors.map((error) => ({ path: error.path, error: String(error.error) })),
			mcpServers: loaded.runtime?.mcpServers?.list?.() ?? [],
			renderedCalls: renderProbes(loaded.extensions),
		};
	}
} catch (error) {
	result = { failed: error instanceof Error ? (error.stack ?? error.message) : String(error) };
}
writeFileSync(resultFile, JSON.stringify(result));
rmSync(agentDir, { recursive: true, force: true });
// Extensions may leave timers, sockets or watchers behind; the answer is written.
process.exit(0);
