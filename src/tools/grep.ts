/** The `grep` tool: lines matching a pattern in the files under a folder, with their paths and line numbers. */

import { type Static, Type } from "@sinclair/typebox";
import type { ExecutionEnv, SearchTextRequest, SearchTextResult } from "../contract/env.js";
import type { Theme } from "../contract/render.js";
import { defineTool, type ToolDefinition } from "../contract/tool.js";
import { compileGlob } from "../env/glob.js";
import {
	compileSearchPattern,
	MatchCollector,
	maxSearchContext,
	type SearchSettings,
	scanBytes,
	searchResult,
	searchWithWalker,
} from "../env/grep.js";
import { abortedError, resolveToolPath, throwIfAborted } from "./_paths.js";
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
	pattern: Type.String({
		description: "Regular expression (RE2 syntax, as ripgrep's), or the text itself with literal: true",
	}),
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
	/** The context actually used, when the one asked for was larger than the byte budget can show. */
	readonly contextLimited?: number;
	/** Files and folders left out because their names are not valid UTF-8. */
	readonly skippedNames?: number;
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

/** The notice for entries a search left out because their names are not valid UTF-8. */
function skippedNamesNotice(count: number): string {
	return count === 1
		? "1 file or folder was not searched: its name is not valid UTF-8"
		: `${count} files or folders were not searched: their names are not valid UTF-8`;
}

/** Matches shown when a call gives no `limit`. */
export const DEFAULT_GREP_LIMIT = 100;

/**
 * The matches in one file named as the search path: no ignore file and no glob applies to it, as
 * rg searches a file named on its command line whatever its `--glob`.
 */
async function searchOneFile(
	env: ExecutionEnv,
	root: string,
	search: SearchSettings,
	limit: number,
	signal: AbortSignal | undefined,
): Promise<SearchTextResult> {
	const name = root.slice(root.lastIndexOf("/") + 1);
	const read = await env.readBinaryFile(root, signal ? { signal } : undefined);
	const collector = new MatchCollector(limit);
	// Unreadable or binary: no matches.
	if (read.ok) await scanBytes(name, read.value, search, collector, signal);
	return searchResult(collector, 0);
}

/**
 * The `grep` tool. Searches the folder through `ctx.env.searchText` when the env has it
 * (`NodeExecutionEnv` runs `rg` when it is on PATH), else walks it through the env's file methods
 * (ignore files honoured, hidden files searched, `.git`, binary files and symlinks skipped, paths
 * in code point order), with the same output either way. Prints each matching line as
 * `path:line: text`, context lines as `path-line- text`.
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
		annotations: { readOnlyHint: true, openWorldHint: false },
		description: `Search the contents of files for a pattern (regex in RE2 syntax, as ripgrep's, or plain text with literal: true); prints matching lines as path:line: text. Honors .gitignore and .ignore, searches hidden files, skips binary files. At most ${defaultLimit} matches or ${formatSize(maxBytes)} are shown, lines cut at ${maxLineChars} characters; a notice then says so, and a larger limit, a narrower path or glob, or read shows more.`,
		promptSnippet: "Search file contents for patterns (honors .gitignore)",
		promptGuidelines: [
			"Use grep to find where something is written; narrow it with path or glob rather than reading many files.",
		],
		parameters: grepToolParameters,
		async execute(_toolCallId, params, signal, _onUpdate, ctx) {
			throwIfAborted(signal);
			const regex = compileSearchPattern(params.pattern, params.literal === true, params.ignoreCase === true);
			// Compiled here so a malformed glob is an error on every path, also for a single file.
			if (params.glob) compileGlob(params.glob);
			const root = resolveToolPath(ctx, params.path || ".");
			const info = await ctx.env.fileInfo(root);
			throwIfAborted(signal);
			if (!info.ok) throw new Error(`Path not found: ${root}`);
			const isFolder = info.value.kind === "directory";
			const askedContext = params.context && params.context > 0 ? Math.floor(params.context) : 0;
			// A longer window could never show within the byte budget; held to it, memory stays bounded.
			const context = Math.min(askedContext, maxSearchContext(maxBytes));
			const effectiveLimit = Math.max(1, params.limit ?? defaultLimit);

			const options = signal ? { signal } : {};
			let result: SearchTextResult;
			if (isFolder) {
				const request: SearchTextRequest = {
					path: root,
					pattern: params.pattern,
					limit: effectiveLimit,
					hidden: true,
					...(params.literal ? { literal: true } : {}),
					...(params.ignoreCase ? { ignoreCase: true } : {}),
					...(params.glob ? { glob: params.glob } : {}),
					...(context > 0 ? { context } : {}),
					maxBytes,
					maxLineChars,
				};
				const found = ctx.env.searchText
					? await ctx.env.searchText(request, options)
					: await searchWithWalker(ctx.env, request, options);
				throwIfAborted(signal);
				if (!found.ok) {
					const { code, message } = found.error;
					if (code === "aborted") throw abortedError();
					if (code === "not_found") throw new Error(`Path not found: ${root}`);
					if (code === "invalid_argument") throw new Error(message);
					throw new Error(`Could not search ${params.path || "."}: ${message}`);
				}
				result = found.value;
			} else {
				const search = { regex, filter: undefined, context, maxBytes, maxLineChars };
				try {
					result = await searchOneFile(ctx.env, root, search, effectiveLimit, signal);
				} catch (error) {
					throwIfAborted(signal);
					throw error;
				}
			}
			throwIfAborted(signal);

			const output: string[] = [];
			let linesTruncated = false;
			let bytes = 0;
			const shownLine = (text: string) => {
				const cut = truncateLine(text, maxLineChars);
				if (cut.wasTruncated) linesTruncated = true;
				return cut.text;
			};
			const push = (line: string) => {
				output.push(line);
				bytes += line.length + 1;
			};
			// Lines that would start past the byte budget are not printed (it cuts them anyway).
			printing: for (const match of result.matches) {
				const first = match.line - match.before.length;
				const lines = [
					...match.before.map((text, k) => ({ sep: "-", line: first + k, text })),
					{ sep: ":", line: match.line, text: match.text },
					...match.after.map((text, k) => ({ sep: "-", line: match.line + 1 + k, text })),
				];
				for (const { sep, line, text } of lines) {
					if (bytes > maxBytes) break printing;
					push(`${match.path}${sep}${line}${sep} ${shownLine(text)}`);
				}
			}
			const matchCount = result.matches.length;
			if (matchCount === 0) {
				if (!result.skippedNames) return { content: [{ type: "text", text: "No matches found" }], details: undefined };
				const text = `No matches found\n\n[${skippedNamesNotice(result.skippedNames)}]`;
				return { content: [{ type: "text", text }], details: { skippedNames: result.skippedNames } };
			}
			const limitReached = result.limitReached;
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
			if (context < askedContext) {
				notices.push(`context held to ${context} lines, the most the ${formatSize(maxBytes)} output can show`);
				details = { ...details, contextLimited: context };
			}
			if (result.skippedNames) notices.push(skippedNamesNotice(result.skippedNames));
			if (result.skippedNames) details = { ...details, skippedNames: result.skippedNames };
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
