/** What `loadMcpTools` takes and gives: the server to reach, the options, diagnostics, the tool set (Node only). */
import type { TSchema } from "@sinclair/typebox";
import type { ToolDefinition, ToolExposure } from "../../contract/tool.js";

/** An MCP server started as a child process and spoken to over its stdin and stdout. */
export interface McpStdioServer {
	readonly command: string;
	readonly args?: readonly string[];
	/** Added to the few variables the child inherits (`HOME`, `PATH`, `USER`, …), not to all of `process.env`. */
	readonly env?: Readonly<Record<string, string>>;
	readonly cwd?: string;
	/** Where the server's stderr goes (default `"inherit"`). */
	readonly stderr?: "inherit" | "ignore";
}

/** An MCP server reached over Streamable HTTP. */
export interface McpHttpServer {
	readonly url: string | URL;
	/** Sent with every request (an `Authorization` header, say). */
	readonly headers?: Readonly<Record<string, string>>;
}

/** A problem (or fact) `loadMcpTools` reports: a name no provider accepts, a server that exited. */
export interface McpDiagnostic {
	readonly severity: "error" | "warning" | "info";
	/** `invalid_name`, `no_description`, `server_exited`, `relist_failed`. */
	readonly code: "invalid_name" | "no_description" | "server_exited" | "relist_failed";
	readonly message: string;
	/** The server's name of the tool concerned, when one is. */
	readonly tool?: string;
}

/** Options of `loadMcpTools`: the server, and how its tools are named and called. */
export type LoadMcpToolsOptions = (McpStdioServer | McpHttpServer) & {
	/**
	 * Put before every tool name, joined by `_` (`prefix: "gh"` makes `create_issue` `gh_create_issue`).
	 * Default `false`: the server's names as they are.
	 */
	readonly prefix?: string | false;
	/** How long one call may go without an answer or a progress notification (default 60000 ms). */
	readonly timeoutMs?: number;
	/**
	 * The `exposure` of every tool (default: none, which is `"direct"`). pi 1.x gives MCP tools
	 * `"codemode"` unless configured otherwise; toolsmith has no codemode tool, so they stay direct
	 * unless asked.
	 */
	readonly exposure?: ToolExposure;
	/** A summary of the server for its tools' `namespace.description`. */
	readonly description?: string;
	/** Hears every diagnostic as it happens, also those raised after loading (a server that exited). */
	readonly onDiagnostic?: (diagnostic: McpDiagnostic) => void;
};

/** The `details` of an MCP tool's result: what the server sent besides its content. */
export interface McpToolDetails {
	/** The result's `structuredContent`, when the server sent one. */
	readonly structuredContent?: Record<string, unknown>;
	/** The result's `_meta`, when the server sent one. */
	readonly meta?: Record<string, unknown>;
	/** On partial results (`onUpdate`): the progress notification. */
	readonly progress?: { readonly progress: number; readonly total?: number; readonly message?: string };
}

/** The tools of one MCP server, kept current, and the connection behind them. */
export interface McpToolSet {
	/** The server's name and version, as it gave them when the first connection was made. */
	readonly server: { readonly name: string; readonly version: string };
	/** The server's tools as they are now (a new array after each `tools/list_changed`). */
	readonly tools: readonly ToolDefinition<TSchema, McpToolDetails>[];
	/** Every diagnostic so far. */
	readonly diagnostics: readonly McpDiagnostic[];
	/** Called with the new list after the server changed its tools; returns a function that unsubscribes. */
	onToolsChanged(listener: (tools: readonly ToolDefinition<TSchema, McpToolDetails>[]) => void): () => void;
	/** Lists the server's tools again now. */
	refresh(): Promise<readonly ToolDefinition<TSchema, McpToolDetails>[]>;
	/** Ends the connection (a stdio server's process too); later calls fail. */
	close(): Promise<void>;
}
