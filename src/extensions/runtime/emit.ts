/** Session events to the extensions' handlers, and the MCP server changes to the runtime's listeners. */
import { errorMessage } from "../../contract/errors.js";
import { notifyListeners } from "../../shared/listeners.js";
import { listServers } from "../_mcp-servers.js";
import { withTimeout } from "../_timeout.js";
import type {
	ExtensionDiagnostic,
	ExtensionHandler,
	McpServersChangeEvent,
	SessionShutdownEvent,
	SessionStartEvent,
} from "../api.js";
import { createContext } from "./context.js";
import { errorPosition, TimeoutError } from "./errors.js";
import { type RuntimeState, report } from "./state.js";
import type { EmitOptions } from "./types.js";

/**
 * Run the handlers of `event` (every extension in load order, or one with `options.path`), each
 * bounded by `timeoutMs`; a handler that fails or times out becomes a diagnostic. Never rejects.
 */
export async function emit(
	state: RuntimeState,
	event: SessionStartEvent | SessionShutdownEvent | McpServersChangeEvent,
	emitOptions: EmitOptions = {},
): Promise<ExtensionDiagnostic[]> {
	if (event.type === "session_start" && event.reason === "startup" && emitOptions.path === undefined) {
		state.started = true;
	}
	const diagnostics: ExtensionDiagnostic[] = [];
	const targets =
		emitOptions.path === undefined ? [...state.active] : state.active.filter((i) => i.path === emitOptions.path);
	for (const instance of targets) {
		for (const handler of instance.handlers.get(event.type) ?? []) {
			try {
				const ctx = createContext(state, instance.path);
				await withTimeout(
					Promise.resolve().then(() => (handler as ExtensionHandler<typeof event.type>)(event as never, ctx)),
					emitOptions.timeoutMs,
					() => new TimeoutError(),
				);
			} catch (error) {
				const timedOut = error instanceof TimeoutError;
				report(
					state,
					{
						severity: "error",
						code: "E_HANDLER_FAILED",
						message: timedOut
							? `A ${event.type} handler of ${instance.path} did not settle within ${emitOptions.timeoutMs} ms; the runtime went on without it.`
							: `A ${event.type} handler of ${instance.path} threw: ${errorMessage(error)}.`,
						path: instance.path,
						...(timedOut ? {} : errorPosition(error, instance.path)),
					},
					diagnostics,
				);
			}
		}
	}
	return diagnostics;
}

/** The MCP servers changed: tell the listeners and, once the session started, the extensions (`mcp_servers_change`). */
export function mcpChanged(state: RuntimeState): void {
	notifyListeners(state.mcpListeners, listServers(state.mcpTable));
	if (state.started) void emit(state, { type: "mcp_servers_change", servers: listServers(state.mcpTable) });
}
