/**
 * The `dev` loop's state: the host, the terminal, the call running now, the live region it redraws,
 * the input queue, and how the loop ends; with the printing and ending every step shares.
 */
import type { Interface } from "node:readline";
import { EXIT_INTERRUPTED } from "../command/node-command.js";
import { type CliIO, outputWidth } from "../command/node-io.js";
import { errorMessage } from "../contract/errors.js";
import type { Theme } from "../contract/render.js";
import type { RegisteredCommand } from "../extensions/api.js";
import type { ToolEntry } from "../extensions/registry.js";
import type { RenderedBlock } from "../render/renderer.js";
import type { DevHost } from "./_dev-host.js";
import { followHostLog, type HostLog } from "./_host-log.js";

export interface DevLoopOptions {
	readonly io: CliIO;
	readonly theme: Theme;
	/** Folder paths are shown relative to. */
	readonly cwd: string;
	/** Prompt, line editing and live partial output (stdin and stdout are terminals). */
	readonly interactive: boolean;
}

/** The live region a running call redraws in place on a terminal. */
export const LIVE_LINES = 8;

/** The active tools, built-ins and extension tools, in registry order. */
export const activeTools = (host: DevHost): readonly ToolEntry[] => host.registry.snapshot().active;

/** The commands the active extensions registered, in load order. */
export const extensionCommands = (host: DevHost): RegisteredCommand[] => host.extensions().flatMap((e) => e.commands);

/** Everything one run of the loop keeps between input lines. */
export interface DevLoopState extends DevLoopOptions {
	readonly host: DevHost;
	readonly rl: Interface;
	/** How long lines are shown: cut to the terminal's width, or kept whole when piped. */
	readonly overflow: "truncate" | "keep";
	/** Resolves to the exit code when the loop has ended. */
	readonly exited: Promise<number>;
	readonly resolveExit: (code: number) => void;
	/** The host's reloads and diagnostics, printed as they come. */
	hostLog: HostLog;
	/** Stops listening for Ctrl-C. */
	removeInterrupt: () => void;
	/** Lines that could not be run (a piped run then exits with 1). */
	inputErrors: number;
	/** Calls made so far (their ids count up). */
	callCounter: number;
	/** Results shown in full (`expand on`) or as a preview. */
	expanded: boolean;
	/** The call running now. */
	running: AbortController | undefined;
	/** Lines of the live region on screen now. */
	liveLines: number;
	/** A Ctrl-C was pressed: the next one exits. */
	armedToExit: boolean;
	finished: boolean;
	/** Input lines not run yet. */
	readonly queue: string[];
	/** Running the queue now. */
	pumping: boolean;
	/** The input has ended: the loop ends once the queue is run. */
	inputClosed: boolean;
}

/** A fresh state over `host` reading `rl`; it prints the host's log and hears Ctrl-C from now on. */
export function createDevLoopState(host: DevHost, options: DevLoopOptions, rl: Interface): DevLoopState {
	let resolveExit!: (code: number) => void;
	const exited = new Promise<number>((r) => {
		resolveExit = r;
	});
	const state: DevLoopState = {
		...options,
		host,
		rl,
		overflow: options.interactive ? "truncate" : "keep",
		exited,
		resolveExit,
		hostLog: { flush() {}, stop() {} },
		removeInterrupt: () => undefined,
		inputErrors: 0,
		callCounter: 0,
		expanded: true,
		running: undefined,
		liveLines: 0,
		armedToExit: false,
		finished: false,
		queue: [],
		pumping: false,
		inputClosed: false,
	};
	state.hostLog = followHostLog(host, {
		cwd: options.cwd,
		theme: options.theme,
		print: (lines) => printAsync(state, lines),
	});
	state.removeInterrupt = options.io.onInterrupt(() => interrupt(state));
	rl.on("SIGINT", () => interrupt(state));
	return state;
}

export function out(state: DevLoopState, text: string): void {
	state.io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

/** Reports a line that could not be run. */
export function fail(state: DevLoopState, text: string): void {
	state.inputErrors++;
	state.io.stderr.write(`${text}\n`);
}

/** The terminal's columns (or the default when piped). */
export function width(state: DevLoopState): number {
	return outputWidth(state.io.stdout, state.io.env);
}

/** Erases the live region. */
export function clearLive(state: DevLoopState): void {
	if (state.liveLines > 0) state.io.stdout.write(`\x1b[${state.liveLines}A\r\x1b[J`);
	state.liveLines = 0;
}

/** Prints lines that arrive while the user types (reloads) without garbling the prompt line. */
export function printAsync(state: DevLoopState, lines: readonly string[]): void {
	const { interactive, running } = state;
	if (interactive && !running) state.io.stdout.write("\r\x1b[K");
	if (interactive && running) clearLive(state);
	out(state, lines.join("\n"));
	if (interactive && !running && !state.finished) state.rl.prompt(true);
}

export function printBlock(state: DevLoopState, block: RenderedBlock, indent: string): void {
	if (block.lines.length > 0) out(state, block.lines.map((l) => indent + l).join("\n"));
	if (block.error) out(state, `${indent}${state.theme.fg("warning", `! ${block.error}`)}`);
}

/** Ends the loop once: aborts the call running, stops following, closes the host, resolves `exited` with `code`. */
export async function finish(state: DevLoopState, code: number): Promise<void> {
	if (state.finished) return;
	state.finished = true;
	state.running?.abort();
	state.hostLog.stop();
	state.removeInterrupt();
	state.rl.close();
	try {
		await state.host.close();
	} catch (error) {
		state.io.stderr.write(`closing the host failed: ${errorMessage(error)}\n`);
	}
	state.resolveExit(code);
}

/** Ctrl-C: aborts the call running, else arms the exit; a second one exits. */
export function interrupt(state: DevLoopState): void {
	const { running, theme, interactive } = state;
	if (state.finished) return;
	if (running && !running.signal.aborted) {
		running.abort();
		state.armedToExit = true;
		clearLive(state);
		out(state, theme.fg("warning", "^C aborting the call (Ctrl-C again to exit)"));
		return;
	}
	if (state.armedToExit) {
		out(state, "");
		void finish(state, EXIT_INTERRUPTED);
		return;
	}
	state.armedToExit = true;
	out(state, theme.fg("muted", interactive ? "\n(Ctrl-C again to exit, or type exit)" : "(Ctrl-C again to exit)"));
	if (interactive && !running) state.rl.prompt();
}
