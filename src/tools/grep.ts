/** The `grep` tool: lines matching a pattern in the files under a folder, with their paths and line numbers. */

import { type Static, Type } from "@sinclair/typebox";
import type { Theme } from "../contract/render.js";
import { defineTool, type ToolDefinition } from "../contract/tool.js";
import { compileGlob, type GlobMatcher } from "../env/_glob.js";
import { walk } from "../env/_walk.js";
import type { ExecutionEnv } from "../env/types.js";
import { resolveToolPath, throwIfAborted } from "./_paths.js";
import { argText, field, previewLines, resultText, titleLine } from "./_render.js";
import {
	DEFAULT_MAX_BYTES,
	DEFAULT_MAX_LINE_CHARS,
	formatSize,
	type TruncationResult,
	truncateHead,
	truncateLine,
} from "./truncate.js";

/** The TypeBox schema of the `grep` tool's arguments. */
export const grepToolParameters = Type.Object({
	pattern: Type.String({ description: "JavaScript regular expression, or the text itself with literal: true" }),
	path: Type.Optional(Type.String({ description: "Folder or file to search (default: the working folder)" })),
	glob: Type.Optional(Type.String({ description: "Only files matching this glob, e.g. '*.ts' or 'src/**/*.spec.ts'" })),
	ignoreCase: Type.Optional(Type.Boolean({ description: "Match regardless of case (default: false)" })),
	literal: Type.Optional(
		Type.Boolean({ description: "Search for the pattern as plain text, not a regex (default: false)" }),
	),
	context: Type.Optional(Type.Number({ description: "Lines to show before and after each match (default: 0)" })),
	limit: Type.Optional(Type.Number({ description: "How many matches to show at most (default: 100)" })),
});

/** The arguments of a `grep` call. */
export type GrepToolParams = Static<typeof grepToolParameters>;

/** The `details` of a `grep` result, or `undefined` when nothing was cut. */
export interface GrepToolDetails {
	/** The match limit that was reached; absent when every match was shown. */
	readonly matchLimitReached?: number;
	/** Set when the byte budget cut the output. */
	readonly truncation?: TruncationResult;
	/** Set when a shown line was longer than the line budget and was cut. */
	readonly linesTruncated?: boolean;
}

/** Options for `createGrepTool`: the default match limit, the byte budget and the longest line shown. */
export interface GrepToolOptions {
	/** Matches shown when a call gives no `limit`. Default 100. */
	readonly defaultLimit?: number;
	/** Byte budget of the output. Default `DEFAULT_MAX_BYTES` (50 KB). */
	readonly maxBytes?: number;
	/** Lines longer than this many characters are cut. Default `DEFAULT_MAX_LINE_CHARS` (500). */
	readonly maxLineChars?: number;
}

/** Matches shown when a call gives no `limit`. */
export const DEFAULT_GREP_LIMIT = 100;

/** Files read at the same time; results are still taken in walk order. */
const PARALLEL_READS = 8;

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** The search regex: JavaScript syntax with the `u` flag, or the escaped text for `literal`. */
function compilePattern(pattern: string, literal: boolean, ignoreCase: boolean): RegExp {
	const source = literal ? pattern.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&") : pattern;
	try {
		return new RegExp(source, ignoreCase ? "iu" : "u");
	} catch (error) {
		throw new Error(
			`Invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message.replace(/^Invalid regular expression: /, "")}. grep uses JavaScript regex syntax; pass literal: true to search for the text as it is.`,
		);
	}
}

/** The lines of a text file, or undefined when it cannot be read or is binary (holds a NUL byte). */
async function fileLines(
	env: ExecutionEnv,
	path: string,
	signal: AbortSignal | undefined,
): Promise<string[] | undefined> {
	const read = await env.readBinaryFile(path, signal ? { signal } : undefined);
	if (!read.ok || read.value.indexOf(0) !== -1) return undefined;
	const lines = decoder.decode(read.value).split("\n");
	if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
	return lines.map((line) => line.replace(/\r/g, ""));
}

/** The files to search, with the path each is shown under, in walk order. */
async function* filesToSearch(
	env: ExecutionEnv,
	root: string,
	isFolder: boolean,
	glob: GlobMatcher | undefined,
	signal: AbortSignal | undefined,
): AsyncGenerator<{ readonly absolutePath: string; readonly shown: string }> {
	if (!isFolder) {
		const name = root.slice(root.lastIndexOf("/") + 1);
		if (!glob || glob.matches(name)) yield { absolutePath: root, shown: name };
		return;
	}
	for await (const entry of walk(env, root, { hidden: true, signal })) {
		if (entry.kind !== "file") continue;
		if (glob && !glob.matches(entry.path)) continue;
		yield { absolutePath: entry.absolutePath, shown: entry.path };
	}
}

/**
 * The `grep` tool. Walks the folder through `ctx.env` (ignore files honoured, hidden files
 * searched, `.git` and symlinks skipped, paths in code point order), reads the text files several
 * at a time and prints each matching line as `path:line: text`, context lines as `path-line- text`.
 * Output stops at `limit` matches and at the byte budget, with a notice saying how to see more.
 */
export function createGrepTool(
	options: GrepToolOptions = {},
): ToolDefinition<typeof grepToolParameters, GrepToolDetails | undefined, "grep"> {
	const defaultLimit = options.defaultLimit ?? DEFAULT_GREP_LIMIT;
	const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
	const maxLineChars = options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS;
	return defineTool({
		name: "grep",
		label: "grep",
		description: `Search the contents of files for a pattern (JavaScript regex, or plain text with literal: true); prints matching lines as path:line: text. Honors .gitignore and .ignore, searches hidden files, skips binary files. At most ${defaultLimit} matches or ${formatSize(maxBytes)} are shown, lines cut at ${maxLineChars} characters; a notice then says so, and a larger limit, a narrower path or glob, or read shows more.`,
		promptSnippet: "Search file contents for patterns (honors .gitignore)",
		promptGuidelines: [
			"Use grep to find where something is written; narrow it with path or glob rather than reading many files.",
		],
		parameters: grepToolParameters,
		async execute(_toolCallId, params, signal, _onUpdate, ctx) {
			throwIfAborted(signal);
			const regex = compilePattern(params.pattern, params.literal === true, params.ignoreCase === true);
			const glob = params.glob ? compileGlob(params.glob) : undefined;
			const root = resolveToolPath(ctx, params.path || ".");
			const info = await ctx.env.fileInfo(root);
			throwIfAborted(signal);
			if (!info.ok) throw new Error(`Path not found: ${root}`);
			const isFolder = info.value.kind === "directory";
			const context = params.context && params.context > 0 ? Math.floor(params.context) : 0;
			const effectiveLimit = Math.max(1, params.limit ?? defaultLimit);

			const output: string[] = [];
			let matchCount = 0;
			let linesTruncated = false;
			let bytes = 0;
			const shownLine = (text: string) => {
				const cut = truncateLine(text, maxLineChars);
				if (cut.wasTruncated) linesTruncated = true;
				return cut.text;
			};
			const files = filesToSearch(ctx.env, root, isFolder, glob, signal);
			let done = false;
			while (!done && matchCount < effectiveLimit) {
				const batch: { shown: string; lines: Promise<string[] | undefined> }[] = [];
				while (batch.length < PARALLEL_READS) {
					const next = await files.next();
					if (next.done) {
						done = true;
						break;
					}
					batch.push({ shown: next.value.shown, lines: fileLines(ctx.env, next.value.absolutePath, signal) });
				}
				for (const file of batch) {
					const lines = await file.lines;
					throwIfAborted(signal);
					if (lines === undefined || matchCount >= effectiveLimit) continue;
					for (let i = 0; i < lines.length && matchCount < effectiveLimit; i++) {
						if (!regex.test(lines[i] as string)) continue;
						matchCount++;
						const first = Math.max(0, i - context);
						const last = Math.min(lines.length - 1, i + context);
						// Past the byte budget lines are only counted: the limit notice still needs the count.
						if (bytes > maxBytes) continue;
						for (let n = first; n <= last; n++) {
							const separator = n === i ? ":" : "-";
							const line = `${file.shown}${separator}${n + 1}${separator} ${shownLine(lines[n] as string)}`;
							output.push(line);
							bytes += line.length + 1;
						}
					}
				}
			}
			if (!done) await files.return(undefined);
			throwIfAborted(signal);
			if (matchCount === 0) return { content: [{ type: "text", text: "No matches found" }], details: undefined };
			const limitReached = matchCount >= effectiveLimit;
			const truncation = truncateHead(output.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER, maxBytes });
			const notices: string[] = [];
			let details: GrepToolDetails | undefined;
			if (limitReached) {
				notices.push(
					`${effectiveLimit} matches limit reached. Use limit=${effectiveLimit * 2} for more, or refine pattern`,
				);
				details = { matchLimitReached: effectiveLimit };
			}
			if (truncation.truncated) {
				notices.push(`${formatSize(maxBytes)} limit reached`);
				details = { ...details, truncation };
			}
			if (linesTruncated) {
				notices.push(`Some lines truncated to ${maxLineChars} chars. Use read tool to see full lines`);
				details = { ...details, linesTruncated: true };
			}
			const text = notices.length > 0 ? `${truncation.content}\n\n[${notices.join(". ")}]` : truncation.content;
			return { content: [{ type: "text", text }], details };
		},
		renderCall(args, theme: Theme) {
			const pattern = field(args, "pattern");
			const path = field(args, "path");
			const glob = field(args, "glob");
			const limit = field(args, "limit");
			const shownPattern = typeof pattern === "string" ? theme.fg("accent", `/${pattern}/`) : argText(theme, pattern);
			const shownPath = path === undefined || path === "" ? "." : typeof path === "string" ? path : "[invalid arg]";
			let rest = `${shownPattern}${theme.fg("toolOutput", ` in ${shownPath}`)}`;
			if (typeof glob === "string" && glob) rest += theme.fg("toolOutput", ` (${glob})`);
			if (typeof limit === "number") rest += theme.fg("toolOutput", ` limit ${limit}`);
			return titleLine(theme, "grep", rest);
		},
		renderResult(result, options, theme, context) {
			const text = resultText(result).replace(/\n\n\[[^\n]*\]$/, "");
			if (context?.isError)
				return previewLines(theme, text, { expanded: options.expanded, maxLines: 10 }).map((l) => theme.fg("error", l));
			const lines = previewLines(theme, text, { expanded: options.expanded, maxLines: 15 });
			const details: unknown = field(result, "details");
			const matchLimit = field(details, "matchLimitReached");
			const truncation = field(details, "truncation");
			const warnings: string[] = [];
			if (typeof matchLimit === "number") warnings.push(`${matchLimit} matches limit`);
			const cutAt = field(truncation, "maxBytes");
			if (field(truncation, "truncated") === true && typeof cutAt === "number")
				warnings.push(`${formatSize(cutAt)} limit`);
			if (field(details, "linesTruncated") === true) warnings.push("some lines truncated");
			if (warnings.length > 0) lines.push(theme.fg("warning", `[Truncated: ${warnings.join(", ")}]`));
			return lines;
		},
	});
}
