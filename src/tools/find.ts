/** The `find` tool: files whose path matches a glob, skipping what ignore files exclude. */

import { type Static, Type } from "@sinclair/typebox";
import type { FindFilesRequest } from "../contract/env.js";
import type { Theme } from "../contract/render.js";
import { defineTool, type ToolDefinition } from "../contract/tool.js";
import { findWithWalker } from "../env/find.js";
import { abortedError, resolveToolPath, throwIfAborted } from "./_paths.js";
import { argText, field, previewLines, resultText, titleLine } from "./_render.js";
import { DEFAULT_MAX_BYTES, formatSize, type TruncationResult, truncateHead } from "./truncate.js";

/** How many paths `find` lists when the call sets no `limit`. */
export const DEFAULT_FIND_LIMIT = 1000;

/** The TypeBox schema of the `find` tool's arguments: a glob `pattern`, the folder and a result limit. */
export const findToolParameters = Type.Object({
	pattern: Type.String({
		description: "Glob to match, e.g. '*.ts' (base names), 'src/**/*.test.ts' or '**/*.json' (paths)",
	}),
	path: Type.Optional(Type.String({ description: "Folder to search in (default: the working folder)" })),
	limit: Type.Optional(Type.Number({ description: `Most paths to list (default: ${DEFAULT_FIND_LIMIT})` })),
});

/** The arguments of a `find` call. */
export type FindToolParams = Static<typeof findToolParameters>;

/** The `details` of a `find` result that was cut short (a result that was not has none). */
export interface FindToolDetails {
	/** The result limit, when more files matched than it allows. */
	readonly resultLimitReached?: number;
	/** How the output was cut to the byte budget, when it was. */
	readonly truncation?: TruncationResult;
	/** Files and folders left out because their names are not valid UTF-8. */
	readonly skippedNames?: number;
}

/** No options yet; the type exists so callers can pass one object to `createBuiltinTools`. */
export type FindToolOptions = Record<string, never>;

/**
 * The `find` tool. Lists files (and symlinks, not followed) under a folder whose path matches a
 * glob, relative to that folder and in a fixed order, skipping `.git`, and what `.gitignore` (in a
 * git repository), `.ignore` and `.fdignore` files exclude; hidden names are included. Goes
 * through `ctx.env.findFiles` when the env has it (`NodeExecutionEnv` runs `fd` when it is on
 * PATH), else walks the tree through the env's file methods: the output is the same.
 */
export function createFindTool(
	_options?: FindToolOptions,
): ToolDefinition<typeof findToolParameters, FindToolDetails | undefined, "find"> {
	return defineTool({
		name: "find",
		label: "find",
		annotations: { readOnlyHint: true, openWorldHint: false },
		description: `Find files by glob pattern. A pattern without '/' matches file names at any depth ('*.ts'); one with '/' matches paths relative to the search folder ('src/**/*.test.ts'). Lists paths relative to that folder, sorted, skipping .git and whatever .gitignore and .ignore files exclude. Shows at most ${DEFAULT_FIND_LIMIT} paths (set limit for more) and ${DEFAULT_MAX_BYTES / 1024}KB of output; a narrower pattern or path helps when either is reached.`,
		promptSnippet: "Find files by glob pattern (respects .gitignore)",
		parameters: findToolParameters,
		async execute(_toolCallId, { pattern, path, limit }, signal, _onUpdate, ctx) {
			throwIfAborted(signal);
			const effectiveLimit = limit ?? DEFAULT_FIND_LIMIT;
			if (!Number.isInteger(effectiveLimit) || effectiveLimit < 1)
				throw new Error(`Invalid limit ${effectiveLimit}: pass a whole number of at least 1`);
			const searchPath = resolveToolPath(ctx, path || ".");
			const request: FindFilesRequest = { path: searchPath, pattern, limit: effectiveLimit, hidden: true };
			const options = signal ? { signal } : {};
			const found = ctx.env.findFiles
				? await ctx.env.findFiles(request, options)
				: await findWithWalker(ctx.env, request, options);
			throwIfAborted(signal);
			if (!found.ok) {
				const { code, message } = found.error;
				if (code === "aborted") throw abortedError();
				if (code === "not_found") throw new Error(`Path not found: ${searchPath}`);
				if (code === "invalid_argument") throw new Error(message);
				throw new Error(`Could not search ${path || "."}: ${message}`);
			}
			const { paths, limitReached, skippedNames } = found.value;
			const skipped = skippedNames
				? skippedNames === 1
					? "1 file or folder was not listed: its name is not valid UTF-8"
					: `${skippedNames} files or folders were not listed: their names are not valid UTF-8`
				: undefined;
			if (paths.length === 0) {
				if (!skipped)
					return { content: [{ type: "text", text: "No files found matching pattern" }], details: undefined };
				return {
					content: [{ type: "text", text: `No files found matching pattern\n\n[${skipped}]` }],
					details: { skippedNames },
				};
			}
			const truncation = truncateHead(paths.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER });
			const notices: string[] = [];
			const details: { resultLimitReached?: number; truncation?: TruncationResult; skippedNames?: number } = {};
			if (limitReached) {
				notices.push(
					`${effectiveLimit} results limit reached. Use limit=${effectiveLimit * 2} for more, or refine pattern`,
				);
				details.resultLimitReached = effectiveLimit;
			}
			if (truncation.truncated) {
				notices.push(`${formatSize(DEFAULT_MAX_BYTES)} limit reached`);
				details.truncation = truncation;
			}
			if (skipped) {
				notices.push(skipped);
				details.skippedNames = skippedNames;
			}
			const text = notices.length > 0 ? `${truncation.content}\n\n[${notices.join(". ")}]` : truncation.content;
			return {
				content: [{ type: "text", text }],
				details: Object.keys(details).length > 0 ? details : undefined,
			};
		},
		renderCall(args, theme: Theme) {
			const path = field(args, "path");
			const limit = field(args, "limit");
			const where = path === undefined || path === "" ? "." : argText(theme, path);
			const cap = typeof limit === "number" ? theme.fg("muted", ` (limit ${limit})`) : "";
			return titleLine(
				theme,
				"find",
				`${argText(theme, field(args, "pattern"))} ${theme.fg("muted", "in")} ${where}${cap}`,
			);
		},
		renderResult(result, options, theme, context) {
			const lines = previewLines(theme, resultText(result), { expanded: options.expanded, maxLines: 20 });
			if (context?.isError) return lines.map((l) => theme.fg("error", l));
			// Renderers get whatever was recorded: nothing about the result is trusted.
			const details: unknown = field(result, "details");
			const resultLimit = field(details, "resultLimitReached");
			const truncation = field(details, "truncation");
			const cutAt = field(truncation, "maxBytes");
			const warnings: string[] = [];
			if (typeof resultLimit === "number") warnings.push(`${resultLimit} results limit`);
			if (field(truncation, "truncated") === true && typeof cutAt === "number")
				warnings.push(`${formatSize(cutAt)} limit`);
			if (warnings.length > 0) lines.push(theme.fg("warning", `[Truncated: ${warnings.join(", ")}]`));
			return lines;
		},
	});
}
