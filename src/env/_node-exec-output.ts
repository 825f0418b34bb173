/**
 * The output side of a running command, shared by NodeExecutionEnv and SshExecutionEnv (Node
 * only): each chunk of stdout and stderr is captured (when asked) and handed to its listener; a
 * listener's promise holds its stream back until it settles (backpressure, see `ExecOptions`), and
 * chunks that arrive meanwhile wait in order. What the supervisor needs to know for the drain after
 * the shell exits (when output last came, whether a stream is held) is on the pump.
 */
import type { Readable } from "node:stream";
import type { ExecOptions } from "../contract/env.js";
import { isThenable } from "./errors.js";

/** Bytes taken out of stderr before anyone sees them (the SSH env's markers), and what is left at its end. */
export interface StderrFilter {
	push(chunk: Buffer): Buffer;
	flush(): Buffer;
}

/** The state of a command's output, as its supervisor reads it. */
export interface OutputPump {
	/** What was captured so far (empty unless output is captured). */
	readonly captured: { stdout: string; stderr: string };
	/** When output last arrived, or a held stream was let go (time held back is not silence). */
	lastOutputAt: number;
	/** Streams held back by a listener's pending promise. */
	paused: number;
	/** Called when the last held stream is let go. */
	onUnpaused: (() => void) | undefined;
	/** Stop honouring backpressure: deliver what waits, and let every stream flow. */
	releaseAll(): void;
	/** Add what the decoders still hold to `captured` (once, at the end). */
	endCapture(): void;
}

/** Start pumping `streams` to `options`' listeners (and into `captured` when output is captured). */
export function pumpOutput(
	streams: { readonly stdout: Readable | null; readonly stderr: Readable | null },
	options: ExecOptions,
	stderrFilter?: StderrFilter,
): OutputPump {
	const capture = options.captureOutput ?? (options.onStdout === undefined && options.onStderr === undefined);
	const decoders = {
		stdout: new TextDecoder("utf-8", { ignoreBOM: true }),
		stderr: new TextDecoder("utf-8", { ignoreBOM: true }),
	};
	const releasers: (() => void)[] = [];
	let unpausable = false;
	const pump: OutputPump = {
		captured: { stdout: "", stderr: "" },
		lastOutputAt: Date.now(),
		paused: 0,
		onUnpaused: undefined,
		releaseAll() {
			unpausable = true;
			for (const release of releasers) release();
		},
		endCapture() {
			if (!capture) return;
			for (const stream of ["stdout", "stderr"] as const) pump.captured[stream] += decoders[stream].decode();
		},
	};
	const listen = (stream: "stdout" | "stderr") => {
		const listener = stream === "stdout" ? options.onStdout : options.onStderr;
		const source = streams[stream];
		if (!source) return;
		/** The pending promise holding this stream back, if any. */
		let holder: object | undefined;
		/**
		 * Chunks that arrived while held. Pausing stops the flow, but Node resumes a child's
		 * streams itself once the child exits; such chunks wait here, in order, and the stream
		 * is paused again at once, so this holds at most a chunk per unwanted resume.
		 */
		const waiting: Uint8Array[] = [];
		const deliver = (chunk: Uint8Array) => {
			let returned: unknown;
			try {
				returned = listener?.(chunk);
				if (!isThenable(returned)) return;
			} catch {
				// A listener's failure must not change the command's outcome (see ExecOptions).
				return;
			}
			const token = {};
			// Caught here as well: a rejection is swallowed like a throw, never left unhandled.
			const release = () => {
				if (holder === token) resume();
			};
			Promise.resolve(returned).then(release, release);
			if (unpausable) return;
			holder = token;
			pump.paused++;
			// The pipe fills up while paused and the writer blocks: memory stays bounded.
			source.pause();
		};
		const resume = () => {
			if (holder === undefined) return;
			holder = undefined;
			pump.paused--;
			// Time spent held back is not silence: the drain after exit starts counting anew.
			pump.lastOutputAt = Date.now();
			while (holder === undefined && waiting.length > 0) deliver(waiting.shift() as Uint8Array);
			if (holder !== undefined) return;
			if (!source.destroyed) source.resume();
			if (pump.paused === 0) pump.onUnpaused?.();
		};
		releasers.push(resume);
		const take = (buffer: Buffer) => {
			if (buffer.length === 0) return;
			pump.lastOutputAt = Date.now();
			const chunk = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
			if (capture) pump.captured[stream] += decoders[stream].decode(chunk, { stream: true });
			if (holder === undefined) return deliver(chunk);
			waiting.push(chunk);
			source.pause();
		};
		const filter = stream === "stderr" ? stderrFilter : undefined;
		source.on("data", (buffer: Buffer) => take(filter ? filter.push(buffer) : buffer));
		if (filter) source.on("end", () => take(filter.flush()));
		// A destroyed or broken pipe must not become an unhandled 'error' event.
		source.on("error", () => undefined);
	};
	listen("stdout");
	listen("stderr");
	return pump;
}
