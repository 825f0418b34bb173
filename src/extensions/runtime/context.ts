/** The `ctx` handlers and tools of one extension (or the built-ins) get from a runtime. */
import { createHeadlessUI } from "../_ui.js";
import type { ExtensionContext } from "../api.js";
import type { RuntimeState } from "./state.js";

/** The `ctx` of `path` (undefined: the built-ins): an object of its own over the extension's base. */
export function createContext(state: RuntimeState, path: string | undefined, signal?: AbortSignal): ExtensionContext {
	let base = state.contextBases.get(path);
	if (!base) {
		base = contextBase(state, path);
		state.contextBases.set(path, base);
	}
	const ctx = { ...base };
	(ctx as { signal?: AbortSignal }).signal = signal;
	return ctx;
}

/** What a context holds besides its signal: the same for every call of one extension (or of the built-ins). */
function contextBase(state: RuntimeState, path: string | undefined): ExtensionContext {
	const { env, cwd, registry } = state;
	const base = {
		env,
		cwd,
		hasUI: false,
		// pi 1.x's run mode: toolsmith runs without a terminal UI, as pi's print mode does.
		mode: "print",
		ui: uiFor(state, path),
		...(path !== undefined ? { extension: { path } } : {}),
		// Present in the base so that a call's copy only sets it (adding a key to a spread copy is slow in V8).
		signal: undefined as AbortSignal | undefined,
		// What the reference context offers beyond the tool context, answered for a host
		// without an agent loop, so pi handlers that look at them keep working.
		model: undefined,
		isIdle: () => true,
		abort: () => {},
		hasPendingMessages: () => false,
		shutdown: () => {},
		getContextUsage: () => undefined,
		compact: () => {},
		getSystemPrompt: () => registry.buildToolsPrompt(),
		// A session that is never written: no file, no entries, this runtime's folder.
		sessionManager: state.session,
		scopedModels: [],
		// toolsmith loads the project's own extensions when asked to, so project trust is on.
		isProjectTrusted: () => true,
	};
	return base as unknown as ExtensionContext;
}

/** The headless UI of `path`: its notifications go to the runtime's log. */
function uiFor(state: RuntimeState, path: string | undefined) {
	const log = state.log;
	return createHeadlessUI((message, level) => {
		try {
			log(path === undefined ? { level, message } : { level, message, path });
		} catch {
			// best effort
		}
	});
}
