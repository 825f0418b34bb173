/**
 * What the loopback HTTP servers (`serveMcpOverHttp`, the inspector) share: listening, and of a
 * request its body as JSON within a size limit and a secret compared in constant time (Node only).
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { errorMessage } from "../contract/errors.js";

/** A request that cannot be served, with the HTTP status to answer. */
export class RequestError extends Error {
	constructor(
		readonly status: number,
		message: string,
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

/** The body as JSON; rejects with a `RequestError` (413 over `maxBytes`, 400 when it is not JSON). */
export function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on("data", (chunk: Buffer) => {
			size += chunk.length;
			if (size > maxBytes) {
				reject(new RequestError(413, `The request body is over ${maxBytes} bytes.`));
				req.destroy();
				return;
			}
			chunks.push(chunk);
		});
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
