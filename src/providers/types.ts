/** Shared types of the provider converters. */

/** The wire formats toolsmith converts to and from. */
export type ToolProvider = "openai-chat" | "openai-responses" | "anthropic" | "google";

/** Every provider, in a stable order (handy for reports and tests). */
export const TOOL_PROVIDERS: readonly ToolProvider[] = ["openai-chat", "openai-responses", "anthropic", "google"];

/**
 * Kinds of schema change. Each is lossy in some way: the provider sees a weaker or different
 * schema than the tool declared (the executor still validates against the tool's own schema).
 *
 * - `literal-union-to-enum`: a union of literals became one `enum`.
 * - `const-to-enum`: a `const` became a one-value `enum` (Google has no `const`).
 * - `enum-stringified`: non-string enum values were turned into strings (Google takes string enums only).
 * - `type-array-to-nullable`: `type: [T, "null"]` became `type: T, nullable: true` (Google).
 * - `type-array-to-any-of`: a type array with several non-null types became an `anyOf` (Google).
 * - `null-union-to-nullable`: `anyOf: [T, {type: "null"}]` became `T` with `nullable: true` (Google).
 * - `one-of-to-any-of`: `oneOf` became `anyOf`; exclusivity is no longer enforced by the provider.
 * - `all-of-merged`: an `allOf` of object schemas was merged into one object.
 * - `ref-inlined`: a `$ref` was replaced by the schema it points to.
 * - `ref-to-defs`: a TypeBox `$id` reference was rewritten to a `#/$defs/…` (or `#`) pointer.
 * - `keyword-removed`: a keyword the provider rejects was removed.
 * - `closed-object`: `additionalProperties: false` was added (OpenAI strict mode requires it).
 * - `optional-to-nullable`: an optional property became required and nullable (OpenAI strict mode).
 */
export type SchemaRewriteKind =
	| "literal-union-to-enum"
	| "const-to-enum"
	| "enum-stringified"
	| "type-array-to-nullable"
	| "type-array-to-any-of"
	| "null-union-to-nullable"
	| "one-of-to-any-of"
	| "all-of-merged"
	| "ref-inlined"
	| "ref-to-defs"
	| "keyword-removed"
	| "closed-object"
	| "optional-to-nullable";

/**
 * Kinds of construct a provider cannot take at all.
 *
 * - `unsupported-keyword`: a structural keyword (`not`, `if`, `patternProperties`, tuple `items`, …) the provider rejects.
 * - `recursive-ref`: a schema refers to itself and the provider cannot express recursion.
 * - `unresolved-ref`: a `$ref` points nowhere toolsmith can find.
 * - `open-object`: an object with typed extra keys (a map) that strict mode would have to close.
 * - `root-not-object`: the parameter schema is not an object schema.
 * - `non-json-type`: a TypeBox type with no JSON form (`Date`, `Uint8Array`, `undefined`, …).
 * - `unsupported-const`: a non-string `const`, which Google cannot express.
 * - `limit-exceeded`: the schema is too deep, or has too many properties or enum values, for the provider.
 * - `strict-required`: the tool's `constrainedSampling` requires strict JSON Schema sampling, which
 *   the provider (as the converter was told: `strictTools: false`) cannot give, or its schema cannot
 *   be made strict.
 * - `grammar-invalid`: the tool's `constrainedSampling` asks for a grammar, but gives none the
 *   provider takes, or its parameters are not one required string property.
 */
export type SchemaErrorKind =
	| "unsupported-keyword"
	| "recursive-ref"
	| "unresolved-ref"
	| "open-object"
	| "root-not-object"
	| "non-json-type"
	| "unsupported-const"
	| "limit-exceeded"
	| "strict-required"
	| "grammar-invalid";

/** A lossy change `compileToolSchema` made to fit the provider's dialect, and where. */
export interface SchemaRewrite {
	/** JSON pointer into the tool's own schema (`""` is the root). */
	readonly path: string;
	readonly kind: SchemaRewriteKind;
	readonly message: string;
}

/** A construct in a tool's schema the provider cannot take, where it is, and why. */
export interface SchemaError {
	readonly path: string;
	readonly kind: SchemaErrorKind;
	readonly message: string;
}

/** A tool's parameter schema in one provider's JSON Schema dialect, with every lossy rewrite and every error found on the way. */
export interface CompiledToolSchema {
	/** Plain JSON (no TypeBox symbols) in the provider's dialect, as far as it could be made. */
	readonly schema: Record<string, unknown>;
	/** Every lossy change made on the way. */
	readonly rewrites: readonly SchemaRewrite[];
	/** Every construct the provider cannot take; non-empty means the provider would reject the schema. */
	readonly errors: readonly SchemaError[];
}

/** Options for `compileToolSchema`. */
export interface CompileSchemaOptions {
	/** OpenAI strict mode (structured outputs for function arguments). Ignored by other providers. */
	readonly strict?: boolean;
}
