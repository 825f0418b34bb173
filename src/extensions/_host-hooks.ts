/** The hooks of a host's batch: the caller's `beforeToolCall`/`afterToolCall` chained after those of the extensions. */
import { HOOK_FIELDS, mergeAfterHook, RESULT_FIELDS, structuredAfter, withStructured } from "../exec/after-hook.js";
import type {
	AfterToolCallContext,
	AfterToolCallResult,
	BeforeToolCallResult,
	ExecuteToolCallsConfig,
	ToolCallHookContext,
} from "../exec/types.js";

/** `first`, then `second` unless `first` blocked the call; either alone when the other is missing. */
export function composeBefore(
	first: ExecuteToolCallsConfig["beforeToolCall"],
	second: ExecuteToolCallsConfig["beforeToolCall"],
): ExecuteToolCallsConfig["beforeToolCall"] {
	if (!first || !second) return first ?? second;
	return async (context: ToolCallHookContext): Promise<BeforeToolCallResult | undefined> => {
		const verdict = await first(context);
		if (verdict?.block) return verdict;
		return second(context);
	};
}

/**
 * `first`, then `second` on the result as `first` patched it; one answer with `second`'s fields
 * over `first`'s. Either alone when the other is missing.
 */
export function composeAfter(
	first: ExecuteToolCallsConfig["afterToolCall"],
	second: ExecuteToolCallsConfig["afterToolCall"],
): ExecuteToolCallsConfig["afterToolCall"] {
	if (!first || !second) return first ?? second;
	return async (context: AfterToolCallContext): Promise<AfterToolCallResult | undefined> => {
		const patch = await first(context);
		// What the second hook sees: the first one's content and details (a null content or isError
		// leaves the field as it was; its terminate is not applied).
		const patched: AfterToolCallContext = patch
			? {
					...context,
					result: withStructured(
						mergeAfterHook(
							context.result,
							{ content: patch.content ?? undefined, details: patch.details },
							RESULT_FIELDS,
						),
						structuredAfter(context.result.structuredContent, patch),
					),
					isError: patch.isError ?? context.isError,
				}
			: context;
		const next = await second(patched);
		if (!patch) return next;
		if (!next) return patch;
		return withStructured(mergeAfterHook(patch, next, HOOK_FIELDS), structuredAfter(patch.structuredContent, next));
	};
}
