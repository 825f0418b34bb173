/**
 * TypeBox's subpath modules inside extensions. pi maps `@sinclair/typebox` and `typebox` to the
 * TypeBox it bundles (1.x), with its `compile` and `value` subpaths; extensions here get
 * toolsmith's TypeBox (0.34) instead, so these give 0.34's compiler and value functions under the
 * names 1.x extensions import: `Compile` (and a default export) from `…/compile`, `Value` and its
 * functions one by one (`Check`, `Parse`, `Clean`, …, and a default export) from `…/value`.
 * `Errors` gives an array, as in 1.x; its entries have 0.34's shape (`path`, `message`, `value`).
 *
 * 1.x compiles plain JSON Schema, and `Type.Unsafe({ anyOf: [...] })` is such a schema there; 0.34
 * refuses a kind it does not know ("Unknown type"). A schema 0.34 cannot compile on its own is
 * translated to TypeBox first (as the executor does for tool parameters), so these functions
 * accept what 1.x accepts.
 */
import type { TSchema } from "@sinclair/typebox";
import * as compiler from "@sinclair/typebox/compiler";
import * as valueModule from "@sinclair/typebox/value";
import { fromJsonSchema, isCompilableTypeBox } from "../../exec/from-json-schema.js";

const { Value } = valueModule;

const translated = new WeakMap<object, TSchema>();

/** `schema` as 0.34 can compile it: itself, or its TypeBox translation (built once per schema). */
function compilable(schema: TSchema): TSchema {
	if (typeof schema !== "object" || schema === null || isCompilableTypeBox(schema)) return schema;
	let target = translated.get(schema);
	if (!target) {
		target = fromJsonSchema(schema);
		translated.set(schema, target);
	}
	return target;
}

/** Value functions whose first argument is a schema. */
const SCHEMA_FIRST = [
	"Assert",
	"Cast",
	"Check",
	"Clean",
	"Convert",
	"Create",
	"Decode",
	"Default",
	"Encode",
	"Errors",
	"Parse",
] as const;

type AnyFunction = (...args: unknown[]) => unknown;

function withCompilableSchema(fn: AnyFunction): AnyFunction {
	return (schema, ...rest) => fn(compilable(schema as TSchema), ...rest);
}

const valueFunctions: Record<string, unknown> = { ...Value };
for (const name of SCHEMA_FIRST) {
	const fn = (Value as unknown as Record<string, unknown>)[name];
	if (typeof fn === "function") valueFunctions[name] = withCompilableSchema(fn as AnyFunction);
}
valueFunctions.Errors = (schema: TSchema, ...rest: unknown[]) => [
	...(Value.Errors as (...args: unknown[]) => Iterable<unknown>)(compilable(schema), ...rest),
];
const compatValue: Readonly<Record<string, unknown>> = Object.freeze(valueFunctions);

/** `typebox/value` and `@sinclair/typebox/value`. */
export const typeboxValue: Readonly<Record<string, unknown>> = Object.freeze({
	...valueModule,
	...compatValue,
	Value: compatValue,
	default: compatValue,
});

/** A compiled check, with the methods 1.x's `Validator` has that 0.34's `TypeCheck` can serve. */
function Compile(schema: TSchema, references: TSchema[] = []) {
	const target = compilable(schema);
	const check = compiler.TypeCompiler.Compile(target, references.map(compilable));
	return {
		Check: (value: unknown) => check.Check(value),
		Errors: (value: unknown) => [...check.Errors(value)],
		Parse: (value: unknown) => Value.Parse(target, value),
		Decode: (value: unknown) => check.Decode(value),
		Encode: (value: unknown) => check.Encode(value),
		Code: () => check.Code(),
		Schema: () => schema,
	};
}

/** `typebox/compile` and `@sinclair/typebox/compile`. */
export const typeboxCompile: Readonly<Record<string, unknown>> = Object.freeze({ Compile, default: Compile });

/** `@sinclair/typebox/compiler` (0.34's own subpath, as it is). */
export const typeboxCompiler: Readonly<Record<string, unknown>> = compiler;
