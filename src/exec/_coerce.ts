/**
 * Schema-guided repair of the usual model slips, applied in place to a value the validator owns
 * (a copy of what the model sent). Runs only after a first check failed, so valid arguments never
 * pay for it.
 *
 * What is repaired: numeric strings where numbers or integers are expected, "true"/"false" where
 * booleans are expected, numbers and booleans where strings are expected, `null` in an optional
 * field that does not accept null (the field is dropped so its default applies), and objects or
 * arrays sent as JSON strings. Unions take the first member the repaired value satisfies.
 */
import { MAX_DEPTH, parseJsonArguments } from "./json.js";

type Schema = Record<string, unknown>;

/** Compiled check of a sub-schema, or undefined when it cannot be compiled on its own (`$ref`). */
export type SubCheck = (schema: Schema, value: unknown) => boolean | undefined;

function isSchema(value: unknown): value is Schema {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function schemaTypes(schema: Schema): readonly string[] {
	const type = schema.type;
	if (typeof type === "string") return [type];
	if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
	return [];
}

function matchesType(value: unknown, type: string): boolean {
	switch (type) {
		case "string":
			return typeof value === "string";
		case "number":
			return typeof value === "number";
		case "integer":
			return typeof value === "number" && Number.isInteger(value);
		case "boolean":
			return typeof value === "boolean";
		case "null":
			return value === null;
		case "array":
			return Array.isArray(value);
		case "object":
			return typeof value === "object" && value !== null && !Array.isArray(value);
		default:
			return true;
	}
}

/** Whether `null` is a legal value of `schema` (so a null must not be dropped). */
export function acceptsNull(schema: unknown): boolean {
	if (!isSchema(schema)) return true;
	if (schemaTypes(schema).includes("null")) return true;
	if (schema.const === null) return true;
	if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
	for (const key of ["anyOf", "oneOf"] as const) {
		const members = schema[key];
		if (Array.isArray(members) && members.some(acceptsNull)) return true;
	}
	// A schema without any type constraint (Type.Any, Type.Unknown) accepts null too.
	return schema.type === undefined && schema.anyOf === undefined && schema.oneOf === undefined && !("const" in schema);
}

const NUMERIC = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

function coercePrimitive(value: unknown, type: string): unknown {
	switch (type) {
		case "number":
		case "integer": {
			if (typeof value === "string" && NUMERIC.test(value)) {
				const n = Number(value);
				if (Number.isFinite(n) && (type === "number" || Number.isInteger(n))) return n;
			}
			return value;
		}
		case "boolean": {
			if (typeof value === "string") {
				const t = value.trim().toLowerCase();
				if (t === "true") return true;
				if (t === "false") return false;
			}
			return value;
		}
		case "string":
			return typeof value === "number" || typeof value === "boolean" ? String(value) : value;
		default:
			return value;
	}
}

function coerceToLiteral(value: unknown, literal: unknown): unknown {
	if (value === literal) return value;
	if (typeof literal === "number" && typeof value === "string" && NUMERIC.test(value) && Number(value) === literal) {
		return literal;
	}
	if (typeof literal === "boolean" && typeof value === "string" && value.trim().toLowerCase() === String(literal)) {
		return literal;
	}
	if (typeof literal === "string" && (typeof value === "number" || typeof value === "boolean")) {
		return String(value) === literal ? literal : value;
	}
	return value;
}

/** A copy of plain JSON data, so a union member's repair attempt cannot damage the original. */
function copyJson(value: unknown): unknown {
	if (typeof value !== "object" || value === null) return value;
	if (Array.isArray(value)) return value.map(copyJson);
	const out: Record<string, unknown> = {};
	for (const key of Object.keys(value)) {
		Object.defineProperty(out, key, {
			value: copyJson((value as Record<string, unknown>)[key]),
			enumerable: true,
			writable: true,
			configurable: true,
		});
	}
	return out;
}

/**
 * Writes an own data property. Only keys the target already owns are written (never `__proto__`),
 * so a plain assignment cannot reach a setter or a prototype.
 */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
	if (target[key] !== value) target[key] = value;
}

/** Repairs `value` against `schema`, mutating owned objects; returns the (possibly new) value. */
export function coerceValue(schema: unknown, value: unknown, check: SubCheck, depth = 0): unknown {
	if (!isSchema(schema) || depth > MAX_DEPTH) return value;
	let next = value;

	if (Array.isArray(schema.allOf)) {
		for (const member of schema.allOf) next = coerceValue(member, next, check, depth + 1);
	}
	for (const key of ["anyOf", "oneOf"] as const) {
		const members = schema[key];
		if (!Array.isArray(members)) continue;
		if (members.some((m) => isSchema(m) && check(m, next) === true)) return next;
		for (const member of members) {
			if (!isSchema(member)) continue;
			const candidate = coerceValue(member, copyJson(next), check, depth + 1);
			if (check(member, candidate) === true) return candidate;
		}
		return next;
	}

	if ("const" in schema) return coerceToLiteral(next, schema.const);
	if (Array.isArray(schema.enum) && !schema.enum.includes(next)) {
		for (const option of schema.enum) {
			const candidate = coerceToLiteral(next, option);
			if (candidate === option) return option;
		}
	}

	const types = schemaTypes(schema);
	if (types.length > 0 && !types.some((t) => matchesType(next, t))) {
		if (typeof next === "string" && (types.includes("object") || types.includes("array"))) {
			const trimmed = next.trim();
			if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
				const parsed = parseJsonArguments(trimmed, { sawHostileKey: false }, Math.max(0, MAX_DEPTH - depth));
				if (parsed.ok && types.some((t) => matchesType(parsed.value, t))) next = parsed.value;
			}
		}
		for (const type of types) {
			const candidate = coercePrimitive(next, type);
			if (candidate !== next) {
				next = candidate;
				break;
			}
		}
	}

	if (typeof next === "object" && next !== null) {
		if (Array.isArray(next)) {
			const items = schema.items;
			if (Array.isArray(items)) {
				for (let i = 0; i < next.length && i < items.length; i++) {
					next[i] = coerceValue(items[i], next[i], check, depth + 1);
				}
			} else if (isSchema(items)) {
				for (let i = 0; i < next.length; i++) next[i] = coerceValue(items, next[i], check, depth + 1);
			}
		} else {
			coerceObject(schema, next as Record<string, unknown>, check, depth);
		}
	}
	return next;
}

function coerceObject(schema: Schema, target: Record<string, unknown>, check: SubCheck, depth: number): void {
	const properties = isSchema(schema.properties) ? schema.properties : undefined;
	const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
	if (properties) {
		for (const key of Object.keys(properties)) {
			if (key === "__proto__" || !Object.hasOwn(target, key)) continue;
			const propertySchema = properties[key];
			const current = target[key];
			if (current === null && !required.includes(key) && !acceptsNull(propertySchema)) {
				delete target[key];
				continue;
			}
			setOwn(target, key, coerceValue(propertySchema, current, check, depth + 1));
		}
	}
	if (isSchema(schema.additionalProperties)) {
		for (const key of Object.keys(target)) {
			if (properties && Object.hasOwn(properties, key)) continue;
			setOwn(target, key, coerceValue(schema.additionalProperties, target[key], check, depth + 1));
		}
	}
}

/** Whether an object schema (or any member of its union) declares `key`. */
function declaredProperty(schema: unknown, key: string): unknown {
	if (!isSchema(schema)) return undefined;
	if (isSchema(schema.properties) && Object.hasOwn(schema.properties, key)) return schema.properties[key];
	for (const group of ["anyOf", "oneOf", "allOf"] as const) {
		const members = schema[group];
		if (!Array.isArray(members)) continue;
		for (const member of members) {
			const found = declaredProperty(member, key);
			if (found !== undefined) return found;
		}
	}
	return undefined;
}

function childSchema(schema: unknown, key: string): unknown {
	const declared = declaredProperty(schema, key);
	if (declared !== undefined) return declared;
	return isSchema(schema) && isSchema(schema.additionalProperties) ? schema.additionalProperties : undefined;
}

function itemSchema(schema: unknown, index: number): unknown {
	if (!isSchema(schema)) return undefined;
	if (Array.isArray(schema.items)) return schema.items[index];
	if (isSchema(schema.items)) return schema.items;
	for (const group of ["anyOf", "oneOf"] as const) {
		const members = schema[group];
		if (!Array.isArray(members)) continue;
		for (const member of members) {
			const found = itemSchema(member, index);
			if (found !== undefined) return found;
		}
	}
	return undefined;
}

/**
 * Removes `constructor` and `prototype` keys the schema does not declare, at every depth. They are
 * never data a tool expects, and a careless merge in a tool could walk them into a prototype.
 */
export function dropUndeclaredHostileKeys(schema: unknown, value: unknown, depth = 0): void {
	if (typeof value !== "object" || value === null || depth > MAX_DEPTH) return;
	if (Array.isArray(value)) {
		for (let i = 0; i < value.length; i++) dropUndeclaredHostileKeys(itemSchema(schema, i), value[i], depth + 1);
		return;
	}
	const record = value as Record<string, unknown>;
	for (const key of Object.keys(record)) {
		if ((key === "constructor" || key === "prototype") && declaredProperty(schema, key) === undefined) {
			delete record[key];
			continue;
		}
		dropUndeclaredHostileKeys(childSchema(schema, key), record[key], depth + 1);
	}
}
