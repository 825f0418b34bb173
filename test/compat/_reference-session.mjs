/**
 * Opens an in-memory session of a pi 1.x release with extensions loaded, in a process of its own
 * (the release may need a newer Node than toolsmith runs on), and reports how its tools are
 * exposed. Plain JavaScript, so any Node can run it as it is:
 *
 *   node _reference-session.mjs <release package folder> <result file> <cwd> <extension path>...
 *
 * Writes `{ tools, active, callable, declared, calls, rendered, errors }` (and `turn`) as JSON to
 * the result file (an extension may print anything on stdout), or `{ failed }` when the session
 * could not be made. `tools` are
 * `getAllTools()` without functions (`reachesTools` becomes whether it is there); `declared` are
 * the declarations a request carries, after `prepareLoadout`. The agent folder is an empty one of
 * its own, so no installed extension joins in. `PI_REFERENCE_CALLS` (JSON: `[{ name, args }]`) names
 * tools to run through the session's own tool wrappers; `calls` holds their results.
 *
 * `PI_REFERENCE_TURN` (JSON: `[{ id, name, args }]`) has the session's agent take one turn in
 * which pi-ai's scripted model calls those tools, then answers "done". The result then also holds
 * `turn`: the `tool_execution_*` events of the turn (nested calls' included) and its tool result
 * messages. `PI_REFERENCE_RENDER` (JSON: `[{ name, args, result?, width }]`) has the session's
 * extension runner choose each tool's renderers, as the interactive mode does, and draw its call
 * (and `result`, when given) with a theme that adds no color; `rendered` holds the lines.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [release, resultFile, cwd, ...paths] = process.argv.slice(2);
const agentDir = mkdtempSync(join(tmpdir(), "toolsmith-reference-agent-"));
process.env.PI_CODING_AGENT_DIR = agentDir;
const turnCalls = process.env.PI_REFERENCE_TURN ? JSON.parse(process.env.PI_REFERENCE_TURN) : undefined;

/** A theme whose every style returns the text as it is: `fg(color, text)`, `bold(text)`, … */
const plainTheme = new Proxy(
	{},
	{ get: (_target, key) => (key === "fg" || key === "bg" ? (_color, text) => text : (text) => text) },
);

/** pi-ai's scripted model, answering the turn's tool calls and then "done", with a key the session accepts. */
async function scriptedModel() {
	const ai = await import(pathToFileURL(join(release, "..", "pi-ai", "dist", "compat.js")).href);
	const faux = ai.registerFauxProvider({ models: [{ id: "scripted" }], tokensPerSecond: 1e9 });
	faux.setResponses([
		ai.fauxAssistantMessage(
			turnCalls.map((call) => ai.fauxToolCall(call.name, call.args, { id: call.id })),
			{ stopReason: "toolUse" },
		),
		ai.fauxAssistantMessage("done"),
	]);
	const provider = faux.getModel().provider;
	writeFileSync(
		join(agentDir, "models.json"),
		JSON.stringify({
			providers: {
				[provider]: {
					api: faux.api,
					baseUrl: "http://127.0.0.1:9",
					apiKey: "scripted",
					models: faux.models.map((model) => ({ id: model.id })),
				},
			},
		}),
	);
	writeFileSync(join(agentDir, "auth.json"), JSON.stringify({ [provider]: { type: "api_key", key: "scripted" } }));
	return { faux, options: { model: faux.getModel(), thinkingLevel: "off" } };
}

/** The `tool_execution_*` events of the turn and its tool result messages. */
async function takeTurn(session, faux) {
	const events = [];
	const unsubscribe = session.subscribe((event) => {
		if (!event.type.startsWith("tool_execution_")) return;
		const { type, toolCallId, toolName, parentToolCallId, isError, durationMs, args, result, partialResult } = event;
		events.push({ type, toolCallId, toolName, parentToolCallId, isError, durationMs, args, result, partialResult });
	});
	await session.prompt("Go.");
	await session.agent.waitForIdle();
	unsubscribe();
	if (faux.getPendingResponseCount() !== 0) throw new Error("the turn ended before the scripted model's last answer");
	const results = session.agent.state.messages.filter((message) => message.role === "toolResult");
	return { events, results };
}

/** Each probe drawn with the renderers the session's extension runner chooses for its tool. */
function drawProbes(session) {
	return JSON.parse(process.env.PI_REFERENCE_RENDER ?? "[]").map(({ name, args, result, width }) => {
		const renderers = session.extensionRunner.resolveToolRenderers(name, () => session.getToolDefinition(name));
		const lines = (component) => (component ? component.render(width).map((line) => line.trimEnd()) : null);
		return {
			name,
			call: lines(renderers?.renderCall?.(args, plainTheme, {})),
			result:
				result === undefined
					? null
					: lines(renderers?.renderResult?.(result, { expanded: false, isPartial: false }, plainTheme, {})),
		};
	});
}

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
	const scripted = turnCalls ? await scriptedModel() : undefined;
	const { session } = await pi.createAgentSession({
		...scripted?.options,
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
	const turn = scripted ? await takeTurn(session, scripted.faux) : undefined;
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
		...(turn ? { turn } : {}),
		rendered: drawProbes(session),
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
