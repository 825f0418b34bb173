/** What the runtime reads from a failure: a timeout, a refused `process.exit`, and where in a file it happened. */
import { ToolsmithError } from "../../contract/errors.js";

/** A factory or handler that did not settle in time. */
export class TimeoutError extends Error {}

/** Whether `error` is a host's refusal of `process.exit` (see `refuseProcessExit` of the Node host). */
export function refusedExit(error: unknown): boolean {
	try {
		return error instanceof ToolsmithError && error.code === "E_PROCESS_EXIT";
	} catch {
		return false;
	}
}

/** Line and column of the first stack frame inside `path`, when the error has a stack. */
export function errorPosition(error: unknown, path: string): { line?: number; column?: number } {
	const stack = error instanceof Error ? error.stack : undefined;
	if (!stack) return {};
	for (const frame of stack.split("\n")) {
		const at = frame.indexOf(path);
		if (at < 0) continue;
		const match = /^:(\d+):(\d+)/.exec(frame.slice(at + path.length));
		if (match) return { line: Number(match[1]), column: Number(match[2]) };
	}
	return {};
}
