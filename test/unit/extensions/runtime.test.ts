import { describe, expect, it } from "vitest";
import type { ToolCall } from "../../../src/contract/content.js";
import { Type } from "../../../src/contract/schema.js";
import type { ToolDefinition } from "../../../src/contract/tool.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { executeToolCalls } from "../../../src/exec/execute.js";
import type { ExtensionAPI, ExtensionDiagnostic } from "../../../src/extensions/api.js";
import { createExtensionRuntime } from "../../../src/extensions/runtime.js";

function tool(name: string, text = name): ToolDefinition {
	return {
		name,
		label: name,
		description: `The ${name} tool.`,
		parameters: Type.Object({}),
		async execute() {
			return { content: [{ type: "text", text }], details: {} };
		},
	};
}

function call(name: string, args: unknown = {}): ToolCall {
	return { type: "toolCall", id: `id-${name}`, name, arguments: args };
}

function setup(commands: ConstructorParameters<typeof MemoryExecutionEnv>[0] = {}) {
	const env = new MemoryExecutionEnv(commands);
	const diagnostics: ExtensionDiagnostic[] = [];
	const logs: string[] = [];
	const runtime = createExtensionRuntime({
		env,
		builtins: [tool("read")],
		onDiagnostic: (d) => diagnostics.push(d),
		log: (entry) => logs.push(`${entry.level} ${entry.path ?? "-"} ${entry.message}`),
	});
	return { env, runtime, diagnostics, logs };
}

describe("the API during and after load", () => {
	it("throws E_NOT_READY from action methods while the factory runs, and works afterwards", async () => {
		const { runtime } = setup();
		let api: ExtensionAPI | undefined;
		const errors: string[] = [];
		await runtime.activate("/ext/a.ts", (given) => {
			api = given;
			for (const action of [
				() => given.getAllTools(),
				() => given.getActiveTools(),
				() => given.setActiveTools([]),
				() => given.exec("true", []),
			]) {
				try {
					action();
				} catch (error) {
					errors.push(`${(error as { code?: string }).code}: ${(error as Error).message}`);
				}
			}
		});
		expect(errors).toHaveLength(4);
		expect(errors[0]).toBe(
			"E_NOT_READY: api.getAllTools() is not available while /ext/a.ts is loading: call it from an event handler (session_start), a tool or a command instead.",
		);
		expect(api?.getActiveTools()).toEqual(["read"]);
		api?.setActiveTools([]);
		expect(runtime.registry.getActiveTools()).toEqual([]);
	});

	it("refreshes the registry for tools registered after load, and reports invalid ones", async () => {
		const { runtime, diagnostics } = setup();
		await runtime.activate("/ext/dyn.ts", (api) => {
			api.on("session_start", () => {
				api.registerTool(tool("late"));
				api.registerTool({ ...tool("broken"), parameters: Type.String() } as unknown as ToolDefinition);
			});
		});
		expect(runtime.registry.get("late")).toBeUndefined();
		expect(await runtime.emit({ type: "session_start", reason: "startup" })).toEqual([]);
		expect(runtime.registry.get("late")?.source).toEqual({ kind: "extension", path: "/ext/dyn.ts" });
		expect(runtime.get("/ext/dyn.ts")?.tools).toEqual(["late"]);
		expect(diagnostics.map((d) => [d.code, d.path])).toEqual([["E_INVALID_TOOL", "/ext/dyn.ts"]]);
		const { results } = await executeToolCalls([call("late")], runtime.registry.executorConfig());
		expect(results[0]?.content).toEqual([{ type: "text", text: "late" }]);
	});

	it("unregisters a tool of the extension", async () => {
		const { runtime } = setup();
		let api: ExtensionAPI | undefined;
		await runtime.activate("/ext/u.ts", (given) => {
			api = given;
			given.registerTool(tool("gone"));
			given.registerTool(tool("stays"));
		});
		api?.unregisterTool("gone");
		expect(runtime.registry.entries().map((e) => e.name)).toEqual(["read", "stays"]);
	});

	it("lists commands and flags, and answers getFlag with the default", async () => {
		const { runtime } = setup();
		let flag: unknown;
		await runtime.activate("/ext/c.ts", (api) => {
			api.registerCommand("hello", { description: "Say hello", handler: () => {} });
			api.registerFlag("verbose", { type: "boolean", default: true });
			flag = api.getFlag("verbose");
		});
		const loaded = runtime.get("/ext/c.ts");
		expect(loaded?.commands.map((c) => [c.name, c.description, c.path])).toEqual([["hello", "Say hello", "/ext/c.ts"]]);
		expect(loaded?.flags.map((f) => [f.name, f.default])).toEqual([["verbose", true]]);
		expect(flag).toBe(true);
	});

	it("answers getFlag with the host's value for a registered flag, before its default", async () => {
		const runtime = createExtensionRuntime({
			env: new MemoryExecutionEnv(),
			builtins: [],
			flags: { ssh: "user@host:/srv", "no-sandbox": true, other: "x" },
		});
		const seen: unknown[] = [];
		await runtime.activate("/ext/f.ts", (api) => {
			api.registerFlag("ssh", { type: "string" });
			api.registerFlag("no-sandbox", { type: "boolean", default: false });
			api.registerFlag("plain", { type: "boolean", default: false });
			api.on("session_start", () => {
				seen.push(api.getFlag("ssh"), api.getFlag("no-sandbox"), api.getFlag("plain"), api.getFlag("other"));
			});
		});
		expect(await runtime.emit({ type: "session_start", reason: "startup" })).toEqual([]);
		// `other` has a value but this extension did not register it: as in pi, it reads undefined.
		expect(seen).toEqual(["user@host:/srv", true, false, undefined]);
	});
});

describe("exec, events and ctx", () => {
	it("quotes every argument and converts the timeout to the env's seconds", async () => {
		const { env, runtime } = setup({
			commands: [{ match: /^printf/, run: (command) => ({ stdout: command, exitCode: 3 }) }],
		});
		let api: ExtensionAPI | undefined;
		await runtime.activate("/ext/e.ts", (given) => {
			api = given;
		});
		const result = await api?.exec("printf", ["%s", "a b", "it's", "$(rm -rf /)"], { timeout: 1500 });
		expect(result).toEqual({
			stdout: "printf %s 'a b' 'it'\\''s' '$(rm -rf /)'",
			stderr: "",
			code: 3,
			killed: false,
		});
		expect(env.commandLog.at(-1)?.timeout).toBe(1.5);
	});

	it("shares one bus between extensions and reports a throwing listener", async () => {
		const { runtime, diagnostics } = setup();
		const heard: unknown[] = [];
		await runtime.activate("/ext/listen.ts", (api) => {
			api.events.on("ping", (data) => heard.push(data));
			api.events.on("ping", () => {
				throw new Error("deaf");
			});
		});
		await runtime.activate("/ext/talk.ts", (api) => {
			api.events.emit("ping", { n: 1 });
		});
		expect(heard).toEqual([{ n: 1 }]);
		expect(diagnostics.map((d) => d.code)).toEqual(["E_HANDLER_FAILED"]);
	});

	it("gives handlers a headless ctx whose notify goes to the host's log", async () => {
		const { env, runtime, logs } = setup();
		const seen: unknown[] = [];
		await runtime.activate("/ext/ui.ts", (api) => {
			api.on("session_start", async (event, ctx) => {
				seen.push(event.reason, ctx.hasUI, ctx.cwd, ctx.env === env, ctx.extension.path);
				seen.push(await ctx.ui.confirm("Sure?", "Really?"), await ctx.ui.select("Pick", ["a"]));
				ctx.ui.notify("hello from the extension", "warning");
			});
		});
		await runtime.emit({ type: "session_start", reason: "reload" });
		expect(seen).toEqual(["reload", false, "/project", true, "/ext/ui.ts", false, undefined]);
		expect(logs).toEqual(["warning /ext/ui.ts hello from the extension"]);
	});
});

describe("reference API members toolsmith does not implement", () => {
	it("are no-ops reported once each, and unknown events are noted", async () => {
		const { runtime, diagnostics } = setup();
		const result = await runtime.activate("/ext/pi.ts", (api) => {
			const pi = api as unknown as Record<string, (...args: unknown[]) => unknown>;
			pi.sendMessage?.({ customType: "x", content: "hi" });
			pi.sendMessage?.({ customType: "x", content: "again" });
			pi.registerShortcut?.("ctrl+x", { handler: () => {} });
			(api.on as (event: string, handler: () => void) => void)("agent_start", () => {});
		});
		expect(result.extension).toBeDefined();
		expect(diagnostics.map((d) => [d.severity, d.code, d.message])).toEqual([
			[
				"warning",
				"W_UNSUPPORTED_API",
				"/ext/pi.ts called api.sendMessage(), which toolsmith does not implement (it has no sessions, models or UI); the call does nothing.",
			],
			[
				"warning",
				"W_UNSUPPORTED_API",
				"/ext/pi.ts called api.registerShortcut(), which toolsmith does not implement (it has no sessions, models or UI); the call does nothing.",
			],
			[
				"info",
				"I_EVENT_NOT_EMITTED",
				'/ext/pi.ts listens to "agent_start", which toolsmith never emits; the handler will not run.',
			],
		]);
		// Raised while the factory ran, so they are also what this activation reports.
		expect(result.diagnostics).toEqual(diagnostics);
	});

	it("reports to the listener only, once the extension is active", async () => {
		const { runtime, diagnostics } = setup();
		let later: (() => void) | undefined;
		const result = await runtime.activate("/ext/late.ts", (api) => {
			later = () => (api.on as (event: string, handler: () => void) => void)("agent_end", () => {});
		});
		later?.();
		expect(result.diagnostics).toEqual([]);
		expect(diagnostics.map((d) => d.code)).toEqual(["I_EVENT_NOT_EMITTED"]);
	});
});

describe("activation as a replaceable step", () => {
	it("keeps the previous version when a new one fails, and swaps in a working one", async () => {
		const { runtime } = setup();
		let firstApi: ExtensionAPI | undefined;
		await runtime.activate("/ext/r.ts", (api) => {
			firstApi = api;
			api.registerTool(tool("answer", "v1"));
		});
		await runtime.activate("/ext/other.ts", (api) => api.registerTool(tool("other")));
		const failed = await runtime.activate("/ext/r.ts", (api) => {
			api.registerTool(tool("answer", "v2"));
			throw new Error("half way");
		});
		expect(failed.extension).toBeUndefined();
		expect(failed.diagnostics.map((d) => d.code)).toEqual(["E_FACTORY_FAILED"]);
		let result = await executeToolCalls([call("answer")], runtime.registry.executorConfig());
		expect(result.results[0]?.content).toEqual([{ type: "text", text: "v1" }]);

		await runtime.activate("/ext/r.ts", (api) => api.registerTool(tool("answer", "v3")));
		result = await executeToolCalls([call("answer")], runtime.registry.executorConfig());
		expect(result.results[0]?.content).toEqual([{ type: "text", text: "v3" }]);
		// The replaced version keeps its place in the load order and can no longer register.
		expect(runtime.extensions().map((e) => e.path)).toEqual(["/ext/r.ts", "/ext/other.ts"]);
		firstApi?.registerTool(tool("zombie"));
		expect(runtime.registry.get("zombie")).toBeUndefined();
	});

	it("gives up on a factory that does not settle, and ignores its late registrations", async () => {
		const { runtime, diagnostics } = setup();
		let release!: () => void;
		const result = await runtime.activate(
			"/ext/slow.ts",
			async (api) => {
				await new Promise<void>((resolve) => {
					release = resolve;
				});
				api.registerTool(tool("too_late"));
			},
			{ timeoutMs: 20 },
		);
		expect(result.diagnostics.map((d) => [d.code, d.message])).toEqual([
			[
				"E_LOAD_TIMEOUT",
				"The default export of /ext/slow.ts did not settle within 20 ms; the extension was not loaded. Move slow work into a session_start handler or a tool.",
			],
		]);
		release();
		await new Promise((resolve) => setTimeout(resolve, 0));
		expect(runtime.registry.get("too_late")).toBeUndefined();
		expect(diagnostics.map((d) => d.code)).toEqual(["E_LOAD_TIMEOUT", "W_LATE_CALL"]);
	});

	it("bounds shutdown handlers and removes an extension with its tools", async () => {
		const { runtime } = setup();
		await runtime.activate("/ext/s.ts", (api) => {
			api.registerTool(tool("temp"));
			api.on("session_shutdown", () => new Promise(() => {}));
		});
		const diagnostics = await runtime.emit({ type: "session_shutdown", reason: "exit" }, { timeoutMs: 20 });
		expect(diagnostics.map((d) => d.code)).toEqual(["E_HANDLER_FAILED"]);
		expect(runtime.remove("/ext/s.ts")).toBe(true);
		expect(runtime.registry.get("temp")).toBeUndefined();
		expect(runtime.extensions()).toEqual([]);
	});
});

describe("api.state", () => {
	// A counter tool whose count lives in api.state, as the `stateful` template's tools do.
	const counter = (label: string) => (api: ExtensionAPI) => {
		const kept = api.state.keep("count", () => ({ value: 0 }));
		api.registerTool({
			...tool("count"),
			async execute() {
				kept.value++;
				return { content: [{ type: "text", text: `${label} ${kept.value}` }], details: {} };
			},
		});
	};

	async function run(runtime: ReturnType<typeof setup>["runtime"], name: string): Promise<string> {
		const { results } = await executeToolCalls([call(name)], runtime.registry.executorConfig());
		const block = results[0]?.content[0];
		return block?.type === "text" ? block.text : "";
	}

	it("outlives a reload of the extension, and the new version sees what the old one kept", async () => {
		const { runtime } = setup();
		await runtime.activate("/ext/count.ts", counter("v1"));
		expect(await run(runtime, "count")).toBe("v1 1");
		expect(await run(runtime, "count")).toBe("v1 2");
		await runtime.activate("/ext/count.ts", counter("v2"));
		expect(await run(runtime, "count")).toBe("v2 3");
	});

	it("is per extension, forgotten by remove, and new in every runtime", async () => {
		const { runtime } = setup();
		let seen: unknown[] = [];
		const peek = (api: ExtensionAPI) => {
			seen = [api.state.keep("count", () => "fresh")];
		};
		await runtime.activate("/ext/count.ts", counter("a"));
		await run(runtime, "count");
		await runtime.activate("/ext/other.ts", peek);
		expect(seen).toEqual(["fresh"]);

		expect(runtime.remove("/ext/count.ts")).toBe(true);
		await runtime.activate("/ext/count.ts", counter("b"));
		expect(await run(runtime, "count")).toBe("b 1");

		const second = setup().runtime;
		await second.activate("/ext/count.ts", counter("c"));
		expect(await run(second, "count")).toBe("c 1");
	});

	it("set replaces and delete forgets a key", async () => {
		const { runtime } = setup();
		const results: unknown[] = [];
		await runtime.activate("/ext/a.ts", (api) => {
			api.state.set("k", 1);
			results.push(api.state.keep("k", () => 2));
			results.push(api.state.delete("k"), api.state.delete("k"));
			results.push(api.state.keep("k", () => 3));
		});
		expect(results).toEqual([1, true, false, 3]);
	});
});
