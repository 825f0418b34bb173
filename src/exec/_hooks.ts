/** The config's hooks around a call: `beforeToolCall` may block it, `afterToolCall` may replace fields of its result. */
import { errorMessage } from "../contract/errors.js";
import type { AgentTool, AgentToolResult } from "../contract/tool.js";
import { ABORT_GRACE_MS, type Batch, bounded, GAVE_UP } from "./_batch.js";
import { ABORTED_TEXT, type Call, failCall } from "./_call.js";
import { contentProblem, readResult } from "./_results.js";
import type { ToolCallHookContext } from "./types.js";

function hookContext(batch: Batch, c: Call): ToolCallHookContext {
	return c.parent === undefined
		? { toolCall: c.toolCall, tool: c.tool as AgentTool, args: c.args, signal: batch.signal }
		: {
				toolCall: c.toolCall,
				tool: c.tool as AgentTool,
				args: c.args,
				signal: batch.signal,
				parentToolCallId: c.parent,
			};
}

/** The `beforeToolCall` hook; a blocked call ends with an error result. Never rejects. */
export async function before(batch: Batch, c: Call): Promise<void> {
	const hook = batch.config.beforeToolCall;
	if (typeof hook !== "function") return;
	try {
		const verdict = await bounded(batch, hook(hookContext(batch, c)), "abort");
		// The batch was cancelled while the hook ran: the call will not run, whatever the hook says later.
		if (verdict === GAVE_UP) {
			failCall(c, ABORTED_TEXT, "E_ABORTED");
			return;
		}
		if (verdict?.block) {
			const reason = typeof verdict.reason === "string" && verdict.reason !== "" ? verdict.reason : undefined;
			failCall(c, reason ?? `Tool call ${c.name} was blocked.`, "E_BLOCKED");
			// A blocked call may ask the loop to stop after the batch (pi 1.x), under the usual rule.
			if (verdict.terminate === true) (c.result as AgentToolResult<unknown>).terminate = true;
		}
	} catch (error) {
		failCall(c, `Tool call ${c.name} was blocked: ${errorMessage(error)}`, "E_BLOCKED");
	}
}

/** The `afterToolCall` hook: each field it returns replaces the result's field as a whole. Never rejects. */
export async function after(batch: Batch, c: Call): Promise<void> {
	const hook = batch.config.afterToolCall;
	// An abandoned call has no outcome of its tool to show the hook.
	if (typeof hook !== "function" || c.abandoned) return;
	const result = c.result as AgentToolResult<unknown>;
	try {
		const patch = await bounded(batch, hook({ ...hookContext(batch, c), result, isError: c.isError }), "grace");
		if (patch === GAVE_UP) {
			// The hook may be there to redact: the result it was given must not go out unpatched.
			failCall(
				c,
				`Aborted: the batch was cancelled and the afterToolCall hook for ${c.name} did not finish within ${ABORT_GRACE_MS} ms; the tool's result is withheld.`,
				"E_ABORTED",
			);
			return;
		}
		if (patch === undefined || patch === null) return;
		// Each field is read once: a getter cannot pass the check with one value and merge another.
		const { content, details, isError, terminate, structuredContent } = patch;
		if (content !== undefined) {
			const problem = contentProblem(content);
			if (problem) {
				failCall(c, `The afterToolCall hook returned malformed content for ${c.name}: ${problem}.`, "E_BAD_RESULT");
				return;
			}
		}
		const merged = { ...result };
		if (content !== undefined) merged.content = content;
		if (details !== undefined) merged.details = details;
		if (terminate !== undefined) merged.terminate = terminate;
		// New content without new structured content drops the old one: it may no longer match.
		if (structuredContent !== undefined) merged.structuredContent = structuredContent;
		else if (content !== undefined) delete merged.structuredContent;
		if (content !== undefined || details !== undefined) {
			const read = readResult(merged);
			if ("problem" in read) {
				failCall(
					c,
					`The afterToolCall hook returned a malformed result for ${c.name}: ${read.problem}.`,
					"E_BAD_RESULT",
				);
				return;
			}
		}
		c.result = merged;
		if (isError !== undefined) c.isError = isError === true;
	} catch (error) {
		failCall(c, `The afterToolCall hook failed for ${c.name}: ${errorMessage(error)}`, "E_TOOL_FAILED");
	}
}
