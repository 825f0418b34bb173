/** The error of argument validation. */
import { ToolsmithError } from "../contract/errors.js";

/** One failing place in the arguments. */
export interface ValidationIssue {
	/** JSON pointer of the failing value (`""` for the root, `/edits/0/oldText` deeper). */
	readonly path: string;
	/** What the schema wants there, e.g. `number`, `"celsius" | "fahrenheit"`, `string (minLength 1)`. */
	readonly expected: string;
	/** Short JSON of what was received there; `undefined` when the value is missing. */
	readonly received: string | undefined;
	/** One line for people and models, e.g. `/limit: expected integer, received "ten"`. */
	readonly message: string;
}

/**
 * Arguments that do not fit a tool's schema (`E_INVALID_ARGS`), are not valid JSON
 * (`E_INVALID_JSON`), or a schema that cannot be compiled (`E_INVALID_TOOL`). The message is
 * written for the model: every failing path, then the received arguments.
 */
export class ToolArgumentsError extends ToolsmithError {
	readonly toolName: string;
	readonly issues: readonly ValidationIssue[];

	constructor(
		code: "E_INVALID_ARGS" | "E_INVALID_JSON" | "E_INVALID_TOOL",
		toolName: string,
		message: string,
		issues: readonly ValidationIssue[] = [],
	) {
		super(code, message);
		this.toolName = toolName;
		this.issues = issues;
	}
}

/**
 * A `ToolArgumentsError` without a stack trace. Bad arguments are data, not a bug: the stack says
 * nothing useful, and capturing it costs more than the whole validation (models send bad
 * arguments often). Engines without `Error.stackTraceLimit` simply ignore the setting.
 */
export function argumentsError(
	code: "E_INVALID_ARGS" | "E_INVALID_JSON" | "E_INVALID_TOOL",
	toolName: string,
	message: string,
	issues?: readonly ValidationIssue[],
): ToolArgumentsError {
	const errorClass = Error as { stackTraceLimit?: number };
	const limit = errorClass.stackTraceLimit;
	errorClass.stackTraceLimit = 0;
	try {
		return new ToolArgumentsError(code, toolName, message, issues);
	} finally {
		errorClass.stackTraceLimit = limit;
	}
}
