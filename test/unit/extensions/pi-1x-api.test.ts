/**
 * What pi 1.x's extension API adds, as toolsmith's runtime answers it: `on` returns a function that
 * removes the handler (also one registered while active, also for `tool_call`), and the 1.x
 * registration members it does not implement exist as reported no-ops instead of being missing
 * (tool renderers and MCP servers are implemented: tool-renderers.test.ts, mcp-servers.test.ts).
 */
import { describe, expect, it } from "vitest";
import type { ToolCall } from "../../../src/contract/content.js";
import { Type } from "../../../src/contract/schema.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { executeToolCalls } from "../../../src/exec/execute.js";
import type { ExtensionDiagnostic } from "../../../src/extensions/api.js";
import { createExtensionRuntime } from "../../../src/extensions/runtime.js";

function setup() {
	const diagnostics: ExtensionDiagnostic[] = [];
	const runtime = createExtensionRuntime({
		env: new MemoryExecutionEnv(),
		builtins: [],
		onDiagnostic: (d) => diagnostics.push(d),
	});
	return { runtime, diagnostics };
}

const call: ToolCall = { type: "toolCall", id: "c1", name: "echo", arguments: {} };

describe("pi 1.x's on() returning its remover", () => {
	it("removes exactly the registration it returned, before and after activation", async () => {
		const { runtime } = setup();
		const seen: string[] = [];
		let offLater: (() => void) | undefined;
		await runtime.activate("/ext/on.ts", (api) => {
			api.registerTool({
				name: "echo",
				label: "echo",
				description: "Echoes.",
				parameters: Type.Object({}),
				async execute() {
					return { content: [{ type: "text", text: "ok" }], details: {} };
				},
			});
			const handler = () => {
				seen.push("shared");
			};
			const first = api.on("tool_call", handler);
			api.on("tool_call", handler);
			first();
			first();
			const blocker = api.on("tool_call", () => ({ block: true, reason: "blocked" }));
			blocker();
			offLater = api.on("tool_call", () => {
				seen.push("later");
			});
		});
		const config = () => runtime.registry.executorConfig();
		const firstBatch = await executeToolCalls([call], config());
		expect(firstBatch.results[0]?.isError).toBe(false);
		expect(seen).toEqual(["shared", "later"]);
		offLater?.();
		await executeToolCalls([call], config());
		expect(seen).toEqual(["shared", "later", "shared"]);
		expect(runtime.get("/ext/on.ts")?.events).toEqual(["tool_call"]);
	});
});

describe("pi 1.x's registration members", () => {
	it("are reported no-ops with the answers of a host without them", async () => {
		const { runtime, diagnostics } = setup();
		const answers: unknown[] = [];
		await runtime.activate("/ext/one-x.ts", (api) => {
			const pi = api as unknown as Record<string, (...args: unknown[]) => unknown>;
			for (const member of [
				"registerMarkdownTransformer",
				"registerEntryRenderer",
				"registerVirtualModel",
				"unregisterVirtualModel",
				"getSettings",
			]) {
				answers.push(pi[member]?.("x", {}));
			}
		});
		expect(answers).toEqual([undefined, undefined, undefined, undefined, {}]);
		expect(diagnostics.map((d) => `${d.code} ${/api\.(\w+)\(\)/.exec(d.message)?.[1]}`)).toEqual([
			"W_UNSUPPORTED_API registerMarkdownTransformer",
			"W_UNSUPPORTED_API registerEntryRenderer",
			"W_UNSUPPORTED_API registerVirtualModel",
			"W_UNSUPPORTED_API unregisterVirtualModel",
			"W_UNSUPPORTED_API getSettings",
		]);
	});
});
