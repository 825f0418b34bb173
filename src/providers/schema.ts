/**
 * TypeBox schema → each provider's JSON Schema dialect, with a report of every lossy change and
 * every construct the provider cannot take. See docs/providers.md for the rules per provider.
 */
import type { TSchema } from "@sinclair/typebox";
import { describeValue, errorMessage } from "../contract/errors.js";
import type {
	CompiledToolSchema,
	CompileSchemaOptions,
	SchemaError,
	SchemaErrorKind,
	SchemaRewrite,
	SchemaRewriteKind,
	ToolProvider,
} from "./types.js";

type Json = Record<string, unknown>;
type Dialect = "open" | "openai-strict" | "google";

interface Context {
	readonly dialect: Dialect;
	readonly rewrites: SchemaRewrite[];
	readonly errors: SchemaError[];
	/** Schemas reachable by `$ref`: `$defs`/`definitions` entries and every node with an `$id`. */
	readonly targets: Map<string, Json>;
	/** Refs being expanded, to detect recursion. */
	readonly expanding: string[];
	/** Recursive targets hoisted into `$defs` (open and strict dialects). */
	readonly hoisted: Map<string, Json>;
	readonly rootId: string | undefined;
	enumValues: number;
	properties: number;
}

const JSON_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);

/** Keywords Google's function-declaration schema (an OpenAPI 3.0 subset) accepts. */
const GOOGLE_KEYWORDS = new Set([
	"type",
	"format",
	"title",
	"description",
	"nullable",
	"enum",
	"maxItems",
	"minItems",
	"properties",
	"required",
	"minProperties",
	"maxProperties",
	"minLength",
	"maxLength",
	"pattern",
	"example",
	"anyOf",
	"propertyOrdering",
	"default",
	"items",
	"minimum",
	"maximum",
]);
const GOOGLE_FORMATS: Record<string, readonly string[]> = {
	string: ["enum", "date-time"],
	number: ["float", "double"],
	integer: ["int32", "int64"],
};

/** Keywords OpenAI strict mode accepts. */
const STRICT_KEYWORDS = new Set([
	"type",
	"properties",
	"required",
	"additionalProperties",
	"items",
	"enum",
	"const",
	"anyOf",
	"description",
	"title",
	"$ref",
	"$defs",
	"pattern",
	"format",
	"multipleOf",
	"minimum",
	"maximum",
	"exclusiveMinimum",
	"exclusiveMaximum",
	"minItems",
	"maxItems",
]);
const STRICT_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);
const STRICT_MAX_DEPTH = 10;
const STRICT_MAX_PROPERTIES = 5000;
const STRICT_MAX_ENUM_VALUES = 1000;

/** Structural keywords that cannot be dropped without changing what is valid: an error where rejected. */
/** Conditional and tuple keywords neither OpenAI strict mode nor Gemini takes. */
const CONDITIONAL_AND_TUPLE_KEYWORDS = [
	"not",
	"if",
	"then",
	"else",
	"dependentSchemas",
	"dependentRequired",
	"patternProperties",
	"prefixItems",
	"contains",
] as const;

const STRUCTURAL_UNSUPPORTED: Record<Dialect, readonly string[]> = {
	open: [],
	"openai-strict": CONDITIONAL_AND_TUPLE_KEYWORDS,
	google: CONDITIONAL_AND_TUPLE_KEYWORDS,
};

function isJson(value: unknown): value is Json {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function pointer(path: string, ...segments: (string | number)[]): string {
	return path + segments.map((s) => `/${String(s).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

function rewrite(ctx: Context, path: string, kind: SchemaRewriteKind, message: string): void {
	ctx.rewrites.push({ path, kind, message });
}

function error(ctx: Context, path: string, kind: SchemaErrorKind, message: string): void {
	ctx.errors.push({ path, kind, message });
}

function where(path: string): string {
	return path === "" ? "the root" : path;
}

/** Collects `$ref` targets: `$defs`/`definitions` entries and every node with a TypeBox `$id`. */
function collectTargets(node: unknown, targets: Map<string, Json>, depth = 0): void {
	if (depth > 64) return;
	if (Array.isArray(node)) {
		for (const item of node) collectTargets(item, targets, depth + 1);
		return;
	}
	if (!isJson(node)) return;
	if (typeof node.$id === "string" && !targets.has(node.$id)) targets.set(node.$id, node);
	for (const defsKey of ["$defs", "definitions"] as const) {
		const defs = node[defsKey];
		if (isJson(defs)) {
			for (const [name, def] of Object.entries(defs)) {
				if (isJson(def)) targets.set(`#/${defsKey}/${name}`, def);
			}
		}
	}
	for (const key of Object.keys(node)) collectTargets(node[key], targets, depth + 1);
}

function defName(ref: string): string {
	return ref.replace(/^#\/(\$defs|definitions)\//, "").replace(/[^A-Za-z0-9_.-]/g, "_") || "root";
}

function compileRef(node: Json, path: string, ctx: Context, depth: number): Json {
	const ref = node.$ref as string;
	if (ref === "#") {
		if (ctx.dialect !== "google") return { $ref: "#" };
		error(
			ctx,
			path,
			"recursive-ref",
			`$ref "#" at ${where(path)} makes the schema recursive; Google function declarations cannot express recursion.`,
		);
		return {};
	}
	const target = ctx.targets.get(ref);
	if (target === undefined) {
		error(
			ctx,
			path,
			"unresolved-ref",
			`$ref "${ref}" at ${where(path)} points to no schema in this tool's parameters.`,
		);
		return {};
	}
	if (ctx.expanding.includes(ref)) {
		if (ctx.dialect === "google") {
			error(
				ctx,
				path,
				"recursive-ref",
				`$ref "${ref}" at ${where(path)} makes the schema recursive; Google function declarations cannot express recursion. Bound the depth explicitly.`,
			);
			return {};
		}
		if (ref === ctx.rootId) {
			rewrite(ctx, path, "ref-to-defs", `Recursive reference "${ref}" at ${where(path)} written as "#".`);
			return { $ref: "#" };
		}
		const name = defName(ref);
		if (!ctx.hoisted.has(name)) {
			ctx.hoisted.set(name, {});
			rewrite(ctx, path, "ref-to-defs", `Recursive reference "${ref}" at ${where(path)} moved to "#/$defs/${name}".`);
		}
		return { $ref: `#/$defs/${name}` };
	}
	ctx.expanding.push(ref);
	const compiled = compileNode(target, path, ctx, depth);
	ctx.expanding.pop();
	const hoistName = defName(ref);
	if (ctx.hoisted.has(hoistName) && Object.keys(ctx.hoisted.get(hoistName) as Json).length === 0) {
		ctx.hoisted.set(hoistName, compiled);
		return { $ref: `#/$defs/${hoistName}` };
	}
	// Inlining keeps every provider happy; TypeBox ids and local $defs are not portable pointers.
	rewrite(ctx, path, "ref-inlined", `$ref "${ref}" at ${where(path)} was replaced by the schema it points to.`);
	return compiled;
}

/** A union of same-typed literals (what `Type.Union(Type.Literal…)` and `Type.Enum` produce). */
function literalUnion(members: unknown[]): { type: string; values: unknown[] } | undefined {
	if (members.length === 0) return undefined;
	let type: string | undefined;
	const values: unknown[] = [];
	for (const member of members) {
		if (!isJson(member) || !("const" in member)) return undefined;
		const t = typeof member.const;
		if (t !== "string" && t !== "number" && t !== "boolean") return undefined;
		const jsonType = t === "number" && Number.isInteger(member.const) ? "integer" : t;
		if (type !== undefined && type !== jsonType && !(type === "integer" && jsonType === "number")) return undefined;
		if (type === undefined || jsonType === "number") type = jsonType;
		values.push(member.const);
	}
	return type === undefined ? undefined : { type, values };
}

function isNullSchema(node: unknown): boolean {
	return isJson(node) && node.type === "null" && Object.keys(node).every((k) => k === "type" || k === "description");
}

/** Describing keys worth keeping when a node is rebuilt. */
function describing(node: Json): Json {
	const out: Json = {};
	for (const key of ["title", "description", "default", "examples"]) if (key in node) out[key] = node[key];
	return out;
}

function compileNode(input: unknown, path: string, ctx: Context, depth: number): Json {
	if (!isJson(input)) return {};
	const { dialect } = ctx;
	if (dialect === "openai-strict" && depth > STRICT_MAX_DEPTH) {
		error(
			ctx,
			path,
			"limit-exceeded",
			`${where(path)} is nested more than ${STRICT_MAX_DEPTH} levels deep (OpenAI strict mode limit).`,
		);
		return {};
	}
	if (typeof input.$ref === "string") return compileRef(input, path, ctx, depth);

	let node: Json = input;

	// Literal unions → enum, for every provider: every provider takes `enum`, not all take const/anyOf.
	const union = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
	if (union) {
		const literals = literalUnion(union);
		if (literals) {
			rewrite(ctx, path, "literal-union-to-enum", `Union of literals at ${where(path)} written as one enum.`);
			node = { ...describing(node), type: literals.type, enum: literals.values };
		}
	}

	if (dialect !== "open" && Array.isArray(node.allOf)) {
		const merged = mergeAllOf(node.allOf);
		if (merged) {
			rewrite(ctx, path, "all-of-merged", `allOf at ${where(path)} merged into one object schema.`);
			const { allOf: _allOf, ...rest } = node;
			node = { ...rest, ...merged, type: "object" };
		} else {
			error(
				ctx,
				path,
				"unsupported-keyword",
				`allOf at ${where(path)} is not supported here and its members are not plain objects that could be merged.`,
			);
		}
	}

	if (dialect !== "open" && Array.isArray(node.oneOf)) {
		rewrite(
			ctx,
			path,
			"one-of-to-any-of",
			`oneOf at ${where(path)} written as anyOf; the provider will not enforce that exactly one member matches.`,
		);
		const { oneOf, ...rest } = node;
		node = { ...rest, anyOf: oneOf };
	}

	if (dialect === "google") {
		const members = node.anyOf;
		if (Array.isArray(members) && members.length === 2 && members.some(isNullSchema)) {
			const other = members.find((m) => !isNullSchema(m));
			rewrite(ctx, path, "null-union-to-nullable", `Union with null at ${where(path)} written as nullable.`);
			const { anyOf: _anyOf, ...rest } = node;
			const inner = compileNode(other, pointer(path, "anyOf", members.indexOf(other)), ctx, depth + 1);
			return { ...inner, ...describing(rest), nullable: true };
		}
	}

	for (const keyword of STRUCTURAL_UNSUPPORTED[dialect]) {
		if (keyword in node) {
			error(
				ctx,
				pointer(path, keyword),
				"unsupported-keyword",
				`"${keyword}" at ${where(path)} is not supported by this provider.`,
			);
		}
	}

	const out: Json = {};
	let types: string[] | undefined;
	if (typeof node.type === "string") types = [node.type];
	else if (Array.isArray(node.type)) types = node.type.filter((t): t is string => typeof t === "string");
	for (const type of types ?? []) {
		if (!JSON_TYPES.has(type)) {
			error(
				ctx,
				path,
				"non-json-type",
				`${where(path)} has type "${type}", which has no JSON form; use a string or number instead.`,
			);
		}
	}

	for (const key of Object.keys(node)) {
		const value = node[key];
		const at = pointer(path, key);
		switch (key) {
			case "$id":
			case "$schema":
			case "$defs":
			case "definitions":
				// Ids and local definitions are resolved (inlined or hoisted) on the way.
				continue;
			case "properties": {
				if (!isJson(value)) continue;
				const props: Json = {};
				for (const [name, child] of Object.entries(value)) {
					ctx.properties++;
					props[name] = compileNode(child, pointer(path, "properties", name), ctx, depth + 1);
				}
				out.properties = props;
				continue;
			}
			case "items":
				if (Array.isArray(value)) {
					if (dialect === "open")
						out.items = value.map((v, i) => compileNode(v, pointer(path, "items", i), ctx, depth + 1));
					else
						error(
							ctx,
							at,
							"unsupported-keyword",
							`Tuple "items" at ${where(path)} is not supported by this provider; use an object.`,
						);
				} else out.items = compileNode(value, at, ctx, depth + 1);
				continue;
			case "anyOf":
			case "oneOf":
			case "allOf":
				if (Array.isArray(value)) out[key] = value.map((v, i) => compileNode(v, pointer(path, key, i), ctx, depth + 1));
				continue;
			case "additionalProperties":
				if (isJson(value)) out.additionalProperties = compileNode(value, at, ctx, depth + 1);
				else out.additionalProperties = value;
				continue;
			case "patternProperties":
				if (isJson(value) && dialect === "open") {
					const props: Json = {};
					for (const [pattern, child] of Object.entries(value))
						props[pattern] = compileNode(child, pointer(path, key, pattern), ctx, depth + 1);
					out.patternProperties = props;
				}
				continue;
			default:
				out[key] = value;
		}
	}
	if (Array.isArray(out.enum)) ctx.enumValues += out.enum.length;

	if (dialect === "google") return toGoogle(out, types, path, ctx);
	if (dialect === "openai-strict") return toStrict(out, path, ctx);
	return out;
}

function mergeAllOf(members: unknown[]): Json | undefined {
	const properties: Json = {};
	const required: string[] = [];
	let additional: unknown;
	for (const member of members) {
		if (!isJson(member) || member.type !== "object" || member.anyOf || member.oneOf || member.allOf || member.$ref)
			return undefined;
		if (isJson(member.properties)) {
			for (const [key, value] of Object.entries(member.properties)) {
				if (key in properties) return undefined;
				properties[key] = value;
			}
		}
		if (Array.isArray(member.required)) required.push(...(member.required as string[]));
		if (member.additionalProperties === false) additional = false;
	}
	const merged: Json = { properties, required };
	if (additional === false) merged.additionalProperties = false;
	return merged;
}

function toGoogle(node: Json, types: string[] | undefined, path: string, ctx: Context): Json {
	const out: Json = { ...node };
	if (types && types.length > 1) {
		const nonNull = types.filter((t) => t !== "null");
		if (nonNull.length === 1) {
			rewrite(
				ctx,
				path,
				"type-array-to-nullable",
				`type [${types.join(", ")}] at ${where(path)} written as nullable ${nonNull[0]}.`,
			);
			out.type = nonNull[0];
		} else {
			rewrite(ctx, path, "type-array-to-any-of", `type [${types.join(", ")}] at ${where(path)} written as anyOf.`);
			delete out.type;
			out.anyOf = nonNull.map((t) => ({ type: t }));
		}
		if (nonNull.length < types.length) out.nullable = true;
	}
	if ("const" in out) {
		const value = out.const;
		delete out.const;
		if (typeof value === "string") {
			rewrite(ctx, path, "const-to-enum", `const at ${where(path)} written as a one-value enum.`);
			out.type = "string";
			out.enum = [value];
		} else {
			error(
				ctx,
				path,
				"unsupported-const",
				`const ${JSON.stringify(value)} at ${where(path)} cannot be expressed for Google (string enums only).`,
			);
		}
	}
	if (Array.isArray(out.enum)) {
		const values = out.enum as unknown[];
		if (values.includes(null)) out.nullable = true;
		const nonNull = values.filter((v) => v !== null);
		if (nonNull.some((v) => typeof v !== "string")) {
			rewrite(
				ctx,
				path,
				"enum-stringified",
				`enum at ${where(path)} sent as strings; the executor turns them back into ${describeValue(out.type ?? "values")}.`,
			);
			out.type = "string";
		}
		out.enum = nonNull.map((v) => (typeof v === "string" ? v : JSON.stringify(v)));
	}
	if ("additionalProperties" in out) {
		const value = out.additionalProperties;
		delete out.additionalProperties;
		rewrite(
			ctx,
			pointer(path, "additionalProperties"),
			"keyword-removed",
			value === false
				? `additionalProperties: false at ${where(path)} removed; Google does not enforce closed objects (the executor still does).`
				: `additionalProperties at ${where(path)} removed; extra keys are not described to Google.`,
		);
	}
	if (typeof out.format === "string" && typeof out.type === "string") {
		const allowed = GOOGLE_FORMATS[out.type] ?? [];
		if (!allowed.includes(out.format)) {
			rewrite(
				ctx,
				pointer(path, "format"),
				"keyword-removed",
				`format "${out.format}" at ${where(path)} removed; Google accepts only ${allowed.join(", ") || "none"} for ${out.type}.`,
			);
			delete out.format;
		}
	}
	for (const key of Object.keys(out)) {
		if (GOOGLE_KEYWORDS.has(key) || STRUCTURAL_UNSUPPORTED.google.includes(key) || key === "items") continue;
		rewrite(
			ctx,
			pointer(path, key),
			"keyword-removed",
			`"${key}" at ${where(path)} removed; Google function declarations do not accept it.`,
		);
		delete out[key];
	}
	for (const key of STRUCTURAL_UNSUPPORTED.google) delete out[key];
	return out;
}

function makeNullable(node: Json): Json {
	if ("$ref" in node) return { anyOf: [node, { type: "null" }] };
	if (Array.isArray(node.anyOf)) {
		return node.anyOf.some(isNullSchema) ? node : { ...node, anyOf: [...node.anyOf, { type: "null" }] };
	}
	if ("const" in node) return { anyOf: [node, { type: "null" }] };
	const out: Json = { ...node };
	if (typeof out.type === "string") out.type = out.type === "null" ? "null" : [out.type, "null"];
	else if (Array.isArray(out.type) && !out.type.includes("null")) out.type = [...out.type, "null"];
	else if (out.type === undefined) return { anyOf: [node, { type: "null" }] };
	if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
	return out;
}

function toStrict(node: Json, path: string, ctx: Context): Json {
	const out: Json = { ...node };
	// A pattern-keyed map is already an error; closing it too would only add noise.
	const isMap = "patternProperties" in node;
	if ("default" in out) {
		const note = `Default: ${JSON.stringify(out.default)}.`;
		out.description =
			typeof out.description === "string" && out.description !== "" ? `${out.description} ${note}` : note;
		delete out.default;
		rewrite(
			ctx,
			pointer(path, "default"),
			"keyword-removed",
			`default at ${where(path)} moved into the description; strict mode rejects it.`,
		);
	}
	if (typeof out.format === "string" && !STRICT_FORMATS.has(out.format)) {
		rewrite(
			ctx,
			pointer(path, "format"),
			"keyword-removed",
			`format "${out.format}" at ${where(path)} removed; strict mode does not know it.`,
		);
		delete out.format;
	}
	for (const key of Object.keys(out)) {
		if (STRICT_KEYWORDS.has(key) || STRUCTURAL_UNSUPPORTED["openai-strict"].includes(key)) continue;
		rewrite(
			ctx,
			pointer(path, key),
			"keyword-removed",
			`"${key}" at ${where(path)} removed; OpenAI strict mode does not accept it (the executor still checks it).`,
		);
		delete out[key];
	}
	for (const key of STRUCTURAL_UNSUPPORTED["openai-strict"]) delete out[key];

	const isObject =
		out.type === "object" || (Array.isArray(out.type) && out.type.includes("object")) || isJson(out.properties);
	if (!isObject || isMap) return out;
	const extra = out.additionalProperties;
	if (isJson(extra) && Object.keys(extra).length > 0) {
		error(
			ctx,
			pointer(path, "additionalProperties"),
			"open-object",
			`${where(path)} allows extra keys of a given type (a map); strict mode needs closed objects. Use an array of { key, value } objects instead.`,
		);
	} else if (extra !== false) {
		rewrite(
			ctx,
			path,
			"closed-object",
			`${where(path)} closed with additionalProperties: false (strict mode requires it).`,
		);
		out.additionalProperties = false;
	}
	const properties = isJson(out.properties) ? out.properties : {};
	out.properties = properties;
	const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
	for (const name of Object.keys(properties)) {
		if (required.has(name)) continue;
		rewrite(
			ctx,
			pointer(path, "properties", name),
			"optional-to-nullable",
			`Optional property "${name}" at ${where(path)} made required and nullable; the model sends null to leave it out.`,
		);
		properties[name] = makeNullable(properties[name] as Json);
	}
	out.required = Object.keys(properties);
	return out;
}

function dialectOf(provider: ToolProvider, options: CompileSchemaOptions | undefined): Dialect {
	if (provider === "google") return "google";
	if ((provider === "openai-chat" || provider === "openai-responses") && options?.strict === true)
		return "openai-strict";
	return "open";
}

/**
 * The tool's parameter schema in `provider`'s dialect, with every lossy change in `rewrites` and
 * every construct the provider cannot take in `errors` (never dropped silently). Never throws.
 *
 * `strict` applies to the OpenAI providers (strict function calling). The executor always
 * validates against the tool's own schema, so a rewrite weakens what the model is told, never
 * what is accepted.
 */
export function compileToolSchema(
	schema: TSchema | Record<string, unknown>,
	provider: ToolProvider,
	options?: CompileSchemaOptions,
): CompiledToolSchema {
	const dialect = dialectOf(provider, options);
	const targets = new Map<string, Json>();
	collectTargets(schema, targets);
	const rootId = isJson(schema) && typeof schema.$id === "string" ? schema.$id : undefined;
	const ctx: Context = {
		dialect,
		rewrites: [],
		errors: [],
		targets,
		expanding: rootId ? [rootId] : [],
		hoisted: new Map(),
		rootId,
		enumValues: 0,
		properties: 0,
	};
	let compiled: Json;
	try {
		compiled = compileNode(schema, "", ctx, 0);
	} catch (cause) {
		// Only pathological input (a getter that throws, a Proxy) lands here.
		error(ctx, "", "unsupported-keyword", `The schema could not be read: ${errorMessage(cause)}`);
		compiled = {};
	}
	if (ctx.hoisted.size > 0) {
		const defs: Json = {};
		for (const [name, def] of ctx.hoisted) defs[name] = def;
		compiled = { ...compiled, $defs: defs };
	}
	const isObjectRoot = compiled.type === "object" || (compiled.type === undefined && isJson(compiled.properties));
	if (!isObjectRoot) {
		error(
			ctx,
			"",
			"root-not-object",
			"The parameter schema must be an object schema (Type.Object) for every provider.",
		);
	}
	if (dialect === "openai-strict") {
		if (ctx.properties > STRICT_MAX_PROPERTIES) {
			error(
				ctx,
				"",
				"limit-exceeded",
				`The schema has ${ctx.properties} properties; OpenAI strict mode allows ${STRICT_MAX_PROPERTIES}.`,
			);
		}
		if (ctx.enumValues > STRICT_MAX_ENUM_VALUES) {
			error(
				ctx,
				"",
				"limit-exceeded",
				`The schema has ${ctx.enumValues} enum values; OpenAI strict mode allows ${STRICT_MAX_ENUM_VALUES}.`,
			);
		}
	}
	return { schema: compiled, rewrites: ctx.rewrites, errors: ctx.errors };
}
