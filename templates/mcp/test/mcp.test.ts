/**
 * The tools as an MCP client gets them from `npm run mcp`: this project, loaded from package.json's
 * `toolsmith.extensions` as `toolsmith mcp .` loads it, served by `createMcpServer` to the MCP SDK's
 * own `Client` through a linked pair of in-memory transports. The tools run on an in-memory env,
 * so the test needs neither the disk nor a child process.
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { MemoryExecutionEnv } from "toolsmith-sdk";
import {
	createExtensionHost,
	createMcpServer,
	type ExtensionHost,
	MCP_DETAILS_META_KEY,
	type ToolsmithMcpServer,
} from "toolsmith-sdk/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as tools from "../src/tools/index.js";

declare global {
	// The MCP SDK's declarations name `HeadersInit`, a type of the DOM lib that Node's types leave out
	// (modelcontextprotocol/typescript-sdk#2568). Declared as Node's fetch types spell it, so the types
	// that use it are real ones and `tsc --skipLibCheck false` passes without the DOM lib; remove it
	// if you add "DOM" to `lib`.
	type HeadersInit = NonNullable<RequestInit["headers"]>;
}

const project = fileURLToPath(new URL("..", import.meta.url));

describe("the tools over MCP", () => {
	let host: ExtensionHost;
	let server: ToolsmithMcpServer;
	const client = new Client({ name: "test", version: "0.0.0" });
	// Anything but a protocol message on the connection ends up here.
	const clientErrors: Error[] = [];
	client.onerror = (error) => clientErrors.push(error);

	beforeAll(async () => {
		host = createExtensionHost({
			paths: [project],
			env: new MemoryExecutionEnv({ files: { "notes.txt": "one two\nthree\n" } }),
			builtins: false,
		});
		const { diagnostics } = await host.ready;
		expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
		server = await createMcpServer({ host });
		const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
		await server.connect(serverSide);
		await client.connect(clientSide);
	});

	afterAll(async () => {
		await client.close();
		await server?.close();
		await host?.close();
	});

	it("lists every tool of src/tools/, with its title, input schema and annotations", async () => {
		const { tools: listed } = await client.listTools();
		const names = Object.values(tools).map((tool) => tool.name);
		expect(listed.map((tool) => tool.name).sort()).toEqual(names.sort());
		expect(listed.find((tool) => tool.name === "{{toolName}}")).toMatchObject({
			title: "{{toolLabel}}",
			inputSchema: { type: "object", required: ["path"], properties: { path: { type: "string" } } },
			annotations: { readOnlyHint: true, openWorldHint: false },
		});
		// The tools' promptGuidelines reach the client once, as the server's instructions.
		expect(client.getInstructions()).toContain("Use {{toolName}} to size up a file before reading it whole.");
	});

	it("calls a tool: its content as it is, its details under _meta", async () => {
		const result = await client.callTool({ name: "{{toolName}}", arguments: { path: "notes.txt" } });
		expect(result.isError).toBeFalsy();
		expect(result.content).toEqual([{ type: "text", text: "notes.txt: 2 lines, 3 words, 14 characters" }]);
		expect(result._meta?.[MCP_DETAILS_META_KEY]).toEqual({ path: "notes.txt", lines: 2, words: 3, characters: 14 });
	});

	it("answers a failed call and invalid arguments with error results the model can read", async () => {
		const missing = await client.callTool({ name: "{{toolName}}", arguments: { path: "missing.txt" } });
		expect(missing.isError).toBe(true);
		expect(missing.content).toEqual([{ type: "text", text: expect.stringContaining("missing.txt") }]);
		const invalid = await client.callTool({ name: "{{toolName}}", arguments: {} });
		expect(invalid.isError).toBe(true);
		expect(invalid._meta?.[MCP_DETAILS_META_KEY]).toMatchObject({ code: "E_INVALID_ARGS" });
		expect(clientErrors).toEqual([]);
	});
});
