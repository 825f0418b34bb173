/**
 * `toolsmith mcp docs/examples` over stdio, as a real child process, with the SDK's own `Client`:
 * list, call, error results, progress, cancellation, list_changed after an edit, a broken save,
 * 100 concurrent calls, a stdout that carries protocol messages only, and clean shutdowns.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	cancelWait,
	INITIALIZE,
	makeProject,
	mcpCommand,
	type Project,
	startRaw,
	textOf,
	until,
} from "./_cli-server.js";

describe("toolsmith mcp over stdio (SDK client)", () => {
	let project: Project;
	let client: Client;
	let stderr = "";
	const clientErrors: Error[] = [];
	let listChanged = 0;

	beforeAll(async () => {
		project = makeProject();
		const transport = new StdioClientTransport({ ...mcpCommand(["."]), cwd: project.dir, stderr: "pipe" });
		transport.stderr?.on("data", (chunk: Buffer) => {
			stderr += chunk.toString("utf8");
		});
		client = new Client({ name: "cli-test", version: "0.0.0" });
		client.onerror = (error) => clientErrors.push(error);
		client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
			listChanged += 1;
		});
		await client.connect(transport);
	}, 60_000);

	afterAll(async () => {
		await client?.close();
		project?.remove();
	});

	it("lists the examples' tools with schemas, titles and annotations; instructions hold the guidelines", async () => {
		const { tools } = await client.listTools();
		expect(tools.map((t) => t.name).sort()).toEqual(["countdown", "hello", "read", "todo", "wait"]);
		const hello = tools.find((t) => t.name === "hello");
		expect(hello?.inputSchema).toMatchObject({ type: "object", properties: { name: { type: "string" } } });
		expect(hello?.title).toBe("Hello");
		expect(client.getServerVersion()?.name).toBe("toolsmith");
		expect(stderr).toMatch(/toolsmith mcp · 5 tools · stdio/);
	});

	it("calls a tool, and gives invalid arguments and unknown tools as error results", async () => {
		const ok = await client.callTool({ name: "hello", arguments: { name: "Ada" } });
		expect(ok.isError).toBeFalsy();
		expect(textOf(ok)).toBe("Hello, Ada.");
		const invalid = await client.callTool({ name: "hello", arguments: { excited: true } });
		expect(invalid.isError).toBe(true);
		expect(textOf(invalid)).toMatch(/name/);
		const unknown = await client.callTool({ name: "nope", arguments: {} });
		expect(unknown.isError).toBe(true);
		expect(textOf(unknown)).toMatch(/nope/);
	});

	it("sends progress notifications for a request with a progress token", async () => {
		const seen: { progress: number; message?: string }[] = [];
		const result = await client.callTool({ name: "countdown", arguments: { from: 4, intervalMs: 20 } }, undefined, {
			onprogress: (progress) => seen.push(progress),
		});
		expect(textOf(result)).toBe("Counted down from 4.");
		expect(seen.length).toBeGreaterThanOrEqual(3);
		expect(seen.slice(0, 3).map((p) => p.message)).toEqual(["4…", "3…", "2…"]);
		expect(seen.map((p) => p.progress)).toEqual([...seen.keys()].map((i) => i + 1));
	});

	it("aborts the tool's signal when the client cancels, and keeps serving", async () => {
		await cancelWait(client, project);
		expect(textOf(await client.callTool({ name: "hello", arguments: { name: "after" } }))).toBe("Hello, after.");
	});

	it("answers 100 concurrent calls, each with its own result", async () => {
		const names = Array.from({ length: 100 }, (_, i) => `n${i}`);
		const results = await Promise.all(names.map((name) => client.callTool({ name: "hello", arguments: { name } })));
		expect(results.map(textOf)).toEqual(names.map((name) => `Hello, ${name}.`));
	});

	it("sends list_changed after an edit, and keeps the last good tools after a broken save", async () => {
		const file = join(project.dir, "hello.ts");
		const original = readFileSync(file, "utf8");
		expect(original).toContain("Hello, ");
		const before = listChanged;
		writeFileSync(file, original.replace('label: "Hello"', 'label: "Hello again"').replaceAll("Hello, ", "Hi, "));
		await until(() => listChanged > before, "notifications/tools/list_changed");
		const { tools } = await client.listTools();
		expect(tools.find((t) => t.name === "hello")?.title).toBe("Hello again");
		expect(textOf(await client.callTool({ name: "hello", arguments: { name: "Ada" } }))).toBe("Hi, Ada.");

		const reloadsBefore = (stderr.match(/reload failed/g) ?? []).length;
		writeFileSync(file, `${original}\nexport const broken = ;\n`);
		// The reload line and its diagnostic may reach us in separate chunks: wait for both.
		await until(
			() => (stderr.match(/reload failed/g) ?? []).length > reloadsBefore && /hello\.ts:\d+:\d+/.test(stderr),
			"the failed reload and its diagnostic on stderr",
		);
		// Each failed reload's diagnostic is shown once, under its reload line.
		await new Promise((resolve) => setTimeout(resolve, 500));
		const failedReloads = (stderr.match(/reload failed/g) ?? []).length;
		expect((stderr.match(/\[E_SYNTAX\]/g) ?? []).length).toBe(failedReloads);
		const after = await client.listTools();
		expect(after.tools.map((t) => t.name)).toContain("hello");
		expect(textOf(await client.callTool({ name: "hello", arguments: { name: "Ada" } }))).toBe("Hi, Ada.");
	}, 60_000);

	it("never let the extension's console output reach stdout", () => {
		expect(stderr).toContain("probe: loaded (console.log)");
		expect(stderr).toContain("probe: loaded (process.stdout.write)");
		expect(stderr).toContain("probe: wait started");
		expect(clientErrors).toEqual([]);
	});
});

describe("toolsmith mcp over stdio (raw stdout, signals)", () => {
	let project: Project;
	beforeAll(() => {
		project = makeProject();
	});
	afterAll(() => project?.remove());

	it("answers 100 calls sent at once in the order of their ids, each with its own result", async () => {
		const server = startRaw(["."], project.dir);
		try {
			server.send(INITIALIZE);
			await server.waitFor((m) => m.id === 0);
			server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
			const ids = Array.from({ length: 100 }, (_, i) => i + 1);
			const batch = ids.map(
				(id) =>
					`${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "hello", arguments: { name: `n${id}` } } })}\n`,
			);
			server.sendRaw(batch.join(""));
			await server.waitFor((m) => m.id === 100);
			await until(
				() => server.messages().filter((m) => typeof m.id === "number" && m.id > 0).length >= 100,
				"100 answers",
			);
			const answers = server.messages().filter((m) => typeof m.id === "number" && m.id > 0);
			expect(answers.map((m) => m.id)).toEqual(ids);
			expect(answers.map((m) => textOf(m.result as object))).toEqual(ids.map((id) => `Hello, n${id}.`));
		} finally {
			server.endStdin();
			await server.exited;
		}
	}, 60_000);

	it("shows each startup diagnostic once", async () => {
		const server = startRaw([".", "--builtins", "--no-watch"], project.dir);
		await until(() => server.stderr().includes("toolsmith mcp ·"), "the server to start");
		server.endStdin();
		expect(await server.exited).toBe(0);
		expect(server.stderr().match(/I_BUILTIN_OVERRIDDEN/g)).toHaveLength(1);
	}, 60_000);

	for (const how of ["stdin closed", "SIGTERM", "SIGINT"] as const) {
		it(`stops on ${how}: the call in flight aborted, session_shutdown run, exit 0, stdout only JSON-RPC`, async () => {
			writeFileSync(project.marks, "");
			const server = startRaw(["."], project.dir);
			server.send(INITIALIZE);
			await server.waitFor((m) => m.id === 0);
			server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
			server.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "wait", arguments: {} } });
			await until(() => project.marked().includes("started"), "the wait tool to start");
			if (how === "stdin closed") server.endStdin();
			else server.kill(how);
			expect(await server.exited).toBe(0);
			expect(project.marked()).toEqual(["started", "aborted", "shutdown"]);
			// Every stdout line is a JSON-RPC message (messages() throws on anything else).
			const messages = server.messages();
			expect(messages.length).toBeGreaterThan(0);
			for (const message of messages) expect(message.jsonrpc).toBe("2.0");
			expect(server.stdout()).not.toContain("probe:");
			expect(server.stderr()).toContain("probe: loaded (console.log)");
			expect(server.stderr()).toContain(`stopping (${how})`);
		}, 60_000);
	}
});
