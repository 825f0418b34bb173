/**
 * `serveMcpOverHttp` against raw HTTP clients that send too much: a body over the limit is
 * answered 413 with `Connection: close` and a JSON-RPC error the client actually receives —
 * decided from `Content-Length` before the body is read, or at the limit for a chunked body, and
 * before `100 Continue` for a client that asks first — while the server goes on serving others.
 * Then requests whose framing lies (a malformed, negative, duplicated or overflowing
 * `Content-Length`, one beside `Transfer-Encoding`), a refused request with a big body, and a
 * request pipelined after a refused body.
 */
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_HTTP_MAX_BODY_BYTES, type McpHttpEndpoint, serveMcpOverHttp } from "../../../src/mcp/node-http.js";
import { closingHeaders, createHttpServer, listen, RequestError, readJsonBody } from "../../../src/mcp/node-request.js";
import { INITIALIZE } from "./_cli-server.js";
import { finalResponses, type RawExchange, rawExchange, requestHead } from "./_raw-http.js";

const MAX = MCP_HTTP_MAX_BODY_BYTES;
const initialize = JSON.stringify(INITIALIZE);

let endpoint: McpHttpEndpoint;
let guarded: McpHttpEndpoint;
let host: string;

beforeAll(async () => {
	[endpoint, guarded] = await Promise.all([
		serveMcpOverHttp({ tools: [] }),
		serveMcpOverHttp({ tools: [], token: "a-token-for-the-limits-test" }),
	]);
	host = `127.0.0.1:${endpoint.port}`;
});

afterAll(async () => {
	await endpoint?.close();
	await guarded?.close();
});

const post = (headers: Record<string, string>, to = host) =>
	requestHead("POST", "/mcp", to, {
		"content-type": "application/json",
		accept: "application/json, text/event-stream",
		...headers,
	});

/** The one final response of `exchange`, checked to be a 413 that closes the connection. */
function expect413(exchange: RawExchange): void {
	const finals = exchange.responses.filter((r) => r.status >= 200);
	expect(finals.map((r) => r.status)).toEqual([413]);
	const [response] = finals;
	expect(response?.headers.connection).toBe("close");
	expect(JSON.parse(response?.body ?? "")).toEqual({
		jsonrpc: "2.0",
		id: null,
		error: {
			code: -32600,
			message: expect.stringMatching(/^Request too large: a request body may be up to 17 MiB \(17825792 bytes\)/),
			data: { maxMessageBytes: MAX },
		},
	});
}

/** An initialize on a fresh connection: 200 while the server is serving. */
async function initializeStatus(port = endpoint.port, headers: Record<string, string> = {}): Promise<number> {
	const exchange = await rawExchange(
		port,
		post({ "content-length": String(initialize.length), ...headers }, `127.0.0.1:${port}`) + initialize,
		undefined,
		finalResponses(1),
	);
	return exchange.responses[0]?.status ?? 0;
}

describe("serveMcpOverHttp: a body over the limit gets a 413 the client receives", () => {
	it("answers a declared Content-Length over the limit at once, without waiting for the body", async () => {
		// The client sends the head and one byte, then waits: only an answer decided from the
		// header ends this exchange (the server closes the connection after it).
		const exchange = await rawExchange(endpoint.port, `${post({ "content-length": String(MAX + 1) })}{`);
		expect413(exchange);
		expect(exchange.responses[0]?.body).toContain(`declares ${MAX + 1} bytes`);
		expect(await initializeStatus()).toBe(200);
	});

	it("answers a declared Content-Length over the limit while the client keeps sending the body", async () => {
		const exchange = await rawExchange(endpoint.port, post({ "content-length": String(1024 ** 3) }), {
			bytes: 1024 ** 3,
		});
		expect413(exchange);
		// The body was not read to its end: the connection closed long before a GiB went through.
		expect(exchange.sent).toBeLessThan(1024 ** 3);
		expect(await initializeStatus()).toBe(200);
	});

	it("stops a chunked body at the limit and answers 413 while the client keeps sending", async () => {
		const exchange = await rawExchange(endpoint.port, post({ "transfer-encoding": "chunked" }), {
			bytes: 4 * MAX,
			chunked: true,
		});
		expect413(exchange);
		expect(exchange.responses[0]?.body).toContain("this one is longer");
		expect(exchange.sent).toBeLessThan(4 * MAX);
		expect(await initializeStatus()).toBe(200);
	});

	it("answers 413 before 100 Continue to a client that asks first, which then never sends the body", async () => {
		const exchange = await rawExchange(
			endpoint.port,
			post({ "content-length": String(MAX + 1), expect: "100-continue" }),
			{ bytes: MAX + 1, afterContinue: true },
		);
		expect(exchange.responses.map((r) => r.status)).toEqual([413]);
		expect413(exchange);
		expect(exchange.sent).toBe(0);
	});

	it("says 100 Continue to a client that asks first with a body within the limit, and serves it", async () => {
		const exchange = await rawExchange(
			endpoint.port,
			post({ "content-length": String(initialize.length), expect: "100-continue" }),
			{ text: initialize, afterContinue: true },
			finalResponses(1),
		);
		expect(exchange.responses.map((r) => r.status)).toEqual([100, 200]);
	});

	it("serves bodies within the limit and keeps their connection open for the next request", async () => {
		const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
		const exchange = await rawExchange(
			endpoint.port,
			post({ "content-length": String(initialize.length) }) +
				initialize +
				post({ "content-length": String(ping.length) }) +
				ping,
			undefined,
			finalResponses(2),
		);
		// The second request needs a session: it is refused (400), but on the same connection.
		expect(exchange.responses.map((r) => r.status)).toEqual([200, 400]);
		expect(exchange.responses[0]?.headers.connection).not.toBe("close");
	});
});

describe("serveMcpOverHttp: requests whose framing lies", () => {
	const head = () =>
		`POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n`;
	it.each([
		["a negative Content-Length", "Content-Length: -5\r\n\r\n{}"],
		["two different Content-Lengths", "Content-Length: 2\r\nContent-Length: 99999999\r\n\r\n{}"],
		["the same Content-Length twice", "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}"],
		["a Content-Length past 64 bits", "Content-Length: 999999999999999999999999999\r\n\r\n{}"],
		["a Content-Length in hexadecimal", "Content-Length: 0x10\r\n\r\n{}"],
		[
			"Content-Length beside Transfer-Encoding",
			"Content-Length: 99999999\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		],
		["a Transfer-Encoding that does not end in chunked", "Transfer-Encoding: gzip\r\n\r\n{}"],
		["chunked twice", "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"],
		["a chunk size past 64 bits", "Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFF\r\n"],
		["a Content-Length shorter than the body", "Content-Length: 2\r\n\r\n{}GARBAGE GARBAGE\r\n\r\n"],
	])("answers %s with 400 and closes the connection; the server serves on", async (_label, rest) => {
		const exchange = await rawExchange(endpoint.port, head() + rest);
		const statuses = exchange.responses.map((r) => r.status);
		expect(statuses.at(-1)).toBe(400);
		expect(exchange.responses.at(-1)?.headers.connection).toBe("close");
		expect(await initializeStatus()).toBe(200);
	});

	it("answers a Content-Length past 2^53 with 413, as the number it rounds to is over the limit", async () => {
		const exchange = await rawExchange(endpoint.port, `${head()}Content-Length: 9007199254740993\r\n\r\n{}`);
		expect413(exchange);
	});

	it("refuses a request without the token, with a big body, without reading the body", async () => {
		const guardedHost = `127.0.0.1:${guarded.port}`;
		const exchange = await rawExchange(guarded.port, post({ "content-length": String(1024 ** 3) }, guardedHost), {
			bytes: 1024 ** 3,
		});
		expect(exchange.responses.map((r) => r.status)).toEqual([401]);
		expect(exchange.responses[0]?.headers.connection).toBe("close");
		expect(exchange.sent).toBeLessThan(1024 ** 3);
		expect(await initializeStatus(guarded.port, { authorization: "Bearer a-token-for-the-limits-test" })).toBe(200);
	});

	it("does not serve a request sent on after a body it refused", async () => {
		const before = endpoint.sessions();
		const exchange = await rawExchange(endpoint.port, post({ "transfer-encoding": "chunked" }), {
			bytes: MAX + 1024 * 1024,
			chunked: true,
			after: post({ "content-length": String(initialize.length) }) + initialize,
		});
		expect413(exchange);
		expect(endpoint.sessions()).toBe(before);
	});
});

describe("createHttpServer: a request that never finishes", () => {
	let server: Server;
	let port: number;

	beforeAll(async () => {
		server = createHttpServer(
			(req, res) => {
				readJsonBody(req, res, 1024).then(
					(body) => res.end(JSON.stringify(body)),
					(error: unknown) => {
						// The request ended (Node's own 408 closed it): nothing to answer.
						if (!(error instanceof RequestError)) return;
						res.writeHead(error.status, closingHeaders(res));
						res.end(error.message);
					},
				);
			},
			{ headersMs: 300, requestMs: 600, checkEveryMs: 50 },
		);
		({ port } = await listen(server, 0, "127.0.0.1"));
	});

	afterAll(async () => {
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	});

	it.each([
		["headers that never end", "POST / HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n"],
		["a body that never ends", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"],
		["a chunk that never ends", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n{"],
	])("answers %s with 408 and closes the connection", async (_label, raw) => {
		const exchange = await rawExchange(port, raw);
		expect(exchange.responses.map((r) => r.status)).toEqual([408]);
		expect(exchange.responses[0]?.headers.connection).toBe("close");
	});

	it("serves a request that finishes, however long its answer takes", async () => {
		const exchange = await rawExchange(
			port,
			"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n[1,2,3]",
			undefined,
			finalResponses(1),
		);
		expect(exchange.responses.map((r) => r.status)).toEqual([200]);
		expect(exchange.responses[0]?.body).toBe("[1,2,3]");
	});
});
