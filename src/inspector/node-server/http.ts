/** The inspector's HTTP plumbing: answers with the security headers, JSON bodies, the built page's folder (Node only). */
import { existsSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { closingHeaders, RequestError, readJsonBody } from "../../mcp/node-request.js";

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
