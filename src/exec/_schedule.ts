/**
 * The order in which a batch's calls run: one after another (`runSequential`), or prepared one after
 * another and then run together (`runParallel`). Both settle once every call has its result.
 */
import { askSkip, type Batch, emitEnd, emitStart } from "./_batch.js";
import { ABORTED_TEXT, type Call, failCall, isDone, SKIPPED_TEXT } from "./_call.js";
import { launch, waitForTool } from "./_execute-call.js";
import { after, before } from "./_hooks.js";
import { NestedHandle } from "./_nested-call.js";
import { prepare } from "./_prepare.js";

/** Each call is prepared, run and finalized before the next one starts. */
export async function runSequential(batch: Batch, calls: readonly Call[]): Promise<void> {
	let skipping = false;
	for (const c of calls) {
		emitStart(batch, c);
		if (batch.signal?.aborted) failCall(c, ABORTED_TEXT, "E_ABORTED");
		else if (skipping) failCall(c, SKIPPED_TEXT, "E_SKIPPED");
		else {
			prepare(batch, c);
			if (!isDone(c)) await before(batch, c);
			if (!isDone(c) && batch.signal?.aborted) failCall(c, ABORTED_TEXT, "E_ABORTED");
			if (!isDone(c)) {
				launch(batch, c, new NestedHandle(batch, c));
				if (!isDone(c)) await waitForTool(batch, c);
				if (typeof batch.config.afterToolCall === "function") await after(batch, c);
			}
			skipping = askSkip(batch.config);
		}
		emitEnd(batch, c);
	}
}

/**
 * As in the reference, every call is prepared (start event, preparation, `beforeToolCall`, one
 * after another in source order: a hook may ask a person) before any tool runs, so a confirmation
 * asked for the last call is answered before the first one starts. A call that cannot run ends
 * right after its start. Then the calls launch in source order, at most `batch.limit` at once,
 * and each one ends as soon as it is finished: a fast call is reported before a slow one that
 * came before it. `afterToolCall` hooks run one after another, in the order the tools settle.
 */
export async function runParallel(batch: Batch, calls: readonly Call[]): Promise<void> {
	const hooked = typeof batch.config.beforeToolCall === "function";
	let skipping = false;
	for (const c of calls) {
		emitStart(batch, c);
		if (batch.signal?.aborted) failCall(c, ABORTED_TEXT, "E_ABORTED");
		else {
			if (!skipping) skipping = askSkip(batch.config);
			if (skipping) failCall(c, SKIPPED_TEXT, "E_SKIPPED");
			else prepare(batch, c);
		}
		if (!isDone(c) && hooked) {
			await before(batch, c);
			if (!isDone(c) && batch.signal?.aborted) failCall(c, ABORTED_TEXT, "E_ABORTED");
		}
		if (isDone(c)) emitEnd(batch, c);
	}

	// Each call holds a slot from its launch until its tool settled.
	const slots = calls.length > batch.limit ? new Slots(batch.limit, batch.signal) : undefined;
	const afterHooks: AfterHookQueue = { tail: undefined };
	const running: Promise<void>[] = [];
	for (const c of calls) {
		if (isDone(c)) continue;
		if (slots) {
			const waiting = slots.acquire();
			if (waiting) await waiting;
		}
		// The batch may have been aborted since the call was prepared.
		if (batch.signal?.aborted) {
			failCall(c, ABORTED_TEXT, "E_ABORTED");
			emitEnd(batch, c);
			slots?.release();
			continue;
		}
		running.push(runPrepared(batch, c, afterHooks));
		if (slots) {
			if (c.running) void c.running.then(() => slots.release());
			else slots.release();
		}
	}
	await Promise.all(running);
}

/** The `afterToolCall` hooks of a parallel batch, chained in the order the tools settle. */
interface AfterHookQueue {
	tail: Promise<void> | undefined;
}

/** Runs a prepared call of a parallel batch to its end: the tool, the `afterToolCall` hook in its turn, the end event. */
async function runPrepared(batch: Batch, c: Call, afterHooks: AfterHookQueue): Promise<void> {
	launch(batch, c, new NestedHandle(batch, c));
	if (!isDone(c)) await waitForTool(batch, c);
	if (typeof batch.config.afterToolCall === "function") {
		const previous = afterHooks.tail;
		const turn = previous ? previous.then(() => after(batch, c)) : after(batch, c);
		afterHooks.tail = turn;
		await turn;
	}
	emitEnd(batch, c);
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
