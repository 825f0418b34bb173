/**
 * Error codes of the toolsmith runtime (executor, registry, loader). Each `ToolsmithError` carries
 * one; match on `code`, never on the message.
 *
 * - `E_TOOL_NOT_FOUND`: a call named a tool that is not active.
 * - `E_INVALID_JSON`: a call's arguments were a string that is not valid JSON.
 * - `E_INVALID_ARGS`: a call's arguments did not match the tool's schema.
 * - `E_PREPARE_FAILED`: `prepareArguments` threw.
 * - `E_BLOCKED`: a `beforeToolCall` hook (or an extension's `tool_call` handler) blocked the call.
 * - `E_ABORTED`: the batch's signal fired before the call could run, or its tool or after-call hook
 *   was still pending when the abort's grace period ran out.
 * - `E_SKIPPED`: `shouldSkipRemaining` stopped the call from running.
 * - `E_TOOL_FAILED`: the tool threw (or the context factory building its `ctx` did).
 * - `E_BAD_RESULT`: the tool (or an after-call hook) returned something that is not a valid result,
 *   or one JSON cannot hold (cyclic, too deep, too large, a BigInt, a getter that throws).
 * - `E_INVALID_TOOL`: a tool definition broke a registration rule.
 * - `E_EXTENSION_LOAD`: an extension could not be loaded.
 * - `E_NOT_READY`: an API method was called before it is available (during extension load).
 * - `E_INCOMPATIBLE`: an extension requires a toolsmith API version this is not.
 * - `E_PROCESS_EXIT`: code called `process.exit` (or `reallyExit`, `abort`) while a host refuses it.
 * - `E_INVALID_MCP_SERVER`: `registerMcpServer` got an invalid name or config, or a name another
 *   extension registered.
 */
export type ToolsmithErrorCode =
	| "E_TOOL_NOT_FOUND"
	| "E_INVALID_JSON"
	| "E_INVALID_ARGS"
	| "E_PREPARE_FAILED"
	| "E_BLOCKED"
	| "E_ABORTED"
	| "E_SKIPPED"
	| "E_TOOL_FAILED"
	| "E_BAD_RESULT"
	| "E_INVALID_TOOL"
	| "E_EXTENSION_LOAD"
	| "E_NOT_READY"
	| "E_INCOMPATIBLE"
	| "E_PROCESS_EXIT"
	| "E_INVALID_MCP_SERVER";

/** The error toolsmith throws for misuse (an invalid tool, a name clash, an incompatible extension); `code` says which kind, the message says what to do. */
export class ToolsmithError extends Error {
	override readonly name = "ToolsmithError";
	readonly code: ToolsmithErrorCode;

	constructor(code: ToolsmithErrorCode, message: string, options?: { cause?: unknown }) {
		super(message, options);
		this.code = code;
	}
}

/** What `errorMessage` says of a thrown value none of whose parts can be read. */
const UNREADABLE = "a thrown value that cannot be read (its getters or proxy traps throw)";
/** What `describeValue` says of a value none of whose parts can be read. */
const UNREADABLE_VALUE = "a value that cannot be read (its getters or proxy traps throw)";

/** Runs `read`, or gives `undefined` when it throws: for values whose getters or proxy traps may throw. */
function attempt<T>(read: () => T): T | undefined {
	try {
		return read();
	} catch {
		return undefined;
	}
}

/** The ladder behind `errorMessage` and `describeValue`; `unreadable` is what it says when nothing can be read. */
function describeAny(value: unknown, unreadable: string): string {
	if (typeof value === "string") return value;
	if (value === undefined) return "undefined";
	if (typeof value !== "object" && typeof value !== "function") return String(value);
	if (value === null) return "null";
	if (attempt(() => value instanceof Error) === true) {
		const message = attempt(() => (value as Error).message);
		if (typeof message === "string" && message !== "") return message;
		const name = attempt(() => (value as Error).name);
		const label = typeof name === "string" && name !== "" ? name : "Error";
		return message === undefined ? `${label} (its message cannot be read)` : label;
	}
	const json = attempt(() => JSON.stringify(value));
	if (typeof json === "string") return json;
	const text = attempt(() => String(value));
	if (typeof text === "string") return text;
	const keys = attempt(() => Object.keys(value));
	if (keys !== undefined) {
		const shown = keys.slice(0, 10).join(", ");
		return `an object that cannot be serialized (keys: ${shown === "" ? "none" : shown}${keys.length > 10 ? ", …" : ""})`;
	}
	return unreadable;
}

/**
 * The message of anything thrown: `Error#message`, a string as is, other values as JSON or `String()`.
 * Total: it never throws, whatever the value (a cyclic null-prototype object, an `Error` whose
 * `message` getter throws, a Proxy whose traps throw); what cannot be read is described instead.
 */
export function errorMessage(value: unknown): string {
	return describeAny(value, UNREADABLE);
}

/**
 * Any value as text for a message, cut to `limit` characters (default 200): what `errorMessage`
 * gives, so a string as is, an object as JSON or `String()`. Total like `errorMessage`: for values
 * from outside (model arguments, what tools, extensions and callbacks hand over) where `String(x)`
 * could throw (an object whose `toString` throws, a null-prototype object, a revoked Proxy).
 */
export function describeValue(value: unknown, limit = 200): string {
	const text = describeAny(value, UNREADABLE_VALUE);
	return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** A string JSON-quoted, anything else as `describeValue` gives it: for naming a value in a message. Never throws. */
export function quoted(value: unknown): string {
	return typeof value === "string" ? JSON.stringify(value) : describeValue(value);
}
