/**
 * Extensions' `tool_call` and `tool_result` handlers run inside the executor's hooks (a host
 * composes them with its caller's): one that never settles must not keep an aborted batch pending.
 */
import { describe, expect, it } from "vitest";
import type { ToolCall } from "../../../src/contract/content.js";
import { Type } from "../../../src/contract/schema.js";
import type { ToolContext, ToolDefinition } from "../../../src/contract/tool.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { ABORT_GRACE_MS, executeToolCalls } from "../../../src/exec/execute.js";
import { composeAfter, composeBefore } from "../../../src/extensions/_host-hooks.js";
import { createToolRegistry } from "../../../src/extensions/registry.js";

const echo: ToolDefinition = {
	name: "echo",
	label: "echo",
	description: "The echo tool.",
	parameters: Type.Object({}),
	async execute() {
		return { content: [{ type: "text", text: "echo" }], details: {} };
	},
};
const env = new MemoryExecutionEnv();
const context = (): ToolContext => ({
	env,
	cwd: env.cwd,
	hasUI: false,
	ui: { select: async () => undefined, confirm: async () => false, input: async () => undefined, notify: () => {} },
});
const calls: ToolCall[] = ["1", "2"].map((id) => ({ type: "toolCall", id, name: "echo", arguments: {} }));
const never = (): Promise<undefined> => new Promise(() => {});

describe.each(["parallel", "sequential"] as const)("a stuck extension handler and an abort (%s)", (toolExecution) => {
	it.each(["tool_call", "tool_result"] as const)("a %s handler that never settles", async (event) => {
		const registry = createToolRegistry({ builtins: [echo], context });
		registry.replaceSource("/ext/stuck.ts", [], { [event]: [never] });
		const config = registry.executorConfig();
		const caller = { beforeToolCall: () => undefined, afterToolCall: () => undefined };
		const controller = new AbortController();
		const running = executeToolCalls(calls, {
			tools: config.tools,
			// As a host composes them: the extensions' hooks first, then its caller's.
			beforeToolCall: composeBefore(config.beforeToolCall, caller.beforeToolCall),
			afterToolCall: composeAfter(config.afterToolCall, caller.afterToolCall),
			toolExecution,
			signal: controller.signal,
		});
		await new Promise((resolve) => setTimeout(resolve, 20));
		const abortedAt = Date.now();
		controller.abort();
		const { results } = await running;
		const took = Date.now() - abortedAt;
		expect(took).toBeLessThan(event === "tool_call" ? 200 : 1000);
		if (event === "tool_result") expect(took).toBeGreaterThanOrEqual(ABORT_GRACE_MS - 20);
		expect(results.map((r) => [r.isError, (r.details as { code?: string }).code])).toEqual([
			[true, "E_ABORTED"],
			[true, "E_ABORTED"],
		]);
		expect(JSON.stringify(results)).not.toContain(`"text":"echo"`);
	});
});
