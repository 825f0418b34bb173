/** Running the tool calls of one assistant message: prepare → execute → finalize. */
import type { ToolCall, ToolResultMessage } from "../contract/content.js";
import { errorMessage, type ToolsmithErrorCode } from "../contract/errors.js";
import type { ToolExecutionEvent } from "../contract/events.js";
import type { AgentTool, AgentToolResult, AgentToolUpdateCallback } from "../contract/tool.js";
import { cloneArguments } from "./_json.js";
import { contentProblem, errorResult, resultProblem } from "./_results.js";
import { validateOwned } from "./_validate.js";
import type { ExecuteToolCallsConfig, ExecuteToolCallsResult, ToolCallHookContext } from "./types.js";
import { parseToolArguments } from "./validate.js";

/** A call's outcome before it becomes a message. */
interface Final {
	readonly result: AgentToolResult<unknown>;
	readonly isError: boolean;
}

/** A call that passed preparation. */
interface Prepared {
	readonly tool: AgentTool;
	readonly args: unknown;
}

/** What the executor knows of one call, after reading the untrusted `ToolCall` once. */
interface Slot {
	readonly call: ToolCall;
	readonly id: string;
	readonly name: string;
	readonly raw: unknown;
}

interface Batch {
	readonly config: ExecuteToolCallsConfig;
	readonly tools: Map<string, AgentTool>;
	readonly signal: AbortSignal | undefined;
	readonly emit: ((event: ToolExecutionEvent) => void) | undefined;
}

const ABORTED_TEXT = "Aborted: the batch was cancelled before this tool call ran.";
const SKIPPED_TEXT =
	"Skipped: the remaining tool calls of this batch were not run because the agent was asked to stop. Call the tool again if it is still needed.";

function fail(text: string, code: ToolsmithErrorCode, extra?: Parameters<typeof errorResult>[2]): Final {
	return { result: errorResult(text, code, extra), isError: true };
}

function readSlot(call: unknown, index: number): Slot {
	try {
		const c = call as { id?: unknown; name?: unknown; arguments?: unknown };
		const id = typeof c.id === "string" ? c.id : c.id === undefined || c.id === null ? `call_${index}` : String(c.id);
		const name = typeof c.name === "string" ? c.name : String(c.name);
		return { call: call as ToolCall, id, name, raw: c.arguments };
	} catch {
		return { call: call as ToolCall, id: `call_${index}`, name: "", raw: undefined };
	}
}

function makeEmitter(config: ExecuteToolCallsConfig): Batch["emit"] {
	const listener = config.onEvent;
	if (typeof listener !== "function") return undefined;
	return (event) => {
		try {
			const returned: unknown = listener(event);
			if (returned instanceof Promise) returned.catch(() => {});
		} catch {
			// A broken listener (a UI) must not change what the model gets.
		}
	};
}

function toolMap(tools: unknown): Map<string, AgentTool> {
	const map = new Map<string, AgentTool>();
	if (!Array.isArray(tools)) return map;
	for (const tool of tools as unknown[]) {
		if (typeof tool !== "object" || tool === null) continue;
		const name = (tool as { name?: unknown }).name;
		if (typeof name === "string" && !map.has(name)) map.set(name, tool as AgentTool);
	}
	return map;
}

function notFound(batch: Batch, name: string): Final {
	const available = [...batch.tools.keys()];
	const list = available.length > 0 ? `Available tools: ${available.join(", ")}.` : "No tools are available.";
	return fail(`Tool ${name} not found. ${list}`, "E_TOOL_NOT_FOUND", { availableTools: available });
}

/** Lookup, parsing, `prepareArguments` and validation: synchronous, so cheap calls stay cheap. */
function prepare(batch: Batch, slot: Slot): Prepared | Final {
	const tool = batch.tools.get(slot.name);
	if (tool === undefined) return notFound(batch, slot.name);
	const parsed = parseToolArguments(slot.name, slot.raw);
	if (!parsed.ok) return fail(parsed.error.message, parsed.error.code);
	let value = parsed.value.value;
	let sawHostileKey = parsed.value.sawHostileKey;
	if (typeof tool.prepareArguments === "function") {
		try {
			const prepared = tool.prepareArguments(value);
			if (prepared !== value) {
				// The shim may hand back objects it keeps (constants, caches): validation must not edit them.
				const state = { sawHostileKey };
				value = cloneArguments(prepared, state);
				sawHostileKey = state.sawHostileKey;
			}
		} catch (error) {
			return fail(`Could not prepare the arguments of tool ${slot.name}: ${errorMessage(error)}`, "E_PREPARE_FAILED");
		}
	}
	const validated = validateOwned(slot.name, tool.parameters, value, sawHostileKey, slot.raw);
	if (!validated.ok) {
		const error = validated.error;
		return fail(error.message, error.code, error.issues.length > 0 ? { issues: error.issues } : undefined);
	}
	return { tool, args: validated.value };
}

function isFinal(value: Prepared | Final): value is Final {
	return "result" in value;
}

function hookContext(batch: Batch, slot: Slot, prepared: Prepared): ToolCallHookContext {
	return { toolCall: slot.call, tool: prepared.tool, args: prepared.args, signal: batch.signal };
}

/** The `beforeToolCall` hook: `undefined` to go on, a result when the call is blocked. */
async function before(batch: Batch, slot: Slot, prepared: Prepared): Promise<Final | undefined> {
	const hook = batch.config.beforeToolCall;
	if (typeof hook !== "function") return undefined;
	try {
		const verdict = await hook(hookContext(batch, slot, prepared));
		if (verdict?.block) {
			const reason = typeof verdict.reason === "string" && verdict.reason !== "" ? verdict.reason : undefined;
			return fail(reason ?? `Tool call ${slot.name} was blocked.`, "E_BLOCKED");
		}
		return undefined;
	} catch (error) {
		return fail(`Tool call ${slot.name} was blocked: ${errorMessage(error)}`, "E_BLOCKED");
	}
}

async function execute(batch: Batch, slot: Slot, prepared: Prepared): Promise<Final> {
	let settled = false;
	const emit = batch.emit;
	const onUpdate: AgentToolUpdateCallback<unknown> | undefined = emit
		? (partialResult) => {
				if (settled) return;
				emit({
					type: "tool_execution_update",
					toolCallId: slot.id,
					toolName: slot.name,
					args: prepared.args,
					partialResult,
				});
			}
		: () => {};
	let final: Final;
	try {
		const returned: unknown = await prepared.tool.execute(slot.id, prepared.args, batch.signal, onUpdate);
		const problem = resultProblem(returned);
		final = problem
			? fail(`Tool ${slot.name} returned a malformed result: ${problem}.`, "E_BAD_RESULT")
			: { result: returned as AgentToolResult<unknown>, isError: false };
	} catch (error) {
		final = fail(errorMessage(error), "E_TOOL_FAILED");
	}
	settled = true;
	return after(batch, slot, prepared, final);
}

/** The `afterToolCall` hook: each field it returns replaces the result's field as a whole. */
async function after(batch: Batch, slot: Slot, prepared: Prepared, final: Final): Promise<Final> {
	const hook = batch.config.afterToolCall;
	if (typeof hook !== "function") return final;
	try {
		const patch = await hook({ ...hookContext(batch, slot, prepared), result: final.result, isError: final.isError });
		if (patch === undefined || patch === null) return final;
		if (patch.content !== undefined) {
			const problem = contentProblem(patch.content);
			if (problem) {
				return fail(`The afterToolCall hook returned malformed content for ${slot.name}: ${problem}.`, "E_BAD_RESULT");
			}
		}
		const result: AgentToolResult<unknown> = { ...final.result };
		if (patch.content !== undefined) result.content = patch.content;
		if (patch.details !== undefined) result.details = patch.details;
		if (patch.terminate !== undefined) result.terminate = patch.terminate;
		return { result, isError: patch.isError !== undefined ? patch.isError === true : final.isError };
	} catch (error) {
		return fail(`The afterToolCall hook failed for ${slot.name}: ${errorMessage(error)}`, "E_TOOL_FAILED");
	}
}

function toMessage(slot: Slot, final: Final): ToolResultMessage {
	const { result } = final;
	const message: {
		-readonly [K in keyof ToolResultMessage]: ToolResultMessage[K];
	} = {
		role: "toolResult",
		toolCallId: slot.id,
		toolName: slot.name,
		content: result.content,
		details: result.details,
		isError: final.isError,
		timestamp: Date.now(),
	};
	if (result.addedToolNames !== undefined) message.addedToolNames = result.addedToolNames;
	if (result.usage !== undefined) message.usage = result.usage;
	return message;
}

function askSkip(config: ExecuteToolCallsConfig): boolean {
	if (typeof config.shouldSkipRemaining !== "function") return false;
	try {
		return config.shouldSkipRemaining() === true;
	} catch {
		return false;
	}
}

function emitStart(batch: Batch, slot: Slot): void {
	batch.emit?.({ type: "tool_execution_start", toolCallId: slot.id, toolName: slot.name, args: slot.raw });
}

function emitEnd(batch: Batch, slot: Slot, final: Final): void {
	batch.emit?.({
		type: "tool_execution_end",
		toolCallId: slot.id,
		toolName: slot.name,
		result: final.result,
		isError: final.isError,
	});
}

async function runSequential(batch: Batch, slots: readonly Slot[]): Promise<Final[]> {
	const finals: Final[] = [];
	let skipping = false;
	for (const slot of slots) {
		emitStart(batch, slot);
		let final: Final;
		if (batch.signal?.aborted) final = fail(ABORTED_TEXT, "E_ABORTED");
		else if (skipping) final = fail(SKIPPED_TEXT, "E_SKIPPED");
		else {
			const prepared = prepare(batch, slot);
			if (isFinal(prepared)) final = prepared;
			else {
				const blocked = await before(batch, slot, prepared);
				if (blocked) final = blocked;
				else if (batch.signal?.aborted) final = fail(ABORTED_TEXT, "E_ABORTED");
				else final = await execute(batch, slot, prepared);
			}
			skipping = askSkip(batch.config);
		}
		emitEnd(batch, slot, final);
		finals.push(final);
	}
	return finals;
}

async function runParallel(batch: Batch, slots: readonly Slot[]): Promise<Final[]> {
	const finals: (Final | undefined)[] = new Array(slots.length);
	const running: Promise<void>[] = [];
	let nextEnd = 0;
	// Ends go out in source order: a call's end waits for every earlier call to finish.
	const finish = (index: number, final: Final): void => {
		finals[index] = final;
		while (nextEnd < slots.length && finals[nextEnd] !== undefined) {
			emitEnd(batch, slots[nextEnd] as Slot, finals[nextEnd] as Final);
			nextEnd++;
		}
	};
	let skipping = false;
	for (let index = 0; index < slots.length; index++) {
		const slot = slots[index] as Slot;
		emitStart(batch, slot);
		if (batch.signal?.aborted) {
			finish(index, fail(ABORTED_TEXT, "E_ABORTED"));
			continue;
		}
		if (!skipping) skipping = askSkip(batch.config);
		if (skipping) {
			finish(index, fail(SKIPPED_TEXT, "E_SKIPPED"));
			continue;
		}
		const prepared = prepare(batch, slot);
		if (isFinal(prepared)) {
			finish(index, prepared);
			continue;
		}
		if (batch.config.beforeToolCall) {
			const blocked = await before(batch, slot, prepared);
			if (blocked) {
				finish(index, blocked);
				continue;
			}
			if (batch.signal?.aborted) {
				finish(index, fail(ABORTED_TEXT, "E_ABORTED"));
				continue;
			}
		}
		running.push(execute(batch, slot, prepared).then((final) => finish(index, final)));
	}
	if (running.length > 0) await Promise.all(running);
	return finals as Final[];
}

/**
 * Runs the tool calls of one assistant message and returns one result message per call, in source
 * order.
 *
 * Each call is prepared (tool lookup, JSON parsing, `prepareArguments`, validation with repair of
 * model slips, `beforeToolCall`), executed, and finalised (`afterToolCall`). Every failure on the
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
	const slots = list.map(readSlot);
	let detach: (() => void) | undefined;
	try {
		const outer = config.signal;
		let signal: AbortSignal | undefined;
		if (outer) {
			// A batch-owned signal: every running tool sees the abort, and listeners added by tools
			// do not pile up on a long-lived session signal.
			const controller = new AbortController();
			if (outer.aborted) controller.abort(outer.reason);
			else {
				const onAbort = () => controller.abort(outer.reason);
				outer.addEventListener("abort", onAbort, { once: true });
				detach = () => outer.removeEventListener("abort", onAbort);
			}
			signal = controller.signal;
		}
		const batch: Batch = { config, tools: toolMap(config.tools), signal, emit: makeEmitter(config) };
		const sequential =
			config.toolExecution === "sequential" ||
			slots.some((slot) => batch.tools.get(slot.name)?.executionMode === "sequential");
		const finals = sequential ? await runSequential(batch, slots) : await runParallel(batch, slots);
		const results = finals.map((final, index) => toMessage(slots[index] as Slot, final));
		const terminate = finals.length > 0 && finals.every((final) => final.result.terminate === true);
		return { results, terminate };
	} catch (error) {
		// Only a bug in the executor itself lands here; the model still gets one result per call.
		const text = `Internal error of the tool executor: ${errorMessage(error)}`;
		return {
			results: slots.map((slot) => toMessage(slot, fail(text, "E_TOOL_FAILED"))),
			terminate: false,
		};
	} finally {
		detach?.();
	}
}
