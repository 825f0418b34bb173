/**
 * Runs two scenarios through the reference 1.x agent loop (its `Agent`, driven by pi-ai's scripted
 * model) and prints what happened as JSON, for test/integration/exec/pi-1x-executor.test.ts: a
 * parallel batch whose last call's `beforeToolCall` is slow, and one aborted from that hook.
 * Usage: node _executor-1x.mjs <release node_modules folder>. The reference is only called.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const modules = process.argv[2];
const load = (path) => import(pathToFileURL(join(modules, path)).href);
const ai = await load("@earendil-works/pi-ai/dist/compat.js");
const core = await load("@earendil-works/pi-agent-core/dist/index.js");
const { Type } = await load("typebox/build/index.mjs");

async function scenario(ids, hook) {
	const log = [];
	const tool = {
		name: "t",
		label: "t",
		description: "t",
		parameters: Type.Object({}),
		async execute(id) {
			log.push(`run:${id}`);
			await new Promise((resolve) => setTimeout(resolve, 30));
			return { content: [{ type: "text", text: id }], details: {} };
		},
	};
	const faux = ai.registerFauxProvider();
	faux.setResponses([
		ai.fauxAssistantMessage(ids.map((id) => ai.fauxToolCall("t", {}, { id }))),
		ai.fauxAssistantMessage("done"),
	]);
	const agent = new core.Agent({ streamFn: ai.streamSimple, initialState: { model: faux.getModel(), tools: [tool] } });
	agent.beforeToolCall = (context) => hook(context, log, agent);
	const events = [];
	agent.subscribe((e) => {
		if (e.type === "tool_execution_start" || e.type === "tool_execution_end") {
			events.push(`${e.type.slice(15)}:${e.toolCallId}`);
		}
	});
	await agent.prompt("go");
	faux.unregister();
	const results = agent.state.messages
		.filter((m) => m.role === "toolResult")
		.map((m) => ({ id: m.toolCallId, text: m.content[0]?.text, isError: m.isError, durationMs: m.durationMs }));
	return { log, events, results };
}

const slowLastHook = await scenario(["1", "2", "3"], async ({ toolCall }, log) => {
	if (toolCall.id !== "3") return undefined;
	log.push("hook:3");
	await new Promise((resolve) => setTimeout(resolve, 40));
	log.push("hook:3 done");
	return undefined;
});
const abortInHook = await scenario(["1", "2"], async ({ toolCall }, _log, agent) => {
	if (toolCall.id === "2") agent.abort();
	return undefined;
});
process.stdout.write(JSON.stringify({ slowLastHook, abortInHook }));
