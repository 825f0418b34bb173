/**
 * Where each tool definition was written: the caller of `defineTool`, taken from a stack trace
 * captured when it ran. Hosts show it as the tool's file (an extension's entry often only imports
 * its tools from modules of their own). Runtime-neutral: without V8's `Error.captureStackTrace`, or
 * for a definition `defineTool` never saw, there is no site.
 */

/** Stack holders by definition; the stack is only formatted when a site is asked for. */
const sites = new WeakMap<object, { stack?: string }>();

type CaptureStackTrace = (target: object, constructorOpt?: (...args: never[]) => unknown) => void;

/** Note the caller of `below` (a function on the stack now) as the place `definition` was written. */
export function noteDefinitionSite(definition: object, below: (...args: never[]) => unknown): void {
	const capture = (Error as { captureStackTrace?: CaptureStackTrace }).captureStackTrace;
	if (typeof capture !== "function" || typeof definition !== "object" || definition === null) return;
	const holder: { stack?: string } = {};
	capture(holder, below);
	sites.set(definition, holder);
}

/** A location as a stack frame gives it: a path or a `file://` URL, a 1-based line and column. */
export interface DefinitionSite {
	readonly file: string;
	readonly line: number;
	readonly column: number;
}

/**
 * The first stack frame of the call that made `definition`: `at fn (file:1:2)` or `at file:1:2`.
 * Undefined when `defineTool` did not make it or the frame names no file (native code, `eval`).
 */
export function definitionSite(definition: object): DefinitionSite | undefined {
	const stack = sites.get(definition)?.stack;
	if (typeof stack !== "string") return undefined;
	const frame = stack.split("\n").find((line) => /^\s+at /.test(line));
	if (frame === undefined) return undefined;
	const match = /(?:\(|at )((?:file:\/\/|\/|[A-Za-z]:[\\/])[^()]*?):(\d+):(\d+)\)?\s*$/.exec(frame);
	if (!match) return undefined;
	return { file: match[1] as string, line: Number(match[2]), column: Number(match[3]) };
}
