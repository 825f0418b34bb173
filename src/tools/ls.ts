/** The `ls` tool: the entries of one folder, sorted, folders marked with `/`. */

import { type Static, Type } from "@sinclair/typebox";
import type { DirEntry, ExecutionEnv } from "../contract/env.js";
import type { Theme } from "../contract/render.js";
import { defineTool, type ToolDefinition } from "../contract/tool.js";
import { resolveToolPath, throwIfAborted } from "./_paths.js";
import { argText, field, previewLines, resultText, titleLine } from "./_render.js";
import { DEFAULT_MAX_BYTES, formatSize, type TruncationResult, truncateHead } from "./truncate.js";

/** The TypeBox schema of the `ls` tool's arguments: optional `path` and `limit` (entries). */
export const lsToolParameters = Type.Object({
	path: Type.Optional(Type.String({ description: "Folder to list (default: the working folder)" })),
	limit: Type.Optional(Type.Number({ description: "How many entries to show at most (default: 500)" })),
});

/** The arguments of an `ls` call. */
export type LsToolParams = Static<typeof lsToolParameters>;

/**
 * The `details` of an `ls` result, or `undefined` when the listing was complete: the entry limit
 * when it cut the listing, the truncation when the byte budget did.
 */
export interface LsToolDetails {
	/** The entry limit that was reached; absent when every entry was listed. */
	readonly entryLimitReached?: number;
	/** Set when the byte budget cut the listing. */
	readonly truncation?: TruncationResult;
}

/** Options for `createLsTool`: the default entry limit and the byte budget. */
export interface LsToolOptions {
	/** Entries listed when a call gives no `limit`. Default 500. */
	readonly defaultLimit?: number;
	/** Byte budget of the listing. Default `DEFAULT_MAX_BYTES` (50 KB). */
	readonly maxBytes?: number;
}

/** Entries listed when a call gives no `limit`. */
export const DEFAULT_LS_LIMIT = 500;

const collator = new Intl.Collator("en");

/**
 * Alphabetical, ignoring case (as the reference sorts). Names equal but for case keep the env's
 * order (by code point), so the result is deterministic.
 */
function byName(a: string, b: string): number {
	return collator.compare(a.toLowerCase(), b.toLowerCase());
}

/** The entry's name as listed: `/` after a folder or a symlink to one; undefined for a dangling link. */
async function listedName(env: ExecutionEnv, folder: string, entry: DirEntry): Promise<string | undefined> {
	if (entry.kind === "directory") return `${entry.name}/`;
	if (entry.kind !== "symlink") return entry.name;
	const target = await env.fileInfo(folder === "/" ? `/${entry.name}` : `${folder}/${entry.name}`);
	if (!target.ok) return undefined;
	return target.value.kind === "directory" ? `${entry.name}/` : entry.name;
}

/**
 * The `ls` tool. Lists one folder through `ctx.env.listDir`: every entry including dotfiles,
 * sorted alphabetically ignoring case, `/` after folders (and symlinks to folders); dangling
 * symlinks are left out. The listing stops at `limit` entries and at the byte budget, with a
 * notice saying how to see more.
 */
export function createLsTool(
	options: LsToolOptions = {},
): ToolDefinition<typeof lsToolParameters, LsToolDetails | undefined, "ls"> {
	const defaultLimit = options.defaultLimit ?? DEFAULT_LS_LIMIT;
	const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
	return defineTool({
		name: "ls",
		label: "ls",
		annotations: { readOnlyHint: true, openWorldHint: false },
		description: `List the entries of a folder, dotfiles included, sorted alphabetically with '/' after folders. At most ${defaultLimit} entries or ${formatSize(maxBytes)} are shown; a notice then says so, and a larger limit shows more. Use find to search below the folder.`,
		promptSnippet: "List folder contents",
		promptGuidelines: ["Use ls to see what a folder holds; use find for files below it and grep for their contents."],
		parameters: lsToolParameters,
		async execute(_toolCallId, { path, limit }, signal, _onUpdate, ctx) {
			throwIfAborted(signal);
			const folder = resolveToolPath(ctx, path || ".");
			const effectiveLimit = limit ?? defaultLimit;
			const info = await ctx.env.fileInfo(folder);
			throwIfAborted(signal);
			if (!info.ok) {
				if (info.error.code === "not_found") throw new Error(`Path not found: ${folder}`);
				throw new Error(`Cannot read directory: ${info.error.message}`);
			}
			if (info.value.kind !== "directory") throw new Error(`Not a directory: ${folder}`);
			const listed = await ctx.env.listDir(folder);
			throwIfAborted(signal);
			if (!listed.ok) throw new Error(`Cannot read directory: ${listed.error.message}`);
			const entries = [...listed.value].sort((a, b) => byName(a.name, b.name));

			const names: string[] = [];
			let entryLimitReached = false;
			for (const entry of entries) {
				if (names.length >= effectiveLimit) {
					entryLimitReached = true;
					break;
				}
				const name = await listedName(ctx.env, folder, entry);
				if (name !== undefined) names.push(name);
			}
			throwIfAborted(signal);
			if (names.length === 0) return { content: [{ type: "text", text: "(empty directory)" }], details: undefined };

			// The entry limit already bounds the lines, so only the byte budget applies.
			const truncation = truncateHead(names.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER, maxBytes });
			const notices: string[] = [];
			let details: LsToolDetails | undefined;
			if (entryLimitReached) {
				notices.push(`${effectiveLimit} entries limit reached. Use limit=${effectiveLimit * 2} for more`);
				details = { entryLimitReached: effectiveLimit };
			}
			if (truncation.truncated) {
				notices.push(`${formatSize(maxBytes)} limit reached`);
				details = { ...details, truncation };
			}
			const text = notices.length > 0 ? `${truncation.content}\n\n[${notices.join(". ")}]` : truncation.content;
			return { content: [{ type: "text", text }], details };
		},
		renderCall(args, theme: Theme) {
			const path = field(args, "path");
			const limit = field(args, "limit");
			const shown = path === undefined || path === "" ? "." : path;
			const limitText = typeof limit === "number" ? theme.fg("toolOutput", ` (limit ${limit})`) : "";
			return titleLine(theme, "ls", `${argText(theme, shown)}${limitText}`);
		},
		renderResult(result, options, theme, context) {
			const text = resultText(result).replace(/\n\n\[[^\n]*\]$/, "");
			if (context?.isError)
				return previewLines(theme, text, { expanded: options.expanded, maxLines: 10 }).map((l) => theme.fg("error", l));
			const lines = previewLines(theme, text, { expanded: options.expanded, maxLines: 20 });
			const details: unknown = field(result, "details");
			const entryLimit = field(details, "entryLimitReached");
			const truncation = field(details, "truncation");
			const warnings: string[] = [];
			if (typeof entryLimit === "number") warnings.push(`${entryLimit} entries limit`);
			const cutAt = field(truncation, "maxBytes");
			if (field(truncation, "truncated") === true && typeof cutAt === "number")
				warnings.push(`${formatSize(cutAt)} limit`);
			if (warnings.length > 0) lines.push(theme.fg("warning", `[Truncated: ${warnings.join(", ")}]`));
			return lines;
		},
	});
}
