/**
 * The calls of one inspector session, recorded for "Save as fixture": every batch the page (or, in
 * `toolsmith dev --ui`, the terminal) runs goes through `execute`, which runs it on the host and
 * reports it to the `RecordingEnv` the tools use, one fixture step per batch. Runtime-neutral.
 */
import type { ToolCall, ToolResultMessage } from "../contract/content.js";
import type { ToolExecutionEvent } from "../contract/events.js";
import type { ExecuteToolCallsConfig, ExecuteToolCallsResult } from "../exec/types.js";
import type { ReplayFixture } from "../harness/fixture.js";
import type { RecordingEnv } from "../harness/record.js";
import { notifyListeners } from "../shared/listeners.js";

/** Where a batch came from: the page, or the prompt of `toolsmith dev` beside it. */
export type CallOrigin = "page" | "terminal";

/** What a batch is run with besides its calls (the host adds the tools). */
export type SessionExecuteOptions = Omit<ExecuteToolCallsConfig, "tools">;

interface Recorded {
	readonly names: readonly string[];
	readonly origin: CallOrigin;
	aborted: boolean;
	/** Another batch ran at the same time: their file and command effects may be mixed up. */
	overlapped: boolean;
}

/** A batch as a listener of `onBatch` hears of it. */
export interface SessionBatch {
	readonly origin: CallOrigin;
	readonly calls: readonly ToolCall[];
	/** Abort the batch (its signal, whatever signal the caller gave). */
	abort(): void;
}

/** What a listener follows of one batch: its executor events and its end. */
export interface SessionBatchWatcher {
	onEvent?(event: ToolExecutionEvent): void;
	end?(results: readonly ToolResultMessage[], aborted: boolean): void;
}

/** What `InspectorSession.fixture` gives: the fixture, how many calls it holds, and what it left out. */
export interface SessionFixture {
	readonly fixture: ReplayFixture;
	readonly calls: number;
	readonly warnings: readonly string[];
}

export class InspectorSession {
	private readonly recorded: Recorded[] = [];
	private readonly inFlight = new Set<Recorded>();
	private readonly listeners = new Set<(batch: SessionBatch) => SessionBatchWatcher | undefined>();
	/** `recordBatch` calls run one after another, so step `i` of the recorder is `recorded[i]`. */
	private recording: Promise<void> = Promise.resolve();

	constructor(
		private readonly host: {
			execute(toolCalls: readonly ToolCall[], options?: SessionExecuteOptions): Promise<ExecuteToolCallsResult>;
		},
		/** The env the host's tools use, wrapped to record; without it, nothing is recorded. */
		readonly recorder?: RecordingEnv,
	) {}

	/** Hear every batch from its start (the page shows the terminal's calls this way). Returns an unsubscribe function. */
	onBatch(listener: (batch: SessionBatch) => SessionBatchWatcher | undefined): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Run a batch on the host and record it (never rejects when the host does not). */
	async execute(
		toolCalls: readonly ToolCall[],
		options: SessionExecuteOptions,
		origin: CallOrigin,
	): Promise<ExecuteToolCallsResult> {
		const entry: Recorded = {
			names: toolCalls.map((c) => c.name),
			origin,
			aborted: false,
			overlapped: this.inFlight.size > 0,
		};
		for (const other of this.inFlight) other.overlapped = true;
		this.inFlight.add(entry);
		const watchers: SessionBatchWatcher[] = [];
		// Listeners may abort the batch (the page's Abort on a call made at the prompt): the batch
		// runs on a signal of its own, aborted with the caller's.
		let controller: AbortController | undefined;
		const abort = () => {
			controller?.abort();
		};
		if (this.listeners.size > 0) {
			controller = new AbortController();
			const callerSignal = options.signal;
			if (callerSignal?.aborted) controller.abort();
			else callerSignal?.addEventListener("abort", abort, { once: true });
		}
		notifyListeners(
			[...this.listeners].map((listener) => (batch: SessionBatch) => {
				const watcher = listener(batch);
				if (watcher) watchers.push(watcher);
			}),
			{ origin, calls: toolCalls, abort },
		);
		const own = options.onEvent;
		const onEvent =
			watchers.length === 0
				? own
				: (event: ToolExecutionEvent) => {
						own?.(event);
						notifyListeners(
							watchers.map((watcher) => (value: ToolExecutionEvent) => watcher.onEvent?.(value)),
							event,
						);
					};
		const tell = (results: readonly ToolResultMessage[]) => {
			notifyListeners(
				watchers.map((watcher) => (value: readonly ToolResultMessage[]) => watcher.end?.(value, entry.aborted)),
				results,
			);
		};
		try {
			let outcome: ExecuteToolCallsResult;
			try {
				outcome = await this.host.execute(
					toolCalls,
					controller ? { ...options, onEvent, signal: controller.signal } : options,
				);
			} catch (error) {
				entry.aborted = (controller?.signal ?? options.signal)?.aborted === true;
				tell([]);
				throw error;
			} finally {
				options.signal?.removeEventListener("abort", abort);
			}
			entry.aborted = (controller?.signal ?? options.signal)?.aborted === true;
			tell(outcome.results);
			const recorder = this.recorder;
			if (recorder) {
				const step = this.recording.then(async () => {
					await recorder.recordBatch(toolCalls, outcome.results);
					this.recorded.push(entry);
				});
				this.recording = step.catch(() => {});
				await step;
			}
			return outcome;
		} finally {
			this.inFlight.delete(entry);
		}
	}

	/** How many batches a fixture would hold now. */
	recordedCalls(): number {
		return this.recorded.filter((r) => !r.aborted).length;
	}

	/**
	 * The fixture of the session so far: aborted batches are left out (a replay would not abort
	 * them); batches that overlapped another one are kept with a warning.
	 */
	async fixture(options: { readonly name?: string; readonly extensions?: readonly string[] }): Promise<SessionFixture> {
		const recorder = this.recorder;
		if (!recorder) throw new Error("This inspector does not record its calls, so it cannot save a fixture.");
		await this.recording;
		const full = await recorder.fixture({
			...(options.name ? { name: options.name } : {}),
			description: "Calls made in the toolsmith inspector, replayed against the files and commands they touched.",
		});
		const warnings: string[] = [];
		const steps = full.steps.filter((_, index) => {
			const entry = this.recorded[index];
			if (!entry) return true;
			if (entry.aborted) {
				warnings.push(`left out an aborted call of ${entry.names.join(", ")} (a replay would not abort it)`);
				return false;
			}
			if (entry.overlapped) {
				warnings.push(
					`a call of ${entry.names.join(", ")} ran at the same time as another one: the files and commands each touched may be attributed to the wrong step`,
				);
			}
			return true;
		});
		const terminal = this.recorded.filter((r) => r.origin === "terminal" && !r.aborted).length;
		if (terminal > 0) warnings.push(`${terminal} call${terminal === 1 ? "" : "s"} from the terminal included`);
		warnings.push(...recorder.warnings);
		const fixture: ReplayFixture = {
			...full,
			...(options.extensions && options.extensions.length > 0 ? { extensions: [...options.extensions] } : {}),
			steps,
		};
		return { fixture, calls: steps.reduce((n, s) => n + s.calls.length, 0), warnings };
	}
}
