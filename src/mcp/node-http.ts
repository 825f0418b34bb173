/**
 * `serveMcpOverHttp`: toolsmith tools served over MCP's Streamable HTTP transport, one
 * `createMcpServer` per client session, behind the checks a local server needs: the `Host` and
 * `Origin` headers against DNS rebinding, and an optional bearer token; with bounds on what a
 * client sends (bodies, time) and on what it leaves unread of a streamed answer. Node-only.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { errorMessage } from "../contract/errors.js";
import { observer } from "../shared/listeners.js";
import { type McpHttpSdk, mcpHttpSdk, mcpServerSdk } from "./_node-sdk.js";
import { isLoopbackHostname } from "./loopback.js";
import {
	closingHeaders,
	createHttpServer,
	formatBytes,
	listen,
	readJsonBody,
	sameSecret,
	UnsentBound,
} from "./node-request.js";
import { createMcpServer, type McpServerOptions, type ToolsmithMcpServer } from "./node-server.js";
import { MCP_MAX_MESSAGE_BYTES } from "./node-stdio.js";

/** Largest request body accepted, in bytes (a bigger one is answered with 413): `MCP_MAX_MESSAGE_BYTES`. */
export const MCP_HTTP_MAX_BODY_BYTES = MCP_MAX_MESSAGE_BYTES;

/**
 * Most bytes a client may leave unread of a streamed answer (the GET stream, a POST answered as
 * Server-Sent Events) beyond its largest message; past it the answer is dropped. 4 MiB.
 */
export const MCP_HTTP_MAX_UNSENT_BYTES = 4 * 1024 * 1024;

/** Default cap on the client sessions open at once. */
export const DEFAULT_MCP_MAX_SESSIONS = 100;

/** Default time, in milliseconds, after which a session nobody uses is closed (30 minutes). */
export const DEFAULT_MCP_SESSION_IDLE_TIMEOUT_MS = 30 * 60 * 1000;

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
	/**
	 * Most client sessions open at once. Default 100. At the cap, a new session closes the least
	 * recently used idle one; when every session is in use, it is refused (503).
	 */
	readonly maxSessions?: number;
	/**
	 * Close a session once it has been idle this long, in milliseconds; 0 never does. Default 30
	 * minutes. A session is in use while one of its HTTP responses is open: a call waiting for its
	 * answer, a GET stream listening for notifications.
	 */
	readonly sessionIdleTimeoutMs?: number;
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

// JSON-RPC's code for a message that is not a valid request (here: one over the size limit), as over stdio.
const JSONRPC_INVALID_REQUEST = -32_600;

function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
	if (res.headersSent) return;
	const error =
		status === 413
			? { code: JSONRPC_INVALID_REQUEST, message, data: { maxMessageBytes: MCP_HTTP_MAX_BODY_BYTES } }
			: { code: -32000, message };
	res.writeHead(status, { "content-type": "application/json", ...headers, ...closingHeaders(res) });
	res.end(JSON.stringify({ jsonrpc: "2.0", error, id: null }));
}

function isInitialize(isInitializeRequest: McpHttpSdk["isInitializeRequest"], body: unknown): boolean {
	return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

/** The ids of the requests (not notifications, not answers) in a POST body. */
function requestIds(body: unknown): (string | number)[] {
	const messages = Array.isArray(body) ? (body as unknown[]) : [body];
	const ids: (string | number)[] = [];
	for (const message of messages) {
		if (typeof message !== "object" || message === null) continue;
		const { id, method } = message as { id?: unknown; method?: unknown };
		if (typeof method === "string" && (typeof id === "string" || typeof id === "number")) ids.push(id);
	}
	return ids;
}

/** `1, 2, 3 and 37 more`. */
function listIds(ids: readonly (string | number)[]): string {
	const shown = ids.slice(0, 3).map(String).join(", ");
	return ids.length > 3 ? `${shown} and ${ids.length - 3} more` : shown;
}

/** An integer option within [min, max], or the default; anything else throws, naming the option. */
function countOption(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
	if (value === undefined) return fallback;
	if (!Number.isInteger(value) || value < min || value > max) {
		throw new RangeError(`${name} must be an integer from ${min} to ${max}, not ${String(value)}`);
	}
	return value;
}

// The longest delay a Node timer takes (about 24.8 days); a longer one would fire at once.
const MAX_TIMER_MS = 2_147_483_647;

function seconds(ms: number): string {
	return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

interface Session {
	readonly id: string;
	readonly transport: StreamableHTTPServerTransport;
	readonly server: ToolsmithMcpServer;
	/** HTTP responses of this session still open (calls waiting for answers, GET streams). */
	open: number;
	idleTimer: ReturnType<typeof setTimeout> | undefined;
	ended: boolean;
	/** The streamed answer of each request waiting for one, by the request's id. */
	readonly answers: Map<string | number, UnsentBound>;
}

type SendArguments = Parameters<StreamableHTTPServerTransport["send"]>;

function isProgress(message: SendArguments[0]): boolean {
	return (message as { method?: unknown }).method === "notifications/progress";
}

/**
 * Bounds what the client leaves unread of an answer the SDK streams into `res`. The SDK's stream
 * is drained into `res` as fast as it fills (every write is taken), so that what waits for the
 * client waits here, where it is counted, rather than in the SDK's queue, where nothing bounds it.
 * Once the client is more than `MCP_HTTP_MAX_UNSENT_BYTES` behind, `behind` is told and `res` is
 * destroyed, as if the client had closed the connection.
 */
function boundAnswer(res: ServerResponse, behind: (unsent: number) => void): UnsentBound {
	const bound = new UnsentBound(res, MCP_HTTP_MAX_UNSENT_BYTES);
	const write = res.write.bind(res) as (...args: unknown[]) => boolean;
	let dropped = false;
	res.write = ((chunk: unknown, ...rest: unknown[]): boolean => {
		if (dropped) return true;
		const bytes =
			typeof chunk === "string" ? Buffer.byteLength(chunk) : ArrayBuffer.isView(chunk) ? chunk.byteLength : 0;
		if (!bound.admits(bytes)) {
			dropped = true;
			const unsent = bound.unsent;
			setImmediate(() => {
				behind(unsent);
				res.destroy();
			});
			return true;
		}
		write(chunk, ...rest);
		return true;
	}) as ServerResponse["write"];
	return bound;
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
	const log = observer(options.log);
	const maxSessions = countOption(
		"maxSessions",
		options.maxSessions,
		DEFAULT_MCP_MAX_SESSIONS,
		1,
		Number.MAX_SAFE_INTEGER,
	);
	const idleTimeoutMs = countOption(
		"sessionIdleTimeoutMs",
		options.sessionIdleTimeoutMs,
		DEFAULT_MCP_SESSION_IDLE_TIMEOUT_MS,
		0,
		MAX_TIMER_MS,
	);
	// Fail now, not at the first client, when the tools cannot be served at all; the SDK is loaded
	// now too (the server's part included), so the first client does not wait for it.
	const [sdk] = await Promise.all([mcpHttpSdk(), mcpServerSdk(), options.host?.ready]);
	// In order of last use, least recent first (each use moves a session to the end).
	const sessions = new Map<string, Session>();
	// Sessions being created, counted against the cap before they are in `sessions`.
	let starting = 0;
	let closed = false;

	const dropBehind = (session: Session, what: string, then: string) => (unsent: number) => {
		log(
			`Dropped ${what} of MCP session ${session.id}: its client left ${unsent} bytes unread, more than the ${formatBytes(MCP_HTTP_MAX_UNSENT_BYTES)} a client may fall behind; ${then}.`,
		);
	};

	const endSession = (session: Session, why: string): void => {
		if (session.ended) return;
		session.ended = true;
		clearTimeout(session.idleTimer);
		sessions.delete(session.id);
		log(`Closed MCP session ${session.id}: ${why}.`);
		// Closing the transport closes the session's server (its onclose), which aborts its calls.
		session.transport.close().catch((error: unknown) => {
			log(`Closing MCP session ${session.id} failed: ${errorMessage(error)}`);
		});
	};

	// A session is in use while one of its responses is open; once none is, its idle clock starts.
	const hold = (session: Session, res: ServerResponse): void => {
		session.open += 1;
		clearTimeout(session.idleTimer);
		session.idleTimer = undefined;
		if (sessions.get(session.id) === session) {
			sessions.delete(session.id);
			sessions.set(session.id, session);
		}
		res.once("close", () => {
			session.open -= 1;
			if (session.open > 0 || session.ended || idleTimeoutMs === 0) return;
			session.idleTimer = setTimeout(() => endSession(session, `idle for ${seconds(idleTimeoutMs)}`), idleTimeoutMs);
			session.idleTimer.unref();
		});
	};

	/** Room for one more session: true, or false when every session is in use. */
	const makeRoom = (): boolean => {
		if (sessions.size + starting < maxSessions) return true;
		for (const session of sessions.values()) {
			if (session.open > 0) continue;
			endSession(session, `the least recently used idle session, closed for a new one at the cap of ${maxSessions}`);
			return true;
		}
		return false;
	};

	const http = createHttpServer((req, res) => {
		handle(req, res).catch((error: unknown) => {
			log(`MCP HTTP request failed: ${errorMessage(error)}`);
			refuse(res, 500, `Internal error: ${errorMessage(error)}`);
		});
	});
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
				body = await readJsonBody(req, res, MCP_HTTP_MAX_BODY_BYTES);
			} catch (error) {
				const status = (error as { status?: number }).status ?? 400;
				return refuse(res, status, errorMessage(error));
			}
			if (id !== undefined) {
				const session = sessions.get(id);
				if (!session) return refuse(res, 404, "Session not found: start a new one with initialize.");
				hold(session, res);
				// A client that drops its connection before the answers came cancels what it asked for.
				const ids = requestIds(body);
				if (ids.length > 0) {
					const bound = boundAnswer(
						res,
						dropBehind(session, `the answer to request ${listIds(ids)}`, "its calls are cancelled"),
					);
					for (const requestId of ids) session.answers.set(requestId, bound);
					res.once("close", () => {
						for (const requestId of ids) {
							if (session.answers.get(requestId) === bound) session.answers.delete(requestId);
						}
						if (res.writableFinished || session.ended) return;
						for (const requestId of ids) {
							session.transport.onmessage?.({
								jsonrpc: "2.0",
								method: "notifications/cancelled",
								params: { requestId, reason: "The client's connection closed before the answer was sent." },
							});
						}
					});
				}
				return session.transport.handleRequest(req, res, body);
			}
			if (!isInitialize(sdk.isInitializeRequest, body))
				return refuse(res, 400, "Bad request: no session; send initialize first.");
			if (!makeRoom()) {
				log(`Refused a new MCP session: all ${maxSessions} sessions are in use.`);
				return refuse(
					res,
					503,
					`Too many sessions: all ${maxSessions} sessions of this server are in use; try again later.`,
					{ "retry-after": "5" },
				);
			}
			starting += 1;
			let session: Session | undefined;
			try {
				const server = await createMcpServer(options);
				const newId = randomUUID();
				const transport = new sdk.StreamableHTTPServerTransport({
					sessionIdGenerator: () => newId,
					onsessioninitialized: () => {
						if (!session || closed) return;
						sessions.set(newId, session);
					},
				});
				session = {
					id: newId,
					transport,
					server,
					open: 0,
					idleTimer: undefined,
					ended: false,
					answers: new Map(),
				};
				const own = session;
				// A progress notification supersedes the ones before it: one for an answer whose client
				// has not taken what it was sent yet is skipped, so a slow client never piles them up
				// (the call's result is never skipped).
				const send = transport.send.bind(transport);
				transport.send = (message: SendArguments[0], sendOptions?: SendArguments[1]): Promise<void> => {
					const related = sendOptions?.relatedRequestId;
					const answer = related === undefined ? undefined : own.answers.get(related);
					if (answer !== undefined && answer.unsent > 0 && isProgress(message)) return Promise.resolve();
					return send(message, sendOptions);
				};
				transport.onclose = () => {
					own.ended = true;
					clearTimeout(own.idleTimer);
					if (sessions.get(newId) === own) sessions.delete(newId);
					server.close().catch(() => {});
				};
				await server.connect(transport);
			} finally {
				starting -= 1;
			}
			hold(session, res);
			await session.transport.handleRequest(req, res, body);
			// An initialize the transport refused leaves no session to keep.
			if (!sessions.has(session.id)) {
				session.ended = true;
				await session.transport.close().catch(() => {});
			}
			return;
		}
		if (req.method === "GET" || req.method === "DELETE") {
			const session = id === undefined ? undefined : sessions.get(id);
			if (!session) return refuse(res, id === undefined ? 400 : 404, "Session not found: send mcp-session-id.");
			hold(session, res);
			if (req.method === "GET") {
				boundAnswer(res, dropBehind(session, "the GET stream", "the client may open it again"));
			}
			return session.transport.handleRequest(req, res);
		}
		return refuse(res, 405, `Method ${req.method ?? "?"} not allowed.`, { allow: "GET, POST, DELETE" });
	};

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
				for (const session of open) {
					session.ended = true;
					clearTimeout(session.idleTimer);
				}
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
