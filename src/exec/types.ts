/** Types of the batch executor. See `executeToolCalls`. */
import type { JsonValue, ToolCall, ToolResultContent, ToolResultMessage } from "../contract/content.js";
import type { ToolsmithErrorCode } from "../contract/errors.js";
import type { ToolExecutionEventListener } from "../contract/events.js";
import type { AgentTool, AgentToolResult } from "../contract/tool.js";

/** Facts about one prepared call, given to the hooks. */
export interface ToolCallHookContext {
	readonly toolCall: ToolCall;
	readonly tool: AgentTool;
	/** The validated (and coerced) arguments the tool will receive. */
	readonly args: unknown;
	readonly signal?: AbortSignal;
	/** Set for a call another tool made (`ctx.executeTool`): the calling call's id. */
	readonly parentToolCallId?: string;
}

/** Returned by `beforeToolCall` to stop a call; the model gets an error result with `reason`. */
export interface BeforeToolCallResult {
	readonly block?: boolean;
	readonly reason?: string;
	/**
	 * With `block: true`: the blocked call's result asks the loop to stop after the batch (pi 1.x),
	 * which it does only if every result of the batch asks (see `ExecuteToolCallsResult.terminate`).
	 */
	readonly terminate?: boolean;
}

/** What `afterToolCall` may change. Each field present replaces the result's field as a whole. */
export interface AfterToolCallResult {
	readonly content?: ToolResultContent[];
	readonly details?: unknown;
	/**
	 * Replaces the result's `structuredContent`. Replacing `content` without it drops the structured
	 * content (it may no longer match): return it along with `content` to keep it.
	 */
	readonly structuredContent?: JsonValue;
	readonly isError?: boolean;
	readonly terminate?: boolean;
}

/** What `afterToolCall` receives: the call, its validated arguments, and the result it produced. */
export interface AfterToolCallContext extends ToolCallHookContext {
	readonly result: AgentToolResult<unknown>;
	readonly isError: boolean;
}

/** Configuration of one `executeToolCalls` batch: the tools, the scheduling mode, the hooks, cancellation and the event listener. */
export interface ExecuteToolCallsConfig {
	/**
	 * The tools the batch may call (by name). A running tool may call those whose `exposure` is
	 * unset or `direct` through `ctx.executeTool`.
	 */
	readonly tools: readonly AgentTool[];
	/**
	 * Tools only other tools may call through `ctx.executeTool` (pi 1.x's `codemode` and `deferred`
	 * exposure), besides the batch's own; tools whose `exposure` is `model-only` or `hidden` are
	 * never reachable that way.
	 */
	readonly callableTools?: readonly AgentTool[];
	/** `parallel` (default) or `sequential`. A single sequential tool in the batch serializes it too. */
	readonly toolExecution?: "parallel" | "sequential";
	/**
	 * Parallel mode: at most this many calls run at once (default 16);
	 * the others start, in source order, as running ones settle. A positive integer or `Infinity`;
	 * any other value fails every call of the batch with an error result saying so. Results keep
	 * source order.
	 */
	readonly maxConcurrency?: number;
	/**
	 * Runs after validation, before `execute`. Return `{ block: true, reason }` to stop the call.
	 * May throw or reject: the call is blocked with the error's message.
	 */
	readonly beforeToolCall?: (
		context: ToolCallHookContext,
	) => BeforeToolCallResult | undefined | Promise<BeforeToolCallResult | undefined>;
	/**
	 * Runs after `execute` settled (also for thrown errors). Return a patch to replace fields.
	 * May throw or reject: the result becomes an error result carrying the message.
	 */
	readonly afterToolCall?: (
		context: AfterToolCallContext,
	) => AfterToolCallResult | undefined | Promise<AfterToolCallResult | undefined>;
	/**
	 * Aborts every running call's signal; calls not yet started get an aborted error result. After
	 * the abort the batch resolves within half a second whatever its tools and hooks do:
	 * a pending `beforeToolCall` ends its call at once, and a tool or `afterToolCall` still pending
	 * at the end of the grace period gives its call an aborted error result (what it does later is
	 * ignored).
	 */
	readonly signal?: AbortSignal;
	/**
	 * Hand `signal` to the tools as it is. By default they get a signal of the batch's own, linked
	 * to `signal`, so that abort listeners a tool leaves behind go away with the batch instead of
	 * piling up on a signal that outlives it. Set this when `signal` is made for this batch alone
	 * (an MCP request's, say): it saves a signal and a listener per batch.
	 */
	readonly passSignalThrough?: boolean;
	/** Receives start/update/end events. Listener errors are swallowed. */
	readonly onEvent?: ToolExecutionEventListener;
	/**
	 * Asked after each finished call (sequential) and before preparing each call (parallel); `true`
	 * skips the calls not yet prepared (they get a `Skipped` error result). May throw: treated as `false`.
	 */
	readonly shouldSkipRemaining?: () => boolean;
}

/** What `executeToolCalls` resolves with: one result message per call, in source order, and whether the batch asked to stop. */
export interface ExecuteToolCallsResult {
	/** One message per tool call, in source order. */
	readonly results: ToolResultMessage[];
	/** True only when every result asked to terminate (and there was at least one). */
	readonly terminate: boolean;
}

/**
 * `details` of every error result the executor makes itself (not found, invalid arguments, blocked,
 * thrown, …): the error code, plus the facts behind it where there are some.
 */
export interface ToolErrorDetails {
	readonly code: ToolsmithErrorCode;
	/** For `E_TOOL_NOT_FOUND`: the names the batch could call. */
	readonly availableTools?: readonly string[];
	/** For `E_INVALID_ARGS`: every failing path. */
	readonly issues?: readonly {
		readonly path: string;
		readonly expected: string;
		readonly received: string | undefined;
		readonly message: string;
	}[];
}
