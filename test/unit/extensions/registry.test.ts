import { describe, expect, it } from "vitest";
import type { ToolCall } from "../../../src/contract/content.js";
import { Type } from "../../../src/contract/schema.js";
import type { ToolContext, ToolDefinition } from "../../../src/contract/tool.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { executeToolCalls } from "../../../src/exec/execute.js";
import type { ExtensionDiagnostic, ToolCallEvent, ToolResultEvent } from "../../../src/extensions/api.js";
import { createToolRegistry, validateToolDefinition } from "../../../src/extensions/registry.js";

function tool(name: string, text = name, extra: Partial<ToolDefinition> = {}): ToolDefinition {
	return {
		name,
		label: name,
		description: `The ${name} tool.`,
		parameters: Type.Object({ value: Type.Optional(Type.String()) }),
		async execute(_id, _params, _signal, _onUpdate, ctx) {
			return { content: [{ type: "text", text }], details: { extension: ctx.extension?.path ?? "builtin" } };
		},
		...extra,
	};
}

const env = new MemoryExecutionEnv();
const context = (): ToolContext => ({
	env,
	cwd: env.cwd,
	hasUI: false,
	ui: {
		select: async () => undefined,
		confirm: async () => false,
		input: async () => undefined,
		notify: () => {},
	},
});

function call(name: string, args: unknown = {}, id = `call-${name}`): ToolCall {
	return { type: "toolCall", id, name, arguments: args };
}

function text(result: { content: readonly { type: string; text?: string }[] }): string {
	return result.content.map((block) => block.text ?? "").join("");
}

describe("registration rules", () => {
	it("names every broken rule of a definition", () => {
		expect(validateToolDefinition({ name: "bad name!", description: " ", parameters: Type.String() })).toEqual([
			'name "bad name!" must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, "_" and "-", at most 64)',
			"description must be a non-empty string (the model reads it to decide when to call the tool)",
			'parameters must be an object schema (Type.Object({...}), JSON Schema with type "object")',
			"execute must be a function",
		]);
		expect(validateToolDefinition(tool("x".repeat(64)))).toEqual([]);
		expect(validateToolDefinition(tool("x".repeat(65)))).toHaveLength(1);
	});

	it("rejects an invalid definition with a diagnostic naming the file and the rule", () => {
		const seen: ExtensionDiagnostic[] = [];
		const registry = createToolRegistry({ onDiagnostic: (d) => seen.push(d) });
		const result = registry.register({ ...tool("ok"), description: "" }, { kind: "extension", path: "/ext/a.ts" });
		expect(result.accepted).toBe(false);
		expect(result.diagnostics).toEqual([
			{
				severity: "error",
				code: "E_INVALID_TOOL",
				message:
					'Tool "ok" from /ext/a.ts was rejected: description must be a non-empty string (the model reads it to decide when to call the tool).',
				path: "/ext/a.ts",
			},
		]);
		expect(seen).toEqual(result.diagnostics);
		expect(registry.entries()).toEqual([]);
	});

	it("warns when a provider's rule on names is stricter", () => {
		const registry = createToolRegistry();
		const result = registry.register(tool("9lives"), { kind: "extension", path: "/ext/a.ts" });
		expect(result.accepted).toBe(true);
		expect(result.diagnostics.map((d) => [d.severity, d.code])).toEqual([["warning", "W_PROVIDER_NAME"]]);
		expect(result.diagnostics[0]?.message).toContain("Google Gemini");
	});
});

describe("name clashes", () => {
	it("lets an extension replace a built-in, with an info diagnostic", () => {
		const registry = createToolRegistry({ builtins: [tool("read", "builtin read"), tool("bash")] });
		const result = registry.register(tool("read", "ext read"), { kind: "extension", path: "/ext/r.ts" });
		expect(result.diagnostics).toEqual([
			{
				severity: "info",
				code: "I_BUILTIN_OVERRIDDEN",
				message: 'Tool "read" from /ext/r.ts replaces the built-in tool of the same name.',
				path: "/ext/r.ts",
			},
		]);
		expect(registry.get("read")?.source).toEqual({ kind: "extension", path: "/ext/r.ts" });
		registry.unregister("read", { kind: "extension", path: "/ext/r.ts" });
		expect(registry.get("read")?.source).toEqual({ kind: "builtin" });
	});

	it("keeps the tool of the extension loaded first and names both files", () => {
		const registry = createToolRegistry();
		registry.reserveSource("/ext/a.ts");
		registry.reserveSource("/ext/b.ts");
		// b registers first in time, but a was loaded first: a wins once it registers.
		registry.register(tool("dup", "from b"), { kind: "extension", path: "/ext/b.ts" });
		const result = registry.register(tool("dup", "from a"), { kind: "extension", path: "/ext/a.ts" });
		expect(result.diagnostics).toEqual([
			{
				severity: "warning",
				code: "W_DUPLICATE_TOOL",
				message:
					'Tool "dup" is registered by both /ext/a.ts and /ext/b.ts; the one from /ext/a.ts (loaded first) is used.',
				path: "/ext/b.ts",
			},
		]);
		expect(registry.get("dup")?.source).toEqual({ kind: "extension", path: "/ext/a.ts" });
		registry.removeSource("/ext/a.ts");
		expect(registry.get("dup")?.source).toEqual({ kind: "extension", path: "/ext/b.ts" });
	});
});

describe("active set, snapshots and agent tools", () => {
	it("activates new tools after setActiveTools and reports unknown names", () => {
		const registry = createToolRegistry({ builtins: [tool("read"), tool("bash"), tool("write")] });
		const diagnostics = registry.setActiveTools(["read", "ghost"]);
		expect(diagnostics.map((d) => d.code)).toEqual(["W_UNKNOWN_TOOL"]);
		expect(registry.getActiveTools()).toEqual(["read"]);
		registry.register(tool("fresh"), { kind: "extension", path: "/ext/f.ts" });
		registry.register(tool("ghost"), { kind: "extension", path: "/ext/f.ts" });
		expect(registry.getActiveTools()).toEqual(["read", "fresh", "ghost"]);
		expect(registry.infos().map((info) => [info.name, info.source, info.active])).toEqual([
			["read", "builtin", true],
			["bash", "builtin", false],
			["write", "builtin", false],
			["fresh", "/ext/f.ts", true],
			["ghost", "/ext/f.ts", true],
		]);
	});

	it("keeps a snapshot's tool versions while the registry changes", async () => {
		const registry = createToolRegistry({ context });
		registry.replaceSource("/ext/v.ts", [tool("versioned", "v1")]);
		const before = registry.snapshot();
		registry.replaceSource("/ext/v.ts", [tool("versioned", "v2")]);
		const old = await executeToolCalls([call("versioned")], before.executorConfig());
		const now = await executeToolCalls([call("versioned")], registry.executorConfig());
		expect(text(old.results[0] as never)).toBe("v1");
		expect(text(now.results[0] as never)).toBe("v2");
		expect(before.version).toBeLessThan(registry.snapshot().version);
		expect(Object.isFrozen(before.entries)).toBe(true);
	});

	it("gives extension tools a ctx naming their extension", async () => {
		const registry = createToolRegistry({ builtins: [tool("plain")], context });
		registry.register(tool("mine"), { kind: "extension", path: "/ext/m.ts" });
		const { results } = await executeToolCalls([call("plain"), call("mine")], registry.executorConfig());
		expect(results.map((r) => r.details)).toEqual([{ extension: "builtin" }, { extension: "/ext/m.ts" }]);
	});

	it("explains a missing context factory", async () => {
		const registry = createToolRegistry({ builtins: [tool("plain")] });
		const { results } = await executeToolCalls([call("plain")], registry.executorConfig());
		expect(results[0]?.isError).toBe(true);
		expect(text(results[0] as never)).toContain("No context for tool plain");
	});

	it("builds the prompt section from the active definitions only", () => {
		const registry = createToolRegistry({
			builtins: [
				tool("read", "", { promptSnippet: "Read files", promptGuidelines: ["Prefer read over cat."] }),
				tool("bash", "", { promptGuidelines: ["Give bash a timeout."] }),
			],
		});
		registry.setActiveTools(["read"]);
		const prompt = registry.buildToolsPrompt();
		expect(prompt).toContain("read");
		expect(prompt).toContain("Prefer read over cat.");
		expect(prompt).not.toContain("Give bash a timeout.");
	});
});

describe("tool_call and tool_result handlers through the executor hooks", () => {
	it("blocks, lets handlers edit the input, and chains result patches in load order", async () => {
		const registry = createToolRegistry({ builtins: [tool("echo")], context });
		const order: string[] = [];
		registry.reserveSource("/ext/first.ts");
		registry.reserveSource("/ext/second.ts");
		registry.replaceSource("/ext/second.ts", [], {
			tool_call: [
				(event: ToolCallEvent) => {
					order.push(`second:${String(event.input.value)}`);
					return event.input.value === "forbidden" ? { block: true, reason: "not allowed" } : undefined;
				},
			],
			tool_result: [
				(event: ToolResultEvent) => {
					order.push(`second-result:${text(event)}`);
					return { details: { patchedBy: "second" } };
				},
			],
		});
		registry.replaceSource("/ext/first.ts", [], {
			tool_call: [
				(event: ToolCallEvent, ctx) => {
					order.push(`first:${ctx.extension.path}`);
					if (event.input.value === "rewrite") event.input.value = "forbidden";
					return undefined;
				},
			],
			tool_result: [() => ({ content: [{ type: "text", text: "patched by first" }] })],
		});
		const batch = await executeToolCalls(
			[call("echo", { value: "fine" }, "1"), call("echo", { value: "rewrite" }, "2")],
			{ ...registry.executorConfig(), toolExecution: "sequential" },
		);
		expect(order).toEqual([
			"first:/ext/first.ts",
			"second:fine",
			"second-result:patched by first",
			"first:/ext/first.ts",
			"second:forbidden",
		]);
		expect(batch.results.map((r) => [r.isError, text(r as never), r.details])).toEqual([
			[false, "patched by first", { patchedBy: "second" }],
			[true, "not allowed", expect.anything()],
		]);
	});

	it("passes a blocking tool_call handler's terminate on to the executor (pi 1.x)", async () => {
		const registry = createToolRegistry({ builtins: [tool("echo")], context });
		registry.reserveSource("/ext/guard.ts");
		registry.replaceSource("/ext/guard.ts", [], {
			tool_call: [
				(event: ToolCallEvent) =>
					event.input.value === "stop"
						? { block: true, reason: "stopping", terminate: true }
						: event.input.value === "deny"
							? { block: true, reason: "denied" }
							: { terminate: true },
			],
		});
		const config = registry.executorConfig();
		const stopped = await executeToolCalls([call("echo", { value: "stop" }, "1")], config);
		expect(stopped.terminate).toBe(true);
		expect(stopped.results[0]).toMatchObject({ isError: true, content: [{ type: "text", text: "stopping" }] });
		// Without block, terminate does nothing; a block without it does not stop the loop.
		const denied = await executeToolCalls([call("echo", { value: "deny" }, "1")], config);
		expect(denied.terminate).toBe(false);
		const passed = await executeToolCalls([call("echo", { value: "fine" }, "1")], config);
		expect(passed.terminate).toBe(false);
		expect(passed.results[0]?.isError).toBe(false);
	});

	it("runs a tool's nested calls (ctx.executeTool) through the handlers, with parentToolCallId", async () => {
		const caller = tool("caller", "", {
			async execute(_id, _params, _signal, _onUpdate, ctx) {
				const names = (ctx.tools ?? []).map((t) => t.name).join(",");
				const fine = await ctx.executeTool?.("echo", { value: "fine" });
				const denied = await ctx.executeTool?.("echo", { value: "forbidden" });
				return {
					content: [
						{
							type: "text",
							text: `${names}|${fine?.isError}:${text(fine?.result as never)}|${denied?.isError}:${text(denied?.result as never)}`,
						},
					],
					details: {},
				};
			},
		});
		const registry = createToolRegistry({ builtins: [tool("echo"), caller], context });
		const seen: string[] = [];
		registry.reserveSource("/ext/guard.ts");
		registry.replaceSource("/ext/guard.ts", [], {
			tool_call: [
				(event: ToolCallEvent) => {
					seen.push(`${event.toolCallId}<${event.parentToolCallId ?? ""}`);
					return event.input.value === "forbidden" ? { block: true, reason: "not allowed" } : undefined;
				},
			],
			tool_result: [
				(event: ToolResultEvent) => {
					seen.push(`result ${event.toolCallId}<${event.parentToolCallId ?? ""}`);
					return undefined;
				},
			],
		});
		const { results } = await executeToolCalls([call("caller", {}, "c")], registry.executorConfig());
		expect(text(results[0] as never)).toBe("echo,caller|false:echo|true:not allowed");
		expect(seen).toEqual(["c<", "c/1<c", "result c/1<c", "c/2<c", "result c<"]);
		expect(results[0]?.nestedCalls?.calls.map((r) => [r.id, r.status])).toEqual([
			["c/1", "ok"],
			["c/2", "error"],
		]);
	});

	it("blocks the call with the message of a throwing tool_call handler", async () => {
		const registry = createToolRegistry({ builtins: [tool("echo")], context });
		registry.replaceSource("/ext/guard.ts", [], {
			tool_call: [
				() => {
					throw new Error("guard is broken");
				},
			],
		});
		const { results } = await executeToolCalls([call("echo")], registry.executorConfig());
		expect(results[0]?.isError).toBe(true);
		expect(text(results[0] as never)).toBe("Blocked by /ext/guard.ts: guard is broken");
	});

	it("reports a throwing tool_result handler and keeps the result", async () => {
		const seen: ExtensionDiagnostic[] = [];
		const registry = createToolRegistry({ builtins: [tool("echo")], context, onDiagnostic: (d) => seen.push(d) });
		registry.replaceSource("/ext/bad.ts", [], {
			tool_result: [
				() => {
					throw new Error("oops");
				},
			],
		});
		const { results } = await executeToolCalls([call("echo")], registry.executorConfig());
		expect(text(results[0] as never)).toBe("echo");
		expect(results[0]?.isError).toBe(false);
		expect(seen.map((d) => [d.code, d.path])).toEqual([["E_HANDLER_FAILED", "/ext/bad.ts"]]);
	});
});
