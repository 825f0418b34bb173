/**
 * The inspector's server against clients that send too much, over real sockets: a body over the
 * limit answered 413 with `Connection: close` (declared or chunked, the client still sending), a
 * request refused before its body was read closing its connection, and through all of it
 * `/api/state` answers.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finalResponses, rawExchange, requestHead } from "../mcp/_raw-http.js";
import { type Inspected, startInspected } from "./_server.js";

let it_: Inspected;
let host: string;
let assets: string;

beforeAll(async () => {
	assets = mkdtempSync(join(tmpdir(), "toolsmith-inspector-limits-"));
	writeFileSync(join(assets, "index.html"), "<p>page</p>");
	writeFileSync(join(assets, "app.js"), "export {};");
	writeFileSync(join(assets, "app.css"), "body{}");
	it_ = await startInspected({
		assetsDir: assets,
		extensions: ["hello.ts"],
		builtins: false,
	});
	host = `127.0.0.1:${it_.server.port}`;
});

afterAll(async () => {
	await it_?.close();
	if (assets) rmSync(assets, { recursive: true, force: true });
});

const tokenPath = (path: string) => `${path}?token=${it_.server.token}`;

async function stateStatus(): Promise<number> {
	return (await fetch(it_.url("/api/state"))).status;
}

describe("the inspector: a body over the limit gets a 413 the client receives", () => {
	const post = (headers: Record<string, string>) =>
		requestHead("POST", tokenPath("/api/call"), host, { "content-type": "application/json", ...headers });

	it("answers a declared Content-Length over 16 MiB at once, and a chunked body at the limit", async () => {
		const declared = await rawExchange(it_.server.port, `${post({ "content-length": String(16 * 1024 ** 2 + 1) })}{`);
		expect(declared.responses.map((r) => r.status)).toEqual([413]);
		expect(declared.responses[0]?.headers.connection).toBe("close");
		expect(JSON.parse(declared.responses[0]?.body ?? "").error).toMatch(/^Request too large: .*16 MiB.*declares/);

		const chunked = await rawExchange(it_.server.port, post({ "transfer-encoding": "chunked" }), {
			bytes: 64 * 1024 ** 2,
			chunked: true,
		});
		expect(chunked.responses.map((r) => r.status)).toEqual([413]);
		expect(chunked.responses[0]?.headers.connection).toBe("close");
		expect(chunked.sent).toBeLessThan(64 * 1024 ** 2);
		expect(await stateStatus()).toBe(200);
	});

	it("closes the connection of a request refused before its body was read (415), not reading it", async () => {
		const exchange = await rawExchange(
			it_.server.port,
			requestHead("POST", tokenPath("/api/call"), host, {
				"content-type": "text/plain",
				"content-length": String(1024 ** 3),
			}),
			{ bytes: 1024 ** 3 },
		);
		expect(exchange.responses.map((r) => r.status)).toEqual([415]);
		expect(exchange.responses[0]?.headers.connection).toBe("close");
		expect(exchange.sent).toBeLessThan(1024 ** 3);
	});

	it("keeps the connection of a request served with its whole body", async () => {
		const body = JSON.stringify({ tool: "hello", args: { name: "x" } });
		const exchange = await rawExchange(
			it_.server.port,
			`${post({ "content-length": String(body.length) })}${body}${requestHead("GET", tokenPath("/api/state"), host, {})}`,
			undefined,
			finalResponses(2),
		);
		expect(exchange.responses.map((r) => r.status)).toEqual([200, 200]);
		expect(exchange.responses[0]?.headers.connection).not.toBe("close");
	});
});
