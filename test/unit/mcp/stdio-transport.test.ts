/**
 * `McpStdioTransport` on in-memory streams, with a small limit: messages under it are delivered,
 * one over it is answered with an error under its id (wherever the id is), a notification over it
 * is not answered, a line with no end is read past, and the transport says why it closed.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { EnvelopeScanner } from "../../../src/mcp/_envelope-scan.js";
import { McpStdioTransport } from "../../../src/mcp/node-stdio.js";

function setup(maxMessageBytes = 200) {
	const stdin = new PassThrough();
	const stdout = new PassThrough();
	const received: object[] = [];
	const logged: string[] = [];
	let out = "";
	stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
	const transport = new McpStdioTransport({ stdin, stdout, maxMessageBytes, log: (m) => logged.push(m) });
	transport.onmessage = (message) => received.push(message);
	const answers = () =>
		out
			.split("\n")
			.filter(Boolean)
			.map((line) => JSON.parse(line) as Record<string, unknown>);
	return { stdin, transport, received, logged, answers };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("McpStdioTransport", () => {
	it("delivers messages split across chunks and several in one chunk, CRLF or LF", async () => {
		const { stdin, transport, received } = setup();
		await transport.start();
		stdin.write('{"jsonrpc":"2.0","id":1,"met');
		stdin.write('hod":"ping"}\r\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n\n');
		await tick();
		expect(received).toEqual([
			{ jsonrpc: "2.0", id: 1, method: "ping" },
			{ jsonrpc: "2.0", method: "notifications/initialized" },
		]);
	});

	it("answers a request over the limit under its id, even when the id comes last, and reads the next", async () => {
		const { stdin, transport, received, answers, logged } = setup();
		await transport.start();
		const big = { method: "tools/call", params: { name: "write", arguments: { content: "x".repeat(500) } } };
		stdin.write(`${JSON.stringify({ ...big, jsonrpc: "2.0", id: "req-7" })}\n`);
		stdin.write('{"jsonrpc":"2.0","id":8,"method":"ping"}\n');
		await tick();
		expect(answers()).toEqual([
			{
				jsonrpc: "2.0",
				id: "req-7",
				error: {
					code: -32600,
					message: "Request too large: MCP messages over stdio are limited to 200 bytes (200 bytes).",
					data: { maxMessageBytes: 200 },
				},
			},
		]);
		expect(received).toEqual([{ jsonrpc: "2.0", id: 8, method: "ping" }]);
		expect(logged).toEqual(['Refused request "req-7" over the 200 bytes message limit.']);
	});

	it("does not answer a notification over the limit", async () => {
		const { stdin, transport, answers, logged } = setup();
		await transport.start();
		stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: { pad: "y".repeat(500) } })}\n`);
		await tick();
		expect(answers()).toEqual([]);
		expect(logged).toHaveLength(1);
	});

	it("reads past a line with no end in bounded memory, then answers it with id null", async () => {
		const { stdin, transport, answers, received } = setup(1024);
		await transport.start();
		const chunk = Buffer.alloc(64 * 1024, "z");
		for (let i = 0; i < 256; i++) stdin.write(chunk); // 16 MiB, no newline
		stdin.write('\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
		await tick();
		expect(answers()).toMatchObject([{ jsonrpc: "2.0", id: null, error: { code: -32600 } }]);
		expect(received).toEqual([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
	});

	it("answers a line that is not JSON with a parse error, and goes on", async () => {
		const { stdin, transport, answers, received } = setup();
		await transport.start();
		stdin.write('not json\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
		await tick();
		expect(answers()).toMatchObject([{ jsonrpc: "2.0", id: null, error: { code: -32700 } }]);
		expect(received).toHaveLength(1);
	});

	it("says why it closed: stdin ending, or the server closing it", async () => {
		const first = setup();
		let closes = 0;
		first.transport.onclose = () => closes++;
		await first.transport.start();
		first.stdin.end();
		expect(await first.transport.closed).toBe("stdin closed");
		const second = setup();
		await second.transport.start();
		await second.transport.close();
		await second.transport.close();
		expect(await second.transport.closed).toBe("closed by the server");
		expect(closes).toBe(1);
	});
});

describe("EnvelopeScanner", () => {
	const scan = (text: string, split = 3) => {
		const scanner = new EnvelopeScanner();
		const bytes = Buffer.from(text);
		for (let i = 0; i < bytes.length; i += split) scanner.push(bytes.subarray(i, i + split));
		return scanner.envelope();
	};

	it("finds the top-level id and method, not nested ones, through escapes", () => {
		expect(scan('{"params":{"id":5,"s":"\\"id\\":9"},"method":"m","id":42}')).toEqual({
			isObject: true,
			id: 42,
			hasId: true,
			hasMethod: true,
		});
		expect(scan(' {"id" : "a\\"b" , "jsonrpc":"2.0"}')).toMatchObject({ id: 'a"b', hasMethod: false });
		expect(scan('{"method":"n","params":[1,{"id":3}]}')).toMatchObject({ id: undefined, hasId: false });
		expect(scan('{"id":{"x":1},"method":"m"}')).toMatchObject({ id: undefined, hasId: true });
		expect(scan("[1,2]")).toMatchObject({ isObject: false, id: undefined });
	});
});
