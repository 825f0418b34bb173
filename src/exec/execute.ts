/** Running the tool calls of one assistant message: prepare → execute → finalize. */
import type { ToolCall, ToolResultMessage } from "../contract/content.js";
import { errorMessage, type ToolsmithErrorCode } from "../contract/errors.js";
import type { ToolExecutionEvent } from "../contract/events.js";
import type { Result } from "../contract/result.js";
import type { AgentTool, AgentToolResult, AgentToolUpdateCallback } from "../contract/tool.js";
import { cloneArguments } from "./_json.js";
import { contentProblem, errorResult, resultProblem } from "./_results.js";
import { acceptAsSent, copyArguments, type ToolArgumentsError, validateArguments, validateOwned } from "./_validate.js";
import type { ExecuteToolCallsConfig, ExecuteToolCallsResult, ToolCallHookContext } from "./types.js";

/** A call's outcome before it becomes a message. */
class Final {
	constructor(
		readonly result: AgentToolResult<unknown>,
		readonly isError: boolean,
	) {}
}

/** A call that passed preparation. */
class Prepared {
	constructor(
		readonly tool: AgentTool,
		readonly args: unknown,
	) {}
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
	return new Final(errorResult(text, code, extra), true);
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
	if (typeof tool.prepareArguments !== "function") {
		const ready = acceptAsSent(tool.parameters, slot.raw);
		if (ready !== undefined) return new Prepared(tool, ready);
	}
	const validated =
		typeof tool.prepareArguments === "function"
			? prepareThenValidate(tool, slot)
			: validateArguments(slot.name, tool.parameters, slot.raw);
	if (isFinal(validated)) return validated;
	if (!validated.ok) {
		const error = validated.error;
		return fail(error.message, error.code, error.issues.length > 0 ? { issues: error.issues } : undefined);
	}
	return new Prepared(tool, validated.value);
}

function prepareThenValidate(tool: AgentTool, slot: Slot): Result<unknown, ToolArgumentsError> | Final {
	const copied = copyArguments(slot.name, slot.raw);
	if (!copied.ok) return copied;
	let value = copied.value.value;
	let sawHostileKey = copied.value.sawHostileKey;
	try {
		const prepared = tool.prepareArguments?.(value);
		if (prepared !== value) {
			// The shim may hand back objects it keeps (constants, caches): validation must not edit them.
			const state = { sawHostileKey };
			value = cloneArguments(prepared, state);
			sawHostileKey = state.sawHostileKey;
		}
	} catch (error) {
		return fail(`Could not prepare the arguments of tool ${slot.name}: ${errorMessage(error)}`, "E_PREPARE_FAILED");
	}
	return validateOwned(slot.name, tool.parameters, value, sawHostileKey, slot.raw);
}

function isFinal<T>(value: T | Final): value is Final {
	return value instanceof Final;
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

const ignoreUpdate: AgentToolUpdateCallback<unknown> = () => {};

/** What a tool's promise settled with: its value, or a `Thrown` box around the reason. */
class Thrown {
	constructor(readonly reason: unknown) {}
}

const keep = (value: unknown): unknown => value;
const box = (reason: unknown): Thrown => new Thrown(reason);

/**
 * Starts one prepared call. The promise never rejects: a throw arrives as a `Thrown`. Handlers are
 * attached at once (so no rejection goes unhandled while earlier calls are awaited) and, without
 * an event listener, are shared functions: cheap tools must not pay for closures they do not need.
 */
function launch(batch: Batch, slot: Slot, prepared: Prepared): Promise<unknown> {
	const emit = batch.emit;
	let onUpdate: AgentToolUpdateCallback<unknown> = ignoreUpdate;
	let settled = false;
	if (emit) {
		onUpdate = (partialResult) => {
			// Updates after the tool settled are ignored: the end event has the final word.
			if (settled) return;
			emit({
				type: "tool_execution_update",
				toolCallId: slot.id,
				toolName: slot.name,
				args: prepared.args,
				partialResult,
			});
		};
	}
	let returned: unknown;
	try {
		returned = prepared.tool.execute(slot.id, prepared.args, batch.signal, onUpdate);
	} catch (error) {
		settled = true;
		return Promise.resolve(new Thrown(error));
	}
	const promise = returned instanceof Promise ? returned : Promise.resolve(returned);
	if (!emit) return promise.then(keep, box);
	return promise.then(
		(value) => {
			settled = true;
			return value;
		},
		(reason) => {
			settled = true;
			return new Thrown(reason);
		},
	);
}

/** The outcome of a settled call, after `afterToolCall`. */
function settle(batch: Batch, slot: Slot, prepared: Prepared, value: unknown): Final | Promise<Final> {
	let final: Final;
	if (value instanceof Thrown) final = fail(errorMessage(value.reason), "E_TOOL_FAILED");
	else {
		const problem = resultProblem(value);
		final = problem
			? fail(`Tool ${slot.name} returned a malformed result: ${problem}.`, "E_BAD_RESULT")
			: new Final(value as AgentToolResult<unknown>, false);
	}
	return typeof batch.config.afterToolCall === "function" ? after(batch, slot, prepared, final) : final;
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
		return new Final(result, patch.isError !== undefined ? patch.isError === true : final.isError);
	} catch (error) {
		return fail(`The afterToolCall hook failed for ${slot.name}: ${errorMessage(error)}`, "E_TOOL_FAILED");
	}
}

function toMessage(slot: Slot, final: Final): ToolResultMessage {
	const { result } = final;
	const message: ToolResultMessage = {
		role: "toolResult",
		toolCallId: slot.id,
		toolName: slot.name,
		content: result.content,
		details: result.details,
		isError: final.isError,
		timestamp: Date.now(),
	};
	if (result.addedToolNames === undefined && result.usage === undefined) return message;
	return {
		...message,
		...(result.addedToolNames !== undefined ? { addedToolNames: result.addedToolNames } : {}),
		...(result.usage !== undefined ? { usage: result.usage } : {}),
	};
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

async function runSequential(batch: Batch, slots: readonly Slot[], results: ToolResultMessage[]): Promise<Final[]> {
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
				else {
					const settled = settle(batch, slot, prepared, await launch(batch, slot, prepared));
					final = settled instanceof Promise ? await settled : settled;
				}
			}
			skipping = askSkip(batch.config);
		}
		emitEnd(batch, slot, final);
		results.push(toMessage(slot, final));
		finals.push(final);
	}
	return finals;
}

/** A launched call in a parallel batch. */
class Running {
	constructor(
		readonly prepared: Prepared,
		readonly promise: Promise<unknown>,
	) {}
}

/**
 * Parallel: calls are launched in source order, each as soon as it is prepared; a collector then
 * walks the calls in source order, so `afterToolCall` and the end events run in source order and
 * a call's end goes out once it and every earlier call are done.
 */
async function runParallel(batch: Batch, slots: readonly Slot[], results: ToolResultMessage[]): Promise<Final[]> {
	const entries: (Final | Running | undefined)[] = new Array(slots.length);
	// Only needed while `beforeToolCall` keeps the launch loop waiting: the collector parks here.
	const waiting: ((entry: Final | Running) => void)[] = [];
	const place = (index: number, entry: Final | Running): undefined => {
		entries[index] = entry;
		waiting[index]?.(entry);
		return undefined;
	};
	let skipping = false;
	/** Prepares and launches call `index`; returns the blocking hook's promise when there is one. */
	const start = (index: number): Promise<void> | undefined => {
		const slot = slots[index] as Slot;
		emitStart(batch, slot);
		if (batch.signal?.aborted) return place(index, fail(ABORTED_TEXT, "E_ABORTED"));
		if (!skipping) skipping = askSkip(batch.config);
		if (skipping) return place(index, fail(SKIPPED_TEXT, "E_SKIPPED"));
		const prepared = prepare(batch, slot);
		if (isFinal(prepared)) return place(index, prepared);
		if (!batch.config.beforeToolCall) return place(index, new Running(prepared, launch(batch, slot, prepared)));
		return before(batch, slot, prepared).then((blocked) => {
			if (blocked || batch.signal?.aborted) place(index, blocked ?? fail(ABORTED_TEXT, "E_ABORTED"));
			else place(index, new Running(prepared, launch(batch, slot, prepared)));
		});
	};
	let launching: Promise<void> | undefined;
	if (batch.config.beforeToolCall) {
		// Hooks run one after another in source order (they may ask a person); calls launch as they pass.
		launching = (async () => {
			for (let index = 0; index < slots.length; index++) await start(index);
		})();
	} else {
		for (let index = 0; index < slots.length; index++) start(index);
	}
	const finals: Final[] = new Array(slots.length);
	for (let index = 0; index < slots.length; index++) {
		const slot = slots[index] as Slot;
		const entry = entries[index] ?? (await new Promise<Final | Running>((resolve) => (waiting[index] = resolve)));
		let final: Final | Promise<Final> =
			entry instanceof Running ? settle(batch, slot, entry.prepared, await entry.promise) : entry;
		if (final instanceof Promise) final = await final;
		emitEnd(batch, slot, final);
		finals[index] = final;
		results[index] = toMessage(slot, final);
	}
	if (launching) await launching;
	return finals;
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
		const results: ToolResultMessage[] = [];
		const finals = sequential ? await runSequential(batch, slots, results) : await runParallel(batch, slots, results);
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
