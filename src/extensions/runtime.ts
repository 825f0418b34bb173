/**
 * The extension runtime: runs extension factories against the `ExtensionAPI`, keeps what each
 * extension registered, swaps a new version of an extension in atomically, and emits session
 * events. Runtime-neutral: importing modules from disk is the Node loader's job; this file only
 * sees factories, so a harness can drive it with a MemoryExecutionEnv. What each member of the API
 * does is `_extension-api.ts`.
 *
 * This file is the front: the runtime's state is a record (`runtime/state.ts`) and its steps are
 * functions over it, in `runtime/`: activating a version (`activate.ts`), removing one
 * (`remove.ts`), session events (`emit.ts`), contexts (`context.ts`) and tool renderers
 * (`renderers.ts`).
 */
import { listServers } from "./_mcp-servers.js";
import type { LoadedExtension } from "./api.js";
import { activate } from "./runtime/activate.js";
import { createContext } from "./runtime/context.js";
import { emit } from "./runtime/emit.js";
import { remove } from "./runtime/remove.js";
import { resolveToolRenderers } from "./runtime/renderers.js";
import { createRuntimeState, report } from "./runtime/state.js";
import type { ExtensionRuntime, ExtensionRuntimeOptions } from "./runtime/types.js";

export { errorPosition } from "./runtime/errors.js";
export { DEFAULT_LOAD_TIMEOUT_MS } from "./runtime/state.js";
export type {
	ActivateOptions,
	ActivateResult,
	EmitOptions,
	ExtensionRuntime,
	ExtensionRuntimeOptions,
	StagedExtension,
} from "./runtime/types.js";

/** Creates an extension runtime over `options.env`: run factories with `activate`, remove them with `remove`, emit session events with `emit`. Hosts use it; `createExtensionHost` builds one for you. */
export function createExtensionRuntime(options: ExtensionRuntimeOptions): ExtensionRuntime {
	const state = createRuntimeState(options);
	const { registry, mcpListeners } = state;
	registry.setContextFactory((info) =>
		createContext(state, info.source.kind === "extension" ? info.source.path : undefined, info.signal),
	);
	return {
		registry,
		events: state.bus,
		env: state.env,
		cwd: state.cwd,
		extensions: () => state.active.map((instance) => instance.record as LoadedExtension),
		get: (path) => state.byPath.get(path)?.record,
		activate: (path, factory, activateOptions) => activate(state, path, factory, activateOptions),
		remove: (path) => remove(state, path),
		emit: (event, emitOptions) => emit(state, event, emitOptions),
		resolveToolRenderers: (toolName, base) => resolveToolRenderers(state, toolName, base),
		mcpServers: () => listServers(state.mcpTable),
		onMcpServersChange(listener) {
			mcpListeners.add(listener);
			return () => {
				mcpListeners.delete(listener);
			};
		},
		createContext: (path, signal) => createContext(state, path, signal),
		report: (diagnostic) => report(state, diagnostic),
	};
}
