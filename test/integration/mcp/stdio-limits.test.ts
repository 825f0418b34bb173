/**
 * `toolsmith mcp --builtins` over stdio, as a real child process, fed messages over its size limit:
 * a request over it is answered with an error naming the limit, a line that never ends is read past
 * without being kept, and the server goes on serving; a request under the limit but over the SDK's
 * own 10 MiB is served. Then the server still stops cleanly, saying why.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_MAX_MESSAGE_BYTES } from "../../../src/mcp/node-stdio.js";
import { INITIALIZE, makeProject, type Project, type RawServer, startRaw, textOf } from "./_cli-server.js";

const MiB = 1024 * 1024;

describe("toolsmith mcp over stdio: messages over the size limit", () => {
	let project: Project;
	let server: RawServer;

	beforeAll(async () => {
		project = makeProject();
		server = startRaw([".", "--builtins", "--no-watch"], project.dir);
		server.send(INITIALIZE);
		await server.waitFor((m) => m.id === 0, 30_000);
		server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
	}, 60_000);

	afterAll(async () => {
		server?.kill("SIGKILL");
		project?.remove();
	});

	it("serves a write of 12 MiB (over the SDK's 10 MiB line limit, under toolsmith's)", async () => {
		const content = "a".repeat(12 * MiB);
		server.send({
			jsonrpc: "2.0",
			id: 1,
			method: "tools/call",
			params: { name: "write", arguments: { path: "big.txt", content } },
		});
		const answer = await server.waitFor((m) => m.id === 1);
		expect(answer.error).toBeUndefined();
		expect(textOf(answer.result as object)).toMatch(/big\.txt/);
		expect(statSync(join(project.dir, "big.txt")).size).toBe(12 * MiB);
	});

	it("answers a request over the limit with an error naming it, under the request's id, and serves the next", async () => {
		const content = "b".repeat(MCP_MAX_MESSAGE_BYTES);
		// The SDK's client puts `id` after `params`, so the id is found only at the end of the line.
		server.sendRaw(
			`${JSON.stringify({ method: "tools/call", params: { name: "write", arguments: { path: "huge.txt", content } }, jsonrpc: "2.0", id: 2 })}\n`,
		);
		server.send({
			jsonrpc: "2.0",
			id: 3,
			method: "tools/call",
			params: { name: "read", arguments: { path: "probe.ts", limit: 1 } },
		});
		const refused = await server.waitFor((m) => m.id === 2);
		expect(refused.error).toMatchObject({ code: -32600, data: { maxMessageBytes: MCP_MAX_MESSAGE_BYTES } });
		expect((refused.error as { message: string }).message).toMatch(/limited to 17 MiB/);
		const next = await server.waitFor((m) => m.id === 3);
		expect(textOf(next.result as object)).toMatch(/import/);
		expect(server.stderr()).toMatch(/Refused request 2 over the 17 MiB message limit/);
	});

	it("reads past a line with no end without keeping it, answers it once it ends, and goes on", async () => {
		const chunk = "x".repeat(MiB);
		for (let i = 0; i < MCP_MAX_MESSAGE_BYTES / MiB + 8; i++) server.sendRaw(chunk);
		server.sendRaw("\n");
		server.send({ jsonrpc: "2.0", id: 4, method: "tools/list" });
		const refused = await server.waitFor((m) => m.id === null && m.error !== undefined);
		expect(refused.error).toMatchObject({ code: -32600 });
		const listed = await server.waitFor((m) => m.id === 4);
		expect((listed.result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
	});

	it("still stops cleanly when stdin closes, saying why, with the shutdown handlers run", async () => {
		server.endStdin();
		expect(await server.exited).toBe(0);
		expect(server.stderr()).toMatch(/stopping \(stdin closed\)/);
		expect(project.marked()).toContain("shutdown");
		expect(server.stdout()).not.toMatch(/probe: loaded/);
	});
});
