/** The validation pipeline shared by `validateToolArguments` and the executor. */
import { Kind, type TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { type ValueError, ValueErrorType } from "@sinclair/typebox/errors";
import { Value } from "@sinclair/typebox/value";
import { describeValue, errorMessage } from "../contract/errors.js";
import { err, ok, type Result } from "../contract/result.js";
import { coerceValue, dropUndeclaredHostileKeys } from "./_coerce.js";
import { argumentsError, type ToolArgumentsError, type ValidationIssue } from "./errors.js";
import { fromJsonSchema, isCompilableTypeBox } from "./from-json-schema.js";
import {
	ArgumentsShapeError,
	cleanObjectCheck,
	cloneArguments,
	type HostileKeyState,
	isCleanJson,
	isHostileKey,
	jsonLimitProblem,
	MAX_ARGUMENT_CHARS,
	objectSizeProblem,
	parseJsonArguments,
	previewJson,
	sizeLeft,
} from "./json.js";

/** The received arguments are shown up to this many characters. */
export const RECEIVED_PREVIEW_LIMIT = 2048;

export interface Compiled {
	/** The schema the checker was built from: the tool's own, or its TypeBox translation. */
	readonly schema: TSchema;
	readonly checker: TypeCheck<TSchema>;
	readonly hasDefaults: boolean;
	/**
	 * Whether arguments may be handed to a tool exactly as sent: an object that passes the check,
	 * is plain JSON without hostile keys, for a schema without defaults to fill in. Built once per
	 * schema: which hostile-key check suffices depends on the schema.
	 */
	readonly usableAsSent: (raw: unknown) => boolean;
}

const compiledCache = new WeakMap<object, Compiled>();
const failedCache = new WeakMap<object, string>();

function containsDefault(schema: unknown, depth = 0): boolean {
	if (typeof schema !== "object" || schema === null || depth > 64) return false;
	if (Array.isArray(schema)) return schema.some((s) => containsDefault(s, depth + 1));
	if (Object.hasOwn(schema, "default")) return true;
	for (const key of Object.keys(schema)) {
		if (key === "enum" || key === "const" || key === "examples") continue;
		if (containsDefault((schema as Record<string, unknown>)[key], depth + 1)) return true;
	}
	return false;
}

/**
 * The compiled checker of `schema`, built once per schema object. Throws `ToolArgumentsError`
 * (`E_INVALID_TOOL`) when TypeBox cannot compile it. Plain JSON Schema (and `Type.Unsafe` parts
 * such as `StringEnum`) is translated to TypeBox first.
 */
export function compileSchema(schema: TSchema, toolName = "?"): Compiled {
	const cached = compiledCache.get(schema);
	if (cached) return cached;
	const failed = failedCache.get(schema);
	if (failed === undefined) {
		try {
			const target = isCompilableTypeBox(schema) ? schema : fromJsonSchema(schema);
			const checker = TypeCompiler.Compile(target);
			const hasDefaults = containsDefault(target);
			const compiled: Compiled = {
				schema: target,
				checker,
				hasDefaults,
				usableAsSent: usableAsSentFor(target, checker, hasDefaults),
			};
			compiledCache.set(schema, compiled);
			return compiled;
		} catch (error) {
			failedCache.set(schema, errorMessage(error));
		}
	}
	throw argumentsError(
		"E_INVALID_TOOL",
		toolName,
		`The parameter schema of tool "${toolName}" cannot be compiled (${failedCache.get(schema)}). Build it with TypeBox's Type.* helpers.`,
	);
}

const never = (): boolean => false;

function usableAsSentFor(
	schema: TSchema,
	checker: TypeCheck<TSchema>,
	hasDefaults: boolean,
): (raw: unknown) => boolean {
	// Defaults must be filled in on a copy.
	if (hasDefaults) return never;
	const clean = cleanJsonCheckFor(schema);
	return (raw) =>
		typeof raw === "object" &&
		raw !== null &&
		!Array.isArray(raw) &&
		checker.Check(raw) &&
		clean(raw) &&
		sizeLeft(raw, MAX_ARGUMENT_CHARS) >= 0;
}

const PRIMITIVE_KINDS = new Set(["String", "Number", "Integer", "Boolean", "Null", "Literal"]);

/** Whether every value `schema` accepts is a primitive, which has no keys to worry about. */
function acceptsOnlyPrimitives(schema: unknown, depth = 0): boolean {
	if (typeof schema !== "object" || schema === null || depth > 8) return false;
	const kind = (schema as { [Kind]?: unknown })[Kind];
	if (kind === "Union") {
		const members = (schema as { anyOf?: unknown }).anyOf;
		return Array.isArray(members) && members.every((m) => acceptsOnlyPrimitives(m, depth + 1));
	}
	return typeof kind === "string" && PRIMITIVE_KINDS.has(kind);
}

/**
 * The cheapest check that a value which passed `schema`'s compiled check is plain JSON without
 * hostile keys. The compiled check has already looked at every declared property, so values a
 * property schema only allows to be primitives need no walk; the keys are still all visited (an
 * undeclared key can hide anything, even next to `additionalProperties: false` when a declared
 * property is inherited from a polluted prototype).
 */
function cleanJsonCheckFor(schema: TSchema): (value: object) => boolean {
	const s = schema as { [Kind]?: unknown; properties?: unknown };
	const properties = s.properties as Record<string, unknown> | undefined;
	if (s[Kind] !== "Object" || typeof properties !== "object" || properties === null) return isCleanJson;
	const names = Object.keys(properties);
	if (names.some(isHostileKey)) return isCleanJson;
	return cleanObjectCheck(
		names,
		names.map((name) => acceptsOnlyPrimitives(properties[name])),
	);
}

/** Checks a sub-schema on its own; `undefined` when it cannot stand alone (it uses `$ref`). */
function checkSub(schema: Record<string, unknown>, value: unknown): boolean | undefined {
	try {
		return compileSchema(schema as TSchema).checker.Check(value);
	} catch {
		return undefined;
	}
}

/**
 * Validates arguments as the model sent them (an object or a JSON string), never changing them.
 *
 * Arguments that are valid as sent, plain JSON without hostile keys, for a schema without
 * defaults, come back as the very same object: copying them would cost more than everything else
 * the executor does per call. Anything that must change (parsing, repair, defaults, hostile keys)
 * is done on a private copy.
 */
export function validateArguments(
	toolName: string,
	schema: TSchema,
	raw: unknown,
): Result<unknown, ToolArgumentsError> {
	if (typeof raw === "object" && raw !== null && compiledOrUndefined(schema)?.usableAsSent(raw)) return ok(raw);
	const copy = copyArguments(toolName, raw);
	if (!copy.ok) return copy;
	return validateOwned(toolName, schema, copy.value.value, copy.value.sawHostileKey, raw);
}

/** The compiled form of `schema`, or undefined when it cannot be compiled (see `compileSchema`). */
export function compiledOrUndefined(schema: TSchema): Compiled | undefined {
	try {
		return compileSchema(schema);
	} catch {
		return undefined;
	}
}

/** Arguments parsed and copied, ready for `prepareArguments` and validation. */
export interface CopiedArguments {
	readonly value: unknown;
	readonly sawHostileKey: boolean;
}

/**
 * A private copy of what the model sent: a JSON string is parsed, an object deep-copied, and
 * `__proto__` keys removed. Missing or blank arguments become `{}`.
 */
export function copyArguments(toolName: string, raw: unknown): Result<CopiedArguments, ToolArgumentsError> {
	const state: HostileKeyState = { sawHostileKey: false };
	if (typeof raw === "string") {
		const tooLarge = jsonLimitProblem(raw);
		if (tooLarge !== undefined) return err(limitError(toolName, tooLarge));
		const parsed = parseJsonArguments(raw, state);
		if (!parsed.ok) {
			return err(
				argumentsError(
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
		const tooLarge = objectSizeProblem(value);
		if (tooLarge !== undefined) return err(limitError(toolName, tooLarge));
		return ok({ value, sawHostileKey: state.sawHostileKey });
	} catch (error) {
		if (error instanceof ArgumentsShapeError) return err(limitError(toolName, error.message));
		return err(
			argumentsError("E_INVALID_ARGS", toolName, `Invalid arguments for tool "${toolName}": ${errorMessage(error)}`),
		);
	}
}

/** The error for arguments past a limit (`problem` names it), whatever their spelling. */
function limitError(toolName: string, problem: string): ToolArgumentsError {
	return argumentsError(
		"E_INVALID_ARGS",
		toolName,
		`Invalid arguments for tool "${toolName}": ${problem}. Send smaller, flatter arguments and call the tool again.`,
	);
}

/**
 * Validates a value the caller owns (a private copy), repairing model slips in place.
 * `received` is what the model sent (the raw JSON string, or the original object), for the error message.
 */
export function validateOwned(
	toolName: string,
	schema: TSchema,
	owned: unknown,
	sawHostileKey: boolean,
	received: unknown,
): Result<unknown, ToolArgumentsError> {
	let compiled: Compiled;
	try {
		compiled = compileSchema(schema, toolName);
	} catch (error) {
		return err(error as ToolArgumentsError);
	}
	const target = compiled.schema;
	let value = owned;
	if (sawHostileKey) dropUndeclaredHostileKeys(target, value);
	if (compiled.hasDefaults) value = Value.Default(target, value);
	if (compiled.checker.Check(value)) return ok(value);

	value = coerceValue(target, value, checkSub);
	if (compiled.hasDefaults) value = Value.Default(target, value);
	if (compiled.checker.Check(value)) return ok(value);

	const issues = collectIssues(compiled.checker, value);
	const lines = issues.map((issue) => `  - ${issue.message}`).join("\n");
	const message =
		`Invalid arguments for tool "${toolName}":\n${lines || "  - (the validator gave no detail)"}\n\n` +
		`Received arguments:\n${previewReceived(received)}\n\n` +
		"Fix the listed fields and call the tool again.";
	return err(argumentsError("E_INVALID_ARGS", toolName, message, issues));
}

/**
 * What the model sent, for an error message, cut to `RECEIVED_PREVIEW_LIMIT` characters. A string
 * is the raw JSON text the model wrote and is shown as it is.
 */
export function previewReceived(received: unknown): string {
	if (typeof received !== "string") return previewJson(received, RECEIVED_PREVIEW_LIMIT);
	return received.length > RECEIVED_PREVIEW_LIMIT
		? `${received.slice(0, RECEIVED_PREVIEW_LIMIT)}… [cut at ${RECEIVED_PREVIEW_LIMIT} characters]`
		: received;
}

const TYPE_ERRORS = new Set<ValueErrorType>([
	ValueErrorType.Array,
	ValueErrorType.Boolean,
	ValueErrorType.Integer,
	ValueErrorType.Number,
	ValueErrorType.Object,
	ValueErrorType.String,
	ValueErrorType.Null,
	ValueErrorType.Literal,
	ValueErrorType.Union,
	ValueErrorType.Tuple,
]);

function collectIssues(checker: TypeCheck<TSchema>, value: unknown): ValidationIssue[] {
	const byPath = new Map<string, ValueError[]>();
	let count = 0;
	for (const error of checker.Errors(value)) {
		const list = byPath.get(error.path);
		if (list) list.push(error);
		else byPath.set(error.path, [error]);
		// A pathological value could yield millions of errors; the model needs the first ones.
		if (++count >= 200) break;
	}
	const issues: ValidationIssue[] = [];
	for (const [path, errors] of byPath) {
		const where = path === "" ? "(arguments)" : path;
		const first = errors[0] as ValueError;
		const missing = errors.find((e) => e.type === ValueErrorType.ObjectRequiredProperty);
		if (missing) {
			const expected = describeSchema(missing.schema);
			issues.push({ path, expected, received: undefined, message: `${where}: missing, expected ${expected}` });
			continue;
		}
		const extra = errors.find((e) => e.type === ValueErrorType.ObjectAdditionalProperties);
		if (extra) {
			const props = extra.schema.properties as Record<string, unknown> | undefined;
			const allowed = props ? Object.keys(props).join(", ") : "";
			const received = previewJson(extra.value, 120, 0);
			issues.push({
				path,
				expected: "no such property",
				received,
				message: `${where}: unexpected property${allowed ? ` (allowed: ${allowed})` : ""}, received ${received}`,
			});
			continue;
		}
		const received = previewJson(first.value, 120, 0);
		const expected = describeSchema(first.schema);
		const text = TYPE_ERRORS.has(first.type)
			? `expected ${expected}, received ${received}`
			: `${lowerFirst(first.message)}, received ${received}`;
		issues.push({ path, expected, received, message: `${where}: ${text}` });
	}
	return issues;
}

function lowerFirst(text: string): string {
	return text.length > 0 ? text[0]?.toLowerCase() + text.slice(1) : text;
}

const CONSTRAINTS = [
	"minLength",
	"maxLength",
	"pattern",
	"format",
	"minimum",
	"maximum",
	"exclusiveMinimum",
	"exclusiveMaximum",
	"multipleOf",
	"minItems",
	"maxItems",
	"uniqueItems",
	"minProperties",
	"maxProperties",
];

/** A short human description of what a schema accepts. */
export function describeSchema(schema: unknown, depth = 0): string {
	if (typeof schema !== "object" || schema === null) return "any value";
	const s = schema as Record<string, unknown>;
	if (depth > 3) return typeof s.type === "string" ? s.type : "value";
	if ("const" in s) return typeof s.const === "string" ? JSON.stringify(s.const) : describeValue(s.const);
	if (Array.isArray(s.enum))
		return s.enum.map((v) => (typeof v === "string" ? JSON.stringify(v) : describeValue(v))).join(" | ");
	const members = (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined) as
		| unknown[]
		| undefined;
	if (members) return members.map((m) => describeSchema(m, depth + 1)).join(" | ");
	let base: string;
	if (Array.isArray(s.type)) base = s.type.join(" | ");
	else if (s.type === "array") base = `array of ${describeSchema(s.items, depth + 1)}`;
	else if (typeof s.type === "string") base = s.type;
	else if (typeof s.$ref === "string") base = s.$ref;
	else base = "any value";
	const constraints = CONSTRAINTS.filter((key) => s[key] !== undefined).map((key) => `${key} ${describeValue(s[key])}`);
	return constraints.length > 0 ? `${base} (${constraints.join(", ")})` : base;
}
