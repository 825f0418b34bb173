/**
 * One batch's shared state, read once from the config: the tools by name, the signal the tools get,
 * the event emitter, the scheduling mode, and when the executor stops waiting after an abort.
 */
import { errorMessage } from "../contract/errors.js";
import type { ToolExecutionEndEvent, ToolExecutionEvent } from "../contract/events.js";
import type { AgentTool, AgentToolResult } from "../contract/tool.js";
import type { Call } from "./_call.js";
import type { ExecuteToolCallsConfig } from "./types.js";

/** The state of one batch (and of the view a nested call gets of it, see `nestedView`). */
export interface Batch {
	readonly config: ExecuteToolCallsConfig;
	/** The tools the calls may name (as given: non-tools and repeated names included). */
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

/**
 * Calls a parallel batch runs at once unless `maxConcurrency` says otherwise: enough for the calls
 * one assistant message makes, few enough that a batch of a thousand shell commands does not run
 * out of file descriptors (each child process holds several).
 */
export const DEFAULT_MAX_CONCURRENCY = 16;

/** The batch's state; throws when the config cannot be read (every call then fails). */
export function openBatch(config: ExecuteToolCallsConfig, calls: readonly Call[]): Batch {
	const tools: readonly unknown[] = Array.isArray(config.tools) ? config.tools : [];
	let sequential = config.toolExecution === "sequential";
	for (const c of calls) {
		c.tool = findTool(tools, c.name);
		if (c.tool === undefined) continue;
		try {
			if (c.tool.executionMode === "sequential") sequential = true;
		} catch (error) {
			c.toolProblem = `reading its executionMode threw: ${errorMessage(error)}`;
		}
	}
	// By default the batch owns the signal the tools get, linked to the caller's: every running tool
	// sees the abort, and listeners added by tools do not pile up on a long-lived session signal.
	const outer = config.signal;
	const controller = outer !== undefined && config.passSignalThrough !== true ? new AbortController() : undefined;
	const batch: Batch = {
		config,
		tools,
		signal: controller ? controller.signal : outer,
		emit: makeEmitter(config),
		detach: undefined,
		sequential,
		limit: concurrencyLimit(config.maxConcurrency),
		ownsSignal: controller !== undefined,
		cutoffs: undefined,
		callable: undefined,
		queue: { tail: undefined },
	};
	if (controller === undefined || outer === undefined) return batch;
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

/** Clears the batch's timer and unhooks it from the caller's signal. */
export function closeBatch(batch: Batch): void {
	batch.cutoffs?.close();
	try {
		batch.detach?.();
	} catch {
		// the caller's signal is theirs; failing to unhook from it changes no result
	}
}

/** The tools by name; the first of a name wins. */
export function toolMap(tools: Iterable<unknown>): Map<string, AgentTool> {
	const map = new Map<string, AgentTool>();
	for (const tool of tools) {
		const name = nameOf(tool);
		if (name !== undefined && !map.has(name)) map.set(name, tool as AgentTool);
	}
	return map;
}

/** The first tool named `name`. */
export function findTool(tools: readonly unknown[], name: string): AgentTool | undefined {
	return tools.find((tool) => nameOf(tool) === name) as AgentTool | undefined;
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

/** The config's `onEvent`, made safe: a listener that throws or rejects changes nothing. */
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

/** The call's start event. */
export function emitStart(batch: Batch, c: Call): void {
	batch.emit?.(
		c.parent === undefined
			? { type: "tool_execution_start", toolCallId: c.id, toolName: c.name, args: c.raw }
			: { type: "tool_execution_start", toolCallId: c.id, toolName: c.name, args: c.raw, parentToolCallId: c.parent },
	);
}

/** Ends the call now: its message's timestamp, and its end event. */
export function emitEnd(batch: Batch, c: Call): void {
	c.finishedAt = Date.now();
	const emit = batch.emit;
	if (emit === undefined) return;
	const event: { -readonly [K in keyof ToolExecutionEndEvent]: ToolExecutionEndEvent[K] } = {
		type: "tool_execution_end",
		toolCallId: c.id,
		toolName: c.name,
		result: c.result as AgentToolResult<unknown>,
		isError: c.isError,
	};
	if (c.durationMs !== undefined) event.durationMs = c.durationMs;
	if (c.parent !== undefined) event.parentToolCallId = c.parent;
	emit(event);
}

/** Whether the config's `shouldSkipRemaining` says to skip the calls not yet prepared; a throw counts as no. */
export function askSkip(config: ExecuteToolCallsConfig): boolean {
	if (typeof config.shouldSkipRemaining !== "function") return false;
	try {
		return config.shouldSkipRemaining() === true;
	} catch {
		return false;
	}
}

/** What a bounded wait gives when the executor stopped waiting. */
export const GAVE_UP: unique symbol = Symbol("gave up");
export type GaveUp = typeof GAVE_UP;

/**
 * The two moments after which the executor stops waiting: the abort itself (a `beforeToolCall`
 * hook: the call will not run whatever it answers) and the end of the grace period (a running tool,
 * an `afterToolCall` hook). Made only when a wait needs it; only once the signal fired is a timer
 * set, and it is cleared when the batch settles. A batch that owns its signal fires it from the
 * listener it already has on the caller's; otherwise it listens to the signal itself.
 */
export class Cutoffs {
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
 * (`undefined`, a primitive), the value as it is: nothing to wait for that could hang.
 */
export function bounded<T>(batch: Batch, value: T, until: "abort" | "grace"): T | Promise<Awaited<T> | GaveUp> {
	const signal = batch.signal;
	if (signal === undefined || value === null || (typeof value !== "object" && typeof value !== "function"))
		return value;
	batch.cutoffs ??= new Cutoffs(signal, !batch.ownsSignal);
	return Promise.race([
		value as unknown as PromiseLike<Awaited<T>>,
		until === "abort" ? batch.cutoffs.aborted : batch.cutoffs.expired,
	]);
}
