/** The pi 1.x fields of `ToolDefinition` type-check as 1.x extensions write them, and pass to the AgentTool. */
import { describe, expect, it } from "vitest";
import { Type } from "../../../src/contract/schema.js";
import {
	type AgentTool,
	type AgentToolResult,
	defineTool,
	type ToolLoadout,
	type ToolLoadoutChanges,
	toolDefinitionFromAgentTool,
	wrapToolDefinition,
} from "../../../src/contract/tool.js";

const counter = defineTool({
	name: "counter",
	label: "Counter",
	description: "Counts.",
	parameters: Type.Object({ text: Type.String() }),
	outputSchema: Type.Object({ count: Type.Number() }),
	exposure: "model-only",
	namespace: { name: "mcp__count", aliases: ["count"], description: "Counting", instructions: "Count first." },
	defaultActive: false,
	annotations: { readOnlyHint: true },
	constrainedSampling: { type: "grammar", variants: { openai_regex: "\\d+" } },
	renderShell: "self",
	reachesTools: (input) => (typeof input.text === "string" ? [input.text] : "all"),
	prepareLoadout: (loadout: ToolLoadout): ToolLoadoutChanges => ({
		descriptions: { counter: `Counts; ${loadout.callable.length} callable.` },
	}),
	async execute(_id, { text }) {
		return { content: [{ type: "text", text }], details: { text }, structuredContent: { count: text.length } };
	},
});

describe("the pi 1.x tool fields", () => {
	it("type-check as 1.x writes them; an unknown exposure or a non-JSON structuredContent does not", () => {
		// @ts-expect-error: an exposure pi 1.x does not have
		defineTool({ ...counter, exposure: "public" });
		// @ts-expect-error: a structuredContent JSON cannot hold
		const bad: AgentToolResult = { content: [], details: undefined, structuredContent: () => 1 };
		void bad;
		expect(counter.reachesTools?.({ text: "x" })).toEqual(["x"]);
	});

	it("outputSchema, constrainedSampling and exposure pass to the AgentTool, the others stay on the definition", () => {
		const tool: AgentTool = wrapToolDefinition(counter, () => ({}) as never);
		expect(tool.outputSchema).toBe(counter.outputSchema);
		expect(tool.constrainedSampling).toEqual({ type: "grammar", variants: { openai_regex: "\\d+" } });
		// Unlike pi's wrapper, toolsmith's keeps exposure: the executor reads it to tell which of a
		// batch's tools a nested call may reach (never a model-only or hidden one).
		expect(tool.exposure).toBe(counter.exposure);
		expect("namespace" in tool).toBe(false);
		const back = toolDefinitionFromAgentTool(tool);
		expect(back.outputSchema).toBe(counter.outputSchema);
		expect(back.constrainedSampling).toBe(tool.constrainedSampling);
	});
});
