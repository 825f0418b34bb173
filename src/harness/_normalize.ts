/**
 * Known format differences between what the recorded agent's tools printed and what ours print.
 * Each rule has an id; docs/testing.md lists every rule and why it is safe. A rule rewrites both
 * texts into one canonical form that keeps every fact the model could act on (line numbers,
 * offsets, counts, paths, exit codes), so a real behavioral difference still shows as a mismatch.
 */
import { stripControl } from "../tools/_output-tail.js";

export interface NormalizedText {
	readonly text: string;
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
	apply(text: string, context: NormalizeContext): string;
}

// Continuation notices of a page of a file. All forms state how many lines remain and which offset
// continues; they differ only in wording.
const OLD_READ_MORE = /\n\n\.\.\. \((\d+) more lines not shown\. Use offset=(\d+) to continue reading\)$/;
const NEW_READ_MORE = /\n\n\[(\d+) more lines in file\. Use offset=(\d+) to continue\.?\]$/;
const NEW_READ_SHOWING =
	/\n\n\[Showing lines (\d+)-(\d+) of (\d+)(?: \([^)\]]*\))?\. Use offset=(\d+) to continue\.?\]$/;

// Edit success lines: the older agent also counted characters (always the lengths of oldText and
// newText, which the call itself holds); ours counts replaced blocks.
const OLD_EDIT_OK = /^Successfully replaced text in (.+)\. Changed \d+ characters to \d+ characters\.$/;

// A bash status paragraph, as our tool and the recorded agent's end a failed command.
const BASH_STATUS = /^\n\n(?:Command (?:exited with code \d+|aborted|timed out after [\d.]+ seconds))$/;

// Write's success line. The reference counts the content's UTF-16 code units ("bytes"), ours its
// UTF-8 bytes: the two differ for non-ASCII text, and both are the size of what the call holds.
const WRITE_OK = /^Successfully wrote (\d+) bytes to (.+)$/;
const utf8 = new TextEncoder();

// A read of a path that does not exist: the reference passes on Node's error (`ENOENT: no such file
// or directory, access '<absolute path>'`), ours says so in words. Both name the call's own path.
const REFERENCE_NOT_FOUND = /^ENOENT: no such file or directory, (?:access|open|stat) '([^'\n]+)'$/;
const OUR_NOT_FOUND = /^Could not read (.+): the file does not exist\.$/;

function namesCallPath(named: string, path: unknown): boolean {
	if (typeof path !== "string" || path === "") return false;
	const bare = path.startsWith("@") ? path.slice(1) : path;
	return named === bare || named.endsWith(`/${bare.replace(/^\.\//, "")}`);
}

const RULES: readonly Rule[] = [
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
			const named = REFERENCE_NOT_FOUND.exec(text)?.[1] ?? OUR_NOT_FOUND.exec(text)?.[1];
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
		id: "edit-success",
		tools: ["edit"],
		apply(text) {
			const old = OLD_EDIT_OK.exec(text);
			if (old) return `Successfully replaced 1 block(s) in ${old[1]}.`;
			return text;
		},
	},
];

/** The ids and one-line descriptions of every rule above, in their order (published as `NORMALIZATION_RULES`). */
export const RULE_SUMMARIES: readonly { readonly id: string; readonly summary: string }[] = [
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
		id: "bash-empty-output-status",
		summary:
			"bash: a failed command with no output, `(no output)\\n\\nCommand exited with code N`, becomes `Command exited with code N` (the older agent printed the status alone)",
	},
	{
		id: "read-not-found",
		summary:
			"read (error): `ENOENT: no such file or directory, access 'P'` (the reference) and `Could not read P: the file does not exist.` (ours), P being the call's path, become `[not found: the call's path]`",
	},
	{
		id: "write-byte-count",
		summary:
			"write: `Successfully wrote N bytes to P`, where N is the content's length in UTF-16 code units (the reference's count) or in UTF-8 bytes (ours), becomes `Successfully wrote the call's content to P`",
	},
	{
		id: "edit-success",
		summary:
			"edit: `Successfully replaced text in P. Changed A characters to B characters.` (one edit) becomes `Successfully replaced 1 block(s) in P.`",
	},
];

/** Apply every rule for the tool; returns the canonical text and the rules that changed it. */
export function normalizeResultText(text: string, context: NormalizeContext): NormalizedText {
	let current = text;
	const rules: string[] = [];
	for (const rule of RULES) {
		if (!rule.tools.includes(context.toolName)) continue;
		const next = rule.apply(current, context);
		if (next !== current) {
			rules.push(rule.id);
			current = next;
		}
	}
	return { text: current, rules };
}
