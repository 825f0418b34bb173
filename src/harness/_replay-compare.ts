/**
 * Comparing our run of a call with its recorded result, after the normalization rules, and the
 * nested calls each side made: a match, a mismatch, or a difference the caller says is unknowable.
 */
import type { NestedCalls } from "../contract/content.js";
import { nestedCallKey } from "./_nested-lines.js";
import { type NormalizedText, normalizeResultText, olderLimitsRule } from "./_normalize.js";
import { argsOf, type ToolRun, textOf } from "./_replay-state.js";
import { textDiff } from "./_text-diff.js";
import type { RecordedCall } from "./session.js";
import type { SessionCallOutcome, UnknowableReason } from "./session-report.js";

/** How `compare` judges a call. */
export interface CompareOptions {
	readonly seeded?: boolean;
	readonly extraRules?: readonly string[];
	readonly onDifference?: UnknowableReason;
	readonly why?: string;
	/** A match proves only how our tool frames an answer taken from the recording (see `verifies`). */
	readonly formatOnly?: boolean;
	/**
	 * A differing outcome will not be reported as a mismatch (the caller drops it or makes it
	 * unknowable): no diff is computed for it. Only mismatches carry one.
	 */
	readonly noDiff?: boolean;
}

/** Compares our run with the recording; `options.why` says what was known, for the message. */
export function compare(call: RecordedCall, ours: ToolRun, options: CompareOptions = {}): SessionCallOutcome {
	const recorded = call.result!;
	const recordedText = textOf(recorded.content);
	// Equal texts need no rules (most bash results); only differing ones are normalized.
	let expected: NormalizedText = { text: recordedText, isError: recorded.isError, rules: [] };
	let actual: NormalizedText = { text: ours.text, isError: ours.isError, rules: [] };
	let extra = options.extraRules ?? [];
	if (recordedText !== ours.text || recorded.isError !== ours.isError) {
		const context = { toolName: call.toolCall.name, args: argsOf(call.toolCall), isError: recorded.isError };
		expected = normalizeResultText(recordedText, context);
		actual = normalizeResultText(ours.text, { ...context, isError: ours.isError });
		if (expected.text !== actual.text && expected.isError === actual.isError) {
			const older = olderLimitsRule(call.toolCall.name, recordedText, ours.text);
			// Compared as far as our result goes: the same text on both sides.
			if (older) {
				expected = { ...actual, rules: expected.rules };
				extra = [...extra, older];
			}
		}
	}
	const rules =
		expected.rules.length + actual.rules.length + extra.length === 0
			? []
			: [...new Set([...expected.rules, ...actual.rules, ...extra])];
	const same = expected.text === actual.text && expected.isError === actual.isError;
	// The outcomes are written out field by field: spreading the call's identity fields into them
	// made the replay measurably slower.
	if (same) {
		// Both sides hold the recorded string (equal to ours): our copy can die young instead of
		// living on in the report.
		return {
			index: call.index,
			batch: call.batch,
			toolCallId: call.toolCall.id,
			toolName: call.toolCall.name,
			arguments: call.toolCall.arguments,
			verifies: options.formatOnly || options.seeded ? "format" : "state",
			seeded: options.seeded === true,
			rules,
			expected: { text: expected.text, isError: expected.isError },
			actual: { text: expected.text, isError: actual.isError },
			status: "match",
			message: options.seeded ? "matched (page seeded from this result)" : "matched",
		};
	}
	if (options.onDifference) {
		return {
			index: call.index,
			batch: call.batch,
			toolCallId: call.toolCall.id,
			toolName: call.toolCall.name,
			arguments: call.toolCall.arguments,
			seeded: options.seeded === true,
			rules,
			expected: { text: expected.text, isError: expected.isError },
			actual: { text: actual.text, isError: actual.isError },
			status: "unknowable",
			reason: options.onDifference,
			message: options.why ?? "differs",
		};
	}
	const mismatch: SessionCallOutcome = {
		index: call.index,
		batch: call.batch,
		toolCallId: call.toolCall.id,
		toolName: call.toolCall.name,
		arguments: call.toolCall.arguments,
		seeded: options.seeded === true,
		rules,
		expected: { text: expected.text, isError: expected.isError },
		actual: { text: actual.text, isError: actual.isError },
		status: "mismatch",
		message: options.why ?? "our result differs from the recorded one",
	};
	if (options.noDiff) return mismatch;
	const diff =
		expected.isError !== actual.isError
			? `isError: recorded ${expected.isError}, ours ${actual.isError}\n${textDiff(expected.text, actual.text, { expected: "recorded", actual: "ours" })}`
			: textDiff(expected.text, actual.text, { expected: "recorded", actual: "ours" });
	return { ...mismatch, diff };
}

/**
 * `outcome` with the nested calls the recorded call and ours made (pi 1.x records them on the
 * result): a match whose nested calls differ (another tool, status or arguments) is a mismatch.
 */
export function withNestedCalls(
	outcome: SessionCallOutcome,
	recorded: NestedCalls | undefined,
	ours: NestedCalls | undefined,
): SessionCallOutcome {
	if (recorded === undefined && ours === undefined) return outcome;
	const nestedCalls = { ...(recorded ? { recorded } : {}), ...(ours ? { ours } : {}) };
	const recordedKeys = (recorded?.calls ?? []).map(nestedCallKey).join("\n");
	const ourKeys = (ours?.calls ?? []).map(nestedCallKey).join("\n");
	if (outcome.status !== "match" || recordedKeys === ourKeys) return { ...outcome, nestedCalls };
	const { verifies: _verifies, ...rest } = outcome;
	return {
		...rest,
		nestedCalls,
		status: "mismatch",
		message: "our tool made other nested calls (ctx.executeTool) than the recorded one",
		diff: textDiff(recordedKeys, ourKeys, { expected: "recorded nested calls", actual: "our nested calls" }),
	};
}
