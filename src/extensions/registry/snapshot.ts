/**
 * Snapshots: the registry's tools at one version, worked out once per version (the winner of each
 * name, the active and callable subsets, the handlers in load order) and frozen, so a batch keeps
 * the tool versions it started with; and telling the change listeners of each new version.
 */
import { activatesOnRegistration, exposureOf, isActivatable, isToolCallable } from "../../contract/exposure.js";
import type { ToolContextFactory } from "../../contract/tool.js";
import type { ExecuteToolCallsConfig } from "../../exec/types.js";
import { buildToolsPrompt } from "../../prompt/tools-prompt.js";
import { notifyListeners } from "../../shared/listeners.js";
import type { ToolInfo } from "../api.js";
import { runToolCallHandlers, runToolResultHandlers } from "./hooks.js";
import { prepareLoadout } from "./loadout.js";
import {
	type HandlerSet,
	type Registration,
	type RegistryState,
	rankOf,
	type SnapshotState,
	sourcePath,
	winner,
} from "./state.js";
import { executorTools, toAgentTools, withCallable } from "./tools.js";
import type { RegistrySnapshot, ToolEntry } from "./types.js";

/** The registry changed: a new version, no cached snapshot, and the listeners told (with a new snapshot). */
export function changed(state: RegistryState): void {
	state.version++;
	state.cached = undefined;
	if (state.listeners.size === 0) return;
	const snap = snapshot(state);
	notifyListeners(state.listeners, snap);
}

/** The snapshot of the current version (made once per version). */
export function snapshot(state: RegistryState): RegistrySnapshot {
	if (state.cached) return state.cached;
	const { explicitActive, handlers, rank } = state;
	const entries = Object.freeze(currentEntries(state));
	const isActive = (entry: ToolEntry): boolean =>
		isActivatable(exposureOf(entry.definition)) &&
		(explicitActive === null ? activatesOnRegistration(entry.definition) : explicitActive.has(entry.name));
	const active = Object.freeze(entries.filter(isActive));
	const byEntryName = new Map(entries.map((entry) => [entry.name, entry]));
	const handlerSets = [...handlers.values()].sort((a, b) => (rank.get(a.path) ?? 0) - (rank.get(b.path) ?? 0));
	const activeNames = new Set(active.map((entry) => entry.name));
	const callable = Object.freeze(
		entries.filter((entry) => isToolCallable(exposureOf(entry.definition), activeNames.has(entry.name))),
	);
	const snap = createSnapshot({
		registry: state,
		version: state.version,
		entries,
		active,
		callable,
		byEntryName,
		handlerSets,
		inactiveCallable: callable.filter((entry) => !activeNames.has(entry.name)),
		loadout: undefined,
		defaultTools: undefined,
		defaultCallable: undefined,
	});
	state.cached = snap;
	return snap;
}

/** `getAllTools` of the extension API: every winning tool, with its exposure, source and whether it is active and callable. */
export function infos(state: RegistryState): ToolInfo[] {
	const snap = snapshot(state);
	const activeNames = new Set(snap.active.map((entry) => entry.name));
	const callableNames = new Set(snap.callable.map((entry) => entry.name));
	return snap.entries.map((entry): ToolInfo => {
		const { definition } = entry;
		return {
			name: entry.name,
			description: definition.description,
			parameters: definition.parameters,
			...(definition.promptGuidelines ? { promptGuidelines: definition.promptGuidelines } : {}),
			exposure: exposureOf(definition),
			...(definition.namespace ? { namespace: definition.namespace } : {}),
			...(definition.annotations ? { annotations: { ...definition.annotations } } : {}),
			...(definition.reachesTools ? { reachesTools: definition.reachesTools.bind(definition) } : {}),
			source: sourcePath(entry.source),
			active: activeNames.has(entry.name),
			callable: callableNames.has(entry.name),
		};
	});
}

/** The winner of every name, built-ins first, then extension tools in load order (each source's in registration order). */
function currentEntries(state: RegistryState): ToolEntry[] {
	const winners: Registration[] = [];
	for (const list of state.byName.values()) {
		const win = winner(state, list);
		if (win) winners.push(win);
	}
	winners.sort((a, b) => rankOf(state, a.source) - rankOf(state, b.source) || a.seq - b.seq);
	return winners.map((reg) =>
		Object.freeze({ name: reg.definition.name, definition: reg.definition, source: reg.source }),
	);
}

/** The frozen snapshot over `snap`, its hooks made once. */
function createSnapshot(snap: SnapshotState): RegistrySnapshot {
	const beforeToolCall = (context: Parameters<typeof runToolCallHandlers>[1]) => runToolCallHandlers(snap, context);
	const afterToolCall = (context: Parameters<typeof runToolResultHandlers>[1]) => runToolResultHandlers(snap, context);
	const hasHandlers = snap.handlerSets.some((set: HandlerSet) => set.toolCall.length > 0 || set.toolResult.length > 0);
	return Object.freeze({
		version: snap.version,
		entries: snap.entries,
		active: snap.active,
		callable: snap.callable,
		declarations: () => prepareLoadout(snap).declarations,
		get: (name: string) => snap.byEntryName.get(name),
		toAgentTools: (ctxFactory?: ToolContextFactory) => toAgentTools(snap, ctxFactory),
		buildToolsPrompt: () => buildToolsPrompt(prepareLoadout(snap).declared.map((entry) => entry.definition)),
		hooks: () => ({ beforeToolCall, afterToolCall }),
		executorConfig: (ctxFactory?: ToolContextFactory): ExecuteToolCallsConfig =>
			withCallable(
				snap,
				hasHandlers
					? { tools: executorTools(snap, ctxFactory), beforeToolCall, afterToolCall }
					: { tools: executorTools(snap, ctxFactory) },
				ctxFactory,
			),
	});
}
