/**
 * One `loadMcpTools` connection's state: the options, the client connected now (or being
 * connected), the tools as last listed, the diagnostics, who hears of new tools; with the names and
 * reports every step shares (Node only).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { TSchema } from "@sinclair/typebox";
import type { ToolDefinition, ToolNamespace } from "../../contract/tool.js";
import { notifyListeners } from "../../shared/listeners.js";
import type { McpClientSdk } from "../_node-sdk.js";
import type { LoadMcpToolsOptions, McpDiagnostic, McpHttpServer, McpStdioServer, McpToolDetails } from "./types.js";

const DEFAULT_TIMEOUT_MS = 60_000;

export type McpTool = ToolDefinition<TSchema, McpToolDetails>;

/** Everything one `loadMcpTools` keeps while its tool set lives. */
export interface McpClientState {
	readonly options: LoadMcpToolsOptions;
	readonly sdk: McpClientSdk;
	/** The server as typed: its command line or URL. */
	readonly where: string;
	/** How long one request may go without an answer or a progress notification. */
	readonly timeout: number;
	/** Put before every tool name (`gh_`), or "". */
	readonly prefix: string;
	readonly diagnostics: McpDiagnostic[];
	readonly listeners: Set<(tools: readonly McpTool[]) => void>;
	/** Server tool names already reported on (each is reported once). */
	readonly reportedNames: Set<string>;
	/** Lists the tools again, reporting a failure as a diagnostic (`why` says what prompted it). */
	readonly relist: (why: string) => Promise<void>;
	/** The client connected now. */
	current: Client | undefined;
	/** The connection being made now. */
	connecting: Promise<Client> | undefined;
	closed: boolean;
	/** A connection was asked for before (the next one is a restart). */
	everConnected: boolean;
	tools: McpTool[];
	serverInfo: { name: string; version: string };
}

export function isStdio(options: LoadMcpToolsOptions): options is McpStdioServer & LoadMcpToolsOptions {
	return typeof (options as { command?: unknown }).command === "string";
}

function describeServer(options: LoadMcpToolsOptions): string {
	if (isStdio(options)) return [options.command, ...(options.args ?? [])].join(" ");
	return String((options as McpHttpServer).url);
}

/** A fresh state, not connected yet. */
export function createClientState(
	options: LoadMcpToolsOptions,
	sdk: McpClientSdk,
	relist: (why: string) => Promise<void>,
): McpClientState {
	const where = describeServer(options);
	return {
		options,
		sdk,
		where,
		timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
		prefix: typeof options.prefix === "string" && options.prefix !== "" ? `${options.prefix}_` : "",
		diagnostics: [],
		listeners: new Set(),
		reportedNames: new Set(),
		relist,
		current: undefined,
		connecting: undefined,
		closed: false,
		everConnected: false,
		tools: [],
		serverInfo: { name: where, version: "" },
	};
}

/** The server's own name and where it runs, once each. */
export function named(state: McpClientState): string {
	const { serverInfo, where } = state;
	return serverInfo.name === where ? where : `${serverInfo.name} (${where})`;
}

/** Keeps `diagnostic` and tells `onDiagnostic`. */
export function report(state: McpClientState, diagnostic: McpDiagnostic): void {
	state.diagnostics.push(diagnostic);
	notifyListeners([state.options.onDiagnostic], diagnostic);
}

/**
 * The namespace of the server's tools, as pi 1.x names it: `mcp__<server>` (the prefix, else the
 * server's own name, with every character but letters, digits and `_` as `_`), the server's name
 * as an alias, its instructions.
 */
export function namespaceOf(state: McpClientState): ToolNamespace {
	const { prefix } = state;
	const server = prefix !== "" ? prefix.slice(0, -1) : state.serverInfo.name;
	const instructions = state.current?.getInstructions()?.trim();
	const summary = state.options.description?.trim();
	return {
		name: `mcp__${server.replace(/[^A-Za-z0-9_]/g, "_")}`,
		aliases: [server],
		...(summary ? { description: summary } : {}),
		...(instructions ? { instructions } : {}),
	};
}
