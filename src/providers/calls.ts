/** Provider responses → `ToolCall`s, and `ToolResultMessage`s → provider tool results. */
import type { ToolCall, ToolResultMessage } from "../contract/content.js";
import { parseJsonArguments } from "../exec/json.js";
import type { ToolProvider } from "./types.js";

type Json = Record<string, unknown>;

function isJson(value: unknown): value is Json {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function list(value: unknown): unknown[] {
	return Array.isArray(value) ? value : [];
}

function str(value: unknown): string | undefined {
	return typeof value === "string" ? value : undefined;
}

/**
 * Arguments sent as a JSON string are parsed when they hold a JSON object; anything else stays the
 * raw string, so the executor reports the parse error to the model instead of losing the call.
 */
function argumentsFrom(raw: unknown): unknown {
	if (typeof raw !== "string") return raw ?? {};
	const parsed = parseJsonArguments(raw, { sawHostileKey: false });
	return parsed.ok && isJson(parsed.value) ? parsed.value : raw;
}

function call(id: string, name: string, args: unknown): ToolCall {
	return { type: "toolCall", id, name, arguments: args };
}

/** Chat Completions: a response, one choice, the assistant message, or its `tool_calls` array. */
function fromOpenAIChat(response: unknown): ToolCall[] {
	let calls: unknown = response;
	if (isJson(response)) {
		const choice = list(response.choices)[0];
		const message =
			isJson(choice) && isJson(choice.message)
				? choice.message
				: isJson(response.message)
					? response.message
					: response;
		calls = message.tool_calls;
	}
	const out: ToolCall[] = [];
	for (const [index, item] of list(calls).entries()) {
		if (!isJson(item) || !isJson(item.function)) continue;
		const name = str(item.function.name) ?? "";
		out.push(call(str(item.id) ?? `call_${index}`, name, argumentsFrom(item.function.arguments)));
	}
	return out;
}

/** Responses API: a response (`output`), or the output items. The call id is `call_id`. */
function fromOpenAIResponses(response: unknown): ToolCall[] {
	const items = isJson(response) ? list(response.output) : list(response);
	const out: ToolCall[] = [];
	for (const [index, item] of items.entries()) {
		if (!isJson(item) || item.type !== "function_call") continue;
		const id = str(item.call_id) ?? str(item.id) ?? `call_${index}`;
		out.push(call(id, str(item.name) ?? "", argumentsFrom(item.arguments)));
	}
	return out;
}

/** Messages API: a message (`content`), or its content blocks. */
function fromAnthropic(response: unknown): ToolCall[] {
	const blocks = isJson(response) ? list(response.content) : list(response);
	const out: ToolCall[] = [];
	for (const [index, block] of blocks.entries()) {
		if (!isJson(block) || block.type !== "tool_use") continue;
		out.push(call(str(block.id) ?? `toolu_${index}`, str(block.name) ?? "", block.input ?? {}));
	}
	return out;
}

/** Prefix of the ids made up for Gemini calls, which usually come without one. */
export const GOOGLE_SYNTHETIC_ID_PREFIX = "gemini-call-";

/** Gemini: a response (`candidates`), a candidate, its `content`, or the parts. */
function fromGoogle(response: unknown): ToolCall[] {
	let parts: unknown[] = [];
	if (Array.isArray(response)) parts = response;
	else if (isJson(response)) {
		const candidate = list(response.candidates)[0];
		const content = isJson(candidate) ? candidate.content : isJson(response.content) ? response.content : response;
		parts = isJson(content) ? list(content.parts) : [];
	}
	const out: ToolCall[] = [];
	let position = 0;
	for (const part of parts) {
		if (!isJson(part) || !isJson(part.functionCall)) continue;
		const fc = part.functionCall;
		const name = str(fc.name) ?? "";
		// Position and name make the id stable for the same response, and unique within it.
		const id = str(fc.id) ?? `${GOOGLE_SYNTHETIC_ID_PREFIX}${position}-${name}`;
		out.push(call(id, name, fc.args ?? {}));
		position++;
	}
	return out;
}

/**
 * The tool calls in a provider response, in order, as `ToolCall`s ready for `executeToolCalls`.
 * Accepts the whole response or the part that holds the calls (see each provider in
 * docs/providers.md). Never throws: anything unrecognized yields no calls. Arguments a provider
 * sends as a JSON string are parsed into an object (without `__proto__` keys); a string that is
 * not a JSON object stays as it is, so the executor reports the problem to the model.
 */
export function parseToolCalls(response: unknown, provider: ToolProvider): ToolCall[] {
	try {
		switch (provider) {
			case "openai-chat":
				return fromOpenAIChat(response);
			case "openai-responses":
				return fromOpenAIResponses(response);
			case "anthropic":
				return fromAnthropic(response);
			case "google":
				return fromGoogle(response);
			default:
				return [];
		}
	} catch {
		return [];
	}
}

/** A `tool` message of the OpenAI Chat Completions API. */
export interface OpenAIChatToolMessage {
	readonly role: "tool";
	readonly tool_call_id: string;
	readonly content: string;
}

/** One part of an OpenAI Responses `function_call_output`: text or an image. */
export type OpenAIResponsesOutputPart =
	| { readonly type: "input_text"; readonly text: string }
	| { readonly type: "input_image"; readonly image_url: string };

/** A `function_call_output` item of the OpenAI Responses API. */
export interface OpenAIResponsesToolOutput {
	readonly type: "function_call_output";
	readonly call_id: string;
	readonly output: string | OpenAIResponsesOutputPart[];
}

/** Content inside an Anthropic `tool_result` block: text or a base64 image. */
export type AnthropicToolResultContent =
	| { readonly type: "text"; readonly text: string }
	| {
			readonly type: "image";
			readonly source: { readonly type: "base64"; readonly media_type: string; readonly data: string };
	  };

/** A `tool_result` content block of the Anthropic Messages API. */
export interface AnthropicToolResultBlock {
	readonly type: "tool_result";
	readonly tool_use_id: string;
	readonly content: AnthropicToolResultContent[];
	readonly is_error?: true;
}

/** A `functionResponse` part of the Google Gemini API. */
export interface GoogleFunctionResponsePart {
	readonly functionResponse: {
		readonly id?: string;
		readonly name: string;
		readonly response: { readonly output: string } | { readonly error: string };
		readonly parts?: { readonly inlineData: { readonly mimeType: string; readonly data: string } }[];
	};
}

/** The tool result type of each provider, by provider name: what `toProviderToolResult` returns. */
export interface ProviderToolResults {
	readonly "openai-chat": OpenAIChatToolMessage;
	readonly "openai-responses": OpenAIResponsesToolOutput;
	readonly anthropic: AnthropicToolResultBlock;
	readonly google: GoogleFunctionResponsePart;
}

function joinedText(result: ToolResultMessage, imageNote: boolean): string {
	const lines: string[] = [];
	for (const block of result.content) {
		if (block.type === "text") lines.push(block.text);
		else if (imageNote) lines.push(`[image: ${block.mimeType}, not supported in this provider's tool results]`);
	}
	return lines.join("\n");
}

/**
 * One tool result in `provider`'s format: the tool message (OpenAI chat), the
 * `function_call_output` item (OpenAI Responses), the `tool_result` block (Anthropic, with
 * `is_error`), or the `functionResponse` part (Gemini; errors go under `response.error`). Text and
 * images are carried where the provider takes them; OpenAI chat tool messages take text only, so
 * an image there becomes a one-line note. Never throws.
 */
export function toProviderToolResult<P extends ToolProvider>(
	result: ToolResultMessage,
	provider: P,
): ProviderToolResults[P] {
	const content = Array.isArray(result.content) ? result.content : [];
	const safe: ToolResultMessage = { ...result, content };
	const images = content.filter((b) => b.type === "image");
	switch (provider) {
		case "openai-chat": {
			const message: OpenAIChatToolMessage = {
				role: "tool",
				tool_call_id: result.toolCallId,
				content: joinedText(safe, true),
			};
			return message as ProviderToolResults[P];
		}
		case "openai-responses": {
			const output: OpenAIResponsesToolOutput = {
				type: "function_call_output",
				call_id: result.toolCallId,
				output:
					images.length === 0
						? joinedText(safe, false)
						: content.map((b) =>
								b.type === "text"
									? { type: "input_text", text: b.text }
									: { type: "input_image", image_url: `data:${b.mimeType};base64,${b.data}` },
							),
			};
			return output as ProviderToolResults[P];
		}
		case "anthropic": {
			const block: AnthropicToolResultBlock = {
				type: "tool_result",
				tool_use_id: result.toolCallId,
				content: content.map((b) =>
					b.type === "text"
						? { type: "text", text: b.text }
						: { type: "image", source: { type: "base64", media_type: b.mimeType, data: b.data } },
				),
				...(result.isError ? { is_error: true as const } : {}),
			};
			return block as ProviderToolResults[P];
		}
		default: {
			const text = joinedText(safe, false);
			const part: GoogleFunctionResponsePart = {
				functionResponse: {
					...(result.toolCallId.startsWith(GOOGLE_SYNTHETIC_ID_PREFIX) ? {} : { id: result.toolCallId }),
					name: result.toolName,
					response: result.isError ? { error: text } : { output: text },
					...(images.length > 0
						? {
								parts: images.map((b) => ({
									inlineData: { mimeType: (b as { mimeType: string }).mimeType, data: (b as { data: string }).data },
								})),
							}
						: {}),
				},
			};
			return part as ProviderToolResults[P];
		}
	}
}
