/**
 * What a command may touch, as one object: the real process in `main.ts`, fakes in tests. Commands
 * never reach for `process` themselves.
 */
import { type Readable, Writable } from "node:stream";
import type { Theme } from "../contract/render.js";
import { ansiTheme, plainTheme } from "../render/theme.js";

/** The slice of a writable stream the CLI uses. */
export interface CliOutput {
	write(chunk: string): unknown;
	readonly isTTY?: boolean;
	readonly columns?: number;
}

export interface CliIO {
	readonly stdout: CliOutput;
	readonly stderr: CliOutput;
	readonly stdin: Readable & { readonly isTTY?: boolean };
	readonly env: Readonly<Record<string, string | undefined>>;
	/** The folder the command was started in. */
	readonly cwd: string;
	/**
	 * Register a Ctrl-C (SIGINT) handler; while one is registered the process does not die on
	 * Ctrl-C. Returns a function that removes it. Handlers must not throw.
	 */
	onInterrupt(handler: () => void): () => void;
	/** Register a SIGTERM handler (the process then does not die on SIGTERM); returns its remover. */
	onTerminate?(handler: () => void): () => void;
	/**
	 * Keep stdout for one writer: from now on everything else written there (`console.log`, any
	 * `process.stdout.write`) goes to stderr. Returns the writer that still reaches stdout, for a
	 * protocol that owns it (`toolsmith mcp` over stdio).
	 */
	reserveStdout?(): Writable;
	/**
	 * Register a handler for when the process has nothing left to do while a command still awaits
	 * (Node would exit with code 13 without running anything else); returns its remover.
	 */
	onIdle?(handler: () => void): () => void;
}

/**
 * Whether to color what goes to `stream`. `FORCE_COLOR` decides when set (`0` or `false` turns color
 * off, anything else on); otherwise a non-empty `NO_COLOR` turns it off; otherwise color is used only
 * on a terminal (and not when `TERM` is `dumb`).
 */
export function shouldUseColor(stream: CliOutput, env: Readonly<Record<string, string | undefined>>): boolean {
	const force = env.FORCE_COLOR;
	if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
	if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
	if (env.TERM === "dumb") return false;
	return stream.isTTY === true;
}

/** The theme for `stream`: ANSI when it should be colored, plain otherwise. */
export function themeFor(stream: CliOutput, env: Readonly<Record<string, string | undefined>>): Theme {
	return shouldUseColor(stream, env) ? ansiTheme : plainTheme;
}

/** Columns to lay output out in: the terminal's width, else `COLUMNS`, else 100. */
export function outputWidth(stream: CliOutput, env: Readonly<Record<string, string | undefined>>): number {
	if (stream.isTTY && stream.columns && stream.columns > 0) return stream.columns;
	const fromEnv = Number.parseInt(env.COLUMNS ?? "", 10);
	return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : 100;
}

/** The real process as a `CliIO`: for the executables (`toolsmith`, `create-toolsmith`) only. */
export function processIO(): CliIO {
	return {
		stdout: process.stdout,
		stderr: process.stderr,
		stdin: process.stdin,
		env: process.env,
		cwd: process.cwd(),
		onInterrupt(handler) {
			process.on("SIGINT", handler);
			return () => process.off("SIGINT", handler);
		},
		onTerminate(handler) {
			process.on("SIGTERM", handler);
			return () => process.off("SIGTERM", handler);
		},
		onIdle(handler) {
			process.on("beforeExit", handler);
			return () => process.off("beforeExit", handler);
		},
		reserveStdout() {
			const stdout = process.stdout;
			const write = stdout.write.bind(stdout);
			stdout.write = ((...args: Parameters<typeof stdout.write>) =>
				(process.stderr.write as (...a: unknown[]) => boolean)(...args)) as typeof stdout.write;
			const reserved = new Writable({
				write(chunk: Buffer | string, _encoding, callback) {
					if (write(chunk)) callback();
					else stdout.once("drain", () => callback());
				},
				final(callback) {
					callback();
				},
			});
			// A reader gone away (EPIPE) fails the reserved writer, whose owner hears it, instead of
			// crashing the process with an unhandled stream error.
			stdout.on("error", (error) => reserved.destroy(error));
			return reserved;
		},
	};
}
