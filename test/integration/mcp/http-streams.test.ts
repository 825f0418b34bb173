/**
 * `serveMcpOverHttp`'s streamed answers against clients that stop reading, over real sockets: a
 * call whose client asked for progress and reads nothing gets its later progress notifications
 * skipped (never piled up), and still its result; an answer or a GET stream whose client falls
 * more than `MCP_HTTP_MAX_UNSENT_BYTES` behind is dropped (its calls cancelled, stderr saying why),
 * and the server goes on serving.
 */
import { connect, type Socket } from "node:net";
import { Type } from "@sinclair/typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool } from "../../../src/contract/tool.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { createExtensionHost, type ExtensionHost } from "../../../src/extensions/node-host.js";
import { MCP_HTTP_MAX_UNSENT_BYTES, type McpHttpEndpoint, serveMcpOverHttp } from "../../../src/mcp/node-http.js";
import { INITIALIZE, until } from "./_cli-server.js";
import { finalResponses, rawExchange, requestHead } from "./_raw-http.js";

const UPDATES = 400;
const UPDATE_KIB = 64;

/** Calls of `chatty` that returned (their result is on its way then). */
const returned: string[] = [];

const chatty = defineTool({
	name: "chatty",
	label: "Chatty",
	description: `Sends ${UPDATES} partial results of ${UPDATE_KIB} KiB, then returns "done".`,
	parameters: Type.Object({}),
	async execute(id, _args, _signal, onUpdate) {
		for (let i = 0; i < UPDATES; i++) {
			onUpdate?.({ content: [{ type: "text", text: `${i} ${"u".repeat(UPDATE_KIB * 1024)}` }], details: {} });
			// Let the answer's connection take what it can between two updates.
			await new Promise((resolve) => setImmediate(resolve));
		}
		returned.push(id);
		return { content: [{ type: "text", text: "done" }], details: {} };
	},
});

const wide = defineTool({
	name: "wide",
	label: "Wide",
	description: "Returns 1 MiB of text.",
	parameters: Type.Object({}),
	async execute() {
		return { content: [{ type: "text", text: "w".repeat(1024 * 1024) }], details: {} };
	},
});

let endpoint: McpHttpEndpoint;
let host: ExtensionHost;
const logged: string[] = [];

beforeAll(async () => {
	host = createExtensionHost({ paths: [], cwd: "/", env: new MemoryExecutionEnv(), builtins: false, watch: false });
	await host.ready;
	host.registry.register(chatty);
	host.registry.register(wide);
	endpoint = await serveMcpOverHttp({ host, log: (line) => logged.push(line) });
});

afterAll(async () => {
	await endpoint?.close();
	await host?.close();
});

const hostHeader = () => `127.0.0.1:${endpoint.port}`;

function post(body: string, sessionId?: string): string {
	return (
		requestHead("POST", "/mcp", hostHeader(), {
			"content-type": "application/json",
			accept: "application/json, text/event-stream",
			"content-length": String(Buffer.byteLength(body)),
			...(sessionId ? { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" } : {}),
		}) + body
	);
}

async function openSession(): Promise<string> {
	const answer = await rawExchange(endpoint.port, post(JSON.stringify(INITIALIZE)), undefined, finalResponses(1));
	const id = answer.responses[0]?.headers["mcp-session-id"];
	expect(id).toBeTruthy();
	const initialized = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
	await rawExchange(endpoint.port, post(initialized, id), undefined, finalResponses(1));
	return id as string;
}

/** A connection that sent `request` and reads nothing until `resume`. */
function stalledRequest(request: string): { socket: Socket; text(): string } {
	const socket = connect(endpoint.port, "127.0.0.1");
	let text = "";
	socket.setEncoding("utf8");
	socket.on("data", (chunk: string) => {
		text += chunk;
	});
	socket.on("error", () => {});
	socket.write(request);
	socket.pause();
	return { socket, text: () => text };
}

/** The JSON-RPC messages of an SSE body (`data:` lines). */
function messages(text: string): Record<string, unknown>[] {
	return [...text.matchAll(/^data: (\{.*\})$/gm)].map((m) => JSON.parse(m[1] ?? "") as Record<string, unknown>);
}

async function pingStatus(sessionId: string): Promise<number> {
	const ping = JSON.stringify({ jsonrpc: "2.0", id: "ping", method: "ping" });
	return (
		(await rawExchange(endpoint.port, post(ping, sessionId), undefined, finalResponses(1))).responses[0]?.status ?? 0
	);
}

describe("serveMcpOverHttp: streamed answers and clients that stop reading", () => {
	it("skips the progress notifications a client has not read yet, and still sends the result", async () => {
		const sessionId = await openSession();
		const call = JSON.stringify({
			jsonrpc: "2.0",
			id: 7,
			method: "tools/call",
			params: { name: "chatty", arguments: {}, _meta: { progressToken: "p" } },
		});
		const stalled = stalledRequest(post(call, sessionId));
		try {
			await until(() => returned.includes("mcp-7"), "the chatty call to return", 60_000);
			stalled.socket.resume();
			await until(() => messages(stalled.text()).some((m) => m.id === 7), "the call's result", 60_000);
			const received = messages(stalled.text());
			const progress = received.filter((m) => m.method === "notifications/progress");
			expect(received.find((m) => m.id === 7)).toMatchObject({ result: { content: [{ type: "text", text: "done" }] } });
			// Fewer than were sent: those queued while the client read nothing were skipped, in order.
			expect(progress.length).toBeGreaterThan(0);
			expect(progress.length).toBeLessThan(UPDATES);
			const values = progress.map((m) => (m.params as { progress: number }).progress);
			expect(values).toEqual([...values].sort((a, b) => a - b));
			expect(await pingStatus(sessionId)).toBe(200);
		} finally {
			stalled.socket.destroy();
		}
	}, 90_000);

	it("drops an answer whose client falls too far behind, cancelling its calls, and serves on", async () => {
		const sessionId = await openSession();
		// A batch of calls of 1 MiB results each, answered on one stream the client does not read.
		const batch = JSON.stringify(
			Array.from({ length: 40 }, (_, i) => ({
				jsonrpc: "2.0",
				id: 100 + i,
				method: "tools/call",
				params: { name: "wide", arguments: {} },
			})),
		);
		const stalled = stalledRequest(post(batch, sessionId));
		try {
			await until(
				() => logged.some((line) => line.startsWith(`Dropped the answer to request 100, 101,`)),
				"the answer to be dropped",
				60_000,
			);
			const line = logged.find((l) => l.startsWith("Dropped the answer to request 100,"));
			expect(line).toMatch(
				new RegExp(
					`^Dropped the answer to request 100, .* of MCP session ${sessionId}: its client left \\d+ bytes unread, more than the 4 MiB a client may fall behind; its calls are cancelled\\.$`,
				),
			);
			expect(MCP_HTTP_MAX_UNSENT_BYTES).toBe(4 * 1024 * 1024);
			expect(await pingStatus(sessionId)).toBe(200);
		} finally {
			stalled.socket.destroy();
		}
	}, 90_000);

	it("drops the GET stream of a client that never reads it, and serves on", async () => {
		const sessionId = await openSession();
		const stream = stalledRequest(
			requestHead("GET", "/mcp", hostHeader(), {
				accept: "text/event-stream",
				"mcp-session-id": sessionId,
				"mcp-protocol-version": "2025-06-18",
			}),
		);
		try {
			// Each change of the tool list is a notification on the GET stream.
			const extra = defineTool({ ...wide, name: "extra" });
			let changes = 0;
			while (!logged.some((line) => line.startsWith(`Dropped the GET stream of MCP session ${sessionId}`))) {
				expect(changes, "list changes sent without the GET stream being dropped").toBeLessThan(2_000_000);
				for (let i = 0; i < 1000; i++) {
					host.registry.register(extra);
					host.registry.unregister("extra");
				}
				changes += 2000;
				await new Promise((resolve) => setImmediate(resolve));
			}
			expect(logged.find((line) => line.includes(`GET stream of MCP session ${sessionId}`))).toMatch(
				/its client left \d+ bytes unread, more than the 4 MiB a client may fall behind; the client may open it again\.$/,
			);
			expect(await pingStatus(sessionId)).toBe(200);
		} finally {
			stream.socket.destroy();
		}
	}, 90_000);
});
