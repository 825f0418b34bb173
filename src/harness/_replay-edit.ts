/**
 * Replaying writes and edits: a write's report depends only on the call; an edit is checked
 * against the recorded diff, which also fills in lines of the file no earlier result showed and
 * brings the replayed file along where our edit could not be replayed.
 */
import { FileLines } from "./_file-lines.js";
import { isEditNoFileError } from "./_normalize.js";
import { UNKNOWN_LINE } from "./_recorded-files.js";
import { changedLinesFromDiff, linesBeforeFromDiff } from "./_recorded-formats.js";
import { compare } from "./_replay-compare.js";
import { argsOf, pathOf, type ReplayState, runTool, textOf, unknowable } from "./_replay-state.js";
import type { RecordedCall } from "./session.js";
import type { SessionCallOutcome, UnknowableReason } from "./session-report.js";

export async function replayWrite(state: ReplayState, call: RecordedCall): Promise<SessionCallOutcome> {
	const path = pathOf(state, call);
	const ours = await runTool(state, call.toolCall);
	if (path && !ours.isError) {
		const content = state.files.content(path);
		if (content !== undefined) await state.files.setContent(path, content);
	}
	// A write's report depends only on the call itself.
	return compare(call, ours, { formatOnly: true });
}

export async function replayEdit(state: ReplayState, call: RecordedCall): Promise<SessionCallOutcome> {
	const recorded = call.result!;
	const path = pathOf(state, call);
	if (!path) return compare(call, await runTool(state, call.toolCall));
	if (!state.files.has(path)) {
		// Only "it does not exist" can be checked on a file no result showed (the replay has none).
		if (recorded.isError && isEditNoFileError(textOf(recorded.content))) {
			return compare(call, await runTool(state, call.toolCall), { formatOnly: true });
		}
		return unknowable(call, "unseen-file", "no recorded result showed this file before the edit");
	}
	const stale = state.files.isStale(path);
	const staleWhy = state.files.staleReason(path);
	// The recorded diff shows some lines of the file as it was just before the edit; where the
	// replay did not know them, they are taken from there (the edit is then marked seeded). A file
	// without unknown lines has nothing to take.
	const filled =
		recorded.isError || state.files.partial(path) !== true
			? 0
			: await state.files.fillLines(path, diffLinesBefore(state, path, recorded.details));
	const before = state.files.content(path) ?? "";
	const partial = state.files.partial(path) === true;
	// Taken now: the line index of the file before our edit (shared with the recorded env's cache).
	const beforeLines = state.files.lines(path) ?? new FileLines("");
	const ours = await runTool(state, call.toolCall);
	// A difference on a partly known file may come from lines no result showed; on a stale one,
	// from a change outside the recorded calls: either is unknowable.
	let onDifference: UnknowableReason | undefined;
	let why = "our edit result differs from the recorded one";
	if (partial) {
		onDifference = "unseen-region";
		why = "the edit depends on lines of the file no recorded result showed";
	} else if (stale) {
		onDifference = "outside-change";
		why = `the file may have changed (${staleWhy})`;
	}
	const outcome = compare(call, ours, { seeded: filled > 0, onDifference, why });

	if (outcome.status === "match") {
		if (!ours.isError) return await checkEditEffect(state, call, path, before, beforeLines, outcome);
		return outcome;
	}
	// The results differ. Undo our change if the recording says the file was left alone.
	if (!ours.isError && recorded.isError) await state.files.env.writeFile(path, before);
	if (onDifference !== undefined) {
		// The recorded edit changed the real file: bring ours along where its diff allows.
		if (!recorded.isError) await followRecordedEdit(state, call, path, before, ours.isError);
		return outcome;
	}
	if (!recorded.isError) await state.files.forget(path);
	return outcome;
}

/**
 * Releases from 0.37 on diff a CRLF file with its line breaks made LF (earlier ones kept the
 * carriage returns): in such a file, a diff line stands for a line that ends with one.
 */
function crlf(state: ReplayState, path: string): boolean {
	return state.files.content(path)?.includes("\r\n") === true;
}

function diffLinesBefore(state: ReplayState, path: string, details: unknown): Map<number, string> {
	const lines = linesBeforeFromDiff(details);
	if (!crlf(state, path)) return lines;
	return new Map([...lines].map(([line, text]) => [line, withCR(text)]));
}

function diffChangedLines(state: ReplayState, path: string, details: unknown): ReturnType<typeof changedLinesFromDiff> {
	const changed = changedLinesFromDiff(details);
	if (!changed || !crlf(state, path)) return changed;
	return changed.map((entry) => ({ ...entry, text: withCR(entry.text) }));
}

/**
 * The recorded edit worked but ours could not be replayed. The file changed in reality, so
 * either its recorded diff brings the replayed file along (the changed lines carry their line
 * numbers), or nothing about the file can be trusted any more.
 */
async function followRecordedEdit(
	state: ReplayState,
	call: RecordedCall,
	path: string,
	before: string,
	oursFailed: boolean,
): Promise<void> {
	// Our edit failed and left the file as it was; else its change is undone first.
	if (!oursFailed) await state.files.env.writeFile(path, before);
	const changed = diffChangedLines(state, path, call.result!.details);
	if (!changed || !(await state.files.applyChangedLines(path, changed))) await state.files.forget(path);
}

/**
 * The recorded diff names changed lines with their numbers; our file after the edit must agree.
 * The recorded agent applied `newText` through `String.prototype.replace`, which expands `$$`,
 * `$&`, `` $` `` and `$'`: where that explains a disagreement, the file takes the recorded
 * agent's text (rule `edit-dollar-patterns`), so later calls see what the real file held.
 */
async function checkEditEffect(
	state: ReplayState,
	call: RecordedCall,
	path: string,
	before: string,
	beforeLines: FileLines,
	outcome: SessionCallOutcome,
): Promise<SessionCallOutcome> {
	state.files.touch(path);
	const changed = diffChangedLines(state, path, call.result!.details);
	if (!changed || changed.length === 0) return outcome;
	const afterLines = state.files.lines(path) ?? new FileLines("");
	const problem = diffDisagreement(changed, beforeLines, afterLines);
	if (!problem) return outcome;
	const args = argsOf(call.toolCall);
	const oldText = typeof args?.oldText === "string" ? args.oldText : undefined;
	const newText = typeof args?.newText === "string" ? args.newText : undefined;
	if (oldText !== undefined && newText !== undefined && /\$[$&`']/.test(newText)) {
		const expanded = before.replace(oldText, newText);
		if (!diffDisagreement(changed, beforeLines, new FileLines(expanded))) {
			await state.files.env.writeFile(path, expanded);
			return { ...outcome, rules: [...outcome.rules, "edit-dollar-patterns"] };
		}
	}
	const stale = state.files.isStale(path);
	const staleWhy = state.files.staleReason(path);
	await state.files.forget(path);
	if (stale) {
		return {
			...outcome,
			status: "unknowable",
			reason: "outside-change",
			message: `the recorded diff disagrees with the replayed file, which may have changed (${staleWhy}): ${problem}`,
		};
	}
	return {
		...outcome,
		status: "mismatch",
		message: `the file after our edit disagrees with the recorded diff: ${problem}`,
		diff: problem,
	};
}

function withCR(text: string): string {
	return text.endsWith("\r") ? text : `${text}\r`;
}

/** The first changed line of a recorded diff that the before/after lines contradict. */
function diffDisagreement(
	changed: readonly { kind: "-" | "+"; line: number; text: string }[],
	before: FileLines,
	after: FileLines,
): string | undefined {
	for (const entry of changed) {
		const lines = entry.kind === "-" ? before : after;
		const held = lines.line(entry.line - 1);
		if (held === UNKNOWN_LINE) continue;
		if (held !== entry.text) {
			const side = entry.kind === "-" ? "before" : "after";
			return `recorded diff line ${entry.kind}${entry.line} is ${JSON.stringify(entry.text)}, the replayed file ${side} the edit has ${held === undefined ? "no such line" : JSON.stringify(held)}`;
		}
	}
	return undefined;
}
