/**
 * Opens an in-memory session of a pi 1.x release with extensions loaded, in a process of its own
 * (the release may need a newer Node than toolsmith runs on), and reports how its tools are
 * exposed. Plain JavaScript, so any Node can run it as it is:
 *
 *   node _reference-session.mjs <release package folder> <result file> <cwd> <extension path>...
 *
 * Writes `{ tools, active, callable, declared, calls, errors }` as JSON to the result file (an extension
 * may print anything on stdout), or `{ failed }` when the session could not be made. `tools` are
 * `getAllTools()` without functions (`reachesTools` becomes whether it is there); `declared` are
 * the declarations a request carries, after `prepareLoadout`. The agent folder is an empty one of
 * its own, so no installed extension joins in. `PI_REFERENCE_CALLS` (JSON: `[{ name, args }]`) names
 * tools to run through the session's own tool wrappers; `calls` holds their results.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [release, resultFile, cwd, ...paths] = process.argv.slice(2);
const agentDir = mkdtempSync(join(tmpdir(), "toolsmith-reference-agent-"));
process.env.PI_CODING_AGENT_DIR = agentDir;

let result;
try {
	const pi = await import(pathToFileURL(join(release, "dist", "index.js")).href);
	const settingsManager = pi.SettingsManager.inMemory();
	const resourceLoader = new pi.DefaultResourceLoader({
		cwd,
		agentDir,
		settingsManager,
		additionalExtensionPaths: paths,
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: true,
	});
	await resourceLoader.reload();
	const { session } = await pi.createAgentSession({
		cwd,
		agentDir,
		settingsManager,
		resourceLoader,
		sessionManager: pi.SessionManager.inMemory(cwd),
	});
	const calls = [];
	for (const { name, args } of JSON.parse(process.env.PI_REFERENCE_CALLS ?? "[]")) {
		const tool = session.agent.state.tools.find((candidate) => candidate.name === name);
		try {
			const { content, details, structuredContent } = await tool.execute(`ref-${calls.length}`, args);
			calls.push({ name, content, details, structuredContent });
		} catch (error) {
			calls.push({ name, error: String(error) });
		}
	}
	const hidden = new Set(session._hiddenDeclarations ?? []);
	result = {
		tools: session.getAllTools().map(({ name, exposure, namespace, annotations, reachesTools, promptGuidelines }) => ({
			name,
			exposure,
			...(namespace ? { namespace } : {}),
			...(annotations ? { annotations } : {}),
			...(promptGuidelines ? { promptGuidelines } : {}),
			reachesTools: typeof reachesTools === "function",
		})),
		active: session.getActiveToolNames(),
		callable: session.getCallableToolNames(),
		declared: session.agent.state.tools
			.filter((tool) => !hidden.has(tool.name))
			.map((tool) => ({ name: tool.name, description: tool.description })),
		calls,
		errors: resourceLoader.getExtensions().errors.map((error) => ({ path: error.path, error: String(error.error) })),
	};
	session.dispose();
} catch (error) {
	result = { failed: error instanceof Error ? (error.stack ?? error.message) : String(error) };
}
writeFileSync(resultFile, JSON.stringify(result));
rmSync(agentDir, { recursive: true, force: true });
// Extensions may leave timers, sockets or watchers behind; the answer is written.
process.exit(0);
