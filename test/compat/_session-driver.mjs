/**
 * Drives one installed reference release through the scripted scenarios and has it write a session
 * file. Run by test/compat/generate-sessions.ts in a child process, under the Node the release
 * needs, as `node _session-driver.mjs <json>` where the JSON names `packageDir` (the release's
 * pi-coding-agent folder), `aiDir` (its pi-ai folder), `world` (an empty folder the scenarios run
 * in) and `sessionDir` (where the session file goes). Prints one JSON line: the session file, how it
 * was made, and the tools used.
 *
 * - A release whose AI package ships the scripted model (`registerFauxProvider`) runs its own agent:
 *   `createAgentSession` with a `SessionManager` on disk, the model answering each turn with the
 *   next batch of tool calls. The release writes the session itself.
 * - An older release has its tools called directly, batch by batch, and the session written with
 *   the release's own `SessionManager` where it has `appendMessage`, else in the line format those
 *   releases wrote (a `session` header, then one `message` entry per message).
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { prepareWorld, scenarioBatches } from "./_session-scenarios.mjs";

const config = JSON.parse(process.argv[2]);
const TOOL_NAMES = ["read", "bash", "edit", "write", "grep", "find", "ls"];

function entryOf(dir) {
	const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
	const main = manifest.exports?.["."]?.import ?? manifest.exports?.["."]?.default ?? manifest.main ?? "index.js";
	return pathToFileURL(join(dir, typeof main === "string" ? main : "dist/index.js")).href;
}

const pkg = await import(entryOf(config.packageDir));
const ai = await aiModule();

/** The AI package, or (where later releases moved the scripted model) its `compat` entry. */
async function aiModule() {
	const main = await import(entryOf(config.aiDir));
	if (typeof main.registerFauxProvider === "function") return main;
	const manifest = JSON.parse(readFileSync(join(config.aiDir, "package.json"), "utf8"));
	const compat = manifest.exports?.["./compat"]?.import;
	if (typeof compat !== "string") return main;
	const extra = await import(pathToFileURL(join(config.aiDir, compat)).href);
	return typeof extra.registerFauxProvider === "function" ? { ...main, ...extra } : main;
}
mkdirSync(config.world, { recursive: true });
mkdirSync(config.sessionDir, { recursive: true });
prepareWorld(config.world);
process.chdir(config.world);

/** The release's tool objects by name, made for the scenario folder. */
function releaseTools() {
	const tools = {};
	for (const name of TOOL_NAMES) {
		const factory = pkg[`create${name[0].toUpperCase()}${name.slice(1)}Tool`];
		const tool = typeof factory === "function" ? factory(config.world) : pkg[`${name}Tool`];
		if (tool) tools[name] = tool;
	}
	return tools;
}

const tools = releaseTools();
const shapes = Object.fromEntries(
	Object.entries(tools).map(([name, tool]) => [name, Object.keys(tool.parameters?.properties ?? {})]),
);
const batches = scenarioBatches(shapes);
let callId = 0;
const nextId = () => `call_${String(++callId).padStart(3, "0")}`;
const PROMPT = "Run the scripted scenarios.";

const usage = {
	input: 0,
	output: 0,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 0,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
function assistant(content, stopReason) {
	return {
		role: "assistant",
		content,
		api: "scripted",
		provider: "scripted",
		model: "scripted",
		usage,
		stopReason,
		timestamp: Date.now(),
	};
}

async function runWithAgent() {
	const faux = ai.registerFauxProvider({ models: [{ id: "scripted" }], tokensPerSecond: 1e9 });
	const steps = batches.map(
		(batch) => () =>
			ai.fauxAssistantMessage(
				batch.map((call) => ai.fauxToolCall(call.name, call.arguments, { id: nextId() })),
				{ stopReason: "toolUse" },
			),
	);
	steps.push(() => ai.fauxAssistantMessage("Done."));
	faux.setResponses(steps);
	const agentDir = join(config.sessionDir, "..", "agent");
	mkdirSync(agentDir, { recursive: true });
	// A key for the scripted provider (it never checks one, but the agent refuses to start without):
	// given at run time where the release allows, else in the agent folder's auth.json.
	const provider = faux.getModel().provider;
	writeFileSync(join(agentDir, "auth.json"), JSON.stringify({ [provider]: { type: "api_key", key: "scripted" } }));
	// Releases from 0.80 on know only the providers of their catalog and of models.json.
	const models = faux.models.map((model) => ({ id: model.id }));
	writeFileSync(
		join(agentDir, "models.json"),
		JSON.stringify({
			providers: { [provider]: { api: faux.api, baseUrl: "http://127.0.0.1:9", apiKey: "scripted", models } },
		}),
	);
	const authStorage =
		typeof pkg.AuthStorage?.prototype?.setRuntimeApiKey === "function"
			? (pkg.AuthStorage.inMemory?.() ?? pkg.AuthStorage.create(join(agentDir, "auth.json")))
			: undefined;
	authStorage?.setRuntimeApiKey(provider, "scripted");
	const sessionManager = pkg.SessionManager.create(config.world, config.sessionDir);
	const options = {
		cwd: config.world,
		agentDir,
		model: faux.getModel(),
		thinkingLevel: "off",
		sessionManager,
		tools: Object.keys(tools),
	};
	if (authStorage) options.authStorage = authStorage;
	if (pkg.SettingsManager?.inMemory) options.settingsManager = pkg.SettingsManager.inMemory();
	let { session } = await pkg.createAgentSession(options);
	// Releases before 0.70 take the tools as objects, later ones by name.
	const active = session.agent?.state?.tools;
	if (Array.isArray(active) && !active.some((tool) => tool.name === "read")) {
		session.dispose?.();
		({ session } = await pkg.createAgentSession({ ...options, tools: Object.values(tools) }));
	}
	await session.prompt(PROMPT);
	await session.agent?.waitForIdle?.();
	if (faux.getPendingResponseCount() !== 0) {
		throw new Error(`the agent stopped with ${faux.getPendingResponseCount()} scripted responses left`);
	}
	const file = sessionManager.getSessionFile?.();
	session.dispose?.();
	return file;
}

/** Writes messages: through the release's SessionManager, or as the early line format. */
function sessionWriter() {
	if (
		typeof pkg.SessionManager?.create === "function" &&
		typeof pkg.SessionManager.prototype?.appendMessage === "function"
	) {
		const manager = pkg.SessionManager.create(config.world, config.sessionDir);
		return {
			write: (message) => manager.appendMessage(message),
			file: () => manager.getSessionFile(),
			how: "session manager",
		};
	}
	const file = join(config.sessionDir, "session.jsonl");
	const line = (entry) => appendFileSync(file, `${JSON.stringify(entry)}\n`);
	line({
		type: "session",
		id: "scripted-session",
		timestamp: new Date().toISOString(),
		cwd: config.world,
		provider: "scripted",
		modelId: "scripted",
		thinkingLevel: "off",
	});
	return {
		write: (message) => line({ type: "message", timestamp: new Date().toISOString(), message }),
		file: () => file,
		how: "early line format",
	};
}

async function runTools() {
	const writer = sessionWriter();
	writer.write({ role: "user", content: [{ type: "text", text: PROMPT }], timestamp: Date.now() });
	for (const batch of batches) {
		const calls = batch.map((call) => ({ type: "toolCall", id: nextId(), name: call.name, arguments: call.arguments }));
		writer.write(assistant(calls, "toolUse"));
		// One after another: the results do not depend on the order (each batch's calls touch different files).
		for (const call of calls) {
			let result;
			try {
				const out = await tools[call.name].execute(call.id, call.arguments, undefined, () => {});
				result = { content: out.content, details: out.details, isError: false };
			} catch (error) {
				result = {
					content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }],
					details: {},
					isError: true,
				};
			}
			writer.write({ role: "toolResult", toolCallId: call.id, toolName: call.name, ...result, timestamp: Date.now() });
		}
	}
	writer.write(assistant([{ type: "text", text: "Done." }], "stop"));
	return { file: writer.file(), how: writer.how };
}

let file;
let how;
if (typeof ai.registerFauxProvider === "function" && typeof pkg.createAgentSession === "function") {
	file = await runWithAgent();
	how = "agent";
} else {
	({ file, how } = await runTools());
}
file ??= readdirSync(config.sessionDir)
	.filter((name) => name.endsWith(".jsonl"))
	.map((name) => join(config.sessionDir, name))[0];
// A release that did not take the tools answers every call with "Tool read not found".
const missing = readFileSync(file, "utf8").match(/"text":"Tool [a-z]+ not found"/);
if (missing) throw new Error(`the release did not get its tools (${missing[0]})`);
console.log(JSON.stringify({ file, how, tools: Object.keys(tools), calls: callId }));
process.exit(0);
