import { describe, expect, expectTypeOf, it } from "vitest";
import type { ExecutionEnv } from "../../../src/contract/env.js";
import { errorMessage } from "../../../src/contract/errors.js";
import { type Static, StringEnum, Type } from "../../../src/contract/schema.js";
import {
	type AgentToolResult,
	defineTool,
	type ToolContext,
	toolDefinitionFromAgentTool,
	wrapToolDefinition,
	wrapToolDefinitions,
} from "../../../src/contract/tool.js";

const fakeEnv = { kind: "fake", cwd: "/work" } as unknown as ExecutionEnv;

function ctxFor(signal?: AbortSignal): ToolContext {
	const ui = {
		select: async () => undefined,
		confirm: async () => false,
		input: async () => undefined,
		notify: () => {},
	};
	return signal
		? { env: fakeEnv, cwd: "/work", hasUI: false, ui, signal }
		: { env: fakeEnv, cwd: "/work", hasUI: false, ui };
}

const greet = defineTool({
	name: "greet",
	label: "Greet",
	description: "Greets someone.",
	parameters: Type.Object({ who: Type.String(), times: Type.Optional(Type.Number()) }),
	promptSnippet: "Say hello",
	promptGuidelines: ["Greet politely."],
	executionMode: "sequential",
	prepareArguments(args) {
		return typeof args === "string" ? { who: args } : args;
	},
	async execute(toolCallId, params, _signal, onUpdate, ctx) {
		onUpdate?.({ content: [{ type: "text", text: "…" }], details: { partial: true } });
		return {
			content: [{ type: "text", text: `hello ${params.who} from ${ctx.cwd} (${toolCallId})` }],
			details: { partial: false },
		};
	},
	renderCall: (args, theme) => theme.bold(args.who),
});

describe("defineTool", () => {
	it("keeps the exact parameter type", () => {
		expectTypeOf<Parameters<typeof greet.execute>[1]>().toEqualTypeOf<{ who: string; times?: number }>();
		expect(greet.name).toBe("greet");
	});
});

describe("wrapToolDefinition", () => {
	it("passes only model-facing and scheduling fields and builds a ctx per call", async () => {
		const seen: string[] = [];
		const tool = wrapToolDefinition(greet, (info) => {
			seen.push(`${info.toolName}:${info.toolCallId}`);
			return ctxFor(info.signal);
		});
		expect(Object.keys(tool).sort()).toEqual(
			["description", "execute", "executionMode", "label", "name", "parameters", "prepareArguments"].sort(),
		);
		expect(tool.prepareArguments?.("ann")).toEqual({ who: "ann" });
		const updates: AgentToolResult<unknown>[] = [];
		const result = await tool.execute("c1", { who: "bo" }, undefined, (u) => updates.push(u));
		expect(result.content).toEqual([{ type: "text", text: "hello bo from /work (c1)" }]);
		expect(updates).toHaveLength(1);
		await tool.execute("c2", { who: "cy" });
		expect(seen).toEqual(["greet:c1", "greet:c2"]);
	});

	it("omits optional fields the definition does not set", () => {
		const plain = defineTool({
			name: "plain",
			label: "Plain",
			description: "d",
			parameters: Type.Object({}),
			execute: async () => ({ content: [], details: undefined }),
		});
		const tool = wrapToolDefinition(plain, () => ctxFor());
		expect("executionMode" in tool).toBe(false);
		expect("prepareArguments" in tool).toBe(false);
	});

	it("surfaces a throwing ctx factory as a rejected execute", async () => {
		const tool = wrapToolDefinition(greet, () => {
			throw new Error("no ctx");
		});
		await expect(tool.execute("c", { who: "x" })).rejects.toThrow("no ctx");
	});

	it("turns a tool that throws at once, or returns a plain value, into a promise", async () => {
		const sync = {
			...greet,
			execute: ((_id: string, params: { who: string }) => {
				if (params.who === "boom") throw new Error("thrown before any await");
				return { content: [{ type: "text", text: "plain" }], details: undefined };
			}) as unknown as typeof greet.execute,
		};
		const tool = wrapToolDefinition(sync, () => ctxFor());
		const thrown = tool.execute("c", { who: "boom" });
		expect(thrown).toBeInstanceOf(Promise);
		await expect(thrown).rejects.toThrow("thrown before any await");
		const plain = tool.execute("c", { who: "x" });
		expect(plain).toBeInstanceOf(Promise);
		await expect(plain).resolves.toMatchObject({ content: [{ type: "text", text: "plain" }] });
	});

	it("wraps lists in order", () => {
		const tools = wrapToolDefinitions([greet, { ...greet, name: "other" }], () => ctxFor());
		expect(tools.map((t) => t.name)).toEqual(["greet", "other"]);
	});
});

describe("toolDefinitionFromAgentTool", () => {
	it("round-trips an AgentTool", async () => {
		const tool = wrapToolDefinition(greet, () => ctxFor());
		const def = toolDefinitionFromAgentTool(tool);
		expect(def.executionMode).toBe("sequential");
		const result = await def.execute("c9", { who: "di" }, undefined, undefined, ctxFor());
		expect(result.content[0]).toEqual({ type: "text", text: "hello di from /work (c9)" });
		expect(def.prepareArguments?.("ed")).toEqual({ who: "ed" });
	});
});

describe("StringEnum", () => {
	it("is a plain string enum, never anyOf/const", () => {
		const schema = StringEnum(["celsius", "fahrenheit"], { description: "unit" });
		expect(JSON.parse(JSON.stringify(schema))).toEqual({
			type: "string",
			enum: ["celsius", "fahrenheit"],
			description: "unit",
		});
		expectTypeOf<Static<typeof schema>>().toEqualTypeOf<"celsius" | "fahrenheit">();
	});
});

describe("errorMessage", () => {
	it("describes any thrown value", () => {
		expect(errorMessage(new Error("boom"))).toBe("boom");
		expect(errorMessage("plain")).toBe("plain");
		expect(errorMessage({ code: 1 })).toBe('{"code":1}');
		expect(errorMessage(undefined)).toBe("undefined");
		const cyclic: Record<string, unknown> = {};
		cyclic.self = cyclic;
		expect(errorMessage(cyclic)).toBe("[object Object]");
		expect(errorMessage(42n)).toBe("42");
	});
});
