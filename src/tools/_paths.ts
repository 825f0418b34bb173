/** Turning the path a model sent into the absolute path the env should use. */
import type { ToolContext } from "../contract/tool.js";

/**
 * Models sometimes copy the `@file` mention syntax of chat UIs into arguments, so one leading `@`
 * is dropped.
 */
export function stripAtPrefix(path: string): string {
	return path.startsWith("@") ? path.slice(1) : path;
}

/**
 * The absolute path for `path`: relative paths resolve against the session's `ctx.cwd` (which is
 * usually the env's own cwd). Throws an Error naming the path when the env rejects it.
 */
export function resolveToolPath(ctx: ToolContext, rawPath: string): string {
	const path = stripAtPrefix(rawPath);
	const joined = path.startsWith("/") || !ctx.cwd || ctx.cwd === ctx.env.cwd ? path : `${ctx.cwd}/${path}`;
	const absolute = ctx.env.absolutePath(joined);
	if (!absolute.ok) throw new Error(`Invalid path ${JSON.stringify(rawPath)}: ${absolute.error.message}`);
	return absolute.value;
}

/** The error thrown when the signal fires; the same text the reference tools use. */
export function abortedError(): Error {
	return new Error("Operation aborted");
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
	if (signal?.aborted) throw abortedError();
}
