/**
 * `loadMcpTools`: the tools of an MCP server (a command over stdio, or a Streamable HTTP URL) as
 * toolsmith `ToolDefinition`s, with their input schemas compiled through the executor's JSON-Schema
 * path, progress as `onUpdate`, cancellation through the call's signal, `tools/list_changed`
 * followed, and a stdio server that dies started again for the next call (Node only). The steps
 * live in `node-client/`: the connection, the listing, the call.
 */
import { errorMessage } from "../contract/errors.js";
import { mcpClientSdk } from "./_node-sdk.js";
import { ensureClient } from "./node-client/connection.js";
import { buildTools, listAll, refresh, relist } from "./node-client/listing.js";
import { createClientState, type McpClientState } from "./node-client/state.js";
import type { LoadMcpToolsOptions, McpToolSet } from "./node-client/types.js";

export type {
	LoadMcpToolsOptions,
	McpDiagnostic,
	McpHttpServer,
	McpStdioServer,
	McpToolDetails,
	McpToolSet,
} from "./node-client/types.js";

/**
 * Connects to an MCP server and gives its tools as toolsmith `ToolDefinition`s, ready for
 * `api.registerTool`, the executor or `checkTool`. Rejects when the first connection or the first
 * `tools/list` fails (a stdio server's process is then ended). After that it never rejects for the
 * server's sake: a server that exits fails the calls in flight with an error saying so, is reported
 * as a diagnostic, and is started again by the next call.
 */
export async function loadMcpTools(options: LoadMcpToolsOptions): Promise<McpToolSet> {
	const sdk = await mcpClientSdk();
	const state: McpClientState = createClientState(options, sdk, (why) => relist(state, why));

	const first = await ensureClient(state);
	try {
		state.tools = buildTools(state, await listAll(state, first));
	} catch (error) {
		state.closed = true;
		await first.close().catch(() => undefined);
		throw new Error(`Cannot list the tools of the MCP server ${state.where}: ${errorMessage(error)}`, {
			cause: error,
		});
	}

	return {
		get server() {
			return state.serverInfo;
		},
		get tools() {
			return state.tools;
		},
		diagnostics: state.diagnostics,
		onToolsChanged(listener) {
			state.listeners.add(listener);
			return () => {
				state.listeners.delete(listener);
			};
		},
		refresh: () => refresh(state),
		async close() {
			state.closed = true;
			const client = state.current;
			state.current = undefined;
			await client?.close().catch(() => undefined);
		},
	};
}
