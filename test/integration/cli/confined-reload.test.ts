/**
 * Hot reload under confinement: an extension inside the working folder is code the confined tools
 * can write, and a reload would import it into the host, unconfined. `toolsmith mcp --builtins`
 * (confined by default) over stdio with the MCP SDK's client, its `write` tool adding an extension
 * next to the served ones: not loaded unless `--watch` was asked for; watched as usual when the
 * extensions lie outside the working folder.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mcpCommand } from "../mcp/_cli-server.js";
import { repoRoot } from "./_run.js";

let scratch: string;
let project: string;
const clients: Client[] = [];

beforeEach(() => {
	scratch = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-confined-reload-")));
	project = join(scratch, "project");
	mkdirSync(join(project, "tools"), { recursive: true });
	cpSync(join(repoRoot, "docs/examples/hello.ts"), join(project, "tools/hello.ts"));
});
afterEach(async () => {
	for (const client of clients.splice(0)) await client.close();
	rmSync(scratch, { recursive: true, force: true });
});

async function serve(args: readonly string[]): Promise<{ client: Client; stderr: () => string }> {
	let stderr = "";
	const transport = new StdioClientTransport({ ...mcpCommand(["--builtins", ...args]), cwd: project, stderr: "pipe" });
	transport.stderr?.on("data", (chunk: Buffer) => {
		stderr += chunk.toString("utf8");
	});
	const client = new Client({ name: "confined-reload", version: "0.0.0" });
	await client.connect(transport);
	clients.push(client);
	return { client, stderr: () => stderr };
}

/** An extension that leaves a mark outside the project when imported, and registers a tool. */
function extension(mark: string): string {
	return `import { writeFileSync } from "node:fs";
import { defineTool, type ExtensionAPI, Type } from "toolsmith-sdk";
writeFileSync(${JSON.stringify(mark)}, "imported");
export default function (api: ExtensionAPI) {
	api.registerTool(defineTool({ name: "planted", label: "Planted", description: "Planted by a tool.", parameters: Type.Object({}), async execute() { return { content: [], details: {} }; } }));
}
`;
}

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

/** Polls `check` until it holds (generous: a slow machine only waits longer). */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
	for (let i = 0; i < 600; i++) {
		if (await check()) return;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	throw new Error(`never: ${what}`);
}

describe("toolsmith mcp --builtins: reloading extensions the confined tools could write", () => {
	it("does not watch extensions inside the working folder, and says why", async () => {
		const mark = join(scratch, "imported-default");
		const { client, stderr } = await serve(["tools"]);
		expect(stderr()).toMatch(/not watching tools: it lies in the working folder, where the confined tools can write/);
		const wrote = await client.callTool({
			name: "write",
			arguments: { path: "tools/planted.ts", content: extension(mark) },
		});
		expect(wrote.isError).not.toBe(true);
		// A later change to a served file is not picked up either: nothing watches the folder.
		await client.callTool({ name: "write", arguments: { path: "tools/hello.ts", content: extension(mark) } });
		await new Promise((resolve) => setTimeout(resolve, 1500));
		expect(existsSync(mark)).toBe(false);
		expect(await names(client)).not.toContain("planted");
		expect(stderr()).not.toMatch(/loaded tools/);
	});

	it("reloads them when --watch is asked for, with a warning", async () => {
		const mark = join(scratch, "imported-watch");
		const { client, stderr } = await serve(["tools", "--watch"]);
		expect(stderr()).toMatch(/watching tools inside the working folder under confinement/);
		await client.callTool({ name: "write", arguments: { path: "tools/planted.ts", content: extension(mark) } });
		await until(async () => (await names(client)).includes("planted"), "the planted tool is served");
		expect(existsSync(mark)).toBe(true);
	});

	it("watches extensions outside the working folder as usual", async () => {
		const outside = join(scratch, "ext");
		mkdirSync(outside);
		cpSync(join(repoRoot, "docs/examples/hello.ts"), join(outside, "hello.ts"));
		const { client, stderr } = await serve([outside]);
		expect(stderr()).not.toMatch(/not watching/);
		// The confined tools cannot write there at all.
		const refused = await client.callTool({
			name: "write",
			arguments: { path: join(outside, "planted.ts"), content: "export default () => {};\n" },
		});
		expect(refused.isError).toBe(true);
	});
});
