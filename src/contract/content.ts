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

/** A JSON value: what `structuredContent` may hold. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** Token accounting a tool may report (for tools that call a model themselves). */
export interface Usage {
	readonly input?: number;
	readonly output?: number;
	readonly cacheRead?: number;
	readonly cacheWrite?: number;
	readonly totalTokens?: number;
	readonly cost?: { readonly total?: number; readonly [key: string]: number | undefined };
}

/** One call a tool made through `ctx.executeTool`, as recorded on the calling call's message. */
export interface NestedCallRecord {
	/** `<calling id>/<n>`. */
	readonly id: string;
	readonly name: string;
	/** `unfinished` when the calling call ended before this one did. */
	readonly status: "ok" | "error" | "unfinished";
	/** The arguments as given, unless they were too large to keep (see `argumentsBytes`). */
	readonly arguments?: unknown;
	/** The size of arguments left out of the record, in bytes of JSON. */
	readonly argumentsBytes?: number;
	/** Milliseconds from the nested call's start to its end, hooks included. */
	readonly durationMs?: number;
	/** The start of an error result's text. */
	readonly error?: string;
}

/**
 * The bounded record of the nested calls of one call: at most 256 calls, arguments of at most
 * 8 KiB each and 32 KiB in all, errors cut at 500 characters; `complete` is false when anything
 * was left out or unfinished.
 */
export interface NestedCalls {
	readonly calls: readonly NestedCallRecord[];
	readonly complete: boolean;
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
	/** The result's machine-readable form (see `AgentToolResult.structuredContent`); not for the model. */
	readonly structuredContent?: JsonValue;
	/** Tools made available by this call (for providers with deferred tool loading). */
	readonly addedToolNames?: string[];
	readonly usage?: Usage;
	/**
	 * Milliseconds the tool ran, from its call until it settled (the `afterToolCall` hook not
	 * included); absent for a call that never ran (unknown tool, invalid arguments, blocked, aborted).
	 */
	readonly durationMs?: number;
	/** The calls this call's tool made through `ctx.executeTool` (and theirs), when it made any. */
	readonly nestedCalls?: NestedCalls;
	/** Milliseconds since the epoch, when the result was finalized. */
	readonly timestamp: number;
}
