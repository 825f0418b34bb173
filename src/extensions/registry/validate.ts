/** The rules a tool definition must keep to be registered. */
import { describeValue } from "../../contract/errors.js";
import { isToolExposure } from "../../contract/exposure.js";
import type { ToolDefinition } from "../../contract/tool.js";

const NAME_RULE = /^[a-zA-Z0-9_-]{1,64}$/;

/** Reasons a definition cannot be registered, each naming the rule. */
export function validateToolDefinition(definition: unknown): string[] {
	if (typeof definition !== "object" || definition === null) return ["a tool definition must be an object"];
	const def = definition as Record<string, unknown>;
	const problems: string[] = [];
	const name = def.name;
	if (typeof name !== "string" || !NAME_RULE.test(name)) {
		problems.push(
			`name ${typeof name === "string" ? JSON.stringify(name) : describeValue(name)} must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, "_" and "-", at most 64)`,
		);
	}
	if (typeof def.description !== "string" || def.description.trim() === "") {
		problems.push("description must be a non-empty string (the model reads it to decide when to call the tool)");
	}
	const parameters = def.parameters as { type?: unknown } | undefined;
	if (typeof parameters !== "object" || parameters === null || parameters.type !== "object") {
		problems.push('parameters must be an object schema (Type.Object({...}), JSON Schema with type "object")');
	}
	if (typeof def.execute !== "function") problems.push("execute must be a function");
	if (def.exposure !== undefined && !isToolExposure(def.exposure)) {
		problems.push(
			`exposure ${typeof def.exposure === "string" ? JSON.stringify(def.exposure) : describeValue(def.exposure)} must be one of "direct", "model-only", "codemode", "deferred", "hidden"`,
		);
	}
	const namespace = def.namespace as { name?: unknown } | undefined;
	if (
		namespace !== undefined &&
		(typeof namespace !== "object" || namespace === null || typeof namespace.name !== "string")
	) {
		problems.push("namespace must be an object with a string name");
	}
	for (const hook of ["prepareLoadout", "reachesTools"] as const) {
		if (def[hook] !== undefined && typeof def[hook] !== "function") problems.push(`${hook} must be a function`);
	}
	return problems;
}

/** A tool's name quoted, for messages, or `(unnamed)`. */
export function toolLabel(definition: ToolDefinition): string {
	return typeof definition.name === "string" ? `"${definition.name}"` : "(unnamed)";
}
