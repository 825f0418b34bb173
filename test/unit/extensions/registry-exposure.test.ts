/** The registry's pi 1.x tool contract: exposure, defaultActive, prepareLoadout, getAllTools fields. */
import { describe, expect, it } from "vitest";
import { Type } from "../../../src/contract/schema.js";
import type { ToolContext, ToolDefinition } from "../../../src/contract/tool.js";
import { executeToolCalls } from "../../../src/exec/execute.js";
import type { ExtensionDiagnostic, ToolResultEvent, ToolResultEventResult } from "../../../src/extensions/api.js";
import { createToolRegistry, validateToolDefinition } from "../../../src/extensions/registry.js";

function tool(name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition {
	return {
		name,
		label: name,
		description: `The ${name} tool.`,
		promptSnippet: `Use ${name}`,
		parameters: Type.Object({}),
		async execute() {
			return { content: [{ type: "text", text: name }], details: undefined };
		},
		...extra,
	};
}

const ext = { kind: "extension", path: "/ext/a.ts" } as const;

function registryWith(...tools: ToolDefinition[]) {
	const diagnostics: ExtensionDiagnostic[] = [];
	const registry = createToolRegistry({ onDiagnostic: (d) => diagnostics.push(d) });
	registry.replaceSource(ext.path, tools);
	return { registry, diagnostics };
}

describe("registry: exposure and the active set", () => {
	const tools = [
		tool("direct_tool"),
		tool("model_tool", { exposure: "model-only" }),
		tool("code_tool", { exposure: "codemode" }),
		tool("deferred_tool", { exposure: "deferred" }),
		tool("hidden_tool", { exposure: "hidden" }),
		tool("off_tool", { defaultActive: false }),
	];

	it("activates only direct and model-only tools on registration, not those with defaultActive: false", () => {
		const { registry } = registryWith(...tools);
		expect(registry.getActiveTools()).toEqual(["direct_tool", "model_tool"]);
		expect(registry.snapshot().callable.map((e) => e.name)).toEqual(["direct_tool", "code_tool", "deferred_tool"]);
	});

	it("setActiveTools may activate codemode, deferred and defaultActive: false tools, never hidden ones", () => {
		const { registry } = registryWith(...tools);
		registry.setActiveTools(["code_tool", "hidden_tool", "off_tool", "model_tool"]);
		expect(registry.getActiveTools()).toEqual(["model_tool", "code_tool", "off_tool"]);
		// off_tool is direct and now active: callable; direct_tool is no longer active: not callable.
		expect(registry.snapshot().callable.map((e) => e.name)).toEqual(["code_tool", "deferred_tool", "off_tool"]);
	});

	it("a tool registered after setActiveTools is active only when its exposure activates it", () => {
		const { registry } = registryWith(tool("first"));
		registry.setActiveTools(["first"]);
		registry.register(tool("late_direct"), ext);
		registry.register(tool("late_code", { exposure: "codemode" }), ext);
		expect(registry.getActiveTools()).toEqual(["first", "late_direct"]);
		// An exposure change to one that activates (hidden → direct, on a reload) activates it.
		registry.register(tool("late_hidden", { exposure: "hidden" }), ext);
		registry.register(tool("late_hidden"), ext);
		expect(registry.getActiveTools()).toContain("late_hidden");
	});

	it("getAllTools lists exposure, namespace, annotations, guidelines, reachesTools, active and callable", () => {
		const namespace = { name: "mcp__docs", aliases: ["docs"], description: "Docs", instructions: "Search first." };
		const { registry } = registryWith(
			tool("search", {
				exposure: "codemode",
				namespace,
				annotations: { readOnlyHint: true },
				promptGuidelines: ["Search before reading."],
				reachesTools: () => "all",
			}),
		);
		const [info] = registry.infos();
		expect(info).toMatchObject({
			name: "search",
			exposure: "codemode",
			namespace,
			annotations: { readOnlyHint: true },
			promptGuidelines: ["Search before reading."],
			source: ext.path,
			active: false,
			callable: true,
		});
		expect(info?.reachesTools?.({})).toBe("all");
		expect(registryWith(tool("plain")).registry.infos()[0]).toMatchObject({ exposure: "direct", callable: true });
	});

	it("rejects an unknown exposure and a namespace without a name", () => {
		expect(validateToolDefinition(tool("x", { exposure: "public" as never }))).toEqual([
			'exposure "public" must be one of "direct", "model-only", "codemode", "deferred", "hidden"',
		]);
		expect(validateToolDefinition(tool("x", { namespace: {} as never }))).toEqual([
			"namespace must be an object with a string name",
		]);
	});
});

describe("registry: prepareLoadout", () => {
	it("replaces declared descriptions and hides declarations; the tools stay active and callable", () => {
		let seen: { declared: string[]; callable: string[]; registered: string[]; exposure: string } | undefined;
		const runner = tool("runner", {
			exposure: "model-only",
			prepareLoadout(loadout) {
				seen = {
					declared: loadout.declared.map((t) => t.name),
					callable: loadout.callable.map((t) => t.name),
					registered: loadout.registered.map((t) => t.name),
					exposure: loadout.getExposure("helper"),
				};
				const names = loadout.callable.map((t) => t.name).join(", ");
				return { descriptions: { runner: `Runs scripts. Callable: ${names}.` }, hiddenDeclarations: ["visible"] };
			},
		});
		const { registry } = registryWith(runner, tool("visible"), tool("helper", { exposure: "codemode" }));
		const snap = registry.snapshot();
		expect(snap.declarations().map((d) => [d.name, d.description])).toEqual([
			["runner", "Runs scripts. Callable: visible, helper."],
		]);
		expect(seen).toEqual({
			declared: ["runner", "visible"],
			callable: ["visible", "helper"],
			registered: ["runner", "visible", "helper"],
			exposure: "codemode",
		});
		expect(registry.getActiveTools()).toEqual(["runner", "visible"]);
		expect(snap.toAgentTools(() => ({}) as never).map((t) => t.name)).toEqual(["runner", "visible"]);
		// The prompt follows the declarations.
		expect(snap.buildToolsPrompt()).toContain("runner");
		expect(snap.buildToolsPrompt()).not.toContain("visible");
	});

	it("runs only the hooks of active tools", () => {
		let calls = 0;
		const { registry } = registryWith(
			tool("idle", { exposure: "codemode", prepareLoadout: () => void calls++ }),
			tool("other"),
		);
		registry.snapshot().declarations();
		expect(calls).toBe(0);
		registry.setActiveTools(["idle", "other"]);
		registry.snapshot().declarations();
		expect(calls).toBe(1);
	});

	it("a hook that throws is reported and leaves the declarations as they were", () => {
		const { registry, diagnostics } = registryWith(
			tool("broken", {
				prepareLoadout() {
					throw new Error("no loadout today");
				},
			}),
		);
		expect(
			registry
				.snapshot()
				.declarations()
				.map((d) => d.description),
		).toEqual(["The broken tool."]);
		expect(diagnostics).toEqual([
			expect.objectContaining({ code: "E_HANDLER_FAILED", message: expect.stringContaining("no loadout today") }),
		]);
	});

	it("declarations carry constrainedSampling", () => {
		const { registry } = registryWith(
			tool("strict_tool", { constrainedSampling: { type: "json_schema", strict: "prefer" } }),
		);
		expect(registry.snapshot().declarations()[0]?.constrainedSampling).toEqual({
			type: "json_schema",
			strict: "prefer",
		});
	});
});

describe("registry: structuredContent in tool_result handlers", () => {
	const counted = tool("counted", {
		async execute() {
			return { content: [{ type: "text", text: "2 items" }], details: undefined, structuredContent: { count: 2 } };
		},
	});
	const context = () => ({}) as never;
	const run = async (handlers: ((event: ToolResultEvent) => ToolResultEventResult | undefined)[]) => {
		const registry = createToolRegistry({ builtins: [counted], context });
		registry.replaceSource("/ext/h.ts", [], { tool_result: handlers });
		const seen: unknown[] = [];
		registry.replaceSource("/ext/z.ts", [], {
			tool_result: [(event: ToolResultEvent) => void seen.push(event.structuredContent)],
		});
		const { results } = await executeToolCalls(
			[{ type: "toolCall", id: "c", name: "counted", arguments: {} }],
			registry.executorConfig(),
		);
		return { message: results[0], seen };
	};

	it("handlers see it; replacing content alone drops it, for later handlers too; returning it keeps it", async () => {
		expect(await run([() => undefined])).toMatchObject({
			message: { structuredContent: { count: 2 } },
			seen: [{ count: 2 }],
		});
		const dropped = await run([() => ({ content: [{ type: "text", text: "[redacted]" }] })]);
		expect(dropped.seen).toEqual([undefined]);
		expect(dropped.message?.structuredContent).toBeUndefined();
		const kept = await run([
			() => ({ content: [{ type: "text", text: "[redacted]" }], structuredContent: { count: -1 } }),
		]);
		expect(kept.message?.structuredContent).toEqual({ count: -1 });
		const details = await run([() => ({ details: { more: true } })]);
		expect(details.message?.structuredContent).toEqual({ count: 2 });
	});
});

describe("registry: which tools a nested call reaches", () => {
	it("reaches codemode and deferred tools that are not active, never model-only or hidden ones", async () => {
		const caller = tool("caller", {
			async execute(_id, _params, _signal, _onUpdate, ctx) {
				const answers: string[] = [];
				for (const name of ["code_tool", "deferred_tool", "model_tool", "hidden_tool", "direct_tool"]) {
					const outcome = await ctx.executeTool?.(name, {});
					const text = outcome?.result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
					answers.push(`${name}: ${outcome?.isError ? "error" : text}`);
				}
				return { content: [{ type: "text", text: answers.join("\n") }], details: undefined };
			},
		});
		const { registry } = registryWith(
			caller,
			tool("direct_tool"),
			tool("model_tool", { exposure: "model-only" }),
			tool("code_tool", { exposure: "codemode" }),
			tool("deferred_tool", { exposure: "deferred" }),
			tool("hidden_tool", { exposure: "hidden" }),
		);
		const snapshot = registry.snapshot();
		// Neither the codemode nor the deferred tool is active, so the batch's own tools lack them.
		expect(snapshot.active.map((entry) => entry.name)).toEqual(["caller", "direct_tool", "model_tool"]);
		const { results } = await executeToolCalls(
			[{ type: "toolCall", id: "c1", name: "caller", arguments: {} }],
			// The tools here read nothing of their ctx but what the executor adds to it.
			snapshot.executorConfig(() => ({}) as ToolContext),
		);
		const text = results[0]?.content.map((block) => (block.type === "text" ? block.text : "")).join("");
		expect(text).toBe(
			[
				"code_tool: code_tool",
				"deferred_tool: deferred_tool",
				"model_tool: error",
				"hidden_tool: error",
				"direct_tool: direct_tool",
			].join("\n"),
		);
	});
});
