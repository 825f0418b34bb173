/** Finalizing a batch: one result message per call, in source order, and whether the batch asked the loop to stop. */
import type { ToolResultMessage } from "../contract/content.js";
import { errorMessage } from "../contract/errors.js";
import { type Call, failCall, isDone } from "./_call.js";
import { addUsage } from "./_nested.js";
import type { ExecuteToolCallsResult } from "./types.js";

/** The messages of the calls, all of which have their result. */
export function finalize(calls: readonly Call[]): ExecuteToolCallsResult {
	const results = calls.map(toMessage);
	const terminate = calls.length > 0 && calls.every((c) => c.result?.terminate === true);
	return { results, terminate };
}

/** Only a bug in the executor itself lands here; the model still gets one result per call. */
export function internalFailure(calls: readonly Call[], error: unknown): ExecuteToolCallsResult {
	const text = `Internal error of the tool executor: ${errorMessage(error)}`;
	// Calls that already have their result keep it.
	for (const c of calls) if (!isDone(c)) failCall(c, text, "E_TOOL_FAILED");
	return { results: calls.map(toMessage), terminate: false };
}

/** The call's message, from its result (a plain object: no getter of the tool's runs here). */
function toMessage(c: Call): ToolResultMessage {
	const result = c.result;
	const message: { -readonly [K in keyof ToolResultMessage]: ToolResultMessage[K] } = {
		role: "toolResult",
		toolCallId: c.id,
		toolName: c.name,
		content: result?.content ?? [],
		details: result?.details,
		isError: c.isError,
		timestamp: c.finishedAt ?? Date.now(),
	};
	if (c.durationMs !== undefined) message.durationMs = c.durationMs;
	if (result?.structuredContent !== undefined) message.structuredContent = result.structuredContent;
	if (result?.addedToolNames !== undefined) message.addedToolNames = result.addedToolNames;
	if (result?.usage !== undefined) message.usage = result.usage;
	const recorder = c.recorder;
	if (recorder !== undefined) {
		const nestedCalls = recorder.snapshot();
		if (nestedCalls !== undefined) message.nestedCalls = nestedCalls;
		// The nested results reach no message of their own: their usage counts on this one.
		if (recorder.usage !== undefined)
			message.usage = message.usage ? addUsage(message.usage, recorder.usage) : recorder.usage;
	}
	return message;
}
