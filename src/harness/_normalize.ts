/**
 * Known format differences between what the recorded agent's tools printed and what ours print.
 * Each rule has an id; docs/testing.md lists every rule and why it is safe. A rule rewrites both
 * texts into one canonical form that keeps every fact the model could act on (line numbers,
 * offsets, counts, paths, exit codes), so a real behavioral difference still shows as a mismatch.
 */
import { stripControl } from "../tools/output-tail.js";

export interface NormalizedText {
	readonly text: string;
	/** The error flag after the rules (a rule may say that a text is an error the flag missed). */
	readonly isError: boolean;
	/** Ids of the rules that changed the text. */
	readonly rules: string[];
}

export interface NormalizeContext {
	readonly toolName: string;
	/** The call's arguments after the old shapes were mapped (object or undefined). */
	readonly args: Readonly<Record<string, unknown>> | undefined;
	readonly isError: boolean;
}

interface Rule {
	readonly id: string;
	readonly tools: readonly string[];
	/** The rewritten text, or the text and the error flag it really carries. */
	apply(text: string, context: NormalizeContext): string | { readonly text: string; readonly isError: true };
}

// Continuation notices of a page of a file. All forms state how many lines remain and which offset
// continues; they differ only in wording.
const OLD_READ_MORE = /\n\n\.\.\. \((\d+) more lines not shown\. Use offset=(\d+) to continue reading\)$/;
const NEW_READ_MORE = /\n\n\[(\d+) more lines in file\. Use offset=(\d+) to continue\.?\]$/;
const NEW_READ_SHOWING =
	/\n\n\[Showing lines (\d+)-(\d+) of (\d+)(?: \([^)\]]*\))?\. Use offset=(\d+) to continue\.?\]$/;

// Edit success lines: the older agent also counted characters (always the lengths of oldText and
// newText, which the call itself holds); ours counts replaced blocks.
const OLD_EDIT_OK = /^Successfully replaced text in (.+?)\.(?: Changed \d+ characters to \d+ characters\.)?$/;

// Failed edits, in the wordings of the reference's releases and ours; each names the edit (or, in
// the reference's one-edit wording, none: then the call has one edit), the path and, for a text
// found more than once, the count.
const EDIT_NOT_FOUND = [
	/^Could not find the exact text in (?<path>.+)\. The old text must match exactly including all whitespace and newlines\.$/,
	/^Could not find edits\[(?<index>\d+)\] in (?<path>.+)\. The oldText must match exactly including all whitespace and newlines\.$/,
	/^Could not find edits\[(?<index>\d+)\]\.oldText in (?<path>.+?)\. It must match the file exactly, including whitespace and line breaks\.[^\n]*$/,
];
const EDIT_DUPLICATE = [
	/^Found (?<count>\d+) occurrences of the text in (?<path>.+)\. The text must be unique\. Please provide more context to make it unique\.$/,
	/^Found (?<count>\d+) occurrences of edits\[(?<index>\d+)\] in (?<path>.+)\. Each oldText must be unique\. Please provide more context to make it unique\.$/,
	/^edits\[(?<index>\d+)\]\.oldText occurs (?<count>\d+) times in (?<path>.+?) \(lines [^)]*\)\. It must occur exactly once: add surrounding lines to make it unique\.$/,
];
const EDIT_EMPTY = [
	/^oldText must not be empty in (?<path>.+)\.$/,
	/^edits\[(?<index>\d+)\]\.oldText must not be empty in (?<path>.+)\.$/,
	/^edits\[(?<index>\d+)\]\.oldText is empty in (?<path>.+?)\. Give the exact text to replace; [^\n]*$/,
];
const EDIT_NO_CHANGE = [
	/^No changes made to (?<path>.+?)\. The replacements? produced identical content\.(?: This might indicate an issue with special characters or the text not existing as expected\.)?$/,
	/^No changes made to (?<path>.+?): the replacements leave the file exactly as it was\. Check that newText differs from oldText\.$/,
];
const EDIT_NO_FILE = [
	/^File not found: (?<path>.+)$/,
	/^Could not edit file: (?<path>.+?)\. Error code: ENOENT\.$/,
	/^Could not edit (?<path>.+?): the file does not exist\. Use write to create it\.$/,
];
const EDIT_OVERLAP = [
	/^edits\[(?<a>\d+)\] and edits\[(?<b>\d+)\] overlap in (?<path>.+?)\. (?:Merge them into one edit or target disjoint regions|Every oldText must cover a separate part of the original file: merge the two into one edit)\.$/,
];

function firstMatch(patterns: readonly RegExp[], text: string): Record<string, string> | undefined {
	for (const pattern of patterns) {
		const groups = pattern.exec(text)?.groups;
		if (groups) return groups;
	}
	return undefined;
}

/** The call's edits as `{ oldText, newText }` pairs (both call shapes), or undefined. */
function editsOf(args: NormalizeContext["args"]): { oldText: unknown; newText: unknown }[] | undefined {
	if (Array.isArray(args?.edits)) return args.edits as { oldText: unknown; newText: unknown }[];
	if (args && "oldText" in args) return [{ oldText: args.oldText, newText: args.newText }];
	return undefined;
}

/** The edit a failure names: its index, or (the one-edit wording) 0 when the call has one edit. */
function editIndex(groups: Record<string, string>, args: NormalizeContext["args"]): number | undefined {
	if (groups.index !== undefined) return Number(groups.index);
	return editsOf(args)?.length === 1 ? 0 : undefined;
}

// A bash status paragraph, as our tool and the recorded agent's end a failed command.
const BASH_STATUS = /^\n\n(?:Command (?:exited with code \d+|aborted|timed out after [\d.]+ seconds))$/;

// Write's success line. The reference counts the content's UTF-16 code units ("bytes"), ours its
// UTF-8 bytes: the two differ for non-ASCII text, and both are the size of what the call holds.
const WRITE_OK = /^Successfully wrote (\d+) bytes to (.+)$/;
// Releases from 0.87 on print no count.
const WRITE_OK_UNCOUNTED = /^Successfully wrote to (.+)$/;
const utf8 = new TextEncoder();

// A read of a path that does not exist: the reference passes on Node's error (`ENOENT: no such file
// or directory, access '<absolute path>'`), ours says so in words. Both name the call's own path.
const REFERENCE_NOT_FOUND =
	/^(?:ENOENT: no such file or directory, (?:access|open|stat) '([^'\n]+)'|File not found: (.+))$/;
const OUR_NOT_FOUND = /^Could not read (.+): the file does not exist\.$/;

function namesCallPath(named: string, path: unknown): boolean {
	if (typeof path !== "string" || path === "") return false;
	const bare = path.startsWith("@") ? path.slice(1) : path;
	return named === bare || named.endsWith(`/${bare.replace(/^\.\//, "")}`);
}

/** An edit error saying the file does not exist, in a wording of the reference or ours. */
export function isEditNoFileError(text: string): boolean {
	return firstMatch(EDIT_NO_FILE, text) !== undefined;
}

/** A read result of the earliest releases that reports a failure without the error flag. */
export function isUnflaggedReadError(text: string): boolean {
	// Only the forms those releases wrote: a file whose one line starts with "Error: " is content.
	return /^Error: (?:File not found: [^\n]+|Offset \d+ is beyond end of file \(\d+ lines total\))$/.test(text);
}

const RULES: readonly Rule[] = [
	{
		// The earliest releases returned some failures as ordinary results: a read's `Error: …` text,
		// a command's `Command exited with code N`. Before the rules that look at errors.
		id: "error-flag",
		tools: ["read", "bash"],
		apply(text, context) {
			if (context.isError) return text;
			if (context.toolName === "read" && isUnflaggedReadError(text)) {
				return { text: text.slice("Error: ".length), isError: true };
			}
			if (context.toolName === "bash") {
				const code = /\n\nCommand exited with code (\d+)$|^Command failed\n\nCommand exited with code (\d+)$/.exec(
					text,
				);
				if (code && Number(code[1] ?? code[2]) !== 0) return { text, isError: true };
			}
			return text;
		},
	},
	{
		// First, so that an output made only of escapes reaches the next rule as `(no output)`.
		id: "bash-control-bytes",
		tools: ["bash"],
		apply(text) {
			const stripped = stripControl(text).text;
			if (stripped === text) return text;
			// Our tool strips before it looks for output: what is left empty gets the placeholder.
			if (stripped === "") return "(no output)";
			if (BASH_STATUS.test(stripped)) return `(no output)${stripped}`;
			return stripped;
		},
	},
	{
		id: "read-continuation",
		tools: ["read"],
		apply(text) {
			let match = OLD_READ_MORE.exec(text);
			if (match) return `${text.slice(0, match.index)}\n\n[more: ${match[1]} lines, next offset ${match[2]}]`;
			match = NEW_READ_MORE.exec(text);
			if (match) return `${text.slice(0, match.index)}\n\n[more: ${match[1]} lines, next offset ${match[2]}]`;
			match = NEW_READ_SHOWING.exec(text);
			if (match) {
				const remaining = Number(match[3]) - Number(match[2]);
				return `${text.slice(0, match.index)}\n\n[more: ${remaining} lines, next offset ${match[4]}]`;
			}
			return text;
		},
	},
	{
		// The saved file's name is the reference's or ours, made up at run time.
		id: "bash-full-output-path",
		tools: ["bash"],
		apply(text) {
			const match = /(\n\n\[Showing [^\]\n]*Full output: )[^\]\n]*\]$/.exec(text);
			return match ? `${text.slice(0, match.index)}${match[1]}(the saved output)]` : text;
		},
	},
	{
		id: "bash-empty-output-status",
		tools: ["bash"],
		apply(text) {
			const match = /^\(no output\)\n\n(Command (?:exited with code \d+|aborted|timed out after [\d.]+ seconds))$/.exec(
				text,
			);
			return match ? match[1]! : text;
		},
	},
	{
		id: "read-not-found",
		tools: ["read"],
		apply(text, context) {
			if (!context.isError) return text;
			const reference = REFERENCE_NOT_FOUND.exec(text);
			const named = reference?.[1] ?? reference?.[2] ?? OUR_NOT_FOUND.exec(text)?.[1];
			if (named === undefined || !namesCallPath(named, context.args?.path)) return text;
			return "[not found: the call's path]";
		},
	},
	{
		id: "write-byte-count",
		tools: ["write"],
		apply(text, context) {
			const match = WRITE_OK.exec(text);
			const content = context.args?.content;
			if (!match || typeof content !== "string") return text;
			const count = Number(match[1]);
			if (count !== content.length && count !== utf8.encode(content).length) return text;
			return `Successfully wrote the call's content to ${match[2]}`;
		},
	},
	{
		id: "write-uncounted",
		tools: ["write"],
		apply(text, context) {
			const match = WRITE_OK_UNCOUNTED.exec(text);
			if (!match || typeof context.args?.content !== "string") return text;
			return `Successfully wrote the call's content to ${match[1]}`;
		},
	},
	{
		id: "edit-success",
		tools: ["edit"],
		apply(text, context) {
			const old = OLD_EDIT_OK.exec(text);
			if (!old || context.isError) return text;
			return `Successfully replaced 1 block(s) in ${old[1]}.`;
		},
	},
	{
		// Before edit-failure: the earliest release reported an edit that changes nothing as a success.
		id: "edit-no-change",
		tools: ["edit"],
		apply(text, context) {
			const edits = editsOf(context.args);
			const same = edits?.every((edit) => edit.oldText === edit.newText) === true;
			const groups = firstMatch(EDIT_NO_CHANGE, text);
			if (groups && context.isError) return { text: `[edit failed: no change to ${groups.path}]`, isError: true };
			const success = /^Successfully replaced 1 block\(s\) in (.+)\.$/.exec(text);
			if (same && success && !context.isError)
				return { text: `[edit failed: no change to ${success[1]}]`, isError: true };
			return text;
		},
	},
	{
		id: "edit-failure",
		tools: ["edit"],
		apply(text, context) {
			if (!context.isError) return text;
			const edits = editsOf(context.args);
			// An empty oldText occurs everywhere: the earliest releases said so with a count.
			let groups = firstMatch(EDIT_EMPTY, text);
			if (!groups) {
				const duplicate = firstMatch(EDIT_DUPLICATE, text);
				const index = duplicate ? editIndex(duplicate, context.args) : undefined;
				if (duplicate && index !== undefined && edits?.[index]?.oldText === "") groups = duplicate;
			}
			if (groups) {
				const index = editIndex(groups, context.args);
				if (index !== undefined) return `[edit failed: edits[${index}].oldText is empty in ${groups.path}]`;
			}
			groups = firstMatch(EDIT_NOT_FOUND, text);
			if (groups) {
				const index = editIndex(groups, context.args);
				if (index !== undefined) return `[edit failed: edits[${index}].oldText not found in ${groups.path}]`;
			}
			groups = firstMatch(EDIT_DUPLICATE, text);
			if (groups) {
				const index = editIndex(groups, context.args);
				if (index !== undefined)
					return `[edit failed: edits[${index}].oldText occurs ${groups.count} times in ${groups.path}]`;
			}
			groups = firstMatch(EDIT_NO_FILE, text);
			if (groups && namesCallPath(groups.path!, context.args?.path))
				return "[edit failed: the call's path does not exist]";
			groups = firstMatch(EDIT_OVERLAP, text);
			if (groups) return `[edit failed: edits[${groups.a}] and edits[${groups.b}] overlap in ${groups.path}]`;
			return text;
		},
	},
];

/** The ids and one-line descriptions of every rule above, in their order (published as `NORMALIZATION_RULES`). */
export const RULE_SUMMARIES: readonly { readonly id: string; readonly summary: string }[] = [
	{
		id: "error-flag",
		summary:
			"read, bash: a result the earliest releases returned without the error flag although it reports a failure (a read's `Error: File not found: P` or `Error: Offset N is beyond end of file (T lines total)`, a command's `Command exited with code N` with N ≠ 0) counts as an error; a read's `Error: ` prefix is dropped",
	},
	{
		id: "bash-control-bytes",
		summary:
			"bash: terminal escape sequences and control characters other than tab, newline and carriage return are removed, as our bash tool removes them from what the model gets (an output left empty reads `(no output)`)",
	},
	{
		id: "read-continuation",
		summary:
			"read: the notice after a page (`... (R more lines not shown. Use offset=N to continue reading)`, `[R more lines in file. …]`, `[Showing lines A-B of T. …]`) becomes `[more: R lines, next offset N]`",
	},
	{
		id: "bash-full-output-path",
		summary:
			"bash: the saved file a truncation notice names (`Full output: <path>`, a name made up at run time, the reference's or ours) becomes `Full output: (the saved output)`",
	},
	{
		id: "bash-empty-output-status",
		summary:
			"bash: a failed command with no output, `(no output)\\n\\nCommand exited with code N`, becomes `Command exited with code N` (the older agent printed the status alone)",
	},
	{
		id: "read-not-found",
		summary:
			"read (error): `ENOENT: no such file or directory, access 'P'` (the reference), `File not found: P` (the earliest releases) and `Could not read P: the file does not exist.` (ours), P being the call's path, become `[not found: the call's path]`",
	},
	{
		id: "write-byte-count",
		summary:
			"write: `Successfully wrote N bytes to P`, where N is the content's length in UTF-16 code units (the reference's count) or in UTF-8 bytes (ours), becomes `Successfully wrote the call's content to P`",
	},
	{
		id: "write-uncounted",
		summary:
			"write: `Successfully wrote to P` (releases from 0.87 on print no count) becomes `Successfully wrote the call's content to P`",
	},
	{
		id: "edit-success",
		summary:
			"edit: `Successfully replaced text in P. Changed A characters to B characters.` and `Successfully replaced text in P.` (older releases, one edit) become `Successfully replaced 1 block(s) in P.`",
	},
	{
		id: "edit-no-change",
		summary:
			"edit (error): `No changes made to P. The replacement(s) produced identical content. …` (the reference) and `No changes made to P: the replacements leave the file exactly as it was. …` (ours) become `[edit failed: no change to P]`; so does the earliest release's success report for an edit whose every newText equals its oldText (it changed nothing either)",
	},
	{
		id: "edit-failure",
		summary:
			"edit (error): the reference's and our wordings of an old text not found, found N times, empty (the earliest releases reported an empty oldText as found N times), the file missing, or two edits overlapping become `[edit failed: edits[i].oldText not found in P]`, `… occurs N times in P]`, `… is empty in P]`, `[edit failed: the call's path does not exist]`, `[edit failed: edits[a] and edits[b] overlap in P]` (the reference's one-edit wording names no index: it is 0 when the call has one edit, else the text is left as it is)",
	},
	{
		id: "read-older-limits",
		summary:
			"read: the earliest releases had no byte limit; where the recorded page is longer than ours and ours is its start, cut exactly where our 50 KB limit falls (the next recorded line would pass it), the two are compared as far as ours goes",
	},
	{
		id: "bash-older-limits",
		summary:
			"bash: the earliest releases gave a command's whole output; where ours is its end with our truncation notice counting all of its lines, the two are compared as far as ours goes",
	},
];

/** Apply every rule for the tool; returns the canonical text and the rules that changed it. */
export function normalizeResultText(text: string, context: NormalizeContext): NormalizedText {
	let current = text;
	let isError = context.isError;
	const rules: string[] = [];
	for (const rule of RULES) {
		if (!rule.tools.includes(context.toolName)) continue;
		const applied = rule.apply(current, isError === context.isError ? context : { ...context, isError });
		const next = typeof applied === "string" ? applied : applied.text;
		const flagged = typeof applied !== "string" && !isError;
		if (next !== current || flagged) {
			rules.push(rule.id);
			current = next;
			if (flagged) isError = true;
		}
	}
	return { text: current, isError, rules };
}

/** The read tool's byte limit (both ours and the reference's since it had one). */
const READ_MAX_BYTES = 50 * 1024;
const OUR_READ_BYTE_NOTICE =
	/\n\n\[Showing lines (\d+)-(\d+) of (\d+) \([\d.]+KB limit\)\. Use offset=(\d+) to continue\.?\]$/;
const OUR_BASH_TAIL_NOTICE =
	/\n\n\[Showing lines (\d+)-(\d+) of (\d+)(?: \([\d.]+KB limit\))?\. Full output: [^\]\n]*\]$/;

/**
 * A difference explained by limits the earliest releases did not have: they paged a read by lines
 * only (no byte limit) and gave a command's whole output. Our result is then the start of the
 * recorded page, cut exactly where our byte limit falls (the next recorded line would pass it), or
 * the end of the recorded output with our notice counting its lines. Returns the rule id, or
 * undefined when the difference is something else. `recorded` and `ours` are the raw texts.
 */
export function olderLimitsRule(toolName: string, recorded: string, ours: string): string | undefined {
	if (toolName === "read") {
		const notice = OUR_READ_BYTE_NOTICE.exec(ours);
		if (!notice) return undefined;
		const shown = ours.slice(0, notice.index);
		if (!recorded.startsWith(`${shown}\n`)) return undefined;
		const rest = recorded.slice(shown.length + 1);
		const nextLine = rest.slice(0, rest.indexOf("\n") === -1 ? rest.length : rest.indexOf("\n"));
		const shownBytes = utf8.encode(shown).length;
		const withNext = shownBytes + 1 + utf8.encode(nextLine).length;
		return shownBytes <= READ_MAX_BYTES && withNext > READ_MAX_BYTES ? "read-older-limits" : undefined;
	}
	if (toolName === "bash") {
		const notice = OUR_BASH_TAIL_NOTICE.exec(ours);
		if (!notice) return undefined;
		const tail = ours.slice(0, notice.index);
		if (!recorded.endsWith(tail)) return undefined;
		const total = recorded.split("\n").length;
		return Number(notice[3]) === total && Number(notice[2]) === total ? "bash-older-limits" : undefined;
	}
	return undefined;
}
