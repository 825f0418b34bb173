/**
 * `loadMcpTools` against a real MCP server (test/fixtures/mcp/server.mjs, a child process over
 * stdio): listing, calls through the executor, images, error results, progress, cancellation,
 * tools/list_changed, a server that exits, and an extension that registers the tools.
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { ToolCall } from "../../../src/contract/content.js";
import { wrapToolDefinitions } from "../../../src/contract/tool.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { executeToolCalls } from "../../../src/exec/execute.js";
import { loadExtensions } from "../../../src/extensions/node-loader.js";
import { headlessContextFactory } from "../../../src/harness/_context.js";
import { type LoadMcpToolsOptions, loadMcpTools, type McpDiagnostic, type McpToolSet } from "../../../src/node.js";

const SERVER = fileURLToPath(new URL("../../fixtures/mcp/server.mjs", import.meta.url));
const EXTENSION = fileURLToPath(new URL("../../fixtures/mcp/extension/index.ts", import.meta.url));

const open: McpToolSet[] = [];

afterEach(async () => {
	await Promise.all(open.splice(0).map((set) => set.close()));
});

async function load(extra: Partial<LoadMcpToolsOptions> = {}): Promise<McpToolSet> {
	const set = await loadMcpTools({ command: process.execPath, args: [SERVER], ...extra } as LoadMcpToolsOptions);
	open.push(set);
	return set;
}

function run(set: McpToolSet, calls: { name: string; arguments: unknown }[]) {
	const env = new MemoryExecutionEnv();
	const tools = wrapToolDefinitions(set.tools, headlessContextFactory(env));
	const toolCalls: ToolCall[] = calls.map((call, i) => ({ type: "toolCall", id: `c${i}`, ...call }));
	return executeToolCalls(toolCalls, { tools });
}

function tool(set: McpToolSet, name: string) {
	const found = set.tools.find((t) => t.name === name);
	if (!found) throw new Error(`no tool ${name} in ${set.tools.map((t) => t.name).join(", ")}`);
	return found;
}

const ctx = () => headlessContextFactory(new MemoryExecutionEnv())({ toolCallId: "x", toolName: "x" });

describe("loadMcpTools", () => {
	it("lists the server's tools, leaves out and reports a name no provider accepts", async () => {
		const set = await load();
		expect(set.server.name).toBe("fixture");
		expect(set.tools.map((t) => t.name)).toEqual(["echo", "pixel", "fail", "slow", "add_tool", "crash", "pid"]);
		expect(tool(set, "echo").description).toBe("Echoes a text back, repeated `times` times.");
		expect(set.diagnostics).toEqual([
			expect.objectContaining({ severity: "error", code: "invalid_name", tool: "has space" }),
		]);
	});

	it("puts the prefix before every name", async () => {
		const set = await load({ prefix: "fx" });
		expect(set.tools.map((t) => t.name)).toContain("fx_echo");
		const { results } = await run(set, [{ name: "fx_echo", arguments: { text: "a" } }]);
		expect(results[0]?.content).toEqual([{ type: "text", text: "a" }]);
	});

	it("validates and coerces arguments with the server's schema, and gives structuredContent and _meta as details", async () => {
		const set = await load();
		const { results } = await run(set, [
			{ name: "echo", arguments: { text: "ab", times: "2" } },
			{ name: "echo", arguments: { times: 2 } },
		]);
		expect(results[0]?.isError).toBe(false);
		expect(results[0]?.content).toEqual([{ type: "text", text: "abab" }]);
		expect(results[0]?.details).toEqual({
			structuredContent: { text: "ab", times: 2, typeOfTimes: "number" },
			meta: { fixture: true },
		});
		expect(results[1]?.isError).toBe(true);
		expect(results[1]?.details).toMatchObject({ code: "E_INVALID_ARGS" });
	});

	it("pi 1.x: the output schema, structuredContent on results, the server's namespace, the exposure asked for", async () => {
		const set = await load({ exposure: "codemode", description: "A fixture server." });
		const echo = tool(set, "echo");
		expect(echo.outputSchema).toMatchObject({ type: "object", required: ["text", "times"] });
		expect(echo.exposure).toBe("codemode");
		expect(echo.namespace).toEqual({
			name: "mcp__fixture",
			aliases: ["fixture"],
			description: "A fixture server.",
			instructions: "Echo before you fail.",
		});
		const { results } = await run(set, [{ name: "echo", arguments: { text: "ab" } }]);
		expect(results[0]?.structuredContent).toEqual({ text: "ab", times: 1, typeOfTimes: "undefined" });
		const plain = await load({ prefix: "fx-1" });
		expect(tool(plain, "fx-1_pixel").namespace?.name).toBe("mcp__fx_1");
		expect(tool(plain, "fx-1_pixel").exposure).toBeUndefined();
	});

	it("turns image content into image blocks and isError into an error result", async () => {
		const set = await load();
		const { results } = await run(set, [
			{ name: "pixel", arguments: {} },
			{ name: "fail", arguments: { reason: "on purpose" } },
		]);
		expect(results[0]?.content).toEqual([
			{ type: "text", text: "a pixel" },
			{ type: "image", data: expect.stringMatching(/^iVBOR/), mimeType: "image/png" },
		]);
		expect(results[1]?.isError).toBe(true);
		expect(results[1]?.content).toEqual([{ type: "text", text: "failed: on purpose" }]);
		expect(results[1]?.details).toMatchObject({ code: "E_TOOL_FAILED" });
	});

	it("turns progress notifications into onUpdate", async () => {
		const set = await load();
		const controller = new AbortController();
		const updates: unknown[] = [];
		// The call runs until it is cancelled after the second update, so no update races the final answer.
		const call = tool(set, "slow").execute(
			"s",
			{ steps: 100_000 },
			controller.signal,
			(update) => {
				updates.push(update);
				if (updates.length === 2) controller.abort();
			},
			ctx(),
		);
		await expect(call).rejects.toThrow();
		expect(updates.slice(0, 2)).toEqual(
			[1, 2].map((step) => ({
				content: [{ type: "text", text: `step ${step}` }],
				details: { progress: { progress: step, total: 100_000, message: `step ${step}` } },
			})),
		);
	});

	it("cancels a call when its signal aborts, and the connection stays usable", async () => {
		const set = await load();
		const controller = new AbortController();
		// 100000 steps of 20 ms: the call only ends by being cancelled.
		const call = tool(set, "slow").execute("s", { steps: 100_000 }, controller.signal, () => controller.abort(), ctx());
		await expect(call).rejects.toThrow();
		expect(controller.signal.aborted).toBe(true);
		const { results } = await run(set, [{ name: "echo", arguments: { text: "still here" } }]);
		expect(results[0]?.content).toEqual([{ type: "text", text: "still here" }]);
	});

	it("follows tools/list_changed and reports the new set", async () => {
		const set = await load();
		const changed = new Promise<readonly { name: string }[]>((resolve) => set.onToolsChanged(resolve));
		const { results } = await run(set, [{ name: "add_tool", arguments: {} }]);
		expect(results[0]?.content).toEqual([{ type: "text", text: "added late" }]);
		const tools = await changed;
		expect(tools.map((t) => t.name)).toContain("late");
		expect(set.tools.map((t) => t.name)).toContain("late");
		const late = await run(set, [{ name: "late", arguments: {} }]);
		expect(late.results[0]?.content).toEqual([{ type: "text", text: "late here" }]);
	});

	it("fails a call in flight when the server exits, reports it, and starts the server again for the next call", async () => {
		const seen: McpDiagnostic[] = [];
		const set = await load({ onDiagnostic: (d) => seen.push(d) });
		const before = await run(set, [{ name: "pid", arguments: {} }]);
		const { results } = await run(set, [{ name: "crash", arguments: {} }]);
		expect(results[0]?.isError).toBe(true);
		expect(results[0]?.content[0]).toMatchObject({ text: expect.stringMatching(/exited while crash was running/) });
		expect(seen).toContainEqual(expect.objectContaining({ severity: "error", code: "server_exited" }));
		const after = await run(set, [{ name: "pid", arguments: {} }]);
		expect(after.results[0]?.isError).toBe(false);
		const pid = (r: typeof after) => (r.results[0]?.content[0] as { text?: string } | undefined)?.text;
		expect(pid(after)).toMatch(/^\d+$/);
		expect(pid(after)).not.toBe(pid(before));
	});

	it("rejects with the reason when the server cannot be started, without reporting it as a server that went away", async () => {
		const heard: McpDiagnostic[] = [];
		await expect(
			loadMcpTools({
				command: process.execPath,
				args: ["-e", "process.exit(1)"],
				stderr: "ignore",
				onDiagnostic: (d) => heard.push(d),
			}),
		).rejects.toThrow(/Cannot connect to the MCP server/);
		expect(heard).toEqual([]);
	});

	it("fails calls after close", async () => {
		const set = await load();
		await set.close();
		const { results } = await run(set, [{ name: "echo", arguments: { text: "x" } }]);
		expect(results[0]?.isError).toBe(true);
		expect(results[0]?.content[0]).toMatchObject({ text: expect.stringMatching(/was closed/) });
	});
});

describe("an extension that registers an MCP server's tools", () => {
	it("loads them at activation and the executor calls them", async () => {
		const loaded = await loadExtensions([EXTENSION], { builtins: false, env: new MemoryExecutionEnv() });
		try {
			expect(loaded.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
			const names = loaded.registry.entries().map((entry) => entry.definition.name);
			expect(names).toEqual(expect.arrayContaining(["fx_echo", "fx_pixel", "fx_slow"]));
			const { results } = await executeToolCalls(
				[{ type: "toolCall", id: "1", name: "fx_echo", arguments: { text: "hi", times: "3" } }],
				loaded.registry.executorConfig(),
			);
			expect(results[0]?.isError).toBe(false);
			expect(results[0]?.content).toEqual([{ type: "text", text: "hihihi" }]);
		} finally {
			await loaded.runtime.emit({ type: "session_shutdown", reason: "exit" });
		}
	});
});
