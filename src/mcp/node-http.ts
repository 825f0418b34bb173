/**
 * `serveMcpOverHttp`: toolsmith tools served over MCP's Streamable HTTP transport, one
 * `createMcpServer` per client session, behind the checks a local server needs: the `Host` and
 * `Origin` headers against DNS rebinding, and an optional bearer token. Node-only.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../contract/errors.js";
import { isLoopbackHostname } from "./_loopback.js";
import { listen, readJsonBody, sameSecret } from "./_node-request.js";
import { createMcpServer, type McpServerOptions, type ToolsmithMcpServer } from "./node-server.js";
import { MCP_MAX_MESSAGE_BYTES } from "./node-stdio.js";

/** Largest request body accepted, in bytes (a bigger one is answered with 413): `MCP_MAX_MESSAGE_BYTES`. */
export const MCP_HTTP_MAX_BODY_BYTES = MCP_MAX_MESSAGE_BYTES;

/** Options of `serveMcpOverHttp`: those of `createMcpServer`, plus where and how to listen. */
export interface McpHttpServeOptions extends McpServerOptions {
	/** The interface to bind. Default `127.0.0.1`; anything but loopback needs `token`. */
	readonly hostname?: string;
	/** The port; `0` (the default) picks a free one (see `url`). */
	readonly port?: number;
	/** The endpoint's path. Default `/mcp`. */
	readonly path?: string;
	/** Require `Authorization: Bearer <token>` on every request. */
	readonly token?: string;
	/** Origins allowed besides the server's own (`http://localhost:3000`, say). */
	readonly allowedOrigins?: readonly string[];
}

/** A running Streamable HTTP endpoint. */
export interface McpHttpEndpoint {
	/** Where clients connect, for example `http://127.0.0.1:41234/mcp`. */
	readonly url: string;
	readonly port: number;
	/** The client sessions open now. */
	sessions(): number;
	/** Close every session (aborting calls in flight) and stop listening. Idempotent. */
	close(): Promise<void>;
}

function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
	if (res.headersSent) return;
	res.writeHead(status, { "content-type": "application/json", ...headers });
	res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

function isInitialize(body: unknown): boolean {
	return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

/**
 * Serve tools over Streamable HTTP. Resolves once listening. Rejects when the port cannot be bound,
 * or when a non-loopback `hostname` is given without a `token` (anyone on the network could run
 * the tools).
 */
export async function serveMcpOverHttp(options: McpHttpServeOptions): Promise<McpHttpEndpoint> {
	const hostname = options.hostname ?? "127.0.0.1";
	const path = options.path ?? "/mcp";
	const token = options.token;
	if (!isLoopbackHostname(hostname) && !token) {
		throw new Error(
			`Serving on ${hostname} makes the tools reachable from other machines: give a token (--token) that clients must send.`,
		);
	}
	const log = (message: string): void => {
		try {
			options.log?.(message);
		} catch {
			// the log is an observer
		}
	};
	// Fail now, not at the first client, when the tools cannot be served at all.
	await (options.host?.ready ?? Promise.resolve());
	const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: ToolsmithMcpServer }>();
	let closed = false;

	const http = createServer();
	const { port, urlHost } = await listen(http, options.port ?? 0, hostname);
	const url = `http://${urlHost}:${port}${path}`;

	// A browser page on another site (DNS rebinding) sends its own Host or Origin: refuse those.
	const hosts = new Set(
		(isLoopbackHostname(hostname) ? ["127.0.0.1", "localhost", "[::1]", urlHost] : [urlHost]).map(
			(h) => `${h}:${port}`,
		),
	);
	const origins = new Set([...[...hosts].map((h) => `http://${h}`), ...(options.allowedOrigins ?? [])]);

	const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const target = new URL(req.url ?? "/", "http://localhost");
		if (target.pathname !== path) return refuse(res, 404, `Not found: the MCP endpoint is ${path}.`);
		const host = req.headers.host ?? "";
		if (isLoopbackHostname(hostname) && !hosts.has(host)) {
			return refuse(res, 403, `Forbidden: Host ${JSON.stringify(host)} is not this server.`);
		}
		const origin = req.headers.origin;
		if (origin !== undefined && !origins.has(origin)) {
			return refuse(res, 403, `Forbidden: Origin ${JSON.stringify(origin)} is not allowed.`);
		}
		if (token) {
			const given = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "")?.[1]?.trim() ?? "";
			if (!sameSecret(given, token)) {
				return refuse(res, 401, "Unauthorized: send Authorization: Bearer <token>.", {
					"www-authenticate": 'Bearer realm="toolsmith"',
				});
			}
		}
		if (closed) return refuse(res, 503, "The server is shutting down.");
		const sessionId = req.headers["mcp-session-id"];
		const id = Array.isArray(sessionId) ? sessionId[0] : sessionId;
		if (req.method === "POST") {
			let body: unknown;
			try {
				body = await readJsonBody(req, MCP_HTTP_MAX_BODY_BYTES);
			} catch (error) {
				const status = (error as { status?: number }).status ?? 400;
				return refuse(res, status, errorMessage(error));
			}
			if (id !== undefined) {
				const session = sessions.get(id);
				if (!session) return refuse(res, 404, "Session not found: start a new one with initialize.");
				return session.transport.handleRequest(req, res, body);
			}
			if (!isInitialize(body)) return refuse(res, 400, "Bad request: no session; send initialize first.");
			const server = await createMcpServer(options);
			const transport = new StreamableHTTPServerTransport({
				sessionIdGenerator: () => randomUUID(),
				onsessioninitialized: (newId) => {
					sessions.set(newId, { transport, server });
				},
			});
			transport.onclose = () => {
				if (transport.sessionId) sessions.delete(transport.sessionId);
				server.close().catch(() => {});
			};
			await server.connect(transport);
			return transport.handleRequest(req, res, body);
		}
		if (req.method === "GET" || req.method === "DELETE") {
			const session = id === undefined ? undefined : sessions.get(id);
			if (!session) return refuse(res, id === undefined ? 400 : 404, "Session not found: send mcp-session-id.");
			return session.transport.handleRequest(req, res);
		}
		return refuse(res, 405, `Method ${req.method ?? "?"} not allowed.`, { allow: "GET, POST, DELETE" });
	};

	http.on("request", (req: IncomingMessage, res: ServerResponse) => {
		handle(req, res).catch((error: unknown) => {
			log(`MCP HTTP request failed: ${errorMessage(error)}`);
			refuse(res, 500, `Internal error: ${errorMessage(error)}`);
		});
	});

	let closing: Promise<void> | undefined;
	return {
		url,
		port,
		sessions: () => sessions.size,
		close() {
			closing ??= (async () => {
				closed = true;
				const open = [...sessions.values()];
				sessions.clear();
				await Promise.allSettled(open.map(({ server }) => server.close()));
				await new Promise<void>((resolve) => {
					http.close(() => resolve());
					http.closeAllConnections();
				});
			})();
			return closing;
		},
	};
}
