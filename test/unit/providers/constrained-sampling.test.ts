/** pi 1.x `constrainedSampling` in the provider converters. */
import { describe, expect, it } from "vitest";
import { Type } from "../../../src/contract/schema.js";
import {
	compatibilityReport,
	type ProviderTool,
	toAnthropicTools,
	toGoogleTools,
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

	it("json_schema makes Anthropic and Google tools strict, unless the model takes no strict tools", () => {
		const require = tool("needs_strict", closed, { constrainedSampling: { type: "json_schema", strict: "require" } });
		const prefer = tool("likes_strict", Type.Object({ path: Type.Optional(Type.String()) }), {
			constrainedSampling: { type: "json_schema", strict: "prefer" },
		});
		const anthropic = toAnthropicTools([require, prefer]);
		expect(anthropic.map((t) => t.strict)).toEqual([true, true]);
		expect(anthropic[1]?.input_schema).toEqual({
			type: "object",
			properties: { path: { anyOf: [{ type: "string" }, { type: "null" }] } },
			required: ["path"],
			additionalProperties: false,
		});
		expect(toGoogleTools([prefer])[0]?.functionDeclarations[0]?.parameters).toEqual({
			type: "object",
			properties: { path: { type: "string", nullable: true } },
			required: ["path"],
		});
		// A model without strict tools: "prefer" goes plain, "require" is refused.
		expect(toAnthropicTools([require, prefer], { invalid: "omit", strictTools: false })).toEqual([
			{
				name: "likes_strict",
				description: "The likes_strict tool.",
				input_schema: expect.not.objectContaining({ additionalProperties: false }),
			},
		]);
		expect(compatibilityReport([require], "google", { strictTools: false })[0]?.errors).toEqual([
			expect.objectContaining({ kind: "strict-required" }),
		]);
	});

	it('Anthropic\'s strict tools refuse keywords the others take: a "prefer" tool goes plain there', () => {
		const bounded = tool("bounded", Type.Object({ count: Type.Integer({ minimum: 1 }) }), {
			constrainedSampling: { type: "json_schema", strict: "prefer" },
		});
		expect(toAnthropicTools([bounded])[0]?.strict).toBeUndefined();
		const [report] = compatibilityReport([bounded], "anthropic");
		expect([report?.strictFallback, report?.errors[0]?.message]).toEqual([true, expect.stringContaining("minimum")]);
		expect(toOpenAIResponsesTools([bounded])[0]).toMatchObject({ strict: true });
	});

	it("a grammar tool is an OpenAI custom tool when the model takes them, else a plain function tool", () => {
		const grammar = tool("patch", Type.Object({ input: Type.String() }), {
			constrainedSampling: { type: "grammar", variants: { openai_lark: "start: /.+/", openai_regex: "^.+$" } },
		});
		expect(toOpenAIResponsesTools([grammar])[0]).toMatchObject({ type: "function", name: "patch", strict: false });
		expect(toOpenAIResponsesTools([grammar], { grammarTools: true })).toEqual([
			{
				type: "custom",
				name: "patch",
				description: "The patch tool.",
				format: { type: "grammar", syntax: "lark", definition: "start: /.+/" },
			},
		]);
		expect(toOpenAIChatTools([grammar], { grammarTools: true })).toEqual([
			{
				type: "custom",
				custom: {
					name: "patch",
					description: "The patch tool.",
					format: { type: "grammar", grammar: { syntax: "lark", definition: "start: /.+/" } },
				},
			},
		]);
		expect(toAnthropicTools([grammar])[0]).toMatchObject({ name: "patch", input_schema: { type: "object" } });
	});

	it("a grammar tool without a grammar, or with other than one string argument, is refused", () => {
		const none = tool("none", Type.Object({ input: Type.String() }), {
			constrainedSampling: { type: "grammar", variants: {} },
		});
		const two = tool("two", Type.Object({ a: Type.String(), b: Type.String() }), {
			constrainedSampling: { type: "grammar", variants: { openai_regex: "^a$" } },
		});
		expect(() => toOpenAIChatTools([none], { grammarTools: true })).toThrow(/none: .*no grammar OpenAI takes/);
		expect(compatibilityReport([two], "openai-responses", { grammarTools: true })[0]?.errors).toEqual([
			expect.objectContaining({ kind: "grammar-invalid" }),
		]);
	});
});
