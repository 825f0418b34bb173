/**
 * What the loopback HTTP servers (`serveMcpOverHttp`, the inspector) share: the server with its
 * time limits, listening, and of a request its body as JSON within a size limit (refused with a 413
 * the client gets, the connection then closed), a secret compared in constant time, and a bound on
 * what the client of a streaming answer leaves unread (Node only).
 */
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { errorMessage } from "../contract/errors.js";

/** A request that cannot be served, with the HTTP status to answer (and headers to answer with). */
export class RequestError extends Error {
	constructor(
		readonly status: number,
		message: string,
		readonly headers: Readonly<Record<string, string>> = {},
	) {
		super(message);
	}
}

/** Whether `given` is `secret`, in time that does not depend on where they differ. */
export function sameSecret(given: string, secret: string): boolean {
	const left = Buffer.from(given);
	const right = Buffer.from(secret);
	return left.length === right.length && timingSafeEqual(left, right);
}

/** `1048576` as `1 MiB`, for messages people read. */
export function formatBytes(bytes: number): string {
	const mib = bytes / (1024 * 1024);
	if (Number.isInteger(mib)) return `${mib} MiB`;
	const kib = bytes / 1024;
	return Number.isInteger(kib) ? `${kib} KiB` : `${bytes} bytes`;
}

/** The time limits of a server's requests, in milliseconds. */
export interface RequestTimeLimits {
	/** To send the request line and headers. Default 30 s. */
	readonly headersMs?: number;
	/** To send the whole request, its body included. Default 120 s. */
	readonly requestMs?: number;
	/** How often connections are checked against the two (Node's `connectionsCheckingInterval`). Default 5 s. */
	readonly checkEveryMs?: number;
}

/** Time a client has to send a request's headers: 30 s. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 30_000;
/** Time a client has to send a whole request: 120 s (a 17 MiB body at about 1.2 Mbit/s). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

/**
 * An HTTP server for `handler` whose clients must send a request's headers within 30 s and the
 * whole request within 120 s (a 17 MiB body takes that long at about 1.2 Mbit/s): past either,
 * Node answers 408 and closes the connection, so a client that sends a byte now and then cannot
 * hold a connection (and the body read so far) for ever. An answer may take as long as it likes.
 * `Expect: 100-continue` is answered only when the body is read (`readJsonBody`), so a client that
 * asks first never sends a body the server refuses.
 */
export function createHttpServer(
	handler: (req: IncomingMessage, res: ServerResponse) => void,
	limits: RequestTimeLimits = {},
): Server {
	const requestMs = limits.requestMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
	const serve = (req: IncomingMessage, res: ServerResponse): void => {
		// A request on a connection closing after a refused body is not served: it came after a
		// body the server stopped reading, from a client told that the connection ends.
		if (closing.has(req.socket)) return;
		handler(req, res);
	};
	const server = createServer(
		{
			headersTimeout: Math.min(limits.headersMs ?? DEFAULT_HEADERS_TIMEOUT_MS, requestMs),
			requestTimeout: requestMs,
			connectionsCheckingInterval: limits.checkEveryMs ?? 5_000,
		},
		serve,
	);
	server.on("checkContinue", serve);
	return server;
}

/** The body's length as the client declared it (`Content-Length`), or undefined when it sends it chunked. */
function declaredLength(req: IncomingMessage): number | undefined {
	// Node's parser has refused a malformed, negative, duplicated or overflowing Content-Length, and
	// one beside Transfer-Encoding, with 400 before the request gets here.
	const header = req.headers["content-length"];
	return header === undefined ? undefined : Number(header);
}

function tooLarge(maxBytes: number, declared?: number): RequestError {
	const size = declared === undefined ? "this one is longer" : `this one declares ${declared} bytes (Content-Length)`;
	return new RequestError(
		413,
		`Request too large: a request body may be up to ${formatBytes(maxBytes)} (${maxBytes} bytes) and ${size}. Send less in one request.`,
	);
}

/**
 * The body as JSON. Rejects with a `RequestError`: 413 when the body is over `maxBytes`, decided
 * from `Content-Length` before a byte is read when the client declared it, else when the bytes
 * pass the limit (reading stops there); 400 when it is not JSON. Answer the 413 with
 * `closingHeaders`: the rest of the body is never read.
 */
export function readJsonBody(req: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<unknown> {
	const declared = declaredLength(req);
	if (declared !== undefined && declared > maxBytes) return Promise.reject(tooLarge(maxBytes, declared));
	if (/^100-continue$/i.test(req.headers.expect ?? "") && !res.headersSent) res.writeContinue();
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		const onData = (chunk: Buffer) => {
			size += chunk.length;
			if (size > maxBytes) {
				req.off("data", onData);
				req.pause();
				chunks.length = 0;
				reject(tooLarge(maxBytes));
				return;
			}
			chunks.push(chunk);
		};
		req.on("data", onData);
		req.on("error", reject);
		req.on("end", () => {
			try {
				resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown);
			} catch (error) {
				reject(new RequestError(400, `The request body is not JSON: ${errorMessage(error)}`));
			}
		});
	});
}

/** Connections answered with `Connection: close` after a refused body, reading what still comes. */
const closing = new WeakSet<Socket>();

/**
 * How long a connection that refused a body keeps reading (and dropping) what the client still
 * sends after the answer. Closing at once would make the kernel reset the connection when more of
 * the body arrives, and a reset can discard the answer before the client reads it.
 */
const LINGER_MS = 2_000;

/** Whether `req` came with a body that was not read to its end (refused before or while reading it). */
function bodyUnread(req: IncomingMessage): boolean {
	const hasBody = req.headers["transfer-encoding"] !== undefined || (declaredLength(req) ?? 0) > 0;
	return hasBody && !req.complete;
}

/**
 * Headers to add to the answer of `res`'s request. When its body was not read to its end (a 413,
 * or any refusal before the body was read), the answer closes the connection
 * (`Connection: close`) instead of reading the rest of the body to serve another request on it;
 * what the client still sends is read and dropped for a moment after the answer, then the
 * connection closes.
 */
export function closingHeaders(res: ServerResponse): Record<string, string> {
	const { req } = res;
	const socket = req.socket;
	if (closing.has(socket)) return { connection: "close" };
	if (!bodyUnread(req)) return {};
	closing.add(socket);
	// What is left of the body flows on and is dropped, never kept.
	req.removeAllListeners("data");
	req.resume();
	// Node ends a `Connection: close` answer with `destroySoon()`, which closes the socket as soon as
	// the answer is written; ending the writing side alone lets the client read the answer while it
	// is still sending. The client's own end, or the time limit, closes it.
	socket.destroySoon = () => {
		socket.end();
	};
	const timer = setTimeout(() => socket.destroy(), LINGER_MS);
	timer.unref();
	socket.once("close", () => clearTimeout(timer));
	socket.once("end", () => socket.destroy());
	return { connection: "close" };
}

/**
 * A bound on what the client of a streaming answer (Server-Sent Events) leaves unread: the bytes
 * written to `res` that the connection has not taken yet (`writableLength`). A client is behind
 * when more than `maxBytes` are waiting beyond the largest frame queued since it last had nothing
 * waiting: one large frame (a whole state, a call's result) never makes a client that reads fall
 * behind, a client that stops reading soon does.
 */
export class UnsentBound {
	#largest = 0;

	constructor(
		private readonly res: ServerResponse,
		readonly maxBytes: number,
	) {
		res.on("drain", () => {
			this.#largest = 0;
		});
	}

	/** Bytes written and not yet taken by the connection. */
	get unsent(): number {
		return this.res.writableLength;
	}

	/** Whether a frame of `bytes` may be queued now; false when the client is behind. */
	admits(bytes: number): boolean {
		const unsent = this.res.writableLength;
		if (unsent === 0) this.#largest = 0;
		if (unsent > this.maxBytes + this.#largest) return false;
		this.#largest = Math.max(this.#largest, bytes);
		return true;
	}
}

/**
 * Listen on `hostname` and `port` (0: a free one). Resolves with the port bound and the host as a
 * URL spells it (an IPv6 address in brackets); rejects when the port cannot be bound.
 */
export async function listen(
	server: Server,
	port: number,
	hostname: string,
): Promise<{ port: number; urlHost: string }> {
	await new Promise<void>((resolve, reject) => {
		server.once("error", reject);
		server.listen(port, hostname, () => {
			server.off("error", reject);
			resolve();
		});
	});
	const urlHost = hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname;
	return { port: (server.address() as AddressInfo).port, urlHost };
}
