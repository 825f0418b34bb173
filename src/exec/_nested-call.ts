/**
 * Calls a running tool makes to other tools (`ctx.executeTool`, `execute`'s fifth argument): the
 * same path as the model's calls, inside the calling call's batch.
 */
import type { ToolCall } from "../contract/content.js";
import { describeValue, errorMessage } from "../contract/errors.js";
import type { AgentTool, ExecuteToolOptions, NestedToolCalls, ToolCallOutcome } from "../contract/tool.js";
import { type Batch, bounded, emitEnd, emitStart, findTool, GAVE_UP, toolMap } from "./_batch.js";
import { ABORTED_TEXT, type Call, failCall, isDone, newCall } from "./_call.js";
import { launch, thrownMessage, waitForTool } from "./_execute-call.js";
import { after, before } from "./_hooks.js";
import { NestedRecorder } from "./_nested.js";
import { prepare } from "./_prepare.js";

/** What a running call gets to call other tools with. */
export class NestedHandle implements NestedToolCalls {
	readonly #batch: Batch;
	readonly #caller: Call;

	constructor(batch: Batch, caller: Call) {
		this.#batch = batch;
		this.#caller = caller;
	}

	get tools(): readonly AgentTool[] {
		return callableTools(this.#batch);
	}

	executeTool(name: string, args: unknown, options?: ExecuteToolOptions): Promise<ToolCallOutcome> {
		return runNested(this.#batch, this.#caller, name, args, options);
	}
}

/** A tool's `exposure` (pi 1.x), read defensively: undefined when unset, `hidden` when reading it throws. */
function exposureOf(tool: unknown): string | undefined {
	try {
		const exposure = (tool as { exposure?: unknown }).exposure;
		return typeof exposure === "string" ? exposure : undefined;
	} catch {
		return "hidden";
	}
}

/**
 * The tools nested calls may reach: the batch's tools and the config's `callableTools`, first of a
 * name wins, except those whose `exposure` is `model-only` or `hidden`.
 */
function callableTools(batch: Batch): readonly AgentTool[] {
	if (batch.callable !== undefined) return batch.callable;
	const extra = batch.config.callableTools;
	const all = toolMap(Array.isArray(extra) ? [...batch.tools, ...extra] : batch.tools);
	const callable: AgentTool[] = [];
	for (const tool of all.values()) {
		const exposure = exposureOf(tool);
		if (exposure !== "model-only" && exposure !== "hidden") callable.push(tool);
	}
	batch.callable = callable;
	return callable;
}

/**
 * The batch as a nested call sees it: the callable tools, the signal it was given (the calling
 * tool's by default), its own abort cutoffs, and its `onUpdate` fed along with the update events.
 */
function nestedView(batch: Batch, id: string, options: ExecuteToolOptions | undefined): Batch {
	let signal = batch.signal;
	let onUpdate: ExecuteToolOptions["onUpdate"];
	try {
		if (options?.signal instanceof AbortSignal) signal = options.signal;
		if (typeof options?.onUpdate === "function") onUpdate = options.onUpdate;
	} catch {
		// Options whose getters throw count as none.
	}
	const outer = batch.emit;
	const emit: Batch["emit"] =
		onUpdate === undefined
			? outer
			: (event) => {
					if (event.type === "tool_execution_update" && event.toolCallId === id) {
						try {
							onUpdate(event.partialResult);
						} catch {
							// The caller's listener is the caller's business.
						}
					}
					outer?.(event);
				};
	return {
		...batch,
		tools: callableTools(batch),
		signal,
		emit,
		detach: undefined,
		ownsSignal: false,
		cutoffs: undefined,
	};
}

/**
 * A call a running tool made: the same path as the model's calls (lookup among the callable tools,
 * arguments, `prepareArguments`, validation, `beforeToolCall`, `execute`, `afterToolCall`), the id
 * `<calling id>/<n>`, events with `parentToolCallId`, and an entry in the bounded record of its
 * model-issued ancestor. Never rejects.
 */
async function runNested(
	batch: Batch,
	caller: Call,
	name: unknown,
	args: unknown,
	options: ExecuteToolOptions | undefined,
): Promise<ToolCallOutcome> {
	caller.recorder ??= new NestedRecorder();
	const recorder = caller.recorder;
	const id = `${caller.id}/${caller.nextNested++}`;
	const toolName = typeof name === "string" ? name : describeValue(name);
	const raw = args ?? {};
	const toolCall: ToolCall = { type: "toolCall", id, name: toolName, arguments: raw as ToolCall["arguments"] };
	const c = newCall(toolCall, id, toolName, raw, caller.id);
	c.recorder = recorder;
	const entry = recorder.start(id, toolName, raw);
	const view = nestedView(batch, id, options);
	let release: (() => void) | undefined;
	try {
		c.tool = findTool(view.tools, toolName);
		let sequential = batch.sequential;
		if (c.tool !== undefined) {
			try {
				if (c.tool.executionMode === "sequential") sequential = true;
			} catch (error) {
				c.toolProblem = `reading its executionMode threw: ${errorMessage(error)}`;
			}
		}
		emitStart(view, c);
		// Nested calls of a sequential batch, or to a sequential tool, run one at a time, as pi's
		// session queues them; calls made inside such a call do not wait for it (they would wait forever).
		const exclusive = sequential && !caller.holdsQueue;
		if (exclusive) {
			const previous = batch.queue.tail;
			batch.queue.tail = new Promise<void>((resolve) => {
				release = resolve;
			});
			if (previous !== undefined && (await bounded(view, previous, "abort")) === GAVE_UP)
				failCall(c, ABORTED_TEXT, "E_ABORTED");
		}
		c.holdsQueue = caller.holdsQueue || exclusive;
		// (A call aborted while it waited for its turn is done already.)
		if (!isDone(c) && view.signal?.aborted) failCall(c, ABORTED_TEXT, "E_ABORTED");
		if (!isDone(c)) prepare(view, c);
		if (!isDone(c)) await before(view, c);
		if (!isDone(c) && view.signal?.aborted) failCall(c, ABORTED_TEXT, "E_ABORTED");
		if (!isDone(c)) {
			launch(view, c, new NestedHandle(view, c));
			if (!isDone(c)) await waitForTool(view, c);
			if (typeof view.config.afterToolCall === "function") await after(view, c);
		}
	} catch (error) {
		if (!isDone(c)) failCall(c, `Internal error of the tool executor: ${thrownMessage(error)}`, "E_TOOL_FAILED");
	} finally {
		release?.();
		view.cutoffs?.close();
	}
	emitEnd(view, c);
	const result = c.result as NonNullable<Call["result"]>;
	recorder.finish(entry, c.isError, result);
	return c.durationMs === undefined
		? { toolCall, result, isError: c.isError }
		: { toolCall, result, isError: c.isError, durationMs: c.durationMs };
}
