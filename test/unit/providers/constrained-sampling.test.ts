/** pi 1.x `constrainedSampling` in the provider converters. */
import { describe, expect, it } from "vitest";
import { Type } from "../../../src/contract/schema.js";
import {
	compatibilityReport,
	type ProviderTool,
	toAnthropicTools,
	toOpenAIChatTools,
	toOpenAIResponsesTools,
} from "../../../src/providers/tools.js";

const closed = Type.Object({ path: Type.String() });
// A map (typed extra keys) cannot be made strict.
const open = Type.Object({ env: Type.Record(Type.String(), Type.String()) });

const tool = (
	name: string,
	parameters: ProviderTool["parameters"],
	extra: Partial<ProviderTool> = {},
): ProviderTool => ({
	name,
	description: `The ${name} tool.`,
	parameters,
	...extra,
});

describe("constrainedSampling", () => {
	it("json_schema makes an OpenAI tool strict without the strict option; others stay as they were", () => {
		const tools = [
			tool("prefers", closed, { constrainedSampling: { type: "json_schema", strict: "prefer" } }),
			tool("plain", closed),
			tool("off", closed, { constrainedSampling: false }),
		];
		const chat = toOpenAIChatTools(tools);
		expect(chat.map((t) => t.function.strict)).toEqual([true, undefined, undefined]);
		expect(chat[0]?.function.parameters).toMatchObject({ additionalProperties: false, required: ["path"] });
		expect(toOpenAIResponsesTools(tools).map((t) => t.strict)).toEqual([true, false, false]);
	});

	it('"prefer" falls back to a plain tool when the schema cannot be strict; "require" rejects it', () => {
		const prefer = tool("prefer_open", open, { constrainedSampling: { type: "json_schema", strict: "prefer" } });
		const require = tool("require_open", open, { constrainedSampling: { type: "json_schema", strict: "require" } });
		expect(toOpenAIChatTools([prefer])[0]?.function.strict).toBe(false);
		expect(() => toOpenAIChatTools([require])).toThrow(/require_open.*cannot be strict/s);
		const [report] = compatibilityReport([require], "openai-chat");
		expect(report?.ok).toBe(false);
		expect(report?.errors.map((e) => e.kind)).toContain("strict-required");
	});

	it('"require" is refused for Anthropic and Google, which toolsmith sends no strict tools; "prefer" goes plain', () => {
		const require = tool("needs_strict", closed, { constrainedSampling: { type: "json_schema", strict: "require" } });
		const prefer = tool("likes_strict", closed, { constrainedSampling: { type: "json_schema", strict: "prefer" } });
		expect(toAnthropicTools([require, prefer], { invalid: "omit" }).map((t) => t.name)).toEqual(["likes_strict"]);
		expect(compatibilityReport([require], "google")[0]?.errors).toEqual([
			expect.objectContaining({ kind: "strict-required" }),
		]);
	});

	it("a grammar tool goes as a plain function tool", () => {
		const grammar = tool("patch", Type.Object({ input: Type.String() }), {
			constrainedSampling: { type: "grammar", variants: { openai_lark: "start: /.+/" } },
		});
		expect(toOpenAIResponsesTools([grammar])[0]).toMatchObject({ type: "function", name: "patch", strict: false });
	});
});
