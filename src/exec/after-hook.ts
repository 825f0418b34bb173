/** Merging what an after-call hook returns (`afterToolCall`, a `tool_result` handler) into what it was given. */
import type { JsonValue } from "../contract/content.js";

/** The fields an after-call hook may replace. */
export type AfterHookField = "content" | "details" | "isError" | "terminate";

/** What an `afterToolCall` answer replaces in the tool's result (`isError` is beside the result, not in it). */
export const RESULT_FIELDS = ["content", "details", "terminate"] as const;

/** Everything an `afterToolCall` answer may carry: what one answer merged on top of another takes from it. */
export const HOOK_FIELDS = ["content", "details", "isError", "terminate"] as const;

/**
 * A copy of `base` in which each of `fields` that `patch` sets replaces `base`'s field as a whole;
 * "sets" means anything but `undefined` (a `null` replaces too). The other fields, and fields not
 * listed, are `base`'s. `base` is not changed.
 */
export function mergeAfterHook<T extends object, K extends keyof T & AfterHookField>(
	base: T,
	patch: { readonly [F in K]?: T[F] | undefined },
	fields: readonly K[],
): T {
	const merged = { ...base };
	for (const field of fields) {
		const value = patch[field];
		if (value !== undefined) merged[field] = value as T[K];
	}
	return merged;
}

/**
 * The structured content after a hook's answer `patch`: its own when it sets one; none when it
 * replaced `content` without one (the old one may no longer match); else `base`, unchanged.
 */
export function structuredAfter(
	base: JsonValue | undefined,
	patch: { readonly content?: unknown; readonly structuredContent?: JsonValue },
): JsonValue | undefined {
	if (patch.structuredContent !== undefined) return patch.structuredContent;
	return patch.content !== undefined && patch.content !== null ? undefined : base;
}

/** `value` with `structuredContent` set to `structured`, or without the key when it is undefined. */
export function withStructured<T extends { structuredContent?: JsonValue }>(
	value: T,
	structured: JsonValue | undefined,
): T {
	const copy = { ...value };
	if (structured === undefined) delete copy.structuredContent;
	else copy.structuredContent = structured;
	return copy;
}
