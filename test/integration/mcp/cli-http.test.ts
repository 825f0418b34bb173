/**
 * `toolsmith mcp docs/examples --http` as a real child process: the SDK's Streamable HTTP client
 * lists, calls, gets progress and list_changed, cancels a call, makes 100 at once, and keeps the
 * last good tools after a broken save; foreign Host and Origin headers are refused (403),
 * the bearer token is required when set (401), and the CLI refuses a public bind without a token.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli/_run.js";
import {
	cancelWait,
	INITIALIZE,
	makeProject,
	type Project,
	type RawServer,
	startHttp,
	textOf,
	until,
} from "./_cli-server.js";

const serve = (project: Project, extra: readonly string[] = []) => startHttp([".", ...extra], project.dir);

/** A raw POST of `initialize` with the headers given, for the header checks. */
function post(url: URL, headers: Record<string, string>): Promise<{ status: number; body: string }> {
	return new Promise((resolve, reject) => {
		const req = request(
			url,
			{
				method: "POST",
				headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
			},
			(res) => {
				let body = "";
				res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
				res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
			},
		);
		req.on("error", reject);
		req.end(JSON.stringify(INITIALIZE));
	});
}

describe("toolsmith mcp --http", () => {
	let project: Project;
	const servers: RawServer[] = [];
	const clients: Client[] = [];

	beforeAll(() => {
		project = makeProject();
	});
	afterEach(async () => {
		await Promise.all(clients.splice(0).map((c) => c.close()));
		for (const server of servers.splice(0)) {
			server.kill("SIGTERM");
			expect(await server.exited).toBe(0);
		}
	});
	afterAll(() => project?.remove());

	it("serves list, call, progress and list_changed to the SDK's Streamable HTTP client", async () => {
		const { server, url } = await serve(project);
		servers.push(server);
		expect(url.hostname).toBe("127.0.0.1");
		const client = new Client({ name: "http-test", version: "0.0.0" });
		let listChanged = 0;
		client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
			listChanged += 1;
		});
		await client.connect(new StreamableHTTPClientTransport(url));
		clients.push(client);
		const { tools } = await client.listTools();
		expect(tools.map((t) => t.name).sort()).toEqual(["countdown", "hello", "read", "todo", "wait"]);
		expect(textOf(await client.callTool({ name: "hello", arguments: { name: "Ada" } }))).toBe("Hello, Ada.");
		const error = await client.callTool({ name: "hello", arguments: {} });
		expect(error.isError).toBe(true);

		const progress: (string | undefined)[] = [];
		const counted = await client.callTool({ name: "countdown", arguments: { from: 3, intervalMs: 20 } }, undefined, {
			onprogress: (p) => progress.push(p.message),
		});
		expect(textOf(counted)).toBe("Counted down from 3.");
		expect(progress.slice(0, 2)).toEqual(["3…", "2…"]);

		const file = join(project.dir, "hello.ts");
		writeFileSync(file, readFileSync(file, "utf8").replace('label: "Hello"', 'label: "Hello over HTTP"'));
		await until(() => listChanged > 0, "notifications/tools/list_changed over the SSE stream");
		const after = await client.listTools();
		expect(after.tools.find((t) => t.name === "hello")?.title).toBe("Hello over HTTP");
	}, 60_000);

	it("aborts a cancelled call, answers 100 concurrent calls, and keeps the last good tools after a broken save", async () => {
		const { server, url } = await serve(project);
		servers.push(server);
		const client = new Client({ name: "http-test", version: "0.0.0" });
		const clientErrors: Error[] = [];
		client.onerror = (error) => clientErrors.push(error);
		await client.connect(new StreamableHTTPClientTransport(url));
		clients.push(client);

		writeFileSync(project.marks, "");
		await cancelWait(client, project);

		const names = Array.from({ length: 100 }, (_, i) => `h${i}`);
		const results = await Promise.all(names.map((name) => client.callTool({ name: "hello", arguments: { name } })));
		expect(results.map(textOf)).toEqual(names.map((name) => `Hello, ${name}.`));

		const file = join(project.dir, "countdown.ts");
		const original = readFileSync(file, "utf8");
		try {
			writeFileSync(file, `${original}\nexport const broken = ;\n`);
			// The reload line and its diagnostic may reach us in separate chunks: wait for both.
			await until(
				() => /reload failed countdown\.ts/.test(server.stderr()) && /countdown\.ts:\d+:\d+/.test(server.stderr()),
				"the failed reload and its diagnostic on stderr",
			);
			expect((await client.listTools()).tools.map((t) => t.name)).toContain("countdown");
			expect(textOf(await client.callTool({ name: "countdown", arguments: { from: 1, intervalMs: 0 } }))).toBe(
				"Counted down from 1.",
			);
		} finally {
			writeFileSync(file, original);
		}
		expect(clientErrors).toEqual([]);
	}, 60_000);

	it("refuses a foreign Origin or Host with 403 and accepts its own", async () => {
		const { server, url } = await serve(project);
		servers.push(server);
		expect((await post(url, { origin: "http://evil.example" })).status).toBe(403);
		expect((await post(url, { host: `evil.example:${url.port}` })).status).toBe(403);
		expect((await post(url, { host: `localhost:${url.port}`, origin: `http://localhost:${url.port}` })).status).toBe(
			200,
		);
		expect((await post(new URL("/other", url), {})).status).toBe(404);
	}, 60_000);

	it("requires the bearer token when one is set", async () => {
		const { server, url } = await serve(project, ["--token", "s3cret"]);
		servers.push(server);
		expect(server.stderr()).toContain("bearer token required");
		expect((await post(url, {})).status).toBe(401);
		expect((await post(url, { authorization: "Bearer wrong" })).status).toBe(401);
		const client = new Client({ name: "http-test", version: "0.0.0" });
		await client.connect(
			new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: "Bearer s3cret" } } }),
		);
		clients.push(client);
		expect(textOf(await client.callTool({ name: "hello", arguments: { name: "Bo" } }))).toBe("Hello, Bo.");
	}, 60_000);

	it("refuses to bind another interface without a token, and a malformed address (exit 2)", async () => {
		const open = await runCli(["mcp", project.dir, "--http", "0.0.0.0:0"]);
		expect(open.code).toBe(2);
		expect(open.stderr).toMatch(/--token/);
		const bad = await runCli(["mcp", project.dir, "--http", "localhost:http"]);
		expect(bad.code).toBe(2);
		expect(bad.stderr).toMatch(/--http takes a port or host:port/);
		const none = await runCli(["mcp"]);
		expect(none.code).toBe(2);
		expect(none.stderr).toMatch(/--builtins/);
	}, 60_000);
});
