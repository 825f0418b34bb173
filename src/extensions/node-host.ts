/**
 * The extension host: built-in tools plus extensions in one runtime, a batch executor over a
 * registry snapshot, and hot reload of one extension at a time. Node-only.
 *
 * Reload order (see docs/hot-reload.md): the new version is imported and its factory run while the
 * previous version keeps serving; only when that worked and its tools are valid does the previous
 * version get its `session_shutdown`, the swap happen, and the new version get its `session_start`.
 * A failure anywhere before the swap leaves the previous version exactly as it was, with no handler
 * of it run. Batches that start during the shutdown–swap–start step wait for it; batches already
 * running finish on the snapshot they started with.
 *
 * This file is the front: the host's state is a record (`node-host/state.ts`) and its steps are
 * functions over it, in `node-host/`: the initial load (`start.ts`), loading one version
 * (`activate.ts`), unloading (`unload.ts`), the reload steps (`reload.ts`) and closing
 * (`close.ts`). The parts they use are modules of their own: which extensions a change concerns
 * (`_change-routing.ts`), one step at a time (`_reload-queue.ts`), batches waiting out a swap
 * (`_swap-gate.ts`), the caller's hooks after the extensions' (`_host-hooks.ts`) and the tool
 * changes a reload reports (`_tool-changes.ts`).
 */
import type { ToolCall } from "../contract/content.js";
import { executeToolCalls } from "../exec/execute.js";
import type { ExecuteToolCallsResult } from "../exec/types.js";
import { composeAfter, composeBefore } from "./_host-hooks.js";
import { closeHost } from "./node-host/close.js";
import { reloadHost } from "./node-host/reload.js";
import { startHost } from "./node-host/start.js";
import { createHostState, type HostState } from "./node-host/state.js";
import type {
	ExtensionDiagnosticListener,
	ExtensionHost,
	ExtensionHostExecuteOptions,
	ExtensionHostOptions,
	ExtensionReloadListener,
} from "./node-host/types.js";

export { DEFAULT_SHUTDOWN_TIMEOUT_MS } from "./node-host/state.js";
export type {
	ExtensionDiagnosticListener,
	ExtensionHost,
	ExtensionHostExecuteOptions,
	ExtensionHostOptions,
	ExtensionHostReady,
	ExtensionReloadEvent,
	ExtensionReloadListener,
} from "./node-host/types.js";
export { DEFAULT_DEBOUNCE_MS } from "./node-watcher.js";

/**
 * Create a host: it starts loading at once (`ready` says when it is done) and, with `watch`,
 * reloads an extension when one of its files changes. Never throws.
 */
export function createExtensionHost(options: ExtensionHostOptions): ExtensionHost {
	const state = createHostState(options);
	const ready = startHost(state);
	const { registry, runtime } = state;
	return {
		registry,
		runtime,
		ready,
		tools: (ctxFactory) => registry.snapshot().toAgentTools(ctxFactory),
		execute: (toolCalls, executeOptions) => executeBatch(state, toolCalls, executeOptions),
		buildToolsPrompt: () => registry.buildToolsPrompt(),
		extensions: () => runtime.extensions(),
		on(event: "reload" | "diagnostic", listener: ExtensionReloadListener | ExtensionDiagnosticListener) {
			const set = (event === "reload" ? state.reloadListeners : state.diagnosticListeners) as Set<typeof listener>;
			set.add(listener);
			return () => {
				set.delete(listener);
			};
		},
		reload: (path) => reloadHost(state, path),
		close: () => closeHost(state),
	};
}

/**
 * One batch over a registry snapshot taken once `ready` settled and no swap is in progress, with
 * the extensions' hooks of that snapshot and the caller's after them.
 */
async function executeBatch(
	state: HostState,
	toolCalls: readonly ToolCall[],
	executeOptions: ExtensionHostExecuteOptions = {},
): Promise<ExecuteToolCallsResult> {
	if (!state.isReady) await state.ready;
	await state.swapGate.wait();
	const config = state.registry.snapshot().executorConfig(executeOptions.ctxFactory);
	const hooks = {
		beforeToolCall: composeBefore(config.beforeToolCall, executeOptions.beforeToolCall),
		afterToolCall: composeAfter(config.afterToolCall, executeOptions.afterToolCall),
	};
	return executeToolCalls(toolCalls, {
		...executeOptions,
		...hooks,
		tools: config.tools,
		callableTools: executeOptions.callableTools ?? config.callableTools,
	});
}
