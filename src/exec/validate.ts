/** Validating tool arguments on their own, outside a batch. */
import type { Static, TSchema } from "@sinclair/typebox";
import { errorMessage } from "../contract/errors.js";
import { err, ok, type Result } from "../contract/result.js";
import { cloneArguments, type HostileKeyState, parseJsonArguments } from "./_json.js";
import { previewReceived, ToolArgumentsError, validateOwned } from "./_validate.js";

export { ToolArgumentsError, type ValidationIssue } from "./_validate.js";

/** What validation needs of a tool: `AgentTool` and `ToolDefinition` both fit. */
export interface ValidatableTool<TParameters extends TSchema = TSchema> {
	readonly name: string;
	readonly parameters: TParameters;
}

/** Arguments parsed and copied, ready for `prepareArguments` and validation. */
export interface ParsedArguments {
	readonly value: unknown;
	readonly sawHostileKey: boolean;
}

/**
 * Turns what the model sent into a private copy: a JSON string is parsed, an object is deep-copied
 * (the caller's object is never changed), `__proto__` keys are removed.
 */
export function parseToolArguments(toolName: string, raw: unknown): Result<ParsedArguments, ToolArgumentsError> {
	const state: HostileKeyState = { sawHostileKey: false };
	if (typeof raw === "string") {
		const parsed = parseJsonArguments(raw, state);
		if (!parsed.ok) {
			return err(
				new ToolArgumentsError(
					"E_INVALID_JSON",
					toolName,
					`Invalid arguments for tool "${toolName}": they are not valid JSON (${parsed.error}).\n\n` +
						`Received arguments:\n${previewReceived(raw)}\n\n` +
						"Send the arguments as one JSON object and call the tool again.",
				),
			);
		}
		return ok({ value: parsed.value, sawHostileKey: state.sawHostileKey });
	}
	try {
		const value = raw === undefined ? {} : cloneArguments(raw, state);
		return ok({ value, sawHostileKey: state.sawHostileKey });
	} catch (error) {
		return err(
			new ToolArgumentsError(
				"E_INVALID_ARGS",
				toolName,
				`Invalid arguments for tool "${toolName}": ${errorMessage(error)}`,
			),
		);
	}
}

/**
 * Checks `args` against `tool.parameters` the way the executor does, without running anything.
 *
 * `args` may be an object or a JSON string; it is never modified. Model slips are repaired on a
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
	const parsed = parseToolArguments(tool.name, args);
	if (!parsed.ok) return parsed;
	return validateOwned(tool.name, tool.parameters, parsed.value.value, parsed.value.sawHostileKey, args) as Result<
		Static<TParameters>,
		ToolArgumentsError
	>;
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
