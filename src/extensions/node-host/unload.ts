/** Unloading one extension whose entry file went away: its `session_shutdown` (`exit`), then its removal. */
import type { ExtensionDiagnostic } from "../api.js";
import { collectDiagnostics, type HostState, toolsOf } from "./state.js";
import type { ExtensionReloadEvent } from "./types.js";

/** Shut down and remove the extension at `path` (batches wait meanwhile), and forget it. */
export async function unloadOne(
	state: HostState,
	path: string,
	trigger: "watch" | "manual",
	changedFiles: readonly string[],
): Promise<ExtensionReloadEvent> {
	const started = performance.now();
	const before = toolsOf(state, path);
	const diagnostics: ExtensionDiagnostic[] = [];
	try {
		await collectDiagnostics(state, path, diagnostics, async () => {
			state.swapGate.hold();
			try {
				if (state.runtime.get(path)) {
					await state.runtime.emit(
						{ type: "session_shutdown", reason: "exit" },
						{ path, timeoutMs: state.shutdownTimeoutMs },
					);
					state.runtime.remove(path);
				}
			} finally {
				state.swapGate.release();
			}
		});
	} finally {
		state.known.delete(path);
	}
	return {
		path,
		kind: "unload",
		ok: true,
		trigger,
		files: [...changedFiles],
		durationMs: performance.now() - started,
		added: [],
		removed: [...before.keys()],
		changed: [],
		diagnostics,
	};
}
