/** Content blocks, tool calls and tool result messages: the shapes that travel to and from a model. */

export interface TextContent {
	readonly type: "text";
	readonly text: string;
}

/** An image in a tool result: base64 data and its MIME type. */
export interface ImageContent {
	readonly type: "image";
	/** Base64-encoded bytes, without a `data:` prefix. */
	readonly data: string;
	/** `image/png`, `image/jpeg`, `image/gif`, `image/webp` or `image/bmp`. */
	readonly mimeType: string;
}

/** What a tool result may carry for the model. */
export type ToolResultContent = TextContent | ImageContent;

/** One call the model asked for, in the provider-neutral form. */
export interface ToolCall {
	readonly type: "toolCall";
	/** The provider's id for the call; the result message carries it back. */
	readonly id: string;
	readonly name: string;
	/**
	 * The arguments as the model sent them: usually an object, sometimes the raw JSON string
	 * (the executor parses it and reports malformed JSON as an error result).
	 */
	readonly arguments: unknown;
}

/** Token accounting a tool may report (for tools that call a model themselves). */
export interface Usage {
	readonly input?: number;
	readonly output?: number;
	readonly cacheRead?: number;
	readonly cacheWrite?: number;
	readonly totalTokens?: number;
	readonly cost?: { readonly total?: number; readonly [key: string]: number | undefined };
}

/** The message that goes back to the model for one tool call. */
export interface ToolResultMessage<TDetails = unknown> {
	readonly role: "toolResult";
	readonly toolCallId: string;
	readonly toolName: string;
	readonly content: ToolResultContent[];
	/** Structured data for UIs and state; never sent to the model. */
	readonly details: TDetails | undefined;
	readonly isError: boolean;
	/** Tools made available by this call (for providers with deferred tool loading). */
	readonly addedToolNames?: string[];
	readonly usage?: Usage;
	/**
	 * Milliseconds the tool ran, from its call until it settled (the `afterToolCall` hook not
	 * included); absent for a call that never ran (unknown tool, invalid arguments, blocked, aborted).
	 */
	readonly durationMs?: number;
	/** Milliseconds since the epoch, when the result was finalized. */
	readonly timestamp: number;
}
