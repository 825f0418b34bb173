/**
 * The tool registry: built-in tools and the tools extensions register, with their sources, the
 * active set the model sees, and the `tool_call`/`tool_result` handlers that wrap every call.
 *
 * Runtime-neutral: no `node:` imports. The loader fills it; hosts read immutable snapshots from it,
 * so a batch that started keeps the tool versions it started with while a reload swaps in new ones.
 *
 * This file is the front: the registry's state is a record (`registry/state.ts`) and its steps are
 * functions over it, in `registry/`: changing it (`register.ts`), snapshots (`snapshot.ts`), a
 * snapshot's AgentTools (`tools.ts`), hooks (`hooks.ts`) and loadout (`loadout.ts`), and the rules
 * a definition keeps (`validate.ts`).
 */
import {
	add,
	register,
	removeSource,
	replaceSource,
	setActiveTools,
	setHandlers,
	unregister,
} from "./registry/register.js";
import { infos, snapshot } from "./registry/snapshot.js";
import { createRegistryState, reserve } from "./registry/state.js";
import type { ToolRegistry, ToolRegistryOptions } from "./registry/types.js";

export { BUILTIN_SOURCE } from "./registry/state.js";
export type {
	RegisterResult,
	RegistryContextFactory,
	RegistryContextInfo,
	RegistrySnapshot,
	SourceHandlers,
	ToolDeclaration,
	ToolEntry,
	ToolRegistry,
	ToolRegistryOptions,
	ToolSource,
} from "./registry/types.js";
export { validateToolDefinition } from "./registry/validate.js";

/** Creates a tool registry holding the built-ins and the tools extensions register, with the hooks they add. Hosts use it; `createExtensionRuntime` makes one when given none. */
export function createToolRegistry(options: ToolRegistryOptions = {}): ToolRegistry {
	const state = createRegistryState(options);
	const registry: ToolRegistry = {
		register: (definition, source = { kind: "builtin" }) => register(state, definition, source),
		unregister: (name, source) => unregister(state, name, source),
		replaceSource: (path, tools, sourceHandlers) => replaceSource(state, path, tools, sourceHandlers),
		setHandlers: (path, sourceHandlers) => setHandlers(state, path, sourceHandlers),
		removeSource: (path) => removeSource(state, path),
		reserveSource: (path) => reserve(state, path),
		get: (name) => snapshot(state).get(name),
		entries: () => snapshot(state).entries,
		infos: () => infos(state),
		setActiveTools: (names) => setActiveTools(state, names),
		getActiveTools: () => snapshot(state).active.map((entry) => entry.name),
		snapshot: () => snapshot(state),
		toAgentTools: (ctxFactory) => snapshot(state).toAgentTools(ctxFactory),
		buildToolsPrompt: () => snapshot(state).buildToolsPrompt(),
		hooks: () => snapshot(state).hooks(),
		executorConfig: (ctxFactory) => snapshot(state).executorConfig(ctxFactory),
		onChange(listener) {
			state.listeners.add(listener);
			return () => state.listeners.delete(listener);
		},
		setContextFactory(factory) {
			state.contextFactory = factory;
		},
	};
	for (const builtin of options.builtins ?? []) add(state, builtin, { kind: "builtin" }, []);
	return registry;
}
