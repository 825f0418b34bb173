/**
 * Runs scenarios through the reference 1.x agent loop (its `Agent`, driven by pi-ai's scripted
 * model) and prints what happened as JSON, for test/integration/exec/pi-1x-executor.test.ts: a
 * parallel batch whose last call's `beforeToolCall` is slow, one aborted from that hook, a tool
 * that returns `isError: true`, and blocked calls with and without `terminate`.
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

/**
 * A batch of calls to tools that return a result (with `isError: true`, or `terminate: true`), some
 * blocked by `beforeToolCall` as `blocks` says: the results, the end events' `isError`, what
 * `afterToolCall` saw, and whether the loop stopped after the batch.
 */
async function outcomes(calls, blocks) {
	const returning = (name, extra) => ({
		name,
		label: name,
		description: name,
		parameters: Type.Object({}),
		async execute(id) {
			return { content: [{ type: "text", text: `${name} ${id}` }], details: { id }, ...extra };
		},
	});
	const tools = [returning("fails", { isError: true }), returning("stop", { terminate: true }), returning("ok", {})];
	const faux = ai.registerFauxProvider();
	faux.setResponses([
		ai.fauxAssistantMessage(calls.map(([id, name]) => ai.fauxToolCall(name, {}, { id }))),
		ai.fauxAssistantMessage("done"),
	]);
	const afterSaw = [];
	const agent = new core.Agent({
		streamFn: ai.streamSimple,
		initialState: { model: faux.getModel(), tools },
		beforeToolCall: async ({ toolCall }) => blocks[toolCall.id],
		afterToolCall: async ({ toolCall, isError }) => {
			afterSaw.push([toolCall.id, isError]);
			return undefined;
		},
	});
	const ends = [];
	agent.subscribe((e) => {
		if (e.type === "tool_execution_end") ends.push([e.toolCallId, e.isError]);
	});
	await agent.prompt("go");
	const terminated = faux.getPendingResponseCount() === 1;
	faux.unregister();
	const results = agent.state.messages
		.filter((m) => m.role === "toolResult")
		.map((m) => ({ id: m.toolCallId, text: m.content[0]?.text, isError: m.isError, details: m.details }));
	return { results, ends, afterSaw, terminated };
}

const returnedError = await outcomes(
	[
		["1", "fails"],
		["2", "ok"],
	],
	{},
);
const blockedTerminate = await outcomes(
	[
		["1", "stop"],
		["2", "ok"],
	],
	{ 2: { block: true, reason: "not now", terminate: true } },
);
const blockedOnly = await outcomes(
	[
		["1", "stop"],
		["2", "ok"],
	],
	{ 2: { block: true, reason: "not now" } },
);
const terminateWithoutBlock = await outcomes([["1", "ok"]], { 1: { terminate: true } });
process.stdout.write(
	JSON.stringify({
		slowLastHook,
		abortInHook,
		outcomes: { returnedError, blockedTerminate, blockedOnly, terminateWithoutBlock },
	}),
);
