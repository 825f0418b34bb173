/**
 * The arguments form as data, with no DOM: a tool's JSON schema → a tree of fields (`fieldSpec`),
 * what the inputs hold (`FieldValue`), the arguments those values send (`toArgs`), and back from
 * arguments to values (`fromArgs`, for the raw-JSON toggle). `fromArgs` only succeeds when
 * `toArgs` would give the same arguments back; otherwise it says why the form cannot hold them.
 */
import type { Json, ValidationProblem } from "../protocol.js";

type JsonObject = { readonly [key: string]: Json };

interface FieldBase {
	readonly title?: string;
	readonly description?: string;
	/** The schema's `default`, when it has one. */
	readonly default?: Json;
	readonly hasDefault: boolean;
	/** The type in a few words, for the label: `integer, 1–100`, `array of string`, `JSON`. */
	readonly hint: string;
}

/** A text input: its characters are the value (`string`), parsed (`number`, `integer`) or read as JSON (`json`). */
export interface TextFieldSpec extends FieldBase {
	readonly kind: "string" | "number" | "integer" | "json";
}

export interface BooleanFieldSpec extends FieldBase {
	readonly kind: "boolean";
}

/** A choice among fixed values: an `enum`, a `const`, or an `anyOf`/`oneOf` of `const`s. */
export interface EnumFieldSpec extends FieldBase {
	readonly kind: "enum";
	readonly options: readonly Json[];
}

export interface ArrayFieldSpec extends FieldBase {
	readonly kind: "array";
	readonly items: FieldSpec;
	readonly minItems?: number;
	readonly maxItems?: number;
}

export interface PropertySpec {
	readonly key: string;
	readonly required: boolean;
	readonly spec: FieldSpec;
}

export interface ObjectFieldSpec extends FieldBase {
	readonly kind: "object";
	readonly properties: readonly PropertySpec[];
}

export type FieldSpec = TextFieldSpec | BooleanFieldSpec | EnumFieldSpec | ArrayFieldSpec | ObjectFieldSpec;

/**
 * What the inputs of a field hold. `text` for string, number, integer and JSON fields; `enum` holds
 * the index of the chosen option (-1: none chosen); `object` holds, for each property, its value and
 * whether it is included (optional properties only travel when included).
 */
export type FieldValue =
	| { readonly kind: "text"; readonly text: string }
	| { readonly kind: "boolean"; readonly checked: boolean }
	| { readonly kind: "enum"; readonly index: number }
	| { readonly kind: "array"; readonly items: readonly FieldValue[] }
	| {
			readonly kind: "object";
			readonly fields: Readonly<Record<string, FieldValue>>;
			readonly included: Readonly<Record<string, boolean>>;
	  };

/** Nesting deeper than this becomes a JSON field (schemas are data from tools; keep the form finite). */
const MAX_DEPTH = 12;
/** Items `initialValue` creates for an array's `minItems`, at most. */
const MAX_PREFILLED_ITEMS = 10;

function isObject(value: Json | undefined): value is JsonObject {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function own(object: JsonObject, key: string): Json | undefined {
	return Object.hasOwn(object, key) ? object[key] : undefined;
}

function numberOf(object: JsonObject, key: string): number | undefined {
	const value = own(object, key);
	return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Deep equality of JSON values (object key order ignored). */
export function jsonEqual(a: Json | undefined, b: Json | undefined): boolean {
	if (a === b) return true;
	if (Array.isArray(a)) {
		return Array.isArray(b) && a.length === b.length && a.every((item, index) => jsonEqual(item, b[index]));
	}
	if (isObject(a) && isObject(b)) {
		const keys = Object.keys(a);
		return (
			keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]))
		);
	}
	return false;
}

/** The fixed values a schema allows, if it is a choice among them; undefined otherwise. */
export function enumOptions(schema: Json): Json[] | undefined {
	if (!isObject(schema)) return undefined;
	const values = own(schema, "enum");
	if (Array.isArray(values) && values.length > 0) return [...values];
	if (Object.hasOwn(schema, "const")) return [schema.const!];
	for (const key of ["anyOf", "oneOf"]) {
		const members = own(schema, key);
		if (!Array.isArray(members) || members.length === 0) continue;
		const options: Json[] = [];
		for (const member of members) {
			const inner = isObject(member) ? enumOptions(member) : undefined;
			if (!inner) return undefined;
			options.push(...inner);
		}
		return options;
	}
	return undefined;
}

function rangeHint(schema: JsonObject, low: string, high: string, unit = ""): string {
	const min = numberOf(schema, low);
	const max = numberOf(schema, high);
	if (min !== undefined && max !== undefined) return `${min}–${max}${unit}`;
	if (min !== undefined) return `≥ ${min}${unit}`;
	if (max !== undefined) return `≤ ${max}${unit}`;
	return "";
}

function joinHint(...parts: string[]): string {
	return parts.filter((part) => part !== "").join(", ");
}

/** The JSON field's hint: what the schema says the value is, in a word. */
function jsonHint(schema: Json): string {
	if (!isObject(schema)) return "JSON";
	const type = own(schema, "type");
	if (Array.isArray(type)) return `JSON: ${type.join(" or ")}`;
	if (typeof type === "string") return `JSON: ${type}`;
	for (const key of ["anyOf", "oneOf", "allOf", "$ref"]) if (Object.hasOwn(schema, key)) return `JSON: ${key}`;
	return "JSON";
}

/** The form field a JSON schema becomes; anything the form has no input for is a `json` field. */
export function fieldSpec(schema: Json, depth = 0): FieldSpec {
	const object: JsonObject = isObject(schema) ? schema : {};
	const title = own(object, "title");
	const description = own(object, "description");
	const base = {
		...(typeof title === "string" ? { title } : {}),
		...(typeof description === "string" ? { description } : {}),
		...(Object.hasOwn(object, "default") ? { default: object.default! } : {}),
		hasDefault: Object.hasOwn(object, "default"),
	};
	const json = (): FieldSpec => ({ ...base, kind: "json", hint: jsonHint(schema) });
	if (!isObject(schema) || depth > MAX_DEPTH) return json();
	const options = enumOptions(schema);
	if (options) return { ...base, kind: "enum", options, hint: options.length === 1 ? "constant" : "one of" };
	const type = own(schema, "type");
	switch (type) {
		case "string": {
			const pattern = own(schema, "pattern");
			const format = own(schema, "format");
			return {
				...base,
				kind: "string",
				hint: joinHint(
					"string",
					rangeHint(schema, "minLength", "maxLength", " chars"),
					typeof format === "string" ? format : "",
					typeof pattern === "string" ? `/${pattern}/` : "",
				),
			};
		}
		case "number":
		case "integer":
			return {
				...base,
				kind: type,
				hint: joinHint(type, rangeHint(schema, "minimum", "maximum")),
			};
		case "boolean":
			return { ...base, kind: "boolean", hint: "boolean" };
		case "array": {
			const items = own(schema, "items");
			if (!isObject(items)) return json();
			const spec = fieldSpec(items, depth + 1);
			const minItems = numberOf(schema, "minItems");
			const maxItems = numberOf(schema, "maxItems");
			return {
				...base,
				kind: "array",
				items: spec,
				...(minItems !== undefined ? { minItems } : {}),
				...(maxItems !== undefined ? { maxItems } : {}),
				hint: joinHint(
					`array of ${spec.kind === "object" ? "objects" : spec.hint}`,
					rangeHint(schema, "minItems", "maxItems", " items"),
				),
			};
		}
		case "object": {
			const properties = own(schema, "properties");
			if (!isObject(properties)) return json();
			const requiredList = own(schema, "required");
			const required = new Set(
				Array.isArray(requiredList) ? requiredList.filter((key) => typeof key === "string") : [],
			);
			return {
				...base,
				kind: "object",
				properties: Object.keys(properties).map((key) => ({
					key,
					required: required.has(key),
					spec: fieldSpec(properties[key]!, depth + 1),
				})),
				hint: "object",
			};
		}
		default:
			return json();
	}
}

/** The number a number field's text means, or undefined when it is not one (it is then sent as typed). */
export function parseNumber(text: string): number | undefined {
	const trimmed = text.trim();
	if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(trimmed)) return undefined;
	const value = Number(trimmed);
	return Number.isFinite(value) ? value : undefined;
}

/** A field with nothing entered (no defaults). */
export function emptyValue(spec: FieldSpec, inArray = false): FieldValue {
	switch (spec.kind) {
		case "boolean":
			return { kind: "boolean", checked: false };
		case "enum":
			// An item of an array cannot be left out, so it starts on the first option.
			return { kind: "enum", index: inArray && spec.options.length > 0 ? 0 : -1 };
		case "array":
			return { kind: "array", items: [] };
		case "object":
			return {
				kind: "object",
				fields: Object.fromEntries(spec.properties.map((property) => [property.key, emptyValue(property.spec)])),
				included: Object.fromEntries(spec.properties.map((property) => [property.key, property.required])),
			};
		default:
			return { kind: "text", text: "" };
	}
}

/** A field as the form starts: the schema's defaults filled in; optional properties not included. */
export function initialValue(spec: FieldSpec, inArray = false): FieldValue {
	if (spec.hasDefault) {
		const fromDefault = fromArgs(spec, spec.default!, "", inArray);
		if (fromDefault.ok) return fromDefault.value;
	}
	switch (spec.kind) {
		case "array": {
			const count = Math.min(spec.minItems ?? 0, MAX_PREFILLED_ITEMS);
			return { kind: "array", items: Array.from({ length: count }, () => initialValue(spec.items, true)) };
		}
		case "object":
			return {
				kind: "object",
				fields: Object.fromEntries(spec.properties.map((property) => [property.key, initialValue(property.spec)])),
				included: Object.fromEntries(spec.properties.map((property) => [property.key, property.required])),
			};
		default:
			return emptyValue(spec, inArray);
	}
}

/**
 * The arguments a field's value sends; undefined when it sends nothing (an empty number or JSON
 * field, no option chosen, an optional property not included). An array item always sends
 * something: an empty number or JSON item sends `""`, an item with no option `null`, so the
 * validator points at it. Text that does not parse as a number, or as JSON, is sent as the string
 * typed: input is never dropped.
 */
export function toArgs(spec: FieldSpec, value: FieldValue, inArray = false): Json | undefined {
	switch (spec.kind) {
		case "string":
			return value.kind === "text" ? value.text : undefined;
		case "number":
		case "integer":
		case "json": {
			if (value.kind !== "text") return undefined;
			if (value.text.trim() === "") return inArray ? value.text : undefined;
			if (spec.kind === "json") {
				try {
					return JSON.parse(value.text) as Json;
				} catch {
					return value.text;
				}
			}
			return parseNumber(value.text) ?? value.text;
		}
		case "boolean":
			return value.kind === "boolean" ? value.checked : undefined;
		case "enum":
			if (value.kind !== "enum") return undefined;
			return value.index >= 0 && value.index < spec.options.length
				? spec.options[value.index]!
				: inArray
					? null
					: undefined;
		case "array":
			if (value.kind !== "array") return undefined;
			return value.items.map((item) => toArgs(spec.items, item, true) ?? null);
		case "object": {
			if (value.kind !== "object") return undefined;
			const out: Record<string, Json> = {};
			for (const property of spec.properties) {
				if (!property.required && !value.included[property.key]) continue;
				const field = value.fields[property.key];
				const sent = field ? toArgs(property.spec, field) : undefined;
				if (sent !== undefined) out[property.key] = sent;
			}
			return out;
		}
	}
}

export type FromArgsResult =
	| { readonly ok: true; readonly value: FieldValue }
	| { readonly ok: false; readonly error: string };

/** A JSON value in a message, cut short. */
export function preview(value: Json): string {
	const text = JSON.stringify(value) ?? String(value);
	return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

function where(path: string): string {
	return path === "" ? "(arguments)" : path;
}

function fail(path: string, message: string): FromArgsResult {
	return { ok: false, error: `${where(path)}: ${message}` };
}

/**
 * The form values that send exactly `args` (`toArgs` of the result equals `args`), or why the form
 * cannot hold them: a value of another type than its field, a property the schema does not have, a
 * required property the form would always send.
 */
export function fromArgs(spec: FieldSpec, args: Json, path = "", inArray = false): FromArgsResult {
	switch (spec.kind) {
		case "string":
			return typeof args === "string"
				? { ok: true, value: { kind: "text", text: args } }
				: fail(path, `${preview(args)} is not a string`);
		case "number":
		case "integer":
			if (typeof args === "number") return { ok: true, value: { kind: "text", text: String(args) } };
			if (typeof args === "string") {
				// A string in a number field is sent as typed only when it does not read as a number.
				if (parseNumber(args) !== undefined) return fail(path, `the string ${preview(args)} would be sent as a number`);
				if (args.trim() === "" && !inArray)
					return fail(path, `an empty ${spec.kind} field sends nothing, not ${preview(args)}`);
				return { ok: true, value: { kind: "text", text: args } };
			}
			return fail(path, `${preview(args)} is not a number`);
		case "json": {
			const text = isObject(args) || Array.isArray(args) ? JSON.stringify(args, null, 2) : JSON.stringify(args);
			return { ok: true, value: { kind: "text", text } };
		}
		case "boolean":
			return typeof args === "boolean"
				? { ok: true, value: { kind: "boolean", checked: args } }
				: fail(path, `${preview(args)} is not true or false`);
		case "enum": {
			const index = spec.options.findIndex((option) => jsonEqual(option, args));
			if (index >= 0) return { ok: true, value: { kind: "enum", index } };
			if (inArray && args === null) return { ok: true, value: { kind: "enum", index: -1 } };
			return fail(path, `${preview(args)} is not one of the choices`);
		}
		case "array": {
			if (!Array.isArray(args)) return fail(path, `${preview(args)} is not an array`);
			const items: FieldValue[] = [];
			for (const [index, item] of args.entries()) {
				const result = fromArgs(spec.items, item, `${path}/${index}`, true);
				if (!result.ok) return result;
				items.push(result.value);
			}
			return { ok: true, value: { kind: "array", items } };
		}
		case "object": {
			if (!isObject(args)) return fail(path, `${preview(args)} is not an object`);
			const known = new Set(spec.properties.map((property) => property.key));
			const extra = Object.keys(args).find((key) => !known.has(key));
			if (extra !== undefined)
				return fail(
					`${path}/${escapePointer(extra)}`,
					"the schema has no such property, so the form has no field for it",
				);
			const fields: Record<string, FieldValue> = {};
			const included: Record<string, boolean> = {};
			for (const property of spec.properties) {
				const childPath = `${path}/${escapePointer(property.key)}`;
				if (Object.hasOwn(args, property.key)) {
					const result = fromArgs(property.spec, args[property.key]!, childPath);
					if (!result.ok) return result;
					fields[property.key] = result.value;
					included[property.key] = true;
				} else if (property.required) {
					// Left out: only fields whose empty state sends nothing can say so.
					const empty = emptyValue(property.spec);
					if (toArgs(property.spec, empty) !== undefined) {
						return fail(childPath, `missing, and the form always sends a ${property.spec.kind} here`);
					}
					fields[property.key] = empty;
					included[property.key] = true;
				} else {
					fields[property.key] = initialValue(property.spec);
					included[property.key] = false;
				}
			}
			return { ok: true, value: { kind: "object", fields, included } };
		}
	}
}

/** One step of a JSON pointer, escaped (`~` → `~0`, `/` → `~1`). */
export function escapePointer(segment: string): string {
	return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** A JSON pointer from its steps. */
export function toPointer(segments: readonly string[]): string {
	return segments.map((segment) => `/${escapePointer(segment)}`).join("");
}

/** The steps of a JSON pointer (`""` → none). */
export function parsePointer(pointer: string): string[] {
	if (pointer === "") return [];
	return pointer
		.slice(1)
		.split("/")
		.map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/**
 * Change the value at `pointer` with `change`, given the spec and value found there; every optional
 * property on the way is included (typing into a field means sending it). Unknown paths change nothing.
 */
export function updateAt(
	spec: FieldSpec,
	value: FieldValue,
	pointer: string,
	change: (spec: FieldSpec, value: FieldValue) => FieldValue,
	include = true,
): FieldValue {
	const walk = (spec: FieldSpec, value: FieldValue, segments: readonly string[]): FieldValue => {
		if (segments.length === 0) return change(spec, value);
		const [head, ...rest] = segments as [string, ...string[]];
		if (spec.kind === "object" && value.kind === "object") {
			const property = spec.properties.find((candidate) => candidate.key === head);
			const field = value.fields[head];
			if (!property || !field) return value;
			return {
				kind: "object",
				fields: { ...value.fields, [head]: walk(property.spec, field, rest) },
				included: include ? { ...value.included, [head]: true } : value.included,
			};
		}
		if (spec.kind === "array" && value.kind === "array" && /^\d+$/.test(head)) {
			const index = Number(head);
			const item = value.items[index];
			if (!item) return value;
			return {
				kind: "array",
				items: value.items.map((other, at) => (at === index ? walk(spec.items, item, rest) : other)),
			};
		}
		return value;
	};
	return walk(spec, value, parsePointer(pointer));
}

/** Set the text of the text field at `pointer`. */
export function setText(spec: FieldSpec, value: FieldValue, pointer: string, text: string): FieldValue {
	return updateAt(spec, value, pointer, (_, current) => (current.kind === "text" ? { kind: "text", text } : current));
}

/** Tick or untick the boolean field at `pointer`. */
export function setChecked(spec: FieldSpec, value: FieldValue, pointer: string, checked: boolean): FieldValue {
	return updateAt(spec, value, pointer, (_, current) =>
		current.kind === "boolean" ? { kind: "boolean", checked } : current,
	);
}

/** Choose option `index` (-1: none) of the enum field at `pointer`. */
export function setEnumIndex(spec: FieldSpec, value: FieldValue, pointer: string, index: number): FieldValue {
	return updateAt(spec, value, pointer, (_, current) => (current.kind === "enum" ? { kind: "enum", index } : current));
}

/** Include or leave out the optional property at `pointer` (including it includes its parents too). */
export function setIncluded(spec: FieldSpec, value: FieldValue, pointer: string, included: boolean): FieldValue {
	const segments = parsePointer(pointer);
	if (segments.length === 0) return value;
	const key = segments.at(-1)!;
	return updateAt(
		spec,
		value,
		toPointer(segments.slice(0, -1)),
		(_, current) =>
			current.kind === "object" ? { ...current, included: { ...current.included, [key]: included } } : current,
		included,
	);
}

/** Append a new item (its initial value) to the array field at `pointer`. */
export function addItem(spec: FieldSpec, value: FieldValue, pointer: string): FieldValue {
	return updateAt(spec, value, pointer, (arraySpec, current) =>
		arraySpec.kind === "array" && current.kind === "array"
			? { kind: "array", items: [...current.items, initialValue(arraySpec.items, true)] }
			: current,
	);
}

/** Remove the array item at `pointer` (`/list/2`). */
export function removeItem(spec: FieldSpec, value: FieldValue, pointer: string): FieldValue {
	const segments = parsePointer(pointer);
	const last = segments.at(-1);
	if (last === undefined || !/^\d+$/.test(last)) return value;
	const index = Number(last);
	return updateAt(spec, value, toPointer(segments.slice(0, -1)), (_, current) =>
		current.kind === "array" ? { kind: "array", items: current.items.filter((_, at) => at !== index) } : current,
	);
}

/** The pointer of every field the form shows for `value`, the root (`""`) included. */
export function fieldPointers(spec: FieldSpec, value: FieldValue, pointer = ""): string[] {
	const out = [pointer];
	if (spec.kind === "object" && value.kind === "object") {
		for (const property of spec.properties) {
			const field = value.fields[property.key];
			if (field) out.push(...fieldPointers(property.spec, field, `${pointer}/${escapePointer(property.key)}`));
		}
	} else if (spec.kind === "array" && value.kind === "array") {
		value.items.forEach((item, index) => {
			out.push(...fieldPointers(spec.items, item, `${pointer}/${index}`));
		});
	}
	return out;
}

/**
 * Which field each validation problem belongs to: the deepest field whose pointer is the problem's
 * path or a prefix of it (`/opts/depth` under a JSON field `/opts`). Problems that only the root
 * matches are general.
 */
export function placeProblems(
	pointers: readonly string[],
	problems: readonly ValidationProblem[],
): {
	readonly byField: ReadonlyMap<string, readonly ValidationProblem[]>;
	readonly general: readonly ValidationProblem[];
} {
	const byField = new Map<string, ValidationProblem[]>();
	const general: ValidationProblem[] = [];
	for (const problem of problems) {
		let best: string | undefined;
		for (const pointer of pointers) {
			if (pointer === "") continue;
			if (problem.path !== pointer && !problem.path.startsWith(`${pointer}/`)) continue;
			if (best === undefined || pointer.length > best.length) best = pointer;
		}
		if (best === undefined) general.push(problem);
		else byField.set(best, [...(byField.get(best) ?? []), problem]);
	}
	return { byField, general };
}

/** An option of an enum as the select shows it: strings as they are, other values as JSON. */
export function optionLabel(option: Json): string {
	return typeof option === "string" ? option : JSON.stringify(option);
}

/** The form of one tool: its fields, or the whole arguments as JSON text (the raw mode). */
export interface FormState {
	/** The parameters' schema the fields were built from, as JSON text (a reload may change it). */
	readonly schemaKey: string;
	readonly spec: FieldSpec;
	readonly value: FieldValue;
	readonly raw: boolean;
	readonly rawText: string;
	/** Why the form shows JSON rather than fields (the JSON does not parse, the fields cannot hold it, the schema changed). */
	readonly note?: string;
}

/** The text of a JSON value for the raw mode. */
function rawTextOf(args: Json): string {
	return JSON.stringify(args, null, 2);
}

/** A fresh form for a schema: defaults filled in. */
export function newForm(parameters: Json): FormState {
	const spec = fieldSpec(parameters);
	const value = initialValue(spec);
	return {
		schemaKey: JSON.stringify(parameters),
		spec,
		value,
		raw: false,
		rawText: rawTextOf(toArgs(spec, value) ?? {}),
	};
}

export type ArgsResult = { readonly ok: true; readonly args: Json } | { readonly ok: false; readonly error: string };

/** The arguments the form sends now; in raw mode, the JSON text parsed (or why it does not parse). */
export function formArgs(form: FormState): ArgsResult {
	if (!form.raw) return { ok: true, args: toArgs(form.spec, form.value) ?? {} };
	try {
		return { ok: true, args: JSON.parse(form.rawText) as Json };
	} catch (error) {
		return { ok: false, error: `The JSON does not parse: ${error instanceof Error ? error.message : String(error)}` };
	}
}

/**
 * The form for the tool's schema now. Unchanged schema: the form as it is. Changed: the same
 * arguments in the new fields when they fit, else the arguments as JSON with a note saying why, so
 * nothing typed is lost.
 */
export function reconcileForm(existing: FormState | undefined, parameters: Json): FormState {
	const schemaKey = JSON.stringify(parameters);
	if (!existing) return newForm(parameters);
	if (existing.schemaKey === schemaKey) return existing;
	const spec = fieldSpec(parameters);
	const args = formArgs(existing);
	if (existing.raw || !args.ok) return { ...existing, schemaKey, spec, value: initialValue(spec) };
	const fitted = fromArgs(spec, args.args);
	if (fitted.ok) return { schemaKey, spec, value: fitted.value, raw: false, rawText: rawTextOf(args.args) };
	return {
		schemaKey,
		spec,
		value: initialValue(spec),
		raw: true,
		rawText: rawTextOf(args.args),
		note: `The schema changed and the fields cannot hold the arguments (${fitted.error}); they are kept here as JSON.`,
	};
}

/** Switch between fields and raw JSON. Back to fields only when the JSON parses and fits; otherwise stay, saying why. */
export function toggleRaw(form: FormState): FormState {
	if (!form.raw) {
		const { note: _, ...rest } = form;
		return { ...rest, raw: true, rawText: rawTextOf(toArgs(form.spec, form.value) ?? {}) };
	}
	const args = formArgs(form);
	if (!args.ok) return { ...form, note: `${args.error}. Fix it, or the fields cannot show it.` };
	const fitted = fromArgs(form.spec, args.args);
	if (!fitted.ok) return { ...form, note: `The fields cannot hold these arguments: ${fitted.error}.` };
	const { note: _, ...rest } = form;
	return { ...rest, raw: false, value: fitted.value };
}

/** The raw JSON text changed (the note about earlier text no longer applies). */
export function setRawText(form: FormState, rawText: string): FormState {
	const { note: _, ...rest } = form;
	return { ...rest, rawText };
}

/** The fields changed. */
export function setValue(form: FormState, value: FieldValue): FormState {
	return { ...form, value };
}
