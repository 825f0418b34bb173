/**
 * Arguments generated from a tool's parameter schema: valid samples, and near misses that a
 * correct validator must reject (each names the field it breaks).
 */

type Schema = Record<string, unknown>;

function asSchema(value: unknown): Schema {
	return typeof value === "object" && value !== null ? (value as Schema) : {};
}

function typesOf(schema: Schema): string[] {
	const type = schema.type;
	if (typeof type === "string") return [type];
	if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
	return [];
}

const JSON_TYPES = new Set(["string", "number", "integer", "boolean", "null", "array", "object"]);

/** Whether arguments sent as JSON can hold a value of this schema (not a `Date`, `Uint8Array`, …). */
function jsonExpressible(schemaValue: unknown): boolean {
	const types = typesOf(asSchema(schemaValue));
	return types.length === 0 || types.some((type) => JSON_TYPES.has(type));
}

/** A valid value for `schema`; `variant` picks among enum members, union branches and optional fields. */
export function sampleValue(schemaValue: unknown, variant: number, depth = 0): unknown {
	const schema = asSchema(schemaValue);
	if (schema.default !== undefined && variant === 0) return schema.default;
	if (schema.const !== undefined) return schema.const;
	if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[variant % schema.enum.length];
	const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
	if (Array.isArray(branches) && branches.length > 0) {
		return sampleValue(branches[variant % branches.length], variant, depth + 1);
	}
	if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
		return Object.assign({}, ...schema.allOf.map((part) => sampleValue(part, variant, depth + 1)));
	}
	const types = typesOf(schema).filter((t) => t !== "null");
	const type = types[variant % Math.max(1, types.length)] ?? (schema.properties ? "object" : undefined);
	switch (type) {
		case "string": {
			const min = typeof schema.minLength === "number" ? schema.minLength : 0;
			const max = typeof schema.maxLength === "number" ? schema.maxLength : Number.POSITIVE_INFINITY;
			const base = variant % 2 === 0 ? "sample" : "sample text";
			let text = base.length < min ? base.padEnd(min, "x") : base;
			if (text.length > max) text = text.slice(0, max);
			return text;
		}
		case "integer":
		case "number": {
			const min = typeof schema.minimum === "number" ? schema.minimum : undefined;
			const max = typeof schema.maximum === "number" ? schema.maximum : undefined;
			let value = min ?? (max !== undefined ? Math.min(1, max) : 1 + variant);
			if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum)
				value = schema.exclusiveMinimum + 1;
			return type === "integer" ? Math.ceil(value) : value;
		}
		case "boolean":
			return variant % 2 === 0;
		case "null":
			return null;
		case "array": {
			if (depth > 6) return [];
			const min = typeof schema.minItems === "number" ? schema.minItems : 0;
			const count = Math.max(min, 1);
			return Array.from({ length: count }, (_, i) => sampleValue(schema.items, variant + i, depth + 1));
		}
		case "object": {
			if (depth > 6) return {};
			const properties = asSchema(schema.properties);
			const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
			const out: Record<string, unknown> = {};
			for (const [key, value] of Object.entries(properties)) {
				// Variant 0: every field; variant 1: required only; later ones alternate.
				if (!required.has(key) && (variant % 2 === 1 || !jsonExpressible(value))) continue;
				out[key] = sampleValue(value, variant, depth + 1);
			}
			return out;
		}
		default:
			return variant % 2 === 0 ? "sample" : 1;
	}
}

/** A value of a clearly different kind, which no coercion turns into a `schema` value. */
function wrongValue(schema: Schema): unknown {
	const types = typesOf(schema);
	if (types.includes("object") || schema.properties) return "not an object";
	if (types.includes("array")) return { notAnArray: true };
	return { unexpected: true };
}

export interface NearMiss {
	readonly kind: "wrong-type" | "missing-required" | "extra-property";
	/** The field the sample breaks, as a path (`edits[0].oldText`); the error should name it. */
	readonly field: string;
	/** The last segment of `field`, which any reasonable message contains. */
	readonly key: string;
	readonly args: unknown;
}

/** Near-miss invalid arguments derived from a valid object sample. */
export function nearMisses(schemaValue: unknown, valid: unknown): NearMiss[] {
	const schema = asSchema(schemaValue);
	const out: NearMiss[] = [];
	if (typeof valid !== "object" || valid === null || Array.isArray(valid)) return out;
	const sample = valid as Record<string, unknown>;
	const properties = asSchema(schema.properties);
	const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
	for (const [key, property] of Object.entries(properties)) {
		const prop = asSchema(property);
		// Schemas that accept anything (or strings, which many values coerce to) cannot be missed by type.
		if (Object.keys(prop).length === 0 || (prop.anyOf && !prop.type)) continue;
		out.push({ kind: "wrong-type", field: key, key, args: { ...sample, [key]: wrongValue(prop) } });
		break;
	}
	const firstRequired = required.find((key) => key in sample);
	if (firstRequired !== undefined) {
		const { [firstRequired]: _dropped, ...rest } = sample;
		out.push({ kind: "missing-required", field: firstRequired, key: firstRequired, args: rest });
	}
	if (schema.additionalProperties === false) {
		out.push({
			kind: "extra-property",
			field: "unexpectedField",
			key: "unexpectedField",
			args: { ...sample, unexpectedField: "extra" },
		});
	}
	return out;
}
