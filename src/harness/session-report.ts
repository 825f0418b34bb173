/** The session replay report: its shape, the figures tallied from the call outcomes, and the report as text for people. */
import type { NestedCalls } from "../contract/content.js";
import { nestedCallLine } from "./_nested-lines.js";

/** How a recorded call compared: the same outcome, a different one, or one the replay cannot know. */
export type SessionCallStatus = "match" | "mismatch" | "unknowable";

/**
 * Why a call is unknowable.
 *
 * - `no-result`: the recording holds no result (the call never ran).
 * - `no-tool`: no tool of that name is being replayed.
 * - `unseen-file`: the call needs a file no recorded result showed.
 * - `unseen-region`: the call needs lines of a file no recorded result showed.
 * - `unseen-folder`: a grep, find or ls call looks at a folder (or a path no result showed), and
 *   the recording never holds a folder's full contents.
 * - `outside-change`: the result disagrees with what the replay knew, and something outside the
 *   recorded calls (a shell command that may write files, the user between turns) may have
 *   changed the file since.
 * - `image`: the recorded result is an image; the file's bytes are not in the recording.
 * - `timing`: the recorded result depends on wall-clock time (a command that timed out).
 * - `unreadable-result`: the recorded result is in a form the replay does not understand.
 */
export type UnknowableReason =
	| "no-result"
	| "no-tool"
	| "unseen-file"
	| "unseen-region"
	| "unseen-folder"
	| "outside-change"
	| "image"
	| "timing"
	| "unreadable-result";

/** What replaying one recorded call gave: match, mismatch or unknowable, and why. */
export interface SessionCallOutcome {
	/** Position among all calls of the session, from 0. */
	readonly index: number;
	readonly batch: number;
	readonly toolCallId: string;
	readonly toolName: string;
	readonly arguments: unknown;
	readonly status: SessionCallStatus;
	/** Set for `unknowable`. */
	readonly reason?: UnknowableReason;
	/** One line saying what happened, for people. */
	readonly message: string;
	/**
	 * A read whose page the replay learned from this very result (it checks how our tool pages
	 * and frames a file, not that earlier calls left the file as recorded).
	 */
	readonly seeded: boolean;
	/**
	 * For a match, what it proves. `state`: the result agrees with files the replay built from other
	 * calls (a read of lines earlier calls showed or wrote, an edit of a file they showed).
	 * `format`: only how our tool frames its answer, since the answer came from the recording itself
	 * (a bash call answered with its recorded output, a read of a page learned from its own result, a
	 * write's report, which depends only on the call).
	 */
	readonly verifies?: "state" | "format";
	/** Normalization rules that changed the recorded or our text. */
	readonly rules: readonly string[];
	/** The recorded text and error flag (normalized). */
	readonly expected?: { readonly text: string; readonly isError: boolean };
	/** Our text and error flag (normalized). */
	readonly actual?: { readonly text: string; readonly isError: boolean };
	/** For a mismatch: a readable diff of expected vs actual. */
	readonly diff?: string;
	/** The calls the tool made through `ctx.executeTool`, recorded and ours, when either made any. */
	readonly nestedCalls?: { readonly recorded?: NestedCalls; readonly ours?: NestedCalls };
}

/** Counts of one tool's (or all) calls in a session replay, by outcome. */
export interface SessionToolFigures {
	readonly calls: number;
	readonly match: number;
	readonly mismatch: number;
	readonly unknowable: number;
	/** Matches that used state learned from their own recorded result (part of `match`). */
	readonly seeded: number;
	/** Matches that agree with files built from other calls (part of `match`; see `verifies`). */
	readonly stateVerified: number;
	/** Matches that check only how our tool frames an answer taken from the recording (`match − stateVerified`). */
	readonly formatOnly: number;
}

/** Counts over a whole session replay: the totals, per tool, why calls were unknowable, and which normalization rules were needed. */
export interface SessionReplayFigures extends SessionToolFigures {
	readonly byTool: Readonly<Record<string, SessionToolFigures>>;
	/** `byTool.read.seeded`: reads that matched using a page learned from their own result. */
	readonly seededReads: number;
	readonly unknowableReasons: Readonly<Partial<Record<UnknowableReason, number>>>;
	/** How often each normalization rule was needed. */
	readonly rules: Readonly<Record<string, number>>;
}

/** The outcome of `replaySession`: every call's outcome, the figures, and whether any call mismatched. */
export interface SessionReplayReport {
	readonly cwd: string;
	readonly figures: SessionReplayFigures;
	readonly calls: readonly SessionCallOutcome[];
	/** True when no call is a mismatch. */
	readonly ok: boolean;
}

/** The figures of a replay: the outcomes counted by status, by tool, by unknowable reason and by rule. */
export function summarizeOutcomes(outcomes: readonly SessionCallOutcome[]): SessionReplayFigures {
	type Counts = {
		calls: number;
		match: number;
		mismatch: number;
		unknowable: number;
		seeded: number;
		stateVerified: number;
		formatOnly: number;
	};
	const empty = (): Counts => ({
		calls: 0,
		match: 0,
		mismatch: 0,
		unknowable: 0,
		seeded: 0,
		stateVerified: 0,
		formatOnly: 0,
	});
	const byTool: Record<string, Counts> = {};
	const total = empty();
	const reasons: Partial<Record<UnknowableReason, number>> = {};
	const rules: Record<string, number> = {};
	const count = (counts: Counts, outcome: SessionCallOutcome) => {
		counts.calls++;
		if (outcome.status === "match") {
			counts.match++;
			if (outcome.seeded) counts.seeded++;
			if (outcome.verifies === "state") counts.stateVerified++;
			else counts.formatOnly++;
		} else if (outcome.status === "mismatch") counts.mismatch++;
		else counts.unknowable++;
	};
	for (const outcome of outcomes) {
		let tool = byTool[outcome.toolName];
		if (tool === undefined) {
			tool = empty();
			byTool[outcome.toolName] = tool;
		}
		count(tool, outcome);
		count(total, outcome);
		if (outcome.reason) reasons[outcome.reason] = (reasons[outcome.reason] ?? 0) + 1;
		for (const rule of outcome.rules) rules[rule] = (rules[rule] ?? 0) + 1;
	}
	return {
		...total,
		byTool,
		seededReads: byTool.read?.seeded ?? 0,
		unknowableReasons: reasons,
		rules,
	};
}

function pad(text: string | number, width: number, right = false): string {
	const value = String(text);
	return right ? value.padStart(width) : value.padEnd(width);
}

/**
 * The fidelity report as text: a table per tool, the reasons for unknowable calls, the rules used,
 * then every mismatch with its diff (and, with `verbose`, every unknowable call and why).
 */
export function formatSessionReplayReport(
	report: SessionReplayReport,
	options: { readonly verbose?: boolean; readonly source?: string } = {},
): string {
	const f = report.figures;
	const lines: string[] = [];
	lines.push(
		`${report.ok ? "PASS" : "FAIL"} session replay${options.source ? ` of ${options.source}` : ""} (cwd ${report.cwd})`,
	);
	lines.push(
		`  ${f.stateVerified} of ${f.calls} calls verified against replayed state; ${f.formatOnly} more match in format only; ${f.mismatch} mismatch; ${f.unknowable} unknowable`,
	);
	const width = Math.max(5, ...Object.keys(f.byTool).map((name) => name.length));
	lines.push(`  ${pad("tool", width)}  ${pad("calls", 5, true)}  state-verified  format-only  mismatch  unknowable`);
	const row = (name: string, t: SessionToolFigures) =>
		`  ${pad(name, width)}  ${pad(t.calls, 5, true)}  ${pad(t.stateVerified, 14, true)}  ${pad(t.formatOnly, 11, true)}  ${pad(t.mismatch, 8, true)}  ${pad(t.unknowable, 10, true)}`;
	for (const [name, figures] of Object.entries(f.byTool)) lines.push(row(name, figures));
	lines.push(row("total", f));
	const seeded = Object.entries(f.byTool)
		.filter(([, t]) => t.seeded > 0)
		.map(([name, t]) => `${name} ${t.seeded}`);
	lines.push(
		`  matches that learned what they needed from their own result: ${f.seeded}${seeded.length ? ` (${seeded.join(", ")})` : ""}`,
	);
	const reasons = Object.entries(f.unknowableReasons).map(([reason, count]) => `${reason} ${count}`);
	if (reasons.length > 0) lines.push(`  unknowable because: ${reasons.join(", ")}`);
	const rules = Object.entries(f.rules).map(([rule, count]) => `${rule} ${count}`);
	if (rules.length > 0) lines.push(`  normalization rules applied: ${rules.join(", ")}`);
	for (const call of report.calls) {
		const nested = call.nestedCalls?.ours ?? call.nestedCalls?.recorded;
		// A matched call is listed (with --verbose) only for the calls its tool made.
		if (call.status === "match" && !(options.verbose && nested)) continue;
		if (call.status === "unknowable" && !options.verbose) continue;
		const where = `#${call.index} ${call.toolName} (batch ${call.batch}, ${call.toolCallId})`;
		const mark = call.status === "mismatch" ? "✗" : call.status === "match" ? "✓" : "?";
		lines.push(`  ${mark} ${where}: ${call.reason ? `${call.reason}: ` : ""}${call.message}`);
		for (const record of nested?.calls ?? []) lines.push(`      ↳ ${nestedCallLine(record)}`);
		if (call.status === "mismatch" && call.diff) {
			for (const diffLine of call.diff.split("\n")) lines.push(`      ${diffLine}`);
		}
	}
	return lines.join("\n");
}
