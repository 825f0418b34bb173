/** The `write` tool: create or replace a whole file. */

import { type Static, Type } from "@sinclair/typebox";
import type { Theme } from "../contract/render.js";
import { defineTool, type ToolDefinition } from "../contract/tool.js";
import { withFileMutationQueue } from "../env/mutation-queue.js";
import { abortedError, resolveToolPath, throwIfAborted } from "./_paths.js";
import { argText, field, previewLines, resultText, titleLine } from "./_render.js";
import { encodeUtf8 } from "./_utf8.js";

/** The TypeBox schema of the `write` tool's arguments: `path` and the whole new `content`. */
export const writeToolParameters = Type.Object({
	path: Type.String({ description: "File to write, relative to the working folder or absolute" }),
	content: Type.String({ description: "The complete new content of the file" }),
});

/** The arguments of a `write` call. */
export type WriteToolParams = Static<typeof writeToolParameters>;

/** The `details` of a `write` result: bytes written and the absolute path. */
export interface WriteToolDetails {
	/** UTF-8 bytes written. */
	readonly bytes: number;
	/** The absolute path written. */
	readonly absolutePath: string;
}

/** No options yet; the type exists so callers can pass one object to `createBuiltinTools`. */
export type WriteToolOptions = Record<string, never>;

/**
 * The `write` tool. Replaces the whole file atomically through `ctx.env.writeFile` (a crash leaves
 * the old or the new content), creating missing parent folders, serialized per file with
 * `withFileMutationQueue`.
 */
export function createWriteTool(
	_options?: WriteToolOptions,
): ToolDefinition<typeof writeToolParameters, WriteToolDetails, "write"> {
	return defineTool({
		name: "write",
		label: "write",
		annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
		description:
			"Write a file, replacing everything in it (the file and any missing parent folders are created). Use it for new files or complete rewrites; for changes to part of an existing file use edit, which cannot drop content by accident.",
		promptSnippet: "Create or overwrite files",
		promptGuidelines: ["Use write only for new files or complete rewrites; use edit to change part of a file."],
		parameters: writeToolParameters,
		async execute(_toolCallId, { path, content }, signal, _onUpdate, ctx) {
			throwIfAborted(signal);
			const absolutePath = resolveToolPath(ctx, path);
			// Encode once here: the byte count is exact and the env writes the bytes without re-encoding.
			const bytes = encodeUtf8(content);
			return withFileMutationQueue(ctx.env, absolutePath, async () => {
				throwIfAborted(signal);
				// No abort listener rejects early: the queue must only move on once the write settled.
				const written = await ctx.env.writeFile(absolutePath, bytes, signal ? { signal } : undefined);
				if (!written.ok) {
					if (written.error.code === "aborted") throw abortedError();
					throw new Error(`Could not write ${path}: ${written.error.message}`);
				}
				throwIfAborted(signal);
				return {
					content: [{ type: "text", text: `Successfully wrote ${bytes.length} bytes to ${path}` }],
					details: { bytes: bytes.length, absolutePath },
				};
			});
		},
		renderCall(args, theme: Theme) {
			const path = field(args, "path");
			const content = field(args, "content");
			const lines = typeof content === "string" ? content.split("\n").length : 0;
			const size = lines > 0 ? theme.fg("muted", ` (${lines} line${lines === 1 ? "" : "s"})`) : "";
			return titleLine(theme, "write", `${argText(theme, path)}${size}`);
		},
		renderResult(result, options, theme, context) {
			const text = resultText(result);
			if (context?.isError)
				return previewLines(theme, text, { expanded: options.expanded, maxLines: 10 }).map((l) => theme.fg("error", l));
			return theme.fg("success", text);
		},
	});
}
