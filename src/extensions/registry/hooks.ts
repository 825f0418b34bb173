/**
 * The executor hooks a snapshot gives: its extensions' `tool_call` handlers before each call (the
 * first block wins) and their `tool_result` handlers after it (each patching what the next sees).
 */
import { errorMessage } from "../../contract/errors.js";
import { mergeAfterHook, structuredAfter, withStructured } from "../../exec/after-hook.js";
import type { AfterToolCallContext, AfterToolCallResult, ToolCallHookContext } from "../../exec/types.js";
import type {
	ExtensionContext,
	ToolCallEvent,
	ToolCallEventResult,
	ToolResultEvent,
	ToolResultEventResult,
} from "../api.js";
import { report, resolveContext, type SnapshotState } from "./state.js";
import type { ToolSource } from "./types.js";

/** What a `tool_result` handler's answer replaces in the event the next handler sees. */
const EVENT_FIELDS = ["content", "details", "isError"] as const;

/** `beforeToolCall`: the `tool_call` handlers in load order; a throw blocks the call (the safe answer). */
export async function runToolCallHandlers(
	snap: SnapshotState,
	context: ToolCallHookContext,
): Promise<ToolCallEventResult | undefined> {
	const input = argsRecord(context.args);
	const event: ToolCallEvent = {
		type: "tool_call",
		toolCallId: context.toolCall.id,
		toolName: context.toolCall.name,
		input,
		...(context.parentToolCallId !== undefined ? { parentToolCallId: context.parentToolCallId } : {}),
	};
	for (const set of snap.handlerSets) {
		for (const handler of set.toolCall) {
			try {
				const ctx = handlerContext(snap, set.path, {
					toolCallId: event.toolCallId,
					toolName: event.toolName,
					signal: context.signal,
				});
				const verdict = await handler(event, ctx);
				if (verdict?.block) {
					const reason = verdict.reason ?? `Blocked by the extension ${set.path}.`;
					return verdict.terminate === true ? { block: true, reason, terminate: true } : { block: true, reason };
				}
			} catch (error) {
				// Blocking is the safe answer when a guard is broken.
				return { block: true, reason: `Blocked by ${set.path}: ${errorMessage(error)}` };
			}
		}
	}
	return undefined;
}

/** `afterToolCall`: the `tool_result` handlers in load order; a throw is reported and the result goes on unchanged by it. */
export async function runToolResultHandlers(
	snap: SnapshotState,
	context: AfterToolCallContext,
): Promise<AfterToolCallResult | undefined> {
	const input = argsRecord(context.args);
	let current: ToolResultEvent = {
		type: "tool_result",
		toolCallId: context.toolCall.id,
		toolName: context.toolCall.name,
		input,
		content: context.result.content,
		details: context.result.details,
		...(context.result.structuredContent !== undefined ? { structuredContent: context.result.structuredContent } : {}),
		isError: context.isError,
		...(context.parentToolCallId !== undefined ? { parentToolCallId: context.parentToolCallId } : {}),
	};
	let modified = false;
	for (const set of snap.handlerSets) {
		for (const handler of set.toolResult) {
			try {
				const ctx = handlerContext(snap, set.path, {
					toolCallId: current.toolCallId,
					toolName: current.toolName,
					signal: context.signal,
				});
				const patch = (await handler(current, ctx)) as ToolResultEventResult | undefined;
				if (!patch) continue;
				current = withStructured(
					mergeAfterHook(current, patch, EVENT_FIELDS),
					structuredAfter(current.structuredContent, patch),
				);
				modified = true;
			} catch (error) {
				report(
					snap.registry,
					{
						severity: "error",
						code: "E_HANDLER_FAILED",
						message: `A tool_result handler of ${set.path} failed for tool ${current.toolName}: ${errorMessage(error)}. The result went on unchanged by it.`,
						path: set.path,
					},
					[],
				);
			}
		}
	}
	if (!modified) return undefined;
	return {
		content: current.content,
		details: current.details,
		isError: current.isError,
		...(current.structuredContent !== undefined ? { structuredContent: current.structuredContent } : {}),
	};
}

/** The `ctx` a handler of the extension at `path` gets. */
function handlerContext(
	snap: SnapshotState,
	path: string,
	info: { toolCallId: string; toolName: string; signal?: AbortSignal },
): ExtensionContext {
	const source: ToolSource = { kind: "extension", path };
	const ctx = resolveContext(snap.registry, { ...info, source });
	return ctx as ExtensionContext;
}

/** The validated arguments as handlers see them: an object, or `{}` for a tool without object arguments. */
function argsRecord(args: unknown): Record<string, unknown> {
	return (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
}
