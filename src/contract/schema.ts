/** Schema helpers on top of TypeBox. */
import { type SchemaOptions, type TUnsafe, Type } from "@sinclair/typebox";

export type { Static, TObject, TSchema } from "@sinclair/typebox";
export { Type } from "@sinclair/typebox";

/**
 * A string limited to `values`, written as `{ type: "string", enum: [...] }`.
 *
 * Prefer it to a union of literals: several providers reject `anyOf`/`const`, and every provider
 * takes a plain `enum`. The static type is the union of the values.
 */
export function StringEnum<const T extends readonly string[]>(values: T, options?: SchemaOptions): TUnsafe<T[number]> {
	return Type.Unsafe<T[number]>({ ...options, type: "string", enum: [...values] });
}
