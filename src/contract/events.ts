/** Events emitted while a batch of tool calls runs. */
import type { AgentToolResult } from "./tool.js";

/**
 * A call is starting: emitted in source order, before preparation. A call rejected during
 * preparation still gets its `_end` event, right after this one.
 */
export interface ToolExecutionStartEvent {
	readonly type: "tool_execution_start";
	readonly toolCallId: string;
	readonly toolName: string;
	readonly args: unknown;
	/** Set for a call another tool made (`ctx.executeTool`): the calling call's id. */
	readonly parentToolCallId?: string;
}

/** A partial result from a running call, for UIs only: the model sees the final result. */
export interface ToolExecutionUpdateEvent {
	readonly type: "tool_execution_update";
	readonly toolCallId: string;
	readonly toolName: string;
	readonly args: unknown;
	readonly partialResult: AgentToolResult<unknown>;
	/** Set for a call another tool made (`ctx.executeTool`): the calling call's id. */
	readonly parentToolCallId?: string;
}

/**
 * The final result of a call, after `afterToolCall`: emitted as the call ends, so in a parallel
 * batch in the order the calls finish (not source order).
 */
export interface ToolExecutionEndEvent {
	readonly type: "tool_execution_end";
	readonly toolCallId: string;
	readonly toolName: string;
	readonly result: AgentToolResult<unknown>;
	readonly isError: boolean;
	/** Milliseconds the tool ran (from its call until it settled); absent for a call that never ran. */
	readonly durationMs?: number;
	/** Set for a call another tool made (`ctx.executeTool`): the calling call's id. */
	readonly parentToolCallId?: string;
}

/** Any of the events a batch emits while it runs: start, update, end. */
export type ToolExecutionEvent = ToolExecutionStartEvent | ToolExecutionUpdateEvent | ToolExecutionEndEvent;

/**
 * Receives execution events. May throw: the error is swallowed (and never affects results), so
 * a broken UI cannot break a batch.
 */
export type ToolExecutionEventListener = (event: ToolExecutionEvent) => void;
