/**
 * pi 1.x's `constrainedSampling` as the provider converters send it: the strict JSON Schema subset
 * a `json_schema` tool's parameters are made into, and the grammar a `grammar` tool declares.
 * The rules follow what pi-ai 1.6.0 sends (checked by test/compat/constrained-sampling.test.ts).
 */
import type { ConstrainedSamplingConfig } from "../contract/tool.js";
import type { SchemaRewrite, ToolProvider } from "./types.js";

type Json = Record<string, unknown>;

/** Keywords no provider's strict sampling takes (pi refuses them for every provider). */
const NEVER_STRICT = [
	"$ref",
	"$defs",
	"definitions",
	"allOf",
	"oneOf",
	"patternProperties",
	"dependentSchemas",
	"dependencies",
	"unevaluatedProperties",
	"propertyNames",
	"contains",
	"prefixItems",
	"not",
	"if",
	"then",
	"else",
] as const;

/** Keywords Anthropic's strict tools reject (a 400 for the whole request). */
const ANTHROPIC_NOT_STRICT: ReadonlySet<string> = new Set([
	"minimum",
	"maximum",
	"exclusiveMinimum",
	"exclusiveMaximum",
	"multipleOf",
	"maxItems",
	"uniqueItems",
	"minContains",
	"maxContains",
	"minProperties",
	"maxProperties",
]);

/** String formats Anthropic's strict tools take. */
const ANTHROPIC_STRICT_FORMATS: ReadonlySet<string> = new Set([
	"date-time",
	"time",
	"date",
	"duration",
	"email",
	"hostname",
	"uri",
	"ipv4",
	"ipv6",
	"uuid",
]);

/** Why `key: value` cannot be in a strict schema for `provider`, or `undefined` when it can. */
function providerRefuses(provider: ToolProvider, key: string, value: unknown): boolean {
	if (provider !== "anthropic") return false;
	if (ANTHROPIC_NOT_STRICT.has(key)) return true;
	if (key === "minItems") return value !== 0 && value !== 1;
	if (key === "format") return typeof value !== "string" || !ANTHROPIC_STRICT_FORMATS.has(value);
	return false;
}

class NotStrict extends Error {}

function isJson(value: unknown): value is Json {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function typesOf(node: Json): unknown[] {
	return typeof node.type === "string" ? [node.type] : Array.isArray(node.type) ? node.type : [];
}

/** An object or array schema: strict unions may not hold one. */
function isStructured(node: unknown): boolean {
	if (!isJson(node)) return false;
	const types = typesOf(node);
	return (
		types.includes("object") || types.includes("array") || node.properties !== undefined || node.items !== undefined
	);
}

function acceptsNull(node: unknown): boolean {
	if (!isJson(node)) return false;
	if (typesOf(node).includes("null")) return true;
	if (node.const === null || (Array.isArray(node.enum) && node.enum.includes(null))) return true;
	return Array.isArray(node.anyOf) && node.anyOf.some(acceptsNull);
}

function pointer(path: string, key: string): string {
	return `${path}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

/** Make `node` (a private copy) strict in place, or throw `NotStrict` saying why it cannot be. */
function makeStrict(node: unknown, path: string, provider: ToolProvider, rewrites: SchemaRewrite[]): void {
	if (!isJson(node)) throw new NotStrict("a boolean schema cannot be strict");
	for (const key of NEVER_STRICT) {
		if (node[key] !== undefined) throw new NotStrict(`\`${key}\` cannot be strict`);
	}
	for (const [key, value] of Object.entries(node)) {
		if (providerRefuses(provider, key, value)) {
			throw new NotStrict(`\`${key}: ${JSON.stringify(value)}\` is not taken by ${provider}'s strict tools`);
		}
	}
	if (node.type === undefined && node.anyOf === undefined && node.enum === undefined) {
		throw new NotStrict("a schema without a type cannot be strict");
	}
	if (node.anyOf !== undefined) {
		if (!Array.isArray(node.anyOf) || node.anyOf.length === 0) throw new NotStrict("an empty anyOf cannot be strict");
		node.anyOf.forEach((variant, index) => {
			if (isStructured(variant)) throw new NotStrict("a union of objects or arrays cannot be strict");
			makeStrict(variant, pointer(pointer(path, "anyOf"), String(index)), provider, rewrites);
		});
	}
	if (node.items !== undefined) {
		if (Array.isArray(node.items)) throw new NotStrict("a tuple cannot be strict");
		makeStrict(node.items, pointer(path, "items"), provider, rewrites);
	}
	const isObject = node.type === "object";
	if (node.properties !== undefined && !isObject) throw new NotStrict("`properties` without `type: object`");
	if (!isObject) return;
	if (node.additionalProperties !== undefined && node.additionalProperties !== false) {
		throw new NotStrict("an object open to extra properties cannot be strict");
	}
	if (node.properties !== undefined && !isJson(node.properties)) {
		throw new NotStrict("`properties` must map names to schemas");
	}
	if (
		node.required !== undefined &&
		(!Array.isArray(node.required) || node.required.some((key) => typeof key !== "string"))
	) {
		throw new NotStrict("`required` must be a list of names");
	}
	const properties = (node.properties ?? {}) as Json;
	const names = Object.keys(properties);
	const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
	if ([...required].some((name) => !names.includes(name))) {
		throw new NotStrict("`required` names a property that is not declared");
	}
	for (const [name, property] of Object.entries(properties)) {
		const at = pointer(pointer(path, "properties"), name);
		makeStrict(property, at, provider, rewrites);
		if (!required.has(name) && !acceptsNull(property)) {
			properties[name] = { anyOf: [property, { type: "null" }] };
			rewrites.push({
				path: at,
				kind: "optional-to-nullable",
				message: `Optional property '${name}' became required and nullable (strict sampling): send null for "not given".`,
			});
		}
	}
	node.required = names;
	if (node.additionalProperties !== false) {
		rewrites.push({
			path,
			kind: "closed-object",
			message: "The object closed with additionalProperties: false (strict sampling requires it).",
		});
	}
	node.additionalProperties = false;
}

/** A tool's parameters in the strict subset `provider`'s strict sampling takes. */
export type StrictSampling =
	| { readonly ok: true; readonly schema: Json; readonly rewrites: readonly SchemaRewrite[] }
	| { readonly ok: false; readonly reason: string };

/**
 * `schema` (plain JSON, an object schema) made strict the way pi 1.x makes a `json_schema` tool's
 * parameters strict for `provider`: every property required, optional ones nullable
 * (`anyOf: [schema, { type: "null" }]`), objects closed; or why it cannot be.
 */
export function strictSamplingSchema(schema: Json, provider: ToolProvider): StrictSampling {
	const copy = structuredClone(schema);
	const rewrites: SchemaRewrite[] = [];
	try {
		if (!isJson(copy) || copy.type !== "object") throw new NotStrict("the root must be an object schema");
		makeStrict(copy, "", provider, rewrites);
	} catch (error) {
		if (error instanceof NotStrict) return { ok: false, reason: error.message };
		throw error;
	}
	return { ok: true, schema: copy, rewrites };
}

/** The grammar an OpenAI custom tool declares: Lark or a regular expression. */
export interface ToolGrammar {
	readonly syntax: "lark" | "regex";
	readonly definition: string;
	/** The tool's one required string property, which the model's grammar-constrained text fills. */
	readonly inputProperty: string;
}

/**
 * The grammar of a `grammar` tool (the Lark variant when it has one, else the regex one), or why
 * it cannot have one: no variant, or parameters other than one required string property.
 */
export function toolGrammar(
	config: Extract<ConstrainedSamplingConfig, { type: "grammar" }>,
	schema: Json,
): { readonly ok: true; readonly grammar: ToolGrammar } | { readonly ok: false; readonly reason: string } {
	const variants = isJson(config.variants) ? config.variants : {};
	const lark =
		typeof variants.openai_lark === "string" && variants.openai_lark.trim() !== "" ? variants.openai_lark : "";
	const regex =
		typeof variants.openai_regex === "string" && variants.openai_regex.trim() !== "" ? variants.openai_regex : "";
	if (lark === "" && regex === "") {
		return { ok: false, reason: "it gives no grammar OpenAI takes (openai_lark or openai_regex)" };
	}
	if (schema.type !== "object") return { ok: false, reason: "its parameters must be an object schema" };
	const required = schema.required;
	if (!Array.isArray(required) || required.length !== 1 || typeof required[0] !== "string") {
		return { ok: false, reason: "its parameters must have exactly one required property, a string" };
	}
	const inputProperty = required[0];
	const property = isJson(schema.properties) ? schema.properties[inputProperty] : undefined;
	if (!isJson(property)) return { ok: false, reason: `its required property '${inputProperty}' is not declared` };
	if (property.type !== "string") {
		return { ok: false, reason: `its required property '${inputProperty}' must have type string` };
	}
	return {
		ok: true,
		grammar:
			lark !== ""
				? { syntax: "lark", definition: lark, inputProperty }
				: { syntax: "regex", definition: regex, inputProperty },
	};
}
