/** Running the tool calls of one assistant message: prepare → execute → finalize. */
import type { ToolCall, ToolResultMessage } from "../contract/content.js";
import { describeValue, errorMessage, type ToolsmithErrorCode } from "../contract/errors.js";
import type { ToolExecutionEndEvent, ToolExecutionEvent } from "../contract/events.js";
import type {
	AgentTool,
	AgentToolResult,
	AgentToolUpdateCallback,
	ExecuteToolOptions,
	NestedToolCalls,
	ToolCallOutcome,
} from "../contract/tool.js";
import { addUsage, NestedRecorder } from "./_nested.js";
import { contentProblem, errorResult, type ResultFields, readResult } from "./_results.js";
import { compiledOrUndefined, copyArguments, validateArguments, validateOwned } from "./compiled-schema.js";
import { cloneArguments } from "./json.js";
import type { ExecuteToolCallsConfig, ExecuteToolCallsResult, ToolCallHookContext } from "./types.js";

const NO_CONTENT: AgentToolResult["content"] = [];

/**
 * Everything the executor knows of one call, in one object: the call as read once from the
 * untrusted `ToolCall`, then the tool and arguments, then the outcome. One record per call keeps
 * the allocation count (and so the overhead for cheap tools) low.
 */
class Call implements ResultFields {
	tool: AgentTool | undefined = undefined;
	/** Why the tool named by the call cannot be used (a getter of its definition threw), when it cannot. */
	toolProblem: string | undefined = undefined;
	args: unknown = undefined;
	/** Whether the tool was started (`afterToolCall` runs for started calls only). */
	started = false;
	/**
	 * Whether the executor stopped waiting for the started tool (it was still running when the
	 * abort's grace period ran out): whatever the tool does later is ignored.
	 */
	abandoned = false;
	/** Settles once the started tool's outcome is recorded as the call's result; never rejects. */
	running: Promise<void> | undefined = undefined;
	/**
	 * The call's result once it has one: the tool's own object (whose fields were read once into the
	 * fields below), or one the executor made (`owned`). The message is built from the fields.
	 */
	result: AgentToolResult<unknown> | undefined = undefined;
	/** Whether `result` is an object the executor made, holding the fields below as plain values. */
	owned = false;
	content: AgentToolResult["content"] = NO_CONTENT;
	details: unknown = undefined;
	usage: AgentToolResult["usage"] = undefined;
	addedToolNames: string[] | undefined = undefined;
	terminate: boolean | undefined = undefined;
	structuredContent: AgentToolResult["structuredContent"] = undefined;
	isError = false;
	/** When the call ended (its end event): the message's timestamp. */
	finishedAt = 0;
	/** `performance.now()` as the tool was called; 0 for a call that never ran. */
	startedAt = 0;
	/** Milliseconds from the tool's call until it settled (or was abandoned); only for calls that ran. */
	durationMs: number | undefined = undefined;
	/** For a call another tool made (`ctx.executeTool`): the calling call's id. */
	parent: string | undefined = undefined;
	/** The record of nested calls this call belongs to (its model-issued ancestor's); made on first need. */
	recorder: NestedRecorder | undefined = undefined;
	/** The number of this call's next nested call. */
	nextNested = 1;
	/** Whether this call runs inside a nested call that holds the batch's nested queue (see `runNested`). */
	holdsQueue = false;
	/** Parallel mode: settles once the started call has ended (after hook and end event done); never rejects. */
	ending: Promise<void> | undefined = undefined;

	constructor(
		readonly call: ToolCall,
		readonly id: string,
		readonly name: string,
		readonly raw: unknown,
	) {}

	/** Ends the call with an error result made by the executor. */
	fail(text: string, code: ToolsmithErrorCode, extra?: Parameters<typeof errorResult>[2]): void {
		this.own(errorResult(text, code, extra));
		this.isError = true;
	}

	/** Makes `result`, a plain object the executor built, the call's result. */
	own(result: AgentToolResult<unknown>): void {
		this.result = result;
		this.owned = true;
		this.content = result.content;
		this.details = result.details;
		this.usage = result.usage;
		this.addedToolNames = result.addedToolNames;
		this.terminate = result.terminate;
		this.structuredContent = result.structuredContent;
	}

	/** The result as hooks and listeners get it: a plain object of the fields as read once. */
	view(): AgentToolResult<unknown> {
		if (!this.owned) {
			const result: AgentToolResult<unknown> = { content: this.content, details: this.details };
			if (this.usage !== undefined) result.usage = this.usage;
			if (this.addedToolNames !== undefined) result.addedToolNames = this.addedToolNames;
			if (this.terminate !== undefined) result.terminate = this.terminate;
			if (this.structuredContent !== undefined) result.structuredContent = this.structuredContent;
			this.result = result;
			this.owned = true;
		}
		return this.result as AgentToolResult<unknown>;
	}

	get done(): boolean {
		return this.result !== undefined;
	}
}

interface Batch {
	readonly config: ExecuteToolCallsConfig;
	/** The config's tools as given (non-tools and repeated names included). */
	readonly tools: readonly unknown[];
	readonly signal: AbortSignal | undefined;
	readonly emit: ((event: ToolExecutionEvent) => void) | undefined;
	/** Removes the batch's listener from the caller's signal. */
	detach: (() => void) | undefined;
	/** Whether the whole batch runs one call after another. */
	readonly sequential: boolean;
	/** At most this many calls of a parallel batch are in flight at once. */
	readonly limit: number;
	/** Whether `signal` is the batch's own (fired from the batch's listener on the caller's signal). */
	readonly ownsSignal: boolean;
	/** When the executor stops waiting after an abort; made on first need, only when there is a signal. */
	cutoffs: Cutoffs | undefined;
	/** The tools nested calls may reach; made on first need. */
	callable: readonly AgentTool[] | undefined;
	/** The queue of nested calls that must not overlap (see `runNested`); shared by the nested views. */
	readonly queue: { tail: Promise<unknown> | undefined };
}

/**
 * How long after the batch's abort the executor still waits for what it awaits on behalf of a call
 * (a tool, an `afterToolCall` hook) before it gives the call an aborted result: long enough for a
 * tool that honours its signal to report its own way of stopping (`Command aborted`), short enough
 * that an agent loop never hangs on a tool or hook that ignores the signal.
 */
export const ABORT_GRACE_MS = 500;

/** What a bounded wait gives when the executor stopped waiting. */
const GAVE_UP: unique symbol = Symbol("gave up");
type GaveUp = typeof GAVE_UP;

/**
 * The two moments after which the executor stops waiting: the abort itself (a `beforeToolCall`
 * hook: the call will not run whatever it answers) and the end of the grace period (a running tool,
 * an `afterToolCall` hook). Made only when a wait needs it; only once the signal fired is a timer
 * set, and it is cleared when the batch settles. A batch that owns its signal fires it from the
 * listener it already has on the caller's; otherwise it listens to the signal itself.
 */
class Cutoffs {
	readonly aborted: Promise<GaveUp>;
	readonly expired: Promise<GaveUp>;
	private abort!: (value: GaveUp) => void;
	private expire!: (value: GaveUp) => void;
	private fired = false;
	private timer: ReturnType<typeof setTimeout> | undefined = undefined;
	private closed = false;
	private detach: (() => void) | undefined = undefined;

	constructor(signal: AbortSignal, listen: boolean) {
		this.aborted = new Promise((resolve) => {
			this.abort = resolve;
		});
		this.expired = new Promise((resolve) => {
			this.expire = resolve;
		});
		if (signal.aborted) this.fire();
		else if (listen) {
			const onAbort = () => this.fire();
			signal.addEventListener("abort", onAbort, { once: true });
			this.detach = () => signal.removeEventListener("abort", onAbort);
		}
	}

	/** The signal fired: stop waiting for hooks before a call, and start the grace period. */
	fire(): void {
		if (this.fired) return;
		this.fired = true;
		this.abort(GAVE_UP);
		if (!this.closed) this.timer = setTimeout(() => this.expire(GAVE_UP), ABORT_GRACE_MS);
	}

	close(): void {
		this.closed = true;
		if (this.timer !== undefined) clearTimeout(this.timer);
		this.detach?.();
	}
}

/**
 * `value`, or `GAVE_UP` once the batch's signal fired (`"abort"`) or its grace period ran out
 * (`"grace"`), whichever comes first. Without a signal, or for a value that cannot be a thenable
 * (`undefined`, a primitive), the value as it is: no allocation on the paths that cannot hang.
 */
function bounded<T>(batch: Batch, value: T, until: "abort" | "grace"): T | Promise<Awaited<T> | GaveUp> {
	const signal = batch.signal;
	if (signal === undefined || value === null || (typeof value !== "object" && typeof value !== "function"))
		return value;
	batch.cutoffs ??= new Cutoffs(signal, !batch.ownsSignal);
	return Promise.race([
		value as unknown as PromiseLike<Awaited<T>>,
		until === "abort" ? batch.cutoffs.aborted : batch.cutoffs.expired,
	]);
}

/**
 * Calls a parallel batch runs at once unless `maxConcurrency` says otherwise: enough for the calls
 * one assistant message makes, few enough that a batch of a thousand shell commands does not run
 * out of file descriptors (each child process holds several).
 */
export const DEFAULT_MAX_CONCURRENCY = 16;

/** `maxConcurrency` as given, or the default; throws (an internal failure of the batch) when it is not a positive integer or `Infinity`. */
function concurrencyLimit(value: unknown): number {
	if (value === undefined) return DEFAULT_MAX_CONCURRENCY;
	if (value === Number.POSITIVE_INFINITY || (typeof value === "number" && Number.isInteger(value) && value >= 1)) {
		return value as number;
	}
	throw new Error(
		`maxConcurrency must be a positive integer or Infinity, got ${errorMessage(value)}; no tool call of this batch ran.`,
	);
}

/** A counting semaphore for the calls of a parallel batch; an abort lets every waiter through. */
class Slots {
	private waiters: (() => void)[] = [];

	constructor(
		private free: number,
		signal: AbortSignal | undefined,
	) {
		signal?.addEventListener(
			"abort",
			() => {
				this.free = Number.POSITIVE_INFINITY;
				for (const wake of this.waiters.splice(0)) wake();
			},
			{ once: true },
		);
	}

	/** Takes a slot: undefined when one was free, else a promise that settles once one is. */
	acquire(): Promise<void> | undefined {
		if (this.free > 0) {
			this.free--;
			return undefined;
		}
		return new Promise((resolve) => this.waiters.push(resolve));
	}

	release(): void {
		const wake = this.waiters.shift();
		if (wake) wake();
		else this.free++;
	}
}

/** The reference's text for a call the abort stopped before it ran (pi-agent-core 1.x). */
const ABORTED_TEXT = "Operation aborted";
const SKIPPED_TEXT =
	"Skipped: the remaining tool calls of this batch were not run because the agent was asked to stop. Call the tool again if it is still needed.";

function readCall(list: readonly unknown[], index: number): Call {
	let call: unknown;
	try {
		call = list[index];
		const c = call as { id?: unknown; name?: unknown; arguments?: unknown };
		const id =
			typeof c.id === "string" ? c.id : c.id === undefined || c.id === null ? `call_${index}` : describeValue(c.id);
		const name = typeof c.name === "string" ? c.name : describeValue(c.name);
		return new Call(call as ToolCall, id, name, c.arguments);
	} catch {
		return new Call(call as ToolCall, `call_${index}`, "", undefined);
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

/** The tools by name; the first of a name wins. */
function toolMap(tools: readonly unknown[]): Map<string, AgentTool> {
	const map = new Map<string, AgentTool>();
	for (const tool of tools) {
		const name = nameOf(tool);
		if (name !== undefined && !map.has(name)) map.set(name, tool as AgentTool);
	}
	return map;
}

/** The first tool named `name`, as `toolMap` would pick it. */
function findTool(tools: readonly unknown[], name: string): AgentTool | undefined {
	for (let i = 0; i < tools.length; i++) {
		const tool = tools[i];
		if (nameOf(tool) === name) return tool as AgentTool;
	}
	return undefined;
}

/** A tool's name, or undefined when it is not an object with a string name (or its `name` getter throws). */
function nameOf(tool: unknown): string | undefined {
	if (typeof tool !== "object" || tool === null) return undefined;
	try {
		const name = (tool as { name?: unknown }).name;
		return typeof name === "string" ? name : undefined;
	} catch {
		return undefined;
	}
}

/** Lookup, parsing, `prepareArguments` and validation: synchronous, so cheap calls stay cheap. */
function prepare(batch: Batch, c: Call): void {
	try {
		prepareCall(batch, c);
	} catch (error) {
		// A getter of the tool or of the arguments threw: this call fails, the others go on.
		c.fail(
			`Could not read the arguments or the definition of tool ${c.name}: ${errorMessage(error)}`,
			"E_INVALID_ARGS",
		);
	}
}

function prepareCall(batch: Batch, c: Call): void {
	const tool = c.tool;
	if (c.toolProblem !== undefined) {
		c.fail(
			`The definition of tool ${c.name} cannot be read: ${c.toolProblem}. Fix the tool definition.`,
			"E_TOOL_FAILED",
		);
		return;
	}
	if (tool === undefined) {
		const available = [...toolMap(batch.tools).keys()];
		const list = available.length > 0 ? `Available tools: ${available.join(", ")}.` : "No tools are available.";
		c.fail(`Tool ${c.name} not found. ${list}`, "E_TOOL_NOT_FOUND", { availableTools: available });
		return;
	}
	if (typeof tool.prepareArguments !== "function") {
		if (compiledOrUndefined(tool.parameters)?.usableAsSent(c.raw)) {
			c.args = c.raw;
			return;
		}
		const validated = validateArguments(c.name, tool.parameters, c.raw);
		if (validated.ok) c.args = validated.value;
		else {
			const { error } = validated;
			c.fail(error.message, error.code, error.issues.length > 0 ? { issues: error.issues } : undefined);
		}
		return;
	}
	const copied = copyArguments(c.name, c.raw);
	if (!copied.ok) {
		c.fail(copied.error.message, copied.error.code);
		return;
	}
	let value = copied.value.value;
	let sawHostileKey = copied.value.sawHostileKey;
	try {
		const prepared = tool.prepareArguments(value);
		if (prepared !== value) {
			// The shim may hand back objects it keeps (constants, caches): validation must not edit them.
			const state = { sawHostileKey };
			value = cloneArguments(prepared, state);
			sawHostileKey = state.sawHostileKey;
		}
	} catch (error) {
		c.fail(`Could not prepare the arguments of tool ${c.name}: ${errorMessage(error)}`, "E_PREPARE_FAILED");
		return;
	}
	const validated = validateOwned(c.name, tool.parameters, value, sawHostileKey, c.raw);
	if (validated.ok) c.args = validated.value;
	else {
		const { error } = validated;
		c.fail(error.message, error.code, error.issues.length > 0 ? { issues: error.issues } : undefined);
	}
}

function hookContext(batch: Batch, c: Call): ToolCallHookContext {
	return c.parent === undefined
		? { toolCall: c.call, tool: c.tool as AgentTool, args: c.args, signal: batch.signal }
		: { toolCall: c.call, tool: c.tool as AgentTool, args: c.args, signal: batch.signal, parentToolCallId: c.parent };
}

/** The `beforeToolCall` hook; a blocked call ends with an error result. Never rejects. */
async function before(batch: Batch, c: Call): Promise<void> {
	const hook = batch.config.beforeToolCall;
	if (typeof hook !== "function") return;
	try {
		const verdict = await bounded(batch, hook(hookContext(batch, c)), "abort");
		// The batch was cancelled while the hook ran: the call will not run, whatever the hook says later.
		if (verdict === GAVE_UP) {
			c.fail(ABORTED_TEXT, "E_ABORTED");
			return;
		}
		if (verdict?.block) {
			const reason = typeof verdict.reason === "string" && verdict.reason !== "" ? verdict.reason : undefined;
			c.fail(reason ?? `Tool call ${c.name} was blocked.`, "E_BLOCKED");
			// A blocked call may ask the loop to stop after the batch (pi 1.x), under the usual rule.
			if (verdict.terminate === true) {
				c.terminate = true;
				(c.result as AgentToolResult<unknown>).terminate = true;
			}
		}
	} catch (error) {
		c.fail(`Tool call ${c.name} was blocked: ${errorMessage(error)}`, "E_BLOCKED");
	}
}

const ignoreUpdate: AgentToolUpdateCallback<unknown> = () => {};

/**
 * Records how long the tool ran, as the reference's `durationMs` does: from the call of `execute`
 * until it settled, rounded to whole milliseconds, without the `afterToolCall` hook.
 */
function stopClock(c: Call): void {
	c.durationMs = Math.round(performance.now() - c.startedAt);
}

/**
 * Starts one prepared call and records its outcome as soon as it settles (`c.running` says when),
 * so a batch of cheap tools is all recorded by the time the collector awaits the first one. The
 * handlers are attached at once: no rejection goes unhandled while earlier calls are awaited.
 * In a parallel batch, `owner.settled` runs right after the outcome is recorded: the call's end.
 * (Keeping the outcome in the promise and awaiting each call in turn instead measured 1.53–1.60× a
 * hand-written loop on the built package, goal 1.25×: `npm run bench exec`.)
 */
function launch(batch: Batch, c: Call, owner?: ParallelRun): void {
	const emit = batch.emit;
	c.started = true;
	// Updates after the tool settled are ignored: the end event has the final word.
	const onUpdate: AgentToolUpdateCallback<unknown> = emit
		? (partialResult) => {
				if (c.done) return;
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
	c.startedAt = owner ? owner.launchClock() : performance.now();
	try {
		const returned: unknown = (c.tool as AgentTool).execute(
			c.id,
			c.args,
			batch.signal,
			onUpdate,
			new NestedHandle(batch, c),
		);
		// `instanceof` asks a Proxy's getPrototypeOf trap, which may throw too.
		promise = returned instanceof Promise ? returned : Promise.resolve(returned);
	} catch (error) {
		stopClock(c);
		c.fail(thrownMessage(error), "E_TOOL_FAILED");
		return;
	}
	c.running = owner
		? promise.then(
				(value) => {
					if (c.abandoned) return;
					c.durationMs = Math.round(owner.settleClock() - c.startedAt);
					recordSafely(c, value);
					owner.settled(c);
				},
				(reason) => {
					if (c.abandoned) return;
					c.durationMs = Math.round(owner.settleClock() - c.startedAt);
					c.fail(thrownMessage(reason), "E_TOOL_FAILED");
					owner.settled(c);
				},
			)
		: promise.then(
				(value) => {
					if (c.abandoned) return;
					stopClock(c);
					recordSafely(c, value);
				},
				(reason) => {
					if (c.abandoned) return;
					stopClock(c);
					c.fail(thrownMessage(reason), "E_TOOL_FAILED");
				},
			);
}

/**
 * Waits for a started call's tool, for at most the abort's grace period once the batch's signal
 * fired; true when the executor gave up on it (the call then has its aborted result, and whatever
 * the tool does later is ignored). Only a waiter calls this, and only for a call not done yet: a
 * batch of cheap tools pays for no race.
 */
async function waitForTool(batch: Batch, c: Call): Promise<boolean> {
	const outcome = await bounded(batch, c.running, "grace");
	if (outcome !== GAVE_UP || c.done) return false;
	c.abandoned = true;
	stopClock(c);
	c.fail(
		`Aborted: the batch was cancelled and tool ${c.name} did not stop within ${ABORT_GRACE_MS} ms; its outcome, if it ever comes, is ignored.`,
		"E_ABORTED",
	);
	return true;
}

/**
 * Records a tool's return value as the call's result, or the error result saying what is wrong with
 * it. The result's fields are read once, here: later reads (messages, events, hooks) see plain values.
 */
function recordSafely(c: Call, value: unknown): void {
	try {
		const problem = readResult(value, c);
		if (problem) c.fail(`Tool ${c.name} returned a malformed result: ${problem}.`, "E_BAD_RESULT");
		else {
			c.result = value as AgentToolResult<unknown>;
			// A tool may report a failure without throwing (pi 1.x): its content, details and
			// structured content are kept, and the model sees an error result.
			c.isError = (value as { isError?: unknown }).isError === true;
		}
	} catch (error) {
		// A getter on the returned object threw: the result cannot be trusted, the other calls can.
		c.fail(`Tool ${c.name} returned a result that could not be read: ${thrownMessage(error)}.`, "E_BAD_RESULT");
	}
}

/**
 * `errorMessage`, for what a tool threw, whose own getters may throw too: recording runs as the
 * tool settles, where a throw would be a rejection nobody handles.
 */
function thrownMessage(error: unknown): string {
	try {
		return errorMessage(error);
	} catch {
		return "the tool threw a value that cannot be read";
	}
}

/** The `afterToolCall` hook: each field it returns replaces the result's field as a whole. Never rejects. */
async function after(batch: Batch, c: Call): Promise<void> {
	const hook = batch.config.afterToolCall;
	// An abandoned call has no outcome of its tool to show the hook.
	if (typeof hook !== "function" || c.abandoned) return;
	const result = c.view();
	try {
		const patch = await bounded(batch, hook({ ...hookContext(batch, c), result, isError: c.isError }), "grace");
		if (patch === GAVE_UP) {
			// The hook may be there to redact: the result it was given must not go out unpatched.
			c.fail(
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
				c.fail(`The afterToolCall hook returned malformed content for ${c.name}: ${problem}.`, "E_BAD_RESULT");
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
		const problem = content !== undefined || details !== undefined ? readResult(merged, c) : undefined;
		if (problem) {
			c.fail(`The afterToolCall hook returned a malformed result for ${c.name}: ${problem}.`, "E_BAD_RESULT");
			return;
		}
		c.own(merged);
		if (isError !== undefined) c.isError = isError === true;
	} catch (error) {
		c.fail(`The afterToolCall hook failed for ${c.name}: ${errorMessage(error)}`, "E_TOOL_FAILED");
	}
}

/** The call's message, from the result's fields as read once (no getter of the tool's runs here). */
function toMessage(c: Call): ToolResultMessage {
	const message: Mutable<ToolResultMessage> = {
		role: "toolResult",
		toolCallId: c.id,
		toolName: c.name,
		content: c.content,
		details: c.details,
		isError: c.isError,
		timestamp: c.finishedAt || Date.now(),
	};
	if (c.durationMs !== undefined) message.durationMs = c.durationMs;
	if (c.structuredContent !== undefined) message.structuredContent = c.structuredContent;
	if (c.addedToolNames !== undefined) message.addedToolNames = c.addedToolNames;
	if (c.usage !== undefined) message.usage = c.usage;
	const recorder = c.recorder;
	if (recorder !== undefined) {
		const nestedCalls = recorder.snapshot();
		if (nestedCalls !== undefined) message.nestedCalls = nestedCalls;
		// The nested results reach no message of their own: their usage counts on this one.
		if (recorder.usage !== undefined)
			message.usage = message.usage ? addUsage(message.usage, recorder.usage) : recorder.usage;
	}
	return message;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function askSkip(config: ExecuteToolCallsConfig): boolean {
	if (typeof config.shouldSkipRemaining !== "function") return false;
	try {
		return config.shouldSkipRemaining() === true;
	} catch {
		return false;
	}
}

function emitStart(batch: Batch, c: Call): void {
	batch.emit?.(
		c.parent === undefined
			? { type: "tool_execution_start", toolCallId: c.id, toolName: c.name, args: c.raw }
			: { type: "tool_execution_start", toolCallId: c.id, toolName: c.name, args: c.raw, parentToolCallId: c.parent },
	);
}

/** Ends the call at `now`: its message's timestamp, and its end event. */
function emitEnd(batch: Batch, c: Call, now: number): void {
	c.finishedAt = now;
	const emit = batch.emit;
	if (emit === undefined) return;
	const event: Mutable<ToolExecutionEndEvent> = {
		type: "tool_execution_end",
		toolCallId: c.id,
		toolName: c.name,
		result: c.view(),
		isError: c.isError,
	};
	if (c.durationMs !== undefined) event.durationMs = c.durationMs;
	if (c.parent !== undefined) event.parentToolCallId = c.parent;
	emit(event);
}

async function runSequential(batch: Batch, calls: readonly Call[]): Promise<void> {
	let skipping = false;
	for (const c of calls) {
		emitStart(batch, c);
		if (batch.signal?.aborted) c.fail(ABORTED_TEXT, "E_ABORTED");
		else if (skipping) c.fail(SKIPPED_TEXT, "E_SKIPPED");
		else {
			prepare(batch, c);
			if (!c.done) await before(batch, c);
			if (!c.done && batch.signal?.aborted) c.fail(ABORTED_TEXT, "E_ABORTED");
			if (!c.done) {
				launch(batch, c);
				if (!c.done) await waitForTool(batch, c);
				if (typeof batch.config.afterToolCall === "function") await after(batch, c);
			}
			skipping = askSkip(batch.config);
		}
		emitEnd(batch, c, Date.now());
	}
}

/**
 * A parallel batch in progress: calls are started and prepared in source order, then launched in
 * source order once every call is prepared, and each call ends (`afterToolCall`, then its end event) as soon as it settles: a
 * call rejected before it ran ends right after its start, and a fast call is reported before a slow
 * one that came before it. `afterToolCall` hooks run one after another, in the order the calls
 * settle. The results are collected in source order once every call has ended. (One object with
 * methods rather than closures per batch: cheap batches pay for every allocation.)
 */
class ParallelRun {
	private skipping = false;
	private readonly afterHook: boolean;
	/**
	 * No listener, no hook, no limit reached: nobody sees the ends and only the collector waits, so
	 * calls that end together share one reading of the clock. A reading costs as much as the rest of a
	 * cheap call (on the built package, medians of seven runs: 1.09× a hand-written loop sharing it,
	 * 1.39× reading it per call; `npm run bench exec`).
	 */
	private readonly shared: boolean;
	/** The shared reading, 0 when there is none; reset before each wait of the collector. */
	private now = 0;
	/** The shared `performance.now()` reading for `durationMs`, on the same terms as `now`. */
	private tick = 0;
	/** The shared reading as the calls launched (they all launch in one synchronous stretch when shared). */
	private launchedAt = 0;
	/** The call the collector waits for. */
	private awaited: Call | undefined = undefined;
	/** The after hooks, chained in the order the calls settle; never rejects (`after` does not). */
	private afterChain: Promise<void> | undefined = undefined;

	constructor(
		private readonly batch: Batch,
		hooked: boolean,
		slots: boolean,
	) {
		this.afterHook = typeof batch.config.afterToolCall === "function";
		this.shared = !this.afterHook && batch.emit === undefined && !hooked && !slots;
	}

	/**
	 * When a call ends. The shared reading serves the calls that end before the collector's first
	 * wait, and those that settle in the run of microtasks in which the awaited call settled (they had
	 * settled before the collector resumes, so before the reading could go stale); a call that settles
	 * while the awaited one still runs reads the clock itself.
	 */
	private clock(): number {
		if (!this.shared || (this.awaited !== undefined && !this.awaited.done)) return Date.now();
		if (this.now === 0) this.now = Date.now();
		return this.now;
	}

	/** `performance.now()` as a call launches; one reading serves every launch of a shared batch. */
	launchClock(): number {
		if (!this.shared) return performance.now();
		if (this.launchedAt === 0) this.launchedAt = performance.now();
		return this.launchedAt;
	}

	/** `performance.now()` as a call's tool settles; shared as `clock` shares its reading. */
	settleClock(): number {
		if (!this.shared || (this.awaited !== undefined && !this.awaited.done)) return performance.now();
		if (this.tick === 0) this.tick = performance.now();
		return this.tick;
	}

	/** Ends a call whose tool settled, or that did not run (aborted, skipped, invalid, blocked). */
	end(c: Call): void {
		emitEnd(this.batch, c, this.clock());
	}

	/** Called as a started call's tool settles: its end, or its turn in the after-hook queue. */
	settled(c: Call): void {
		if (!this.afterHook) {
			this.end(c);
			return;
		}
		const previous = this.afterChain;
		c.ending = this.afterChain = previous ? previous.then(() => this.finish(c)) : this.finish(c);
	}

	private async finish(c: Call): Promise<void> {
		await after(this.batch, c);
		this.end(c);
	}

	/** Emits the start and prepares the call; false (and the call has ended) when it cannot run. */
	start(c: Call): boolean {
		const batch = this.batch;
		emitStart(batch, c);
		if (batch.signal?.aborted) c.fail(ABORTED_TEXT, "E_ABORTED");
		else {
			if (!this.skipping) this.skipping = askSkip(batch.config);
			if (this.skipping) c.fail(SKIPPED_TEXT, "E_SKIPPED");
			else prepare(batch, c);
		}
		if (!c.done) return true;
		this.end(c);
		return false;
	}

	/**
	 * Launches a prepared call, unless the batch was aborted since (it then ends with the aborted
	 * result); it ends as its tool settles (at once when `execute` threw synchronously). A call
	 * prepared before `shouldSkipRemaining` said to skip still runs: its hook already let it through.
	 */
	launch(c: Call): void {
		const batch = this.batch;
		if (batch.signal?.aborted) {
			c.fail(ABORTED_TEXT, "E_ABORTED");
			this.end(c);
			return;
		}
		launch(batch, c, this);
		if (!c.running) this.settled(c);
	}

	/** Waits until every call has ended (every call is launched or ended by now); the order of the waits does not matter. */
	async collect(calls: readonly Call[]): Promise<void> {
		for (let index = 0; index < calls.length; index++) {
			const c = calls[index] as Call;
			// Cheap tools have all settled by the time the first is awaited: the others need no await.
			if (!c.done) {
				this.awaited = c;
				this.now = 0;
				this.tick = 0;
				if (await waitForTool(this.batch, c)) this.settled(c);
			}
			if (c.ending) await c.ending;
		}
	}
}

/**
 * Runs a parallel batch (see `ParallelRun`); settles once every call has ended. As in the
 * reference, every call is prepared (start event, preparation, `beforeToolCall`) before any tool
 * runs: a confirmation asked for the last call is answered before the first one starts.
 */
function runParallel(batch: Batch, calls: readonly Call[]): Promise<void> {
	const hooked = typeof batch.config.beforeToolCall === "function";
	// More calls than the limit: each call holds a slot from its launch until its tool settled.
	const slots = calls.length > batch.limit ? new Slots(batch.limit, batch.signal) : undefined;
	const run = new ParallelRun(batch, hooked, slots !== undefined);
	if (!hooked && !slots) {
		// Preparation is synchronous: prepare all, launch all, in one stretch.
		for (const c of calls) run.start(c);
		for (const c of calls) if (!c.done) run.launch(c);
		return run.collect(calls);
	}
	return prepareAndLaunch(batch, run, calls, hooked, slots).then(() => run.collect(calls));
}

/** The slow path of `runParallel`: hooks run one after another in source order (they may ask a person), then the calls launch as slots free. */
async function prepareAndLaunch(
	batch: Batch,
	run: ParallelRun,
	calls: readonly Call[],
	hooked: boolean,
	slots: Slots | undefined,
): Promise<void> {
	for (const c of calls) {
		if (run.start(c) && hooked) {
			await before(batch, c);
			if (!c.done && batch.signal?.aborted) c.fail(ABORTED_TEXT, "E_ABORTED");
			if (c.done) run.end(c);
		}
	}
	for (const c of calls) {
		if (c.done) continue;
		if (slots) {
			const waiting = slots.acquire();
			if (waiting) await waiting;
		}
		run.launch(c);
		if (slots) {
			if (c.running) void c.running.then(() => slots.release());
			else slots.release();
		}
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
	const sources = Array.isArray(extra) ? [batch.tools, extra as readonly unknown[]] : [batch.tools];
	const seen = new Set<string>();
	const callable: AgentTool[] = [];
	for (const list of sources) {
		for (const tool of list) {
			const name = nameOf(tool);
			if (name === undefined || seen.has(name)) continue;
			seen.add(name);
			const exposure = exposureOf(tool);
			if (exposure !== "model-only" && exposure !== "hidden") callable.push(tool as AgentTool);
		}
	}
	batch.callable = callable;
	return callable;
}

/** What a running call gets to call other tools with (`execute`'s fifth argument). */
class NestedHandle implements NestedToolCalls {
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
	const c = new Call(toolCall, id, toolName, raw);
	c.parent = caller.id;
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
				c.fail(ABORTED_TEXT, "E_ABORTED");
		}
		c.holdsQueue = caller.holdsQueue || exclusive;
		// (A call aborted while it waited for its turn is done already.)
		if (!c.done && view.signal?.aborted) c.fail(ABORTED_TEXT, "E_ABORTED");
		if (!c.done) prepare(view, c);
		if (!c.done) await before(view, c);
		if (!c.done && view.signal?.aborted) c.fail(ABORTED_TEXT, "E_ABORTED");
		if (!c.done) {
			launch(view, c);
			if (!c.done) await waitForTool(view, c);
			if (typeof view.config.afterToolCall === "function") await after(view, c);
		}
	} catch (error) {
		if (!c.done) c.fail(`Internal error of the tool executor: ${thrownMessage(error)}`, "E_TOOL_FAILED");
	} finally {
		release?.();
		view.cutoffs?.close();
	}
	emitEnd(view, c, Date.now());
	const result = c.view();
	recorder.finish(entry, c.isError, result);
	return c.durationMs === undefined
		? { toolCall, result, isError: c.isError }
		: { toolCall, result, isError: c.isError, durationMs: c.durationMs };
}

/** The batch's shared state, read once from the config; throws when the config cannot be read. */
function openBatch(config: ExecuteToolCallsConfig, calls: readonly Call[]): Batch {
	const tools: readonly unknown[] = Array.isArray(config.tools) ? config.tools : [];
	// A short list is searched as it is: cheaper than building a map for one batch.
	const byName = tools.length > 8 ? toolMap(tools) : undefined;
	let sequential = config.toolExecution === "sequential";
	for (const c of calls) {
		c.tool = byName ? byName.get(c.name) : findTool(tools, c.name);
		if (c.tool === undefined) continue;
		try {
			if (c.tool.executionMode === "sequential") sequential = true;
		} catch (error) {
			c.toolProblem = `reading its executionMode threw: ${errorMessage(error)}`;
		}
	}
	const emit = makeEmitter(config);
	const limit = concurrencyLimit(config.maxConcurrency);
	const outer = config.signal;
	if (!outer || config.passSignalThrough === true) {
		return {
			config,
			tools,
			signal: outer,
			emit,
			detach: undefined,
			sequential,
			limit,
			ownsSignal: false,
			cutoffs: undefined,
			callable: undefined,
			queue: { tail: undefined },
		};
	}
	// A batch-owned signal: every running tool sees the abort, and listeners added by tools do not
	// pile up on a long-lived session signal.
	const controller = new AbortController();
	const batch: Batch = {
		config,
		tools,
		signal: controller.signal,
		emit,
		detach: undefined,
		sequential,
		limit,
		ownsSignal: true,
		cutoffs: undefined,
		callable: undefined,
		queue: { tail: undefined },
	};
	if (outer.aborted) controller.abort(outer.reason);
	else {
		const onAbort = () => {
			controller.abort(outer.reason);
			batch.cutoffs?.fire();
		};
		outer.addEventListener("abort", onAbort, { once: true });
		batch.detach = () => outer.removeEventListener("abort", onAbort);
	}
	return batch;
}

function collect(calls: readonly Call[]): ExecuteToolCallsResult {
	const results = new Array<ToolResultMessage>(calls.length);
	let terminate = calls.length > 0;
	for (let index = 0; index < calls.length; index++) {
		const c = calls[index] as Call;
		results[index] = toMessage(c);
		if (c.terminate !== true) terminate = false;
	}
	return { results, terminate };
}

/** Only a bug in the executor itself lands here; the model still gets one result per call. */
function internalFailure(calls: readonly Call[], error: unknown): ExecuteToolCallsResult {
	const text = `Internal error of the tool executor: ${errorMessage(error)}`;
	// Calls that already have their result keep it.
	for (const c of calls) if (!c.done) c.fail(text, "E_TOOL_FAILED");
	return { results: calls.map(toMessage), terminate: false };
}

function close(batch: Batch): void {
	batch.cutoffs?.close();
	try {
		batch.detach?.();
	} catch {
		// the caller's signal is theirs; failing to unhook from it changes no result
	}
}

/** Runs the batch, one call after another or in parallel, and collects one message per call. */
async function run(batch: Batch, calls: readonly Call[]): Promise<ExecuteToolCallsResult> {
	try {
		if (batch.sequential) await runSequential(batch, calls);
		else await runParallel(batch, calls);
		return collect(calls);
	} catch (error) {
		return internalFailure(calls, error);
	} finally {
		close(batch);
	}
}

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
export function executeToolCalls(
	toolCalls: readonly ToolCall[],
	config: ExecuteToolCallsConfig,
): Promise<ExecuteToolCallsResult> {
	const list: readonly unknown[] = Array.isArray(toolCalls) ? toolCalls : [];
	const calls = new Array<Call>(list.length);
	for (let index = 0; index < calls.length; index++) calls[index] = readCall(list, index);
	let batch: Batch;
	try {
		batch = openBatch(config, calls);
	} catch (error) {
		return Promise.resolve(internalFailure(calls, error));
	}
	return run(batch, calls);
}
