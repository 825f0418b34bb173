/**
 * Loads extensions with a reference release's own loader, in a process of its own (the release may
 * need a newer Node than toolsmith runs on). Plain JavaScript, so any Node can run it as it is:
 *
 *   node _reference-load.mjs <release package folder> <result file> <cwd> <extension path>...
 *
 * Writes `{ extensions: [{ path, tools, commands }], errors: [{ path, error }] }` as JSON to the
 * result file (an extension may print anything on stdout), or `{ failed }` when the loader itself
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
		};
	}
} catch (error) {
	result = { failed: error instanceof Error ? (error.stack ?? error.message) : String(error) };
}
writeFileSync(resultFile, JSON.stringify(result));
rmSync(agentDir, { recursive: true, force: true });
// Extensions may leave timers, sockets or watchers behind; the answer is written.
process.exit(0);
