/**
 * `registerToolRenderer` as the runtime answers it: resolvers in load order before the tool's own
 * renderers, `next()` down the chain, tools not registered (or registered later), a reload that
 * drops a version's resolvers, and a throwing resolver skipped with a diagnostic.
 */
import { describe, expect, it } from "vitest";
import { Type } from "../../../src/contract/schema.js";
import type { ToolDefinition } from "../../../src/contract/tool.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import type { ExtensionDiagnostic, ToolRenderers } from "../../../src/extensions/api.js";
import { createExtensionRuntime } from "../../../src/extensions/runtime.js";
import { renderToolCall, renderToolResult, toolRenderersFor } from "../../../src/render/renderer.js";
import { plainTheme } from "../../../src/render/theme.js";

function tool(name: string, label: string): ToolDefinition {
	return {
		name,
		label: name,
		description: `${name}.`,
		parameters: Type.Object({}),
		async execute() {
			return { content: [{ type: "text", text: "ok" }], details: {} };
		},
		renderCall: () => `${label} call`,
		renderResult: () => `${label} result`,
	};
}

function setup() {
	const diagnostics: ExtensionDiagnostic[] = [];
	const runtime = createExtensionRuntime({
		env: new MemoryExecutionEnv(),
		builtins: [],
		onDiagnostic: (d) => diagnostics.push(d),
	});
	const callLines = (name: string) => {
		const definition = runtime.registry.get(name)?.definition;
		return renderToolCall(toolRenderersFor(runtime, name, definition), {}, plainTheme, 80, { name }).lines;
	};
	return { runtime, diagnostics, callLines };
}

describe("registerToolRenderer", () => {
	it("runs resolvers in load order before the tool's renderers; next() goes down the chain", async () => {
		const { runtime, callLines } = setup();
		await runtime.activate("/ext/a.ts", (api) => {
			api.registerTool(tool("own", "own"));
			// fills in only: tools with renderers keep them
			api.registerToolRenderer((name, next) => next() ?? { renderCall: () => `a fills ${name}` });
		});
		await runtime.activate("/ext/b.ts", (api) => {
			// replaces what comes after it for one tool
			api.registerToolRenderer((name, next) => (name === "own" ? { renderCall: () => "b replaces own" } : next()));
		});
		expect(callLines("own")).toEqual(["b replaces own"]);
		expect(callLines("unknown_tool")).toEqual(["a fills unknown_tool"]);
	});

	it("covers tools registered after the resolver, and the object returned is used whole", async () => {
		const { runtime } = setup();
		await runtime.activate("/ext/r.ts", (api) => {
			api.registerToolRenderer((name, next) =>
				name.startsWith("mcp__") ? { renderResult: () => "mcp result" } : next(),
			);
		});
		runtime.registry.register(tool("mcp__srv__echo", "echo"), { kind: "extension", path: "/ext/r.ts#mcp:srv" });
		const definition = runtime.registry.get("mcp__srv__echo")?.definition;
		const renderers = toolRenderersFor(runtime, "mcp__srv__echo", definition);
		expect(
			renderToolResult(renderers, { content: [], details: {} }, { expanded: false, isPartial: false }, plainTheme, 80)
				.lines,
		).toEqual(["mcp result"]);
		// no renderCall in the chosen object: the fallback, not the tool's own renderCall
		expect(renderToolCall(renderers, {}, plainTheme, 80).lines).toEqual(["mcp__srv__echo"]);
	});

	it("next() gives the registered tool even when it has no renderers, as 1.6.0's does", async () => {
		const { runtime } = setup();
		const plain: ToolDefinition = { ...tool("plain", "plain"), renderCall: undefined, renderResult: undefined };
		let seen: ToolRenderers | undefined;
		await runtime.activate("/ext/p.ts", (api) => {
			api.registerTool(plain);
			api.registerToolRenderer((_name, next) => {
				seen = next();
				return seen;
			});
		});
		expect(toolRenderersFor(runtime, "plain", plain)).toBe(plain);
		expect(seen).toBe(plain);
	});

	it("goes with the version that registered it: a reload without it draws with the tool's own", async () => {
		const { runtime, callLines } = setup();
		await runtime.activate("/ext/r.ts", (api) => {
			api.registerTool(tool("own", "own"));
			api.registerToolRenderer(() => ({ renderCall: () => "v1" }));
		});
		expect(callLines("own")).toEqual(["v1"]);
		await runtime.activate("/ext/r.ts", (api) => api.registerTool(tool("own", "own")));
		expect(callLines("own")).toEqual(["own call"]);
		await runtime.activate("/ext/s.ts", (api) => api.registerToolRenderer(() => ({ renderCall: () => "s" })));
		runtime.remove("/ext/s.ts");
		expect(callLines("own")).toEqual(["own call"]);
	});

	it("skips a resolver that throws or returns a non-object, reporting it once", async () => {
		const { runtime, diagnostics, callLines } = setup();
		await runtime.activate("/ext/bad.ts", (api) => {
			api.registerTool(tool("own", "own"));
			api.registerToolRenderer(() => {
				throw new Error("boom");
			});
			api.registerToolRenderer(
				(() => "nope") as unknown as (n: string, next: () => ToolRenderers | undefined) => ToolRenderers,
			);
		});
		expect(callLines("own")).toEqual(["own call"]);
		expect(callLines("own")).toEqual(["own call"]);
		expect(diagnostics.map((d) => d.code)).toEqual(["E_RENDERER_FAILED"]);
		expect(diagnostics[0]?.message).toContain("boom");
	});

	it("refuses a resolver that is not a function; a loading version's resolvers wait for the swap", async () => {
		const { runtime, callLines } = setup();
		let seenDuringLoad: string[] = [];
		const result = await runtime.activate("/ext/x.ts", (api) => {
			api.registerTool(tool("own", "own"));
			api.registerToolRenderer(() => ({ renderCall: () => "x" }));
			seenDuringLoad = callLines("own");
			api.registerToolRenderer(42 as never);
		});
		expect(result.extension).toBeUndefined();
		expect(result.diagnostics[0]?.message).toContain("registerToolRenderer() takes a function");
		expect(seenDuringLoad).toEqual(["own"]);
	});
});
