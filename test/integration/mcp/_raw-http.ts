/**
 * A raw HTTP/1.1 client on `node:net` for the tests of what the loopback servers do with hostile
 * requests: it sends exactly the bytes it is given (a lying or duplicated `Content-Length`, a
 * chunked body past the limit), keeps sending a body while the server answers, and reports every
 * byte that came back and how the connection ended.
 */
import { connect, type Socket } from "node:net";

/** One HTTP response as it came on the wire. */
export interface RawResponse {
	readonly status: number;
	/** Header names in lower case; a repeated header's values joined by `, `. */
	readonly headers: Readonly<Record<string, string>>;
	readonly body: string;
	/** Whether the whole body came (as its framing says). */
	readonly complete: boolean;
}

export interface RawExchange {
	/** Every byte received, as text. */
	readonly received: string;
	/** The responses in `received`, in order (an interim `100 Continue` included). */
	readonly responses: readonly RawResponse[];
	/** How many body bytes the client wrote before the connection ended or the body was all sent. */
	readonly sent: number;
	/** The error the socket ended with (EPIPE, ECONNRESET), if any. */
	readonly error?: string;
}

/** What to send after the request head. */
export interface RawBody {
	/** Body bytes to send in all ("a" repeated); the client stops early when the connection ends. */
	readonly bytes?: number;
	/** Send them as chunks of this size (1 MiB by default). */
	readonly chunkSize?: number;
	/** Frame them in chunked transfer coding, with the last chunk (`0\r\n\r\n`) at the end. */
	readonly chunked?: boolean;
	/** Bytes written after the body (a pipelined request, say). */
	readonly after?: string;
	/** Send the body only once `100 Continue` came (as curl does after `Expect: 100-continue`). */
	readonly afterContinue?: boolean;
	/** The body's bytes as they are, instead of `bytes` of "a". */
	readonly text?: string;
}

/** The responses in `text`: status line, headers, and a body framed by `Content-Length` or chunked. */
export function parseResponses(text: string): RawResponse[] {
	const responses: RawResponse[] = [];
	let rest = text;
	for (;;) {
		const headEnd = rest.indexOf("\r\n\r\n");
		if (!rest.startsWith("HTTP/") || headEnd < 0) return responses;
		const [statusLine = "", ...lines] = rest.slice(0, headEnd).split("\r\n");
		const headers: Record<string, string> = {};
		for (const line of lines) {
			const colon = line.indexOf(":");
			const name = line.slice(0, colon).trim().toLowerCase();
			const value = line.slice(colon + 1).trim();
			headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
		}
		const status = Number(statusLine.split(" ")[1]);
		rest = rest.slice(headEnd + 4);
		let body = "";
		let complete = status < 200;
		if (status >= 200 && headers["content-length"] !== undefined) {
			const length = Number(headers["content-length"]);
			body = rest.slice(0, length);
			complete = body.length === length;
			rest = rest.slice(length);
		} else if (status >= 200 && /chunked/i.test(headers["transfer-encoding"] ?? "")) {
			for (;;) {
				const lineEnd = rest.indexOf("\r\n");
				if (lineEnd < 0) break;
				const size = Number.parseInt(rest.slice(0, lineEnd), 16);
				if (Number.isNaN(size) || rest.length < lineEnd + 2 + size + 2) break;
				body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
				rest = rest.slice(lineEnd + 2 + size + 2);
				if (size === 0) {
					complete = true;
					break;
				}
			}
		} else if (status >= 200) {
			body = rest;
			rest = "";
		}
		responses.push({ status, headers, body, complete });
	}
}

/**
 * Connect to `port`, send `head` (the request line and headers, ending with an empty line), then
 * `body` as fast as the connection takes it, and resolve once the server closed the connection
 * (or `done` says what came is enough: the client then closes it).
 */
export function rawExchange(
	port: number,
	head: string,
	body?: RawBody,
	done?: (received: string) => boolean,
): Promise<RawExchange> {
	return new Promise((resolve) => {
		const socket: Socket = connect(port, "127.0.0.1");
		let received = "";
		let sent = 0;
		let error: string | undefined;
		let closed = false;
		socket.setEncoding("latin1");
		let waitingForContinue = body?.afterContinue === true;
		socket.on("data", (chunk: string) => {
			received += chunk;
			if (waitingForContinue && received.startsWith("HTTP/1.1 100 Continue\r\n\r\n")) {
				waitingForContinue = false;
				pump();
			}
			if (done?.(received)) socket.destroy();
		});
		socket.on("error", (e: NodeJS.ErrnoException) => {
			error = e.code ?? e.message;
		});
		socket.on("close", () => {
			closed = true;
			resolve({ received, responses: parseResponses(received), sent, ...(error !== undefined ? { error } : {}) });
		});
		const total = body?.text !== undefined ? body.text.length : (body?.bytes ?? 0);
		const pump = (): void => {
			if (!body) return;
			const chunkSize = body.chunkSize ?? 1024 * 1024;
			while (!closed && !socket.destroyed && sent < total) {
				const size = Math.min(chunkSize, total - sent);
				const data = body.text !== undefined ? body.text.slice(sent, sent + size) : "a".repeat(size);
				sent += size;
				const ok = socket.write(body.chunked ? `${size.toString(16)}\r\n${data}\r\n` : data);
				if (!ok) {
					socket.once("drain", pump);
					return;
				}
			}
			if (closed || socket.destroyed) return;
			if (body.chunked) socket.write("0\r\n\r\n");
			if (body.after !== undefined) socket.write(body.after);
		};
		socket.write(head);
		if (!waitingForContinue) pump();
	});
}

/** A `done` for `rawExchange`: enough once `count` whole final responses came. */
export function finalResponses(count: number): (received: string) => boolean {
	return (received) => parseResponses(received).filter((r) => r.status >= 200 && r.complete).length >= count;
}

/** A request head: the request line, `Host`, the given headers, and the empty line. */
export function requestHead(method: string, path: string, host: string, headers: Record<string, string>): string {
	const lines = [
		`${method} ${path} HTTP/1.1`,
		`Host: ${host}`,
		...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
	];
	return `${lines.join("\r\n")}\r\n\r\n`;
}
