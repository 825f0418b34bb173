/**
 * Preparing a call: the tool it names, then its arguments (parsed, `prepareArguments`, validated
 * with the repair of model slips). Synchronous; a call that cannot run gets its error result here.
 */
import { errorMessage } from "../contract/errors.js";
import { type Batch, toolMap } from "./_batch.js";
import { type Call, failCall } from "./_call.js";
import { copyArguments, validateArguments, validateOwned } from "./compiled-schema.js";
import type { ToolArgumentsError } from "./errors.js";
import { cloneArguments } from "./json.js";

/** Finds the call's tool and validates its arguments into `c.args`, or gives the call its error result. */
export function prepare(batch: Batch, c: Call): void {
	try {
		prepareCall(batch, c);
	} catch (error) {
		// A getter of the tool or of the arguments threw: this call fails, the others go on.
		failCall(
			c,
			`Could not read the arguments or the definition of tool ${c.name}: ${errorMessage(error)}`,
			"E_INVALID_ARGS",
		);
	}
}

function prepareCall(batch: Batch, c: Call): void {
	const tool = c.tool;
	if (c.toolProblem !== undefined) {
		failCall(
			c,
			`The definition of tool ${c.name} cannot be read: ${c.toolProblem}. Fix the tool definition.`,
			"E_TOOL_FAILED",
		);
		return;
	}
	if (tool === undefined) {
		const available = [...toolMap(batch.tools).keys()];
		const list = available.length > 0 ? `Available tools: ${available.join(", ")}.` : "No tools are available.";
		failCall(c, `Tool ${c.name} not found. ${list}`, "E_TOOL_NOT_FOUND", { availableTools: available });
		return;
	}
	if (typeof tool.prepareArguments !== "function") {
		const validated = validateArguments(c.name, tool.parameters, c.raw);
		if (validated.ok) c.args = validated.value;
		else failValidation(c, validated.error);
		return;
	}
	const copied = copyArguments(c.name, c.raw);
	if (!copied.ok) {
		failCall(c, copied.error.message, copied.error.code);
		return;
	}
	let value = copied.value.value;
	let sawHostileKey = copied.value.sawHostileKey;
	try {
		const prepared = tool.prepareArguments(value);
		if (prepared !== value) {
			// The shim may hand back objects it keeps (constants, caches): validation must not edit them.
			const state = { sawHostileKey };
			value = cloneArguments(prepared, state);
			sawHostileKey = state.sawHostileKey;
		}
	} catch (error) {
		failCall(c, `Could not prepare the arguments of tool ${c.name}: ${errorMessage(error)}`, "E_PREPARE_FAILED");
		return;
	}
	const validated = validateOwned(c.name, tool.parameters, value, sawHostileKey, c.raw);
	if (validated.ok) c.args = validated.value;
	else failValidation(c, validated.error);
}

function failValidation(c: Call, error: ToolArgumentsError): void {
	failCall(c, error.message, error.code, error.issues.length > 0 ? { issues: error.issues } : undefined);
}
