/**
 * `registerMcpServer`, `unregisterMcpServer`, `getMcpServers` and `mcp_servers_change` as the
 * runtime answers them (connecting is the host's: test/integration/extensions/mcp-servers.test.ts):
 * validation, ownership, registrations made while loading taking effect at the swap, a reload or a
 * removal dropping a version's servers, and the event only once the session started.
 */
import { describe, expect, it } from "vitest";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import type { RegisteredMcpServer } from "../../../src/extensions/api.js";
import { createExtensionRuntime } from "../../../src/extensions/runtime.js";

function setup() {
	const runtime = createExtensionRuntime({ env: new MemoryExecutionEnv(), builtins: [] });
	const changes: string[][] = [];
	runtime.onMcpServersChange((servers) => changes.push(servers.map((s) => s.name)));
	return { runtime, changes };
}

const stdio = { command: "node", args: ["server.mjs"] };

describe("MCP servers registered by extensions", () => {
	it("takes effect when the loading version becomes active, and getMcpServers lists copies", async () => {
		const { runtime, changes } = setup();
		let duringLoad: RegisteredMcpServer[] = [];
		await runtime.activate("/ext/a.ts", (api) => {
			api.registerMcpServer("jira", { url: "https://mcp.example.com/jira", exposure: "codemode-deferred" as never });
			duringLoad = api.getMcpServers();
		});
		expect(duringLoad).toEqual([]);
		expect(changes).toEqual([["jira"]]);
		const listed = runtime.mcpServers();
		expect(listed).toEqual([
			{
				name: "jira",
				config: { url: "https://mcp.example.com/jira", exposure: "codemode" },
				extensionPath: "/ext/a.ts",
			},
		]);
		(listed[0]?.config as { url: string }).url = "changed";
		expect(runtime.mcpServers()[0]?.config).toMatchObject({ url: "https://mcp.example.com/jira" });
	});

	it("throws E_INVALID_MCP_SERVER for bad names and configs, and for another extension's name", async () => {
		const { runtime } = setup();
		await runtime.activate("/ext/a.ts", (api) => api.registerMcpServer("dev-radius", stdio));
		const errors: string[] = [];
		await runtime.activate("/ext/b.ts", (api) => {
			const attempts: [string, unknown][] = [
				["has space", stdio],
				["ok", { command: "node", url: "http://x" }],
				["ok", { url: "ftp://x" }],
				["ok", { command: "node", args: [1] }],
				["ok", { command: "node", timeout: -1 }],
				["dev-radius", stdio],
				["dev_radius", stdio],
			];
			for (const [name, config] of attempts) {
				try {
					api.registerMcpServer(name, config as never);
				} catch (error) {
					errors.push(`${(error as { code?: string }).code}: ${(error as Error).message}`);
				}
			}
		});
		expect(errors).toHaveLength(7);
		expect(errors.every((e) => e.startsWith("E_INVALID_MCP_SERVER"))).toBe(true);
		expect(errors[5]).toContain('"dev-radius" is already registered by /ext/a.ts');
		expect(errors[6]).toContain("conflicts with the registered server");
	});

	it("registering again replaces; unregister removes only the extension's own; a reload or removal drops them", async () => {
		const { runtime, changes } = setup();
		let api1: Parameters<Parameters<typeof runtime.activate>[1]>[0] | undefined;
		await runtime.activate("/ext/a.ts", (api) => {
			api1 = api;
			api.registerMcpServer("one", stdio);
		});
		await runtime.activate("/ext/b.ts", (api) => api.registerMcpServer("two", stdio));
		api1?.registerMcpServer("one", { ...stdio, args: ["other.mjs"] });
		api1?.unregisterMcpServer("two");
		expect(runtime.mcpServers().map((s) => [s.name, s.config])).toEqual([
			["one", { command: "node", args: ["other.mjs"] }],
			["two", stdio],
		]);
		await runtime.activate("/ext/a.ts", () => {});
		expect(runtime.mcpServers().map((s) => s.name)).toEqual(["two"]);
		runtime.remove("/ext/b.ts");
		expect(runtime.mcpServers()).toEqual([]);
		expect(changes).toEqual([["one"], ["one", "two"], ["one", "two"], ["two"], []]);
	});

	it("emits mcp_servers_change to handlers only once the session started", async () => {
		const { runtime } = setup();
		const seen: string[][] = [];
		let later: ((name: string) => void) | undefined;
		await runtime.activate("/ext/a.ts", (api) => {
			api.on("mcp_servers_change", (event) => {
				seen.push(event.servers.map((s) => s.name));
			});
			api.registerMcpServer("early", stdio);
			later = (name) => api.registerMcpServer(name, stdio);
		});
		expect(seen).toEqual([]);
		await runtime.emit({ type: "session_start", reason: "startup" });
		later?.("late");
		await new Promise((done) => setTimeout(done, 0));
		expect(seen).toEqual([["early", "late"]]);
	});
});
