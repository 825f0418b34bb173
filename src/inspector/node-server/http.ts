/**
 * The inspector's HTTP plumbing: answers with the security headers, JSON bodies, the bound on
 * answers their clients leave unread, the built page's folder (Node only).
 */
import { existsSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { closingHeaders, formatBytes, RequestError, readJsonBody } from "../../mcp/node-request.js";

/** Largest request body accepted, in bytes. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

export const SECURITY_HEADERS: Record<string, string> = {
	"content-security-policy":
		"default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
	"x-content-type-options": "nosniff",
	"x-frame-options": "DENY",
	"referrer-policy": "no-referrer",
	"cross-origin-resource-policy": "same-origin",
	"cross-origin-opener-policy": "same-origin",
	"cache-control": "no-store",
};

export function send(
	res: ServerResponse,
	status: number,
	body: string | Buffer,
	type: string,
	headers: Readonly<Record<string, string>> = {},
): void {
	if (res.headersSent) return;
	res.writeHead(status, {
		...SECURITY_HEADERS,
		...headers,
		"content-type": type,
		"content-length": Buffer.byteLength(body),
		// A body left unread (refused before or while it was read) closes the connection.
		...closingHeaders(res),
	});
	res.end(body);
}

export function sendJson(
	res: ServerResponse,
	status: number,
	value: unknown,
	headers: Readonly<Record<string, string>> = {},
): void {
	send(res, status, JSON.stringify(value), "application/json; charset=utf-8", headers);
}

/** Answers up to this size always go out, whatever is pending: errors, the page's assets. */
const SMALL_ANSWER_BYTES = 64 * 1024;

/**
 * A bound on the bytes of answers written and not yet taken by their clients: one client that asks
 * for the state and never reads it holds the whole state until it does, and a thousand of them
 * held a thousand copies. An answer that would take the pending bytes over `maxBytes` is refused
 * with 503 instead (one alone always goes, as does a small one), before it is made when the last
 * answer of its kind says it would not fit; an answer its client has not taken within `timeoutMs`
 * is cut off, giving its bytes back. For answers without side effects only: a refused one must
 * have done nothing.
 */
export class AnswerBudget {
	#pending = 0;
	/** The size of the last answer of each kind (a route), to refuse one before it is made. */
	readonly #lastBytes = new Map<string, number>();

	constructor(
		readonly maxBytes: number,
		readonly timeoutMs: number,
	) {}

	#refusal(bytes: number): RequestError | undefined {
		if (bytes <= SMALL_ANSWER_BYTES || this.#pending === 0 || this.#pending + bytes <= this.maxBytes) return undefined;
		return new RequestError(
			503,
			`Busy: ${formatBytes(this.#pending)} of answers wait for clients that do not read them, and this answer (about ${formatBytes(bytes)}) would pass the ${formatBytes(this.maxBytes)} the inspector keeps; try again in a moment.`,
			{ "retry-after": "5" },
		);
	}

	/**
	 * Sends what `produce` gives as JSON with status 200 on `res`, or throws a `RequestError` (503)
	 * when over the bound.
	 */
	answerJson(res: ServerResponse, kind: string, produce: () => unknown): void {
		const early = this.#refusal(this.#lastBytes.get(kind) ?? 0);
		if (early) throw early;
		const body = JSON.stringify(produce());
		const bytes = Buffer.byteLength(body);
		this.#lastBytes.set(kind, bytes);
		const refusal = this.#refusal(bytes);
		if (refusal) throw refusal;
		send(res, 200, body, "application/json; charset=utf-8");
		if (res.writableFinished || bytes <= SMALL_ANSWER_BYTES) return;
		this.#pending += bytes;
		const timer = setTimeout(() => res.destroy(), this.timeoutMs);
		timer.unref();
		let released = false;
		const release = () => {
			if (released) return;
			released = true;
			clearTimeout(timer);
			this.#pending -= bytes;
		};
		res.once("finish", release);
		res.once("close", release);
	}
}

/** The body as JSON, sent as `application/json` (at most 16 MiB: 413 past it). */
export function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
	// A JSON content type makes a cross-site request a preflighted one, which this server never answers.
	if (!/^application\/json\b/i.test(req.headers["content-type"] ?? "")) {
		return Promise.reject(new RequestError(415, "Send the body as JSON (content-type: application/json)."));
	}
	return readJsonBody(req, res, MAX_BODY_BYTES);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The built page: next to the bundled module (`dist/`), or `dist/inspector` of the repository when
 * run from source.
 */
export function defaultAssetsDir(): string {
	const here = dirname(fileURLToPath(import.meta.url));
	const candidates = [join(here, "inspector"), resolve(here, "../../../dist/inspector")];
	const found = candidates.find((dir) => existsSync(join(dir, "index.html")));
	if (!found) {
		throw new Error(
			`The inspector page is not built (looked in ${candidates.join(" and ")}): run npm run build (or node scripts/build-inspector.mjs) in the toolsmith repository.`,
		);
	}
	return found;
}
