/** One tool call of a batch as the executor tracks it: read from the untrusted `ToolCall`, then prepared, run and given its result. */
import type { ToolCall } from "../contract/content.js";
import { describeValue, type ToolsmithErrorCode } from "../contract/errors.js";
import type { AgentTool, AgentToolResult } from "../contract/tool.js";
import type { NestedRecorder } from "./_nested.js";
import { errorResult } from "./_results.js";

/** What the executor knows of one call, from its reading to its result. */
export interface Call {
	/** The call as the model (or a calling tool) sent it. */
	readonly toolCall: ToolCall;
	readonly id: string;
	readonly name: string;
	/** The arguments as sent, before parsing and validation. */
	readonly raw: unknown;
	/** For a call another tool made (`ctx.executeTool`): the calling call's id. */
	readonly parent: string | undefined;
	tool: AgentTool | undefined;
	/** Why the tool named by the call cannot be used (a getter of its definition threw), when it cannot. */
	toolProblem: string | undefined;
	/** The validated arguments the tool receives. */
	args: unknown;
	/**
	 * The call's result once it has one, always a plain object: the fields of the tool's result as
	 * read once, or an error result the executor made.
	 */
	result: AgentToolResult<unknown> | undefined;
	isError: boolean;
	/** Settles once the started tool's outcome is recorded as the call's result; never rejects. */
	running: Promise<void> | undefined;
	/**
	 * Whether the executor stopped waiting for the started tool (it was still running when the
	 * abort's grace period ran out): whatever the tool does later is ignored.
	 */
	abandoned: boolean;
	/** `performance.now()` as the tool was called. */
	startedAt: number;
	/** Milliseconds from the tool's call until it settled (or was abandoned); only for calls that ran. */
	durationMs: number | undefined;
	/** When the call ended (its end event): the message's timestamp. */
	finishedAt: number | undefined;
	/** The record of nested calls this call belongs to (its model-issued ancestor's); made on first need. */
	recorder: NestedRecorder | undefined;
	/** The number of this call's next nested call. */
	nextNested: number;
	/** Whether this call runs inside a nested call that holds the batch's nested queue (see `runNested`). */
	holdsQueue: boolean;
}

export function newCall(toolCall: ToolCall, id: string, name: string, raw: unknown, parent?: string): Call {
	return {
		toolCall,
		id,
		name,
		raw,
		parent,
		tool: undefined,
		toolProblem: undefined,
		args: undefined,
		result: undefined,
		isError: false,
		running: undefined,
		abandoned: false,
		startedAt: 0,
		durationMs: undefined,
		finishedAt: undefined,
		recorder: undefined,
		nextNested: 1,
		holdsQueue: false,
	};
}

/** Reads the call at `index` of what the caller passed; a call whose getters throw gets a placeholder id and no name. */
export function readCall(list: readonly unknown[], index: number): Call {
	let call: unknown;
	try {
		call = list[index];
		const c = call as { id?: unknown; name?: unknown; arguments?: unknown };
		const id =
			typeof c.id === "string" ? c.id : c.id === undefined || c.id === null ? `call_${index}` : describeValue(c.id);
		const name = typeof c.name === "string" ? c.name : describeValue(c.name);
		return newCall(call as ToolCall, id, name, c.arguments);
	} catch {
		return newCall(call as ToolCall, `call_${index}`, "", undefined);
	}
}

/** Whether the call has its result. */
export function isDone(c: Call): boolean {
	return c.result !== undefined;
}

/** Ends the call with an error result made by the executor. */
export function failCall(
	c: Call,
	text: string,
	code: ToolsmithErrorCode,
	extra?: Parameters<typeof errorResult>[2],
): void {
	c.result = errorResult(text, code, extra);
	c.isError = true;
}

/** The reference's text for a call the abort stopped before it ran (pi-agent-core 1.x). */
export const ABORTED_TEXT = "Operation aborted";

export const SKIPPED_TEXT =
	"Skipped: the remaining tool calls of this batch were not run because the agent was asked to stop. Call the tool again if it is still needed.";
