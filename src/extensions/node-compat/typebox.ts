/**
 * TypeBox's subpath modules inside extensions. pi maps `@sinclair/typebox` and `typebox` to the
 * TypeBox it bundles (1.x), with its `compile` and `value` subpaths; extensions here get
 * toolsmith's TypeBox (0.34) instead, so these give 0.34's compiler and value functions under the
 * names 1.x extensions import: `Compile` (and a default export) from `…/compile`, `Value` and its
 * functions one by one (`Check`, `Parse`, `Clean`, …, and a default export) from `…/value`.
 * `Errors` gives an array, as in 1.x; its entries have 0.34's shape (`path`, `message`, `value`).
 */
import type { TSchema } from "@sinclair/typebox";
import * as compiler from "@sinclair/typebox/compiler";
import * as valueModule from "@sinclair/typebox/value";

const { Value } = valueModule;

/** `typebox/value` and `@sinclair/typebox/value`. */
export const typeboxValue: Readonly<Record<string, unknown>> = Object.freeze({
	...valueModule,
	...Value,
	Errors: (schema: TSchema, value: unknown) => [...Value.Errors(schema, value)],
	Value,
	default: Value,
});

/** A compiled check, with the methods 1.x's `Validator` has that 0.34's `TypeCheck` can serve. */
function Compile(schema: TSchema, references: TSchema[] = []) {
	const check = compiler.TypeCompiler.Compile(schema, references);
	return {
		Check: (value: unknown) => check.Check(value),
		Errors: (value: unknown) => [...check.Errors(value)],
		Parse: (value: unknown) => Value.Parse(schema, value),
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
