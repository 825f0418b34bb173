/**
 * The connection to the MCP server: made on first need, its transport (stdio or Streamable HTTP),
 * `tools/list_changed` followed, a server that goes away reported and connected again by the next
 * call (Node only).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { errorMessage } from "../../contract/errors.js";
import { API_VERSION } from "../../extensions/api.js";
import type { McpClientSdk } from "../_node-sdk.js";
import { isStdio, type McpClientState, named, report } from "./state.js";
import type { LoadMcpToolsOptions, McpHttpServer } from "./types.js";

function makeTransport(sdk: McpClientSdk, options: LoadMcpToolsOptions): Transport {
	if (isStdio(options)) {
		return new sdk.StdioClientTransport({
			command: options.command,
			args: [...(options.args ?? [])],
			...(options.env ? { env: { ...options.env } } : {}),
			...(options.cwd ? { cwd: options.cwd } : {}),
			stderr: options.stderr ?? "inherit",
		});
	}
	const http = options as McpHttpServer;
	return new sdk.StreamableHTTPClientTransport(new URL(String(http.url)), {
		requestInit: http.headers ? { headers: { ...http.headers } } : undefined,
	});
}

/** Connects a new client, made the current one; rejects (and forgets it) when the connection fails. */
async function connect(state: McpClientState): Promise<Client> {
	const { sdk } = state;
	const client = new sdk.Client({ name: "toolsmith-sdk", version: API_VERSION });
	client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, async () => {
		if (client === state.current) await state.relist("the server changed its tools");
	});
	// A first connection that fails is an error of loadMcpTools itself, not a server that went away.
	let established = false;
	client.onclose = () => {
		if (client !== state.current || !established) return;
		state.current = undefined;
		if (!state.closed) {
			report(state, {
				severity: "error",
				code: "server_exited",
				message: `The MCP server ${named(state)} closed the connection; the next call connects again.`,
			});
		}
	};
	state.current = client;
	try {
		await client.connect(makeTransport(sdk, state.options), { timeout: state.timeout });
	} catch (error) {
		state.current = undefined;
		await client.close().catch(() => undefined);
		throw new Error(`Cannot connect to the MCP server ${state.where}: ${errorMessage(error)}`, { cause: error });
	}
	established = true;
	const info = client.getServerVersion();
	if (info) state.serverInfo = { name: info.name, version: info.version };
	return client;
}

/** The client connected now, or the one being connected (a restart lists the tools again). */
export function ensureClient(state: McpClientState): Promise<Client> {
	if (state.closed) return Promise.reject(new Error(`The MCP server ${named(state)} was closed.`));
	if (state.current && !state.connecting) return Promise.resolve(state.current);
	if (!state.connecting) {
		const wasConnected = state.everConnected;
		state.everConnected = true;
		const connecting = connect(state).finally(() => {
			state.connecting = undefined;
		});
		state.connecting = connecting;
		// After a restart the server may offer other tools.
		if (wasConnected) connecting.then(() => state.relist("the server was started again")).catch(() => undefined);
		return connecting;
	}
	return state.connecting;
}
