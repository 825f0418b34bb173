/**
 * `loadMcpTools`: the tools of an MCP server (a command over stdio, or a Streamable HTTP URL) as
 * toolsmith `ToolDefinition`s, with their input schemas compiled through the executor's JSON-Schema
 * path, progress as `onUpdate`, cancellation through the call's signal, `tools/list_changed`
 * followed, and a stdio server that dies started again for the next call (Node only).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Progress, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { TSchema } from "@sinclair/typebox";
import type { JsonValue, ToolResultContent } from "../contract/content.js";
import { errorMessage } from "../contract/errors.js";
import type {
	AgentToolResult,
	AgentToolUpdateCallback,
	ToolDefinition,
	ToolExposure,
	ToolNamespace,
} from "../contract/tool.js";
import { fromJsonSchema } from "../exec/from-json-schema.js";
import { API_VERSION } from "../extensions/api.js";
import { checkToolName } from "../providers/names.js";
import { notifyListeners } from "../shared/listeners.js";
import { type McpClientSdk, mcpClientSdk } from "./_node-sdk.js";
import { annotationsOf } from "./tools.js";

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

const DEFAULT_TIMEOUT_MS = 60_000;

function isStdio(options: LoadMcpToolsOptions): options is McpStdioServer & LoadMcpToolsOptions {
	return typeof (options as { command?: unknown }).command === "string";
}

function describeServer(options: LoadMcpToolsOptions): string {
	if (isStdio(options)) return [options.command, ...(options.args ?? [])].join(" ");
	return String((options as McpHttpServer).url);
}

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

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** MCP content blocks → toolsmith's text and image blocks (what has no image or text form is described in text). */
function toContent(blocks: readonly unknown[]): ToolResultContent[] {
	const out: ToolResultContent[] = [];
	for (const raw of blocks) {
		if (!isRecord(raw)) continue;
		if (raw.type === "text" && typeof raw.text === "string") out.push({ type: "text", text: raw.text });
		else if (raw.type === "image" && typeof raw.data === "string" && typeof raw.mimeType === "string") {
			out.push({ type: "image", data: raw.data, mimeType: raw.mimeType });
		} else if (raw.type === "audio") {
			out.push({ type: "text", text: `[audio content (${String(raw.mimeType)}) not shown]` });
		} else if (raw.type === "resource_link") {
			out.push({ type: "text", text: `[resource ${String(raw.uri)}${raw.name ? ` (${String(raw.name)})` : ""}]` });
		} else if (raw.type === "resource" && isRecord(raw.resource)) {
			const resource = raw.resource;
			out.push({
				type: "text",
				text: typeof resource.text === "string" ? resource.text : `[resource ${String(resource.uri)} (binary)]`,
			});
		}
	}
	return out;
}

function textOf(content: readonly ToolResultContent[]): string {
	return content
		.filter((block): block is Extract<ToolResultContent, { type: "text" }> => block.type === "text")
		.map((block) => block.text)
		.join("\n");
}

function isConnectionClosed(sdk: McpClientSdk, error: unknown): boolean {
	return error instanceof sdk.McpError && error.code === sdk.ErrorCode.ConnectionClosed;
}

/**
 * Connects to an MCP server and gives its tools as toolsmith `ToolDefinition`s, ready for
 * `api.registerTool`, the executor or `checkTool`. Rejects when the first connection or the first
 * `tools/list` fails (a stdio server's process is then ended). After that it never rejects for the
 * server's sake: a server that exits fails the calls in flight with an error saying so, is reported
 * as a diagnostic, and is started again by the next call.
 */
export async function loadMcpTools(options: LoadMcpToolsOptions): Promise<McpToolSet> {
	const where = describeServer(options);
	const diagnostics: McpDiagnostic[] = [];
	const listeners = new Set<(tools: readonly ToolDefinition<TSchema, McpToolDetails>[]) => void>();
	const reportedNames = new Set<string>();
	const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
	const prefix = typeof options.prefix === "string" && options.prefix !== "" ? `${options.prefix}_` : "";
	const sdk = await mcpClientSdk();
	let current: Client | undefined;
	let connecting: Promise<Client> | undefined;
	let closed = false;
	let everConnected = false;
	let tools: ToolDefinition<TSchema, McpToolDetails>[] = [];
	let serverInfo = { name: where, version: "" };

	/**
	 * The namespace of the server's tools, as pi 1.x names it: `mcp__<server>` (the prefix, else the
	 * server's own name, with every character but letters, digits and `_` as `_`), the server's name
	 * as an alias, its instructions.
	 */
	const namespaceOf = (): ToolNamespace => {
		const server = prefix !== "" ? prefix.slice(0, -1) : serverInfo.name;
		const instructions = current?.getInstructions()?.trim();
		const summary = options.description?.trim();
		return {
			name: `mcp__${server.replace(/[^A-Za-z0-9_]/g, "_")}`,
			aliases: [server],
			...(summary ? { description: summary } : {}),
			...(instructions ? { instructions } : {}),
		};
	};

	/** The server's own name and where it runs, once each. */
	const named = (): string => (serverInfo.name === where ? where : `${serverInfo.name} (${where})`);

	const report = (diagnostic: McpDiagnostic): void => {
		diagnostics.push(diagnostic);
		notifyListeners([options.onDiagnostic], diagnostic);
	};

	const connect = async (): Promise<Client> => {
		const client = new sdk.Client({ name: "toolsmith-sdk", version: API_VERSION });
		client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, async () => {
			if (client === current) await relist("the server changed its tools");
		});
		// A first connection that fails is an error of loadMcpTools itself, not a server that went away.
		let established = false;
		client.onclose = () => {
			if (client !== current || !established) return;
			current = undefined;
			if (!closed) {
				report({
					severity: "error",
					code: "server_exited",
					message: `The MCP server ${named()} closed the connection; the next call connects again.`,
				});
			}
		};
		current = client;
		try {
			await client.connect(makeTransport(sdk, options), { timeout });
		} catch (error) {
			current = undefined;
			await client.close().catch(() => undefined);
			throw new Error(`Cannot connect to the MCP server ${where}: ${errorMessage(error)}`, { cause: error });
		}
		established = true;
		const info = client.getServerVersion();
		if (info) serverInfo = { name: info.name, version: info.version };
		return client;
	};

	const ensureClient = (): Promise<Client> => {
		if (closed) return Promise.reject(new Error(`The MCP server ${named()} was closed.`));
		if (current && !connecting) return Promise.resolve(current);
		if (!connecting) {
			const wasConnected = everConnected;
			everConnected = true;
			connecting = connect().finally(() => {
				connecting = undefined;
			});
			// After a restart the server may offer other tools.
			if (wasConnected) connecting.then(() => relist("the server was started again")).catch(() => undefined);
		}
		return connecting;
	};

	const listAll = async (client: Client): Promise<Tool[]> => {
		const all: Tool[] = [];
		let cursor: string | undefined;
		do {
			const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout });
			all.push(...page.tools);
			cursor = page.nextCursor;
		} while (cursor !== undefined);
		return all;
	};

	const definitionOf = (tool: Tool): ToolDefinition<TSchema, McpToolDetails> | undefined => {
		const name = `${prefix}${tool.name}`;
		const verdict = checkToolName(name);
		const first = !reportedNames.has(tool.name);
		reportedNames.add(tool.name);
		if (!verdict.openai.ok && !verdict.anthropic.ok && !verdict.google.ok) {
			if (first) {
				report({
					severity: "error",
					code: "invalid_name",
					tool: tool.name,
					message: `Tool ${JSON.stringify(name)} of ${serverInfo.name} left out: no provider accepts its name (${verdict.openai.problem}).`,
				});
			}
			return undefined;
		}
		if (!verdict.portable && first) {
			const rejecting = (["openai", "anthropic", "google"] as const).filter((p) => !verdict[p].ok);
			report({
				severity: "warning",
				code: "invalid_name",
				tool: tool.name,
				message: `Tool ${JSON.stringify(name)} of ${serverInfo.name}: ${rejecting.join(", ")} reject${rejecting.length === 1 ? "s" : ""} its name (${verdict[rejecting[0] ?? "openai"].problem}).`,
			});
		}
		const description = tool.description?.trim() ?? "";
		if (description === "" && first) {
			report({
				severity: "warning",
				code: "no_description",
				tool: tool.name,
				message: `Tool ${JSON.stringify(name)} of ${serverInfo.name} has no description; its title or name stands in.`,
			});
		}
		const remote = tool.name;
		const annotations = annotationsOf(tool.annotations);
		const label = tool.title ?? tool.annotations?.title ?? tool.name;
		return {
			name,
			label,
			description: description !== "" ? description : `${label} (a tool of the MCP server ${serverInfo.name}).`,
			parameters: fromJsonSchema(tool.inputSchema),
			...(isRecord(tool.outputSchema) ? { outputSchema: tool.outputSchema as unknown as TSchema } : {}),
			...(annotations ? { annotations } : {}),
			...(options.exposure !== undefined ? { exposure: options.exposure } : {}),
			namespace: namespaceOf(),
			execute: (_id, params, signal, onUpdate) => callTool(remote, params, signal, onUpdate),
		};
	};

	const callTool = async (
		remote: string,
		params: unknown,
		signal: AbortSignal | undefined,
		onUpdate: AgentToolUpdateCallback<McpToolDetails> | undefined,
	): Promise<AgentToolResult<McpToolDetails>> => {
		signal?.throwIfAborted();
		const client = await ensureClient();
		const onprogress = (progress: Progress): void => {
			const { progress: done, total, message } = progress;
			const text = message ?? (total === undefined ? `progress ${done}` : `progress ${done}/${total}`);
			onUpdate?.({
				content: [{ type: "text", text }],
				details: {
					progress: {
						progress: done,
						...(total === undefined ? {} : { total }),
						...(message === undefined ? {} : { message }),
					},
				},
			});
		};
		let result: Awaited<ReturnType<Client["callTool"]>>;
		try {
			result = await client.callTool({ name: remote, arguments: isRecord(params) ? params : {} }, undefined, {
				timeout,
				resetTimeoutOnProgress: true,
				onprogress,
				...(signal ? { signal } : {}),
			});
		} catch (error) {
			if (signal?.aborted) throw signal.reason ?? error;
			if (isConnectionClosed(sdk, error) || client !== current) {
				throw new Error(
					`The MCP server ${named()} exited while ${remote} was running; the call did not finish. The next call starts the server again.`,
					{ cause: error },
				);
			}
			throw new Error(`MCP tool ${remote} failed: ${errorMessage(error)}`, { cause: error });
		}
		const blocks = Array.isArray(result.content) ? result.content : [];
		const content = toContent(blocks);
		const structured = isRecord(result.structuredContent) ? result.structuredContent : undefined;
		if (result.isError === true) {
			throw new Error(textOf(content) || `MCP tool ${remote} reported an error without a message.`);
		}
		if (content.length === 0 && structured) content.push({ type: "text", text: JSON.stringify(structured) });
		const details: McpToolDetails = {
			...(structured ? { structuredContent: structured } : {}),
			...(isRecord(result._meta) ? { meta: result._meta } : {}),
		};
		return { content, details, ...(structured ? { structuredContent: structured as JsonValue } : {}) };
	};

	const build = (list: readonly Tool[]): ToolDefinition<TSchema, McpToolDetails>[] =>
		list.map(definitionOf).filter((tool): tool is ToolDefinition<TSchema, McpToolDetails> => tool !== undefined);

	const refresh = async (): Promise<readonly ToolDefinition<TSchema, McpToolDetails>[]> => {
		const client = await ensureClient();
		tools = build(await listAll(client));
		notifyListeners(listeners, tools);
		return tools;
	};

	async function relist(why: string): Promise<void> {
		try {
			await refresh();
		} catch (error) {
			report({
				severity: "warning",
				code: "relist_failed",
				message: `Cannot list the tools of ${serverInfo.name} again after ${why}: ${errorMessage(error)}`,
			});
		}
	}

	const first = await ensureClient();
	try {
		tools = build(await listAll(first));
	} catch (error) {
		closed = true;
		await first.close().catch(() => undefined);
		throw new Error(`Cannot list the tools of the MCP server ${where}: ${errorMessage(error)}`, { cause: error });
	}

	return {
		get server() {
			return serverInfo;
		},
		get tools() {
			return tools;
		},
		diagnostics,
		onToolsChanged(listener) {
			listeners.add(listener);
			return () => {
				listeners.delete(listener);
			};
		},
		refresh,
		async close() {
			closed = true;
			const client = current;
			current = undefined;
			await client?.close().catch(() => undefined);
		},
	};
}
