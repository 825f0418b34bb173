/**
 * Running the tool calls of one assistant message: each call is prepared (tool lookup, arguments
 * validated), passed through `beforeToolCall`, executed, and finalized (`afterToolCall`, its
 * message). The steps live in the files named for them: `_call.ts` (one call's state),
 * `_batch.ts` (the batch's), `_prepare.ts`, `_hooks.ts`, `_execute-call.ts`, `_nested-call.ts`,
 * `_schedule.ts` (sequential or parallel) and `_finalize.ts`.
 */
import type { ToolCall } from "../contract/content.js";
import { type Batch, closeBatch, openBatch } from "./_batch.js";
import { readCall } from "./_call.js";
import { finalize, internalFailure } from "./_finalize.js";
import { runParallel, runSequential } from "./_schedule.js";
import type { ExecuteToolCallsConfig, ExecuteToolCallsResult } from "./types.js";

export { ABORT_GRACE_MS, DEFAULT_MAX_CONCURRENCY } from "./_batch.js";

/**
 * Runs the tool calls of one assistant message and returns one result message per call, in source
 * order.
 *
 * Each call is prepared (tool lookup, JSON parsing, `prepareArguments`, validation with repair of
 * model slips, `beforeToolCall`), executed, and finalized (`afterToolCall`). Every failure on the
 * way becomes an error result whose `details` is a `ToolErrorDetails` with a code; a tool that
 * throws gives an error result with the message. Calls run in parallel unless the config says
 * `sequential` or any called tool declares `executionMode: "sequential"`.
 *
 * Never throws and never rejects, whatever the calls, tools or hooks do.
 */
export async function executeToolCalls(
	toolCalls: readonly ToolCall[],
	config: ExecuteToolCallsConfig,
): Promise<ExecuteToolCallsResult> {
	const list: readonly unknown[] = Array.isArray(toolCalls) ? toolCalls : [];
	const calls = Array.from({ length: list.length }, (_, index) => readCall(list, index));
	let batch: Batch;
	try {
		batch = openBatch(config, calls);
	} catch (error) {
		return internalFailure(calls, error);
	}
	try {
		if (batch.sequential) await runSequential(batch, calls);
		else await runParallel(batch, calls);
		return finalize(calls);
	} catch (error) {
		return internalFailure(calls, error);
	} finally {
		closeBatch(batch);
	}
}
