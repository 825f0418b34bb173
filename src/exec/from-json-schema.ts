/**
 * Plain JSON Schema → TypeBox, so schemas TypeBox's compiler cannot take on their own (`StringEnum`
 * and other `Type.Unsafe` schemas, schemas from MCP servers or hand-written JSON) still get a
 * compiled checker.
 */
import { Kind, type TSchema, Type } from "@sinclair/typebox";

type Json = Record<string, unknown>;

const STRUCTURAL = new Set([
	"type",
	"properties",
	"required",
	"items",
	"anyOf",
	"oneOf",
	"allOf",
	"enum",
	"const",
	"additionalProperties",
	"patternProperties",
	"nullable",
	// An unknown `format` fails TypeBox's check; formats are advice for the model, not a contract.
	"format",
	"$schema",
	"$id",
	"$ref",
	"$defs",
	"definitions",
]);

function isJson(value: unknown): value is Json {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function options(schema: Json): Json {
	const out: Json = {};
	for (const key of Object.keys(schema)) if (!STRUCTURAL.has(key)) out[key] = schema[key];
	return out;
}

const CHILD_KEYS = ["properties", "patternProperties"] as const;

/** Whether every node of the tree carries a TypeBox kind TypeBox's compiler understands. */
export function isCompilableTypeBox(schema: unknown, depth = 0): boolean {
	if (!isJson(schema) || depth > 64) return true;
	const kind = (schema as { [Kind]?: unknown })[Kind];
	if (typeof kind !== "string" || kind === "Unsafe") return false;
	for (const key of CHILD_KEYS) {
		const children = schema[key];
		if (isJson(children) && !Object.values(children).every((c) => isCompilableTypeBox(c, depth + 1))) return false;
	}
	for (const key of ["anyOf", "allOf", "oneOf"] as const) {
		const members = schema[key];
		if (Array.isArray(members) && !members.every((m) => isCompilableTypeBox(m, depth + 1))) return false;
	}
	for (const key of ["items", "additionalProperties", "not"] as const) {
		const child = schema[key];
		if (
			Array.isArray(child)
				? !child.every((c) => isCompilableTypeBox(c, depth + 1))
				: !isCompilableTypeBox(child, depth + 1)
		) {
			return false;
		}
	}
	return true;
}

function literal(value: unknown, opts: Json = {}): TSchema {
	if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
		return Type.Literal(value, opts);
	}
	if (value === null) return Type.Null(opts);
	return Type.Unknown(opts);
}

function ofType(type: string, schema: Json, depth: number): TSchema {
	const opts = options(schema);
	switch (type) {
		case "string":
			return Type.String(opts);
		case "number":
			return Type.Number(opts);
		case "integer":
			return Type.Integer(opts);
		case "boolean":
			return Type.Boolean(opts);
		case "null":
			return Type.Null(opts);
		case "array":
			return Type.Array(isJson(schema.items) ? fromJsonSchema(schema.items, depth + 1) : Type.Unknown(), opts);
		case "object": {
			const properties: Record<string, TSchema> = {};
			const required = new Set(Array.isArray(schema.required) ? schema.required : []);
			if (isJson(schema.properties)) {
				for (const [key, child] of Object.entries(schema.properties)) {
					const converted = fromJsonSchema(child, depth + 1);
					properties[key] = required.has(key) ? converted : Type.Optional(converted);
				}
			}
			const extra = schema.additionalProperties;
			const objectOptions: Json = { ...opts };
			if (extra === false || extra === true) objectOptions.additionalProperties = extra;
			else if (isJson(extra)) objectOptions.additionalProperties = fromJsonSchema(extra, depth + 1);
			return Type.Object(properties, objectOptions);
		}
		default:
			return Type.Unknown(opts);
	}
}

/**
 * The TypeBox equivalent of a JSON Schema. What TypeBox cannot express on its own (`$ref`,
 * `patternProperties`, tuple `items`) is accepted as unknown rather than rejected: validation is
 * then more lenient than the schema, never stricter.
 */
export function fromJsonSchema(schema: unknown, depth = 0): TSchema {
	if (!isJson(schema) || depth > 64) return Type.Unknown();
	const opts = options(schema);
	let result: TSchema;
	if ("const" in schema) result = literal(schema.const, opts);
	else if (Array.isArray(schema.enum)) {
		const members = schema.enum.map((value) => literal(value));
		result = members.length === 1 ? (members[0] as TSchema) : Type.Union(members, opts);
	} else if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
		const members = ((schema.anyOf ?? schema.oneOf) as unknown[]).map((m) => fromJsonSchema(m, depth + 1));
		result = Type.Union(members, opts);
	} else if (Array.isArray(schema.allOf)) {
		result = Type.Intersect(
			schema.allOf.map((m) => fromJsonSchema(m, depth + 1)),
			opts,
		);
	} else if (Array.isArray(schema.type)) {
		const types = schema.type.filter((t): t is string => typeof t === "string");
		result = Type.Union(
			types.map((t) => ofType(t, schema, depth)),
			opts,
		);
	} else if (typeof schema.type === "string") result = ofType(schema.type, schema, depth);
	else if (isJson(schema.properties)) result = ofType("object", schema, depth);
	else result = Type.Unknown(opts);
	if (schema.nullable === true) result = Type.Union([result, Type.Null()]);
	return result;
}
