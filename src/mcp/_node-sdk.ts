/**
 * The MCP SDK, imported when a function of this folder first needs it. The SDK and the zod it
 * carries weigh more at import than the rest of `toolsmith-sdk/node`, so a process that never
 * speaks MCP must not pay for them: the other files of this folder import only the SDK's types,
 * and take its values from here.
 */
import type * as ClientIndex from "@modelcontextprotocol/sdk/client/index.js";
import type * as ClientStdio from "@modelcontextprotocol/sdk/client/stdio.js";
import type * as ClientHttp from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type * as ServerIndex from "@modelcontextprotocol/sdk/server/index.js";
import type * as ServerHttp from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type * as Types from "@modelcontextprotocol/sdk/types.js";

/** What `loadMcpTools` uses of the SDK. */
export interface McpClientSdk {
	readonly Client: typeof ClientIndex.Client;
	readonly StdioClientTransport: typeof ClientStdio.StdioClientTransport;
	readonly StreamableHTTPClientTransport: typeof ClientHttp.StreamableHTTPClientTransport;
	readonly ErrorCode: typeof Types.ErrorCode;
	readonly McpError: typeof Types.McpError;
	readonly ToolListChangedNotificationSchema: typeof Types.ToolListChangedNotificationSchema;
}

/** What `createMcpServer` uses of the SDK. */
export interface McpServerSdk {
	readonly Server: typeof ServerIndex.Server;
	readonly CallToolRequestSchema: typeof Types.CallToolRequestSchema;
	readonly ListToolsRequestSchema: typeof Types.ListToolsRequestSchema;
}

/** What `serveMcpOverHttp` uses of the SDK (besides `createMcpServer`'s part). */
export interface McpHttpSdk {
	readonly StreamableHTTPServerTransport: typeof ServerHttp.StreamableHTTPServerTransport;
	readonly isInitializeRequest: typeof Types.isInitializeRequest;
}

/** Import once; a failed import is tried again by the next caller rather than remembered. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
	let pending: Promise<T> | undefined;
	return () => {
		pending ??= load().catch((error: unknown) => {
			pending = undefined;
			throw error;
		});
		return pending;
	};
}

/** The SDK's JSON-RPC types and schemas (these bring in zod). */
export const mcpTypes = once(() => import("@modelcontextprotocol/sdk/types.js"));

export const mcpClientSdk = once(async (): Promise<McpClientSdk> => {
	const [client, stdio, http, types] = await Promise.all([
		import("@modelcontextprotocol/sdk/client/index.js"),
		import("@modelcontextprotocol/sdk/client/stdio.js"),
		import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
		mcpTypes(),
	]);
	return {
		Client: client.Client,
		StdioClientTransport: stdio.StdioClientTransport,
		StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
		ErrorCode: types.ErrorCode,
		McpError: types.McpError,
		ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
	};
});

export const mcpServerSdk = once(async (): Promise<McpServerSdk> => {
	const [server, types] = await Promise.all([import("@modelcontextprotocol/sdk/server/index.js"), mcpTypes()]);
	return {
		Server: server.Server,
		CallToolRequestSchema: types.CallToolRequestSchema,
		ListToolsRequestSchema: types.ListToolsRequestSchema,
	};
});

export const mcpHttpSdk = once(async (): Promise<McpHttpSdk> => {
	const [http, types] = await Promise.all([import("@modelcontextprotocol/sdk/server/streamableHttp.js"), mcpTypes()]);
	return {
		StreamableHTTPServerTransport: http.StreamableHTTPServerTransport,
		isInitializeRequest: types.isInitializeRequest,
	};
});
