/** Validating tool arguments on their own, outside a batch. */
import type { Static, TSchema } from "@sinclair/typebox";
import type { Result } from "../contract/result.js";
import { type CopiedArguments, copyArguments, validateArguments } from "./compiled-schema.js";
import type { ToolArgumentsError } from "./errors.js";

export { ToolArgumentsError, type ValidationIssue } from "./errors.js";

/** What validation needs of a tool: `AgentTool` and `ToolDefinition` both fit. */
export interface ValidatableTool<TParameters extends TSchema = TSchema> {
	readonly name: string;
	readonly parameters: TParameters;
}

/** Arguments parsed and copied, ready for `prepareArguments` and validation. */
export type ParsedArguments = CopiedArguments;

/**
 * Turns what the model sent into a private copy: a JSON string is parsed, an object is deep-copied
 * (the caller's object is never changed), `__proto__` keys are removed. Never throws.
 */
export function parseToolArguments(toolName: string, raw: unknown): Result<ParsedArguments, ToolArgumentsError> {
	return copyArguments(toolName, raw);
}

/**
 * Checks `args` against `tool.parameters` the way the executor does, without running anything.
 *
 * `args` may be an object or a JSON string; it is never modified. When it is valid as sent (plain
 * JSON without `__proto__`/`constructor`/`prototype` keys, for a schema without defaults), the
 * value returned is `args` itself; otherwise it is a repaired copy. Model slips are repaired on a
 * copy (numeric and boolean strings, numbers where strings are expected, `null` in an optional
 * field, objects or arrays sent as JSON strings) and schema defaults are filled in. The compiled
 * checker is cached per schema object, so keep schemas around rather than rebuilding them.
 *
 * Never throws. On failure the error (`ToolArgumentsError`, code `E_INVALID_ARGS`,
 * `E_INVALID_JSON` or `E_INVALID_TOOL`) lists every failing path in `issues`, and its message is
 * written for the model.
 */
export function validateToolArguments<TParameters extends TSchema>(
	tool: ValidatableTool<TParameters>,
	args: unknown,
): Result<Static<TParameters>, ToolArgumentsError> {
	return validateArguments(tool.name, tool.parameters, args) as Result<Static<TParameters>, ToolArgumentsError>;
}

/** `validateToolArguments` for code that prefers exceptions: returns the arguments or throws `ToolArgumentsError`. */
export function assertToolArguments<TParameters extends TSchema>(
	tool: ValidatableTool<TParameters>,
	args: unknown,
): Static<TParameters> {
	const result = validateToolArguments(tool, args);
	if (result.ok) return result.value;
	throw result.error;
}
