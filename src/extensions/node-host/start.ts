/**
 * The initial load: discover every path, load each extension found (no per-extension
 * `session_start`), emit one `session_start` (`startup`) to all, wait for the MCP servers they
 * registered, then, with `watch`, put the watchers in place.
 */
import { resolve } from "node:path";
import { errorMessage } from "../../contract/errors.js";
import type { ExtensionDiagnostic } from "../api.js";
import { discoverExtensions } from "../node-discovery.js";
import { createFileWatcher, DEFAULT_DEBOUNCE_MS } from "../node-watcher.js";
import { activateOne } from "./activate.js";
import { onChanges } from "./reload.js";
import { collectDiagnostics, type HostState, knownEntry, logError, realpathOr, updateWatch } from "./state.js";
import type { ExtensionHostReady } from "./types.js";

/** Start the initial load; sets `state.ready` (and, once it settles, `state.isReady`). Never rejects. */
export function startHost(state: HostState): Promise<ExtensionHostReady> {
	const ready = loadAndWatch(state).catch((error: unknown) => {
		logError(state, `Loading the extensions failed unexpectedly: ${errorMessage(error)}`);
		return { extensions: state.runtime.extensions(), diagnostics: [], watching: false };
	});
	state.ready = ready;
	void ready.then(() => {
		state.isReady = true;
	});
	return ready;
}

async function loadAndWatch(state: HostState): Promise<ExtensionHostReady> {
	const diagnostics: ExtensionDiagnostic[] = [];
	await collectDiagnostics(state, undefined, diagnostics, () => loadAll(state));
	const watching = state.options.watch && !state.closed ? await startWatching(state) : false;
	return { extensions: state.runtime.extensions(), diagnostics, watching };
}

/** Discover every path (an entry found twice counts once), load each extension, then `session_start`. */
async function loadAll(state: HostState): Promise<void> {
	const { cwd, known, runtime } = state;
	const seen = new Set<string>();
	for (const raw of state.options.paths) {
		const found = await discoverExtensions([raw], { cwd });
		for (const diagnostic of found.diagnostics) runtime.report(diagnostic);
		const target = realpathOr(resolve(cwd, raw));
		const origin = state.roots.includes(target) ? target : undefined;
		for (const discovered of found.extensions) {
			if (seen.has(discovered.path)) continue;
			seen.add(discovered.path);
			state.registry.reserveSource(discovered.path);
			known.set(discovered.path, knownEntry(discovered, origin));
		}
	}
	for (const entry of [...known.values()]) {
		if (state.closed) break;
		await activateOne(state, entry, "startup", []);
	}
	await runtime.emit({ type: "session_start", reason: "startup" }, { timeoutMs: state.loadTimeoutMs });
	// Servers registered while loading (or on session_start) bring their tools before the host is ready.
	await state.mcpConnections.settled(state.loadTimeoutMs);
}

/** Put the watchers in place; whether the host watches once they are (false when it failed or closed). */
async function startWatching(state: HostState): Promise<boolean> {
	try {
		state.watcher = await createFileWatcher({
			debounceMs: state.options.debounceMs ?? DEFAULT_DEBOUNCE_MS,
			onChange: (changes) => onChanges(state, changes),
			onError: (error) => logError(state, `Watching the extension files failed: ${error.message}`),
		});
		updateWatch(state);
		await state.watcher.ready();
		return !state.closed;
	} catch (error) {
		logError(state, `Could not start watching the extension files: ${errorMessage(error)}`);
		return false;
	}
}
