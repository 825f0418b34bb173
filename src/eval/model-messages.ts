/**
 * The eval loop's conversation and tools in the AI SDK's shapes, and its answer back: history
 * (user text, assistant text with tool calls, tool results) to model messages, a finished step's
 * tool calls to toolsmith's `ToolCall`s, its usage to `EvalUsage`; and a Google-dialect schema in
 * the form the AI SDK's Google provider takes. Runtime-neutral; the AI SDK's types only (nothing of
 * it is loaded here).
 */
import type { ModelMessage, ToolResultPart } from "ai";
import type { ToolCall, ToolResultMessage } from "../contract/content.js";
import type { EvalMessage, EvalUsage } from "./types.js";

type ToolOutput = ToolResultPart["output"];

function resultOutput(result: ToolResultMessage): ToolOutput {
	const images = result.content.some((block) => block.type === "image");
	if (!images) {
		const value = result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
		return result.isError ? { type: "error-text", value } : { type: "text", value };
	}
	return {
		type: "content",
		value: result.content.map((block) =>
			block.type === "text"
				? { type: "text" as const, text: block.text }
				: { type: "image-data" as const, data: block.data, mediaType: block.mimeType },
		),
	};
}

/** The loop's history as the AI SDK's model messages. */
export function toModelMessages(messages: readonly EvalMessage[]): ModelMessage[] {
	return messages.map((message): ModelMessage => {
		if (message.role === "user") return { role: "user", content: message.text };
		if (message.role === "assistant") {
			return {
				role: "assistant",
				content: [
					...(message.text === "" ? [] : [{ type: "text" as const, text: message.text }]),
					...message.toolCalls.map((call) => ({
						type: "tool-call" as const,
						toolCallId: call.id,
						toolName: call.name,
						input: call.arguments,
					})),
				],
			};
		}
		return {
			role: "tool",
			content: message.results.map(
				(result): ToolResultPart => ({
					type: "tool-result",
					toolCallId: result.toolCallId,
					toolName: result.toolName,
					output: resultOutput(result),
				}),
			),
		};
	});
}

/** What the AI SDK gives of one tool call (a valid one, or one it could not parse). */
export interface StepToolCall {
	readonly toolCallId: string;
	readonly toolName: string;
	readonly input: unknown;
}

/**
 * A step's tool calls as toolsmith's: the arguments as the model gave them (an object, or the raw
 * string when it was not JSON; the executor reports that).
 */
export function fromStepToolCalls(calls: readonly StepToolCall[]): ToolCall[] {
	return calls.map((call) => ({
		type: "toolCall",
		id: call.toolCallId,
		name: call.toolName,
		arguments: call.input as ToolCall["arguments"],
	}));
}

function finite(value: unknown): number | undefined {
	return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/**
 * Tokens of one step, and its cost where the provider reports one (OpenRouter's `usage.cost`,
 * found in the provider metadata under any key).
 */
export function toEvalUsage(
	usage: { readonly inputTokens?: number | undefined; readonly outputTokens?: number | undefined } | undefined,
	metadata: Readonly<Record<string, unknown>> | undefined,
): EvalUsage {
	let costUsd: number | undefined;
	for (const entry of Object.values(metadata ?? {})) {
		if (typeof entry === "object" && entry !== null && "cost" in entry) {
			costUsd = finite((entry as { cost: unknown }).cost);
			if (costUsd !== undefined) break;
		}
	}
	const inputTokens = finite(usage?.inputTokens);
	const outputTokens = finite(usage?.outputTokens);
	return {
		...(inputTokens === undefined ? {} : { inputTokens }),
		...(outputTokens === undefined ? {} : { outputTokens }),
		...(costUsd === undefined ? {} : { costUsd }),
	};
}

/**
 * A schema in toolsmith's Google dialect (OpenAPI's `nullable`) back as the JSON Schema the AI
 * SDK's Google provider converts itself: `nullable: true` becomes a `"null"` type (or a `null`
 * branch of an `anyOf`), which that conversion turns into `nullable` again.
 */
export function googleSchemaForAiSdk(schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
	const { nullable, ...rest } = schema;
	const out: Record<string, unknown> = { ...rest };
	const object = (value: unknown): value is Record<string, unknown> =>
		typeof value === "object" && value !== null && !Array.isArray(value);
	if (object(rest.properties)) {
		out.properties = Object.fromEntries(
			Object.entries(rest.properties).map(([key, value]) => [key, object(value) ? googleSchemaForAiSdk(value) : value]),
		);
	}
	if (object(rest.items)) out.items = googleSchemaForAiSdk(rest.items);
	if (Array.isArray(rest.anyOf)) {
		out.anyOf = rest.anyOf.map((branch: unknown) => (object(branch) ? googleSchemaForAiSdk(branch) : branch));
	}
	if (nullable === true) {
		if (typeof rest.type === "string") out.type = [rest.type, "null"];
		else if (Array.isArray(out.anyOf)) out.anyOf = [...out.anyOf, { type: "null" }];
	}
	return out;
}
