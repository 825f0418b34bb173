/**
 * The inspector's server against clients that send too much or read too little, over real
 * sockets: a body over the limit answered 413 with `Connection: close` (declared or chunked); the
 * event stream capped (a client past the cap refused with 503, `Retry-After` and the reason) and
 * bounded per client (one that stops reading is dropped with a last `dropped` event saying why,
 * while a client that reads the same events is kept); JSON answers bounded while their clients do
 * not read them (503 past the bound, an answer nobody reads cut off); and through all of it
 * `/api/state` answers.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InspectorEvent } from "../../../src/inspector/protocol.js";
import { until } from "../mcp/_cli-server.js";
import { finalResponses, rawExchange, requestHead } from "../mcp/_raw-http.js";
import { eventStream, type Inspected, startInspected } from "./_server.js";

/** A tool whose result is `kib` KiB of text: each call puts that much on the event stream. */
const BULK = `import { defineTool, type ExtensionAPI, Type } from "toolsmith-sdk";
export default function (api: ExtensionAPI) {
	api.registerTool(defineTool({
		name: "bulk",
		label: "Bulk",
		description: "Returns kib KiB of text.",
		parameters: Type.Object({ kib: Type.Integer() }),
		async execute(_id, { kib }) {
			return { content: [{ type: "text", text: \`\${"x".repeat(1023)}\\n\`.repeat(kib) }], details: {} };
		},
	}));
}
`;

const MAX_STREAMS = 4;
const MAX_UNSENT = 64 * 1024;

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
		sources: { "bulk.ts": BULK },
		streams: { maxEventStreams: MAX_STREAMS, maxUnsentEventBytes: MAX_UNSENT },
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

/** A raw client of `/api/events` that can stop reading (`pause`) and start again. */
interface RawStream {
	readonly socket: Socket;
	/** Everything read so far. */
	text(): string;
	/** Resolves once `predicate` holds of what was read. */
	until(predicate: (text: string) => boolean, what: string): Promise<void>;
}

function openRawStream(): RawStream {
	const socket = connect(it_.server.port, "127.0.0.1");
	let text = "";
	socket.setEncoding("utf8");
	socket.on("data", (chunk: string) => {
		text += chunk;
	});
	socket.on("error", () => {});
	socket.write(requestHead("GET", tokenPath("/api/events"), host, {}));
	return {
		socket,
		text: () => text,
		until: (predicate, what) => until(() => predicate(text), what),
	};
}

/** The `data:` events of an event-stream body, with the `event:` name each came under. */
function frames(text: string): { name?: string; event: InspectorEvent }[] {
	const body = text.slice(text.indexOf("\r\n\r\n") + 4);
	const out: { name?: string; event: InspectorEvent }[] = [];
	for (const match of body.matchAll(/(?:event: (\w+)\n)?data: (.*)\n\n/g)) {
		out.push({ ...(match[1] ? { name: match[1] } : {}), event: JSON.parse(match[2] ?? "") as InspectorEvent });
	}
	return out;
}

const hasHello = (text: string) => text.includes('data: {"type":"hello"') && /"type":"hello".*\n\n/s.test(text);

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

describe("the inspector's event stream: capped, and bounded per client", () => {
	it("refuses a client past the cap with 503, Retry-After and the reason; lets one in once another leaves", async () => {
		const open = Array.from({ length: MAX_STREAMS }, () => openRawStream());
		try {
			for (const stream of open) await stream.until(hasHello, "the hello event");
			expect(it_.server.eventStreams()).toBe(MAX_STREAMS);
			const refused = await rawExchange(
				it_.server.port,
				requestHead("GET", tokenPath("/api/events"), host, {}),
				undefined,
				finalResponses(1),
			);
			expect(refused.responses[0]?.status).toBe(503);
			expect(refused.responses[0]?.headers["retry-after"]).toBe("5");
			expect(JSON.parse(refused.responses[0]?.body ?? "").error).toMatch(
				/^Too many event streams: this inspector serves at most 4 at once/,
			);
			expect(it_.server.eventStreams()).toBe(MAX_STREAMS);
			expect(await stateStatus()).toBe(200);

			open.pop()?.socket.destroy();
			await until(() => it_.server.eventStreams() === MAX_STREAMS - 1, "the closed stream to leave");
			const next = openRawStream();
			open.push(next);
			await next.until(hasHello, "the hello event of the client let in");
			expect(it_.server.eventStreams()).toBe(MAX_STREAMS);
		} finally {
			for (const stream of open) stream.socket.destroy();
			await until(() => it_.server.eventStreams() === 0, "every stream to leave");
		}
	});

	it("keeps the count at the cap with 200 clients that never read, and still answers /api/state", async () => {
		const clients = Array.from({ length: 200 }, () => openRawStream());
		try {
			for (const client of clients) client.socket.pause();
			await until(() => it_.server.eventStreams() === MAX_STREAMS, "the cap to fill");
			expect(await stateStatus()).toBe(200);
			expect(it_.server.eventStreams()).toBe(MAX_STREAMS);
		} finally {
			for (const client of clients) client.socket.destroy();
			await until(() => it_.server.eventStreams() === 0, "every stream to leave");
		}
	});

	it("frees the slot of a client that opens and closes its stream in a loop", async () => {
		for (let i = 0; i < 50; i++) {
			const stream = openRawStream();
			await stream.until(hasHello, "the hello event");
			stream.socket.destroy();
		}
		await until(() => it_.server.eventStreams() === 0, "every stream to leave");
		expect(await stateStatus()).toBe(200);
	});

	it("drops a client that stops reading, with a last dropped event saying why; a client that reads stays", async () => {
		const reader = eventStream(it_.url("/api/events"));
		const stalled = openRawStream();
		try {
			await reader.next((e) => e.type === "hello");
			await stalled.until(hasHello, "the hello event");
			stalled.socket.pause();
			expect(it_.server.eventStreams()).toBe(2);
			// Each call puts its 256 KiB result on the stream; the stalled client leaves it all unread.
			let calls = 0;
			while (it_.server.eventStreams() === 2) {
				expect(calls, "calls made without the stalled client being dropped").toBeLessThan(400);
				const response = await fetch(it_.url("/api/call"), {
					method: "POST",
					headers: { "content-type": "application/json" },
					body: JSON.stringify({ tool: "bulk", args: { kib: 256 } }),
				});
				const { id } = (await response.json()) as { id: string };
				await reader.next((e) => e.type === "call" && e.call.id === id && e.call.status !== "running");
				calls += 1;
			}
			expect(await stateStatus()).toBe(200);
			// The stalled client reads again: its stream ends (the last chunk) with the reason.
			stalled.socket.resume();
			await stalled.until((text) => text.endsWith("\r\n0\r\n\r\n"), "the end of the stream");
			const last = frames(stalled.text()).at(-1);
			expect(last?.name).toBe("dropped");
			expect(last?.event).toEqual({
				type: "dropped",
				reason: "behind",
				message: expect.stringMatching(
					/^This page fell more than 64 KiB behind the inspector's live events \(\d+ bytes were still waiting for it\)/,
				),
			});
			// The reader got every call and is still followed.
			expect(reader.seen.some((e) => e.type === "dropped")).toBe(false);
			expect(it_.server.eventStreams()).toBe(1);
		} finally {
			reader.close();
			stalled.socket.destroy();
			await until(() => it_.server.eventStreams() === 0, "every stream to leave");
		}
	});
});

describe("the inspector's JSON answers: bounded while their clients do not read them", () => {
	it("refuses a big answer with 503 while others wait for clients that never read, then serves again", async () => {
		const small = await startInspected({
			assetsDir: assets,
			extensions: ["hello.ts"],
			builtins: false,
			sources: { "bulk.ts": BULK },
			streams: { maxPendingAnswerBytes: 2 * 1024 * 1024, answerTimeoutMs: 10_000 },
		});
		const clients: Socket[] = [];
		try {
			const call = async () => {
				const response = await fetch(small.url("/api/call"), {
					method: "POST",
					headers: { "content-type": "application/json" },
					body: JSON.stringify({ tool: "bulk", args: { kib: 1024 } }),
				});
				return ((await response.json()) as { id: string }).id;
			};
			const ids = [await call(), await call(), await call(), await call()];
			await until(async () => {
				const state = (await (await fetch(small.url("/api/state"))).json()) as {
					calls: { id: string; status: string }[];
				};
				return ids.every((id) => state.calls.some((c) => c.id === id && c.status !== "running"));
			}, "the calls to end");
			// Clients that ask for the (4 MiB and more) state and never read it.
			for (let i = 0; i < 20; i++) {
				const socket = connect(small.server.port, "127.0.0.1");
				socket.on("error", () => {});
				socket.pause();
				socket.write(
					requestHead("GET", `/api/state?token=${small.server.token}`, `127.0.0.1:${small.server.port}`, {}),
				);
				clients.push(socket);
			}
			let refused: Response | undefined;
			await until(async () => {
				const response = await fetch(small.url("/api/state"));
				if (response.status === 503) refused = response;
				else await response.arrayBuffer();
				return refused !== undefined;
			}, "a 503 while the answers wait");
			if (!refused) throw new Error("no 503");
			expect(refused.status).toBe(503);
			expect(refused.headers.get("retry-after")).toBe("5");
			expect(((await refused.json()) as { error: string }).error).toMatch(
				/^Busy: .* of answers wait for clients that do not read them, and this answer \(.*\) would pass the 2 MiB the inspector keeps; try again in a moment\.$/,
			);
			// Small answers still go out.
			expect((await fetch(small.url("/api/evals"))).status).toBe(200);
			// The answers nobody reads are cut off after answerTimeoutMs, and the state is served again.
			await until(async () => (await fetch(small.url("/api/state"))).status === 200, "the state served again", 60_000);
		} finally {
			for (const socket of clients) socket.destroy();
			await small.close();
		}
	}, 120_000);
});
