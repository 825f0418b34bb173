/** A snapshot's tools as AgentTools: every call gets a fresh `ctx` (extension tools: with `extension.path`). */
import type { AgentTool, ToolContextFactory } from "../../contract/tool.js";
import { wrapToolDefinition } from "../../contract/tool.js";
import type { ExecuteToolCallsConfig } from "../../exec/types.js";
import { resolveContext, type SnapshotState } from "./state.js";
import type { ToolEntry } from "./types.js";

/** One entry as an AgentTool (labelled with its name when it has no label). */
export function agentToolOf(snap: SnapshotState, entry: ToolEntry, ctxFactory?: ToolContextFactory): AgentTool {
	const registry = snap.registry;
	const tool = wrapToolDefinition(entry.definition, (info) =>
		// Spelled out: a spread followed by another key is slow in V8, and this runs for every call.
		resolveContext(
			registry,
			{ toolCallId: info.toolCallId, toolName: info.toolName, signal: info.signal, source: entry.source },
			ctxFactory,
		),
	);
	if (typeof tool.label !== "string" || tool.label === "") return { ...tool, label: entry.name };
	return tool;
}

/** AgentTools for the active set. */
export function toAgentTools(snap: SnapshotState, ctxFactory?: ToolContextFactory): AgentTool[] {
	return snap.active.map((entry) => agentToolOf(snap, entry, ctxFactory));
}

/**
 * The executor's tools: with the registry's own context factory, wrapped once per snapshot (a host
 * runs every batch with them; their contexts are still made call by call).
 */
export function executorTools(snap: SnapshotState, ctxFactory?: ToolContextFactory): readonly AgentTool[] {
	if (ctxFactory) return toAgentTools(snap, ctxFactory);
	snap.defaultTools ??= Object.freeze(toAgentTools(snap));
	return snap.defaultTools;
}

/** `config` with the callable tools that are not active, when there are any (a codemode or deferred tool is callable whenever it is registered). */
export function withCallable(
	snap: SnapshotState,
	config: ExecuteToolCallsConfig,
	ctxFactory?: ToolContextFactory,
): ExecuteToolCallsConfig {
	return snap.inactiveCallable.length === 0 ? config : { ...config, callableTools: callableTools(snap, ctxFactory) };
}

function callableTools(snap: SnapshotState, ctxFactory?: ToolContextFactory): readonly AgentTool[] {
	if (ctxFactory) return snap.inactiveCallable.map((entry) => agentToolOf(snap, entry, ctxFactory));
	snap.defaultCallable ??= Object.freeze(snap.inactiveCallable.map((entry) => agentToolOf(snap, entry)));
	return snap.defaultCallable;
}
