/**
 * Executing a prepared call: its tool is called, its outcome recorded as the call's result (or an
 * error result saying what is wrong with it), and waited for at most the abort's grace period.
 */
import { errorMessage } from "../contract/errors.js";
import type { AgentTool, AgentToolUpdateCallback, NestedToolCalls } from "../contract/tool.js";
import { ABORT_GRACE_MS, type Batch, bounded, GAVE_UP } from "./_batch.js";
import { type Call, failCall, isDone } from "./_call.js";
import { readResult } from "./_results.js";

const ignoreUpdate: AgentToolUpdateCallback<unknown> = () => {};

/**
 * Calls the tool of a prepared call. Its outcome is recorded as soon as it settles (`c.running`
 * says when), with the handlers attached at once: no rejection goes unhandled while the executor
 * waits for something else. A tool that throws synchronously has its result at once.
 */
export function launch(batch: Batch, c: Call, nested: NestedToolCalls): void {
	const emit = batch.emit;
	// Updates after the tool settled are ignored: the end event has the final word.
	const onUpdate: AgentToolUpdateCallback<unknown> = emit
		? (partialResult) => {
				if (isDone(c)) return;
				emit(
					c.parent === undefined
						? { type: "tool_execution_update", toolCallId: c.id, toolName: c.name, args: c.args, partialResult }
						: {
								type: "tool_execution_update",
								toolCallId: c.id,
								toolName: c.name,
								args: c.args,
								partialResult,
								parentToolCallId: c.parent,
							},
				);
			}
		: ignoreUpdate;
	let promise: Promise<unknown>;
	c.startedAt = performance.now();
	try {
		const returned: unknown = (c.tool as AgentTool).execute(c.id, c.args, batch.signal, onUpdate, nested);
		// `instanceof` asks a Proxy's getPrototypeOf trap, which may throw too.
		promise = returned instanceof Promise ? returned : Promise.resolve(returned);
	} catch (error) {
		stopClock(c);
		failCall(c, thrownMessage(error), "E_TOOL_FAILED");
		return;
	}
	c.running = promise.then(
		(value) => {
			if (c.abandoned) return;
			stopClock(c);
			recordResult(c, value);
		},
		(reason) => {
			if (c.abandoned) return;
			stopClock(c);
			failCall(c, thrownMessage(reason), "E_TOOL_FAILED");
		},
	);
}

/**
 * Records how long the tool ran, as the reference's `durationMs` does: from the call of `execute`
 * until it settled, rounded to whole milliseconds, without the `afterToolCall` hook.
 */
function stopClock(c: Call): void {
	c.durationMs = Math.round(performance.now() - c.startedAt);
}

/**
 * Waits for a launched call's tool, for at most the abort's grace period once the batch's signal
 * fired. When the executor gives up on it, the call gets its aborted result, and whatever the tool
 * does later is ignored.
 */
export async function waitForTool(batch: Batch, c: Call): Promise<void> {
	const outcome = await bounded(batch, c.running, "grace");
	if (outcome !== GAVE_UP || isDone(c)) return;
	c.abandoned = true;
	stopClock(c);
	failCall(
		c,
		`Aborted: the batch was cancelled and tool ${c.name} did not stop within ${ABORT_GRACE_MS} ms; its outcome, if it ever comes, is ignored.`,
		"E_ABORTED",
	);
}

/**
 * Records a tool's return value as the call's result, or the error result saying what is wrong with
 * it. The result's fields are read once, here: later reads (messages, events, hooks) see plain values.
 */
function recordResult(c: Call, value: unknown): void {
	try {
		const read = readResult(value);
		if ("problem" in read) {
			failCall(c, `Tool ${c.name} returned a malformed result: ${read.problem}.`, "E_BAD_RESULT");
			return;
		}
		// A tool may report a failure without throwing (pi 1.x): its content, details and
		// structured content are kept, and the model sees an error result.
		const isError = (value as { isError?: unknown }).isError === true;
		c.result = read.result;
		c.isError = isError;
	} catch (error) {
		// A getter on the returned object threw: the result cannot be trusted, the other calls can.
		failCall(c, `Tool ${c.name} returned a result that could not be read: ${thrownMessage(error)}.`, "E_BAD_RESULT");
	}
}

/**
 * `errorMessage`, for what a tool threw, whose own getters may throw too: recording runs as the
 * tool settles, where a throw would be a rejection nobody handles.
 */
export function thrownMessage(error: unknown): string {
	try {
		return errorMessage(error);
	} catch {
		return "the tool threw a value that cannot be read";
	}
}
