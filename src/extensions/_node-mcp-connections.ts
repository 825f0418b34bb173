/**
 * The extension host's built-in MCP support: connects the MCP servers extensions register
 * (`api.registerMcpServer`) with toolsmith's own client and keeps their tools in the registry as
 * `mcp__<server>__<tool>`, one registry source per server, until the server is unregistered, its
 * extension reloads with another config, or the host closes. The client is what the Node entry
 * provides (node-provided.ts), imported when the first server is registered, so a host whose
 * extensions register none never loads it.
 */
import { resolve } from "node:path";
import { errorMessage } from "../contract/errors.js";
import type { ToolDefinition } from "../contract/tool.js";
import { mcpToolName } from "./_mcp-servers.js";
import type { RegisteredMcpServer } from "./api.js";
import { type McpConnection, nodeProvisions } from "./node-provided.js";
import type { ExtensionRuntime } from "./runtime.js";

/** The connections of one host. */
export interface McpConnections {
	/** Resolves once every connection started so far succeeded or failed, or after `timeoutMs`. */
	settled(timeoutMs: number): Promise<void>;
	/** Close every connection and remove the servers' tools. */
	close(): Promise<void>;
}

interface Connection {
	readonly server: RegisteredMcpServer;
	readonly key: string;
	readonly source: string;
	closed: boolean;
	set?: McpConnection;
	pending: Promise<void>;
}

/** The registry source of a server's tools: the extension's path, then the server's name. */
export function mcpSource(server: RegisteredMcpServer): string {
	return `${server.extensionPath}#mcp:${server.name}`;
}

/** Connect what `runtime`'s extensions register, from now on, in `cwd`. */
export function connectRegisteredMcpServers(runtime: ExtensionRuntime, cwd: string): McpConnections {
	const connections = new Map<string, Connection>();
	const registry = runtime.registry;
	const report = (server: RegisteredMcpServer, severity: "error" | "warning" | "info", message: string): void =>
		runtime.report({ severity, code: "E_MCP_SERVER", message, path: server.extensionPath });

	const apply = (connection: Connection, tools: readonly ToolDefinition[]): void => {
		if (connection.closed) return;
		const named = new Map<string, ToolDefinition>();
		for (const tool of tools) {
			const name = mcpToolName(connection.server.name, tool.name);
			if (named.has(name)) {
				report(
					connection.server,
					"warning",
					`Tool "${tool.name}" of the MCP server "${connection.server.name}" is left out: another of its tools is also named ${name} once characters other than letters, digits and "_" become "_".`,
				);
				continue;
			}
			named.set(name, { ...tool, name } as ToolDefinition);
		}
		registry.replaceSource(connection.source, [...named.values()]);
	};

	const drop = (connection: Connection): void => {
		connection.closed = true;
		connections.delete(connection.server.name);
		registry.removeSource(connection.source);
		const set = connection.set;
		if (set) void set.close().catch(() => {});
	};

	const start = (server: RegisteredMcpServer): void => {
		const connection: Connection = {
			server,
			key: JSON.stringify([server.extensionPath, server.config]),
			source: mcpSource(server),
			closed: false,
			pending: Promise.resolve(),
		};
		connections.set(server.name, connection);
		const config = server.config;
		connection.pending = (async () => {
			const provisions = await nodeProvisions();
			if (!provisions) throw new Error("the MCP client comes with toolsmith-sdk/node, which is not loaded");
			const loadMcpTools = provisions.connectMcp;
			const common = {
				...(config.timeout !== undefined ? { timeoutMs: config.timeout * 1000 } : {}),
				onDiagnostic: (diagnostic: { severity: "error" | "warning" | "info"; message: string }) =>
					report(server, diagnostic.severity, `MCP server "${server.name}": ${diagnostic.message}`),
			};
			const set =
				"command" in config
					? await loadMcpTools({
							command: config.command,
							...(config.args ? { args: config.args } : {}),
							...(config.env ? { env: config.env } : {}),
							cwd: resolve(cwd, config.cwd ?? "."),
							...common,
						})
					: await loadMcpTools({ url: config.url, ...(config.headers ? { headers: config.headers } : {}), ...common });
			if (connection.closed) {
				await set.close();
				return;
			}
			connection.set = set;
			apply(connection, set.tools);
			set.onToolsChanged((tools) => apply(connection, tools));
		})().catch((error: unknown) => {
			if (connection.closed) return;
			report(
				server,
				"error",
				`Could not connect the MCP server "${server.name}" registered by ${server.extensionPath}: ${errorMessage(error)}`,
			);
		});
	};

	const sync = (servers: readonly RegisteredMcpServer[]): void => {
		const wanted = new Map(servers.filter((server) => server.config.enabled !== false).map((s) => [s.name, s]));
		for (const connection of [...connections.values()]) {
			const server = wanted.get(connection.server.name);
			if (!server || JSON.stringify([server.extensionPath, server.config]) !== connection.key) drop(connection);
		}
		for (const server of wanted.values()) if (!connections.has(server.name)) start(server);
	};

	const off = runtime.onMcpServersChange(sync);
	sync(runtime.mcpServers());

	return {
		async settled(timeoutMs) {
			let timer: ReturnType<typeof setTimeout> | undefined;
			const limit = new Promise<void>((done) => {
				timer = setTimeout(done, timeoutMs);
				timer.unref?.();
			});
			await Promise.race([Promise.all([...connections.values()].map((c) => c.pending)), limit]);
			if (timer) clearTimeout(timer);
		},
		async close() {
			off();
			const open = [...connections.values()];
			for (const connection of open) {
				connection.closed = true;
				connections.delete(connection.server.name);
				registry.removeSource(connection.source);
			}
			await Promise.all(open.map((connection) => connection.set?.close().catch(() => {})));
		},
	};
}
