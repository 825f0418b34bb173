/**
 * Closing a host: stop watching, let a reload step in progress finish (queued ones are dropped),
 * run every extension's `session_shutdown` (`exit`), close the MCP connections, and put back what
 * the process guards replaced. Runs once; never rejects.
 */
import { errorMessage } from "../../contract/errors.js";
import { type HostState, logError } from "./state.js";

/** `close()`: the one run of the shutdown, started by the first call. */
export function closeHost(state: HostState): Promise<void> {
	state.closing ??= shutDown(state)
		.catch((error: unknown) => {
			logError(state, `Closing the extension host failed: ${errorMessage(error)}`);
		})
		.finally(() => {
			state.removeErrorGuard?.();
			state.removeExitGuard?.();
		});
	return state.closing;
}

async function shutDown(state: HostState): Promise<void> {
	state.closed = true;
	await state.ready;
	try {
		await state.watcher?.close();
	} catch {
		// closing never fails the caller
	}
	await state.reloads.idle();
	await state.runtime.emit({ type: "session_shutdown", reason: "exit" }, { timeoutMs: state.shutdownTimeoutMs });
	await state.mcpConnections.close();
}
