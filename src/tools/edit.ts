/** The `edit` tool: targeted replacements in one file. */

import { type Static, Type } from "@sinclair/typebox";
import type { Theme } from "../contract/render.js";
import { type AgentToolResult, defineTool, type ToolDefinition } from "../contract/tool.js";
import { withFileMutationQueue } from "../env/mutation-queue.js";
import { diffReplacements } from "./_diff.js";
import { applyLocatedEdits, type LocatedEdit, locateEdits } from "./_edit-match.js";
import { abortedError, resolveToolPath, throwIfAborted } from "./_paths.js";
import { argText, field, previewLines, resultText, titleLine } from "./_render.js";

const replacementSchema = Type.Object(
	{
		oldText: Type.String({
			description:
				"Text to replace, copied exactly from the file. It must occur exactly once in the original file and must not overlap the oldText of another edit in this call.",
		}),
		newText: Type.String({ description: "The text that takes its place." }),
	},
	{ additionalProperties: false },
);

/** The TypeBox schema of the `edit` tool's arguments: `path` and one or more `{ oldText, newText }` replacements. */
export const editToolParameters = Type.Object(
	{
		path: Type.String({ description: "File to edit, relative to the working folder or absolute" }),
		edits: Type.Array(replacementSchema, {
			minItems: 1,
			description:
				"One or more replacements. Every oldText is looked up in the original file (not in the result of earlier edits), so edits must not overlap; merge changes to the same or neighbouring lines into one edit.",
		}),
	},
	{ additionalProperties: false },
);

/** The arguments of an `edit` call. */
export type EditToolParams = Static<typeof editToolParameters>;

/** The `details` of an `edit` result: the change as a numbered diff and as a unified patch, and the first changed line. */
export interface EditToolDetails {
	/** Numbered diff with context lines: `+NN added`, `-NN removed`, ` NN context`. */
	readonly diff: string;
	/** The same change as a unified diff. */
	readonly patch: string;
	/** 1-based line of the first change in the new file. */
	readonly firstChangedLine: number | undefined;
	/** Indices of edits found only by tolerant matching (absent when every match was exact). */
	readonly tolerant?: number[];
}

/** No options yet; the type exists so callers can pass one object to `createBuiltinTools`. */
export type EditToolOptions = Record<string, never>;

/**
 * Accepts what models send besides the current shape: `edits` as a JSON string, and the older
 * single `{ path, oldText, newText }` form (merged into `edits`). Anything else passes through for
 * validation to report.
 */
export function prepareEditArguments(args: unknown): unknown {
	if (args === null || typeof args !== "object" || Array.isArray(args)) return args;
	const given = args as Record<string, unknown>;
	// The current shape (most calls) passes through as it is; the others are rewritten on a copy.
	if (typeof given.edits !== "string" && !(typeof given.oldText === "string" && typeof given.newText === "string"))
		return args;
	const input = { ...given };
	if (typeof input.edits === "string") {
		try {
			const parsed: unknown = JSON.parse(input.edits);
			if (Array.isArray(parsed)) input.edits = parsed;
		} catch {
			// Left as a string: validation names the field.
		}
	}
	if (typeof input.oldText === "string" && typeof input.newText === "string") {
		const edits = Array.isArray(input.edits) ? [...input.edits] : [];
		edits.push({ oldText: input.oldText, newText: input.newText });
		delete input.oldText;
		delete input.newText;
		input.edits = edits;
	}
	return input;
}

/** The text with CRLF folded to LF, and where the folded `\r`s were (as LF-view offsets of their `\n`). */
function foldLineEndings(text: string): { lf: string; folded: number[] } {
	const folded: number[] = [];
	let at = text.indexOf("\r\n");
	if (at === -1) return { lf: text, folded };
	while (at !== -1) {
		folded.push(at - folded.length);
		at = text.indexOf("\r\n", at + 2);
	}
	return { lf: text.replace(/\r\n/g, "\n"), folded };
}

/** Offset in the original text of LF-view offset `position`. */
function originalOffset(folded: readonly number[], position: number): number {
	let lo = 0;
	let hi = folded.length;
	while (lo < hi) {
		const mid = (lo + hi) >> 1;
		if ((folded[mid] ?? 0) < position) lo = mid + 1;
		else hi = mid;
	}
	return position + lo;
}

function readError(path: string, code: string, message: string): Error {
	if (code === "not_found")
		return new Error(`Could not edit ${path}: the file does not exist. Use write to create it.`);
	if (code === "is_directory") return new Error(`Could not edit ${path}: it is a folder, not a file.`);
	return new Error(`Could not edit ${path}: ${message}`);
}

/**
 * The `edit` tool. Locates every `oldText` in the original file (BOM removed, CRLF read as LF),
 * refuses missing, repeated, overlapping or empty ones, and replaces only the matched regions, so
 * every other byte, line ending and the BOM stay as they were. Serialized per file with
 * `withFileMutationQueue`; on any error the file is not touched.
 */
export function createEditTool(
	_options?: EditToolOptions,
): ToolDefinition<typeof editToolParameters, EditToolDetails, "edit"> {
	return defineTool({
		name: "edit",
		label: "edit",
		annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
		description:
			"Change one file by replacing exact text. Each edits[].oldText must appear exactly once in the file as it is now and must not overlap another edit's oldText; all edits are matched against the original file, not against the result of earlier edits. When two changes touch the same or neighbouring lines, make them one edit. Keep oldText short but unique: do not pad it with long unchanged stretches.",
		promptSnippet: "Make exact text replacements in a file, several separate ones per call if needed",
		promptGuidelines: [
			"Use edit for targeted changes; copy each edits[].oldText exactly from the file.",
			"To change several places in one file, send one edit call with several entries in edits[] rather than several calls.",
			"edits[] are matched against the original file, so they must not overlap or nest; merge nearby changes into one edit.",
		],
		parameters: editToolParameters,
		prepareArguments: prepareEditArguments,
		async execute(_toolCallId, { path, edits }, signal, _onUpdate, ctx) {
			throwIfAborted(signal);
			if (!Array.isArray(edits) || edits.length === 0) {
				throw new Error(`Could not edit ${path}: edits must hold at least one {oldText, newText} replacement.`);
			}
			const absolutePath = resolveToolPath(ctx, path);
			return withFileMutationQueue(ctx.env, absolutePath, async (): Promise<AgentToolResult<EditToolDetails>> => {
				throwIfAborted(signal);
				const options = signal ? { signal } : undefined;
				const read = await ctx.env.readTextFile(absolutePath, options);
				throwIfAborted(signal);
				if (!read.ok) throw readError(path, read.error.code, read.error.message);
				let raw = read.value;
				// The text read replaces invalid bytes with U+FFFD. Without one the bytes were valid
				// UTF-8 (the common case, and an env may keep the text); with one, the bytes decide.
				if (raw.includes("\uFFFD")) {
					const bytes = await ctx.env.readBinaryFile(absolutePath, options);
					throwIfAborted(signal);
					if (!bytes.ok) throw readError(path, bytes.error.code, bytes.error.message);
					try {
						raw = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes.value);
					} catch {
						throw new Error(
							`Could not edit ${path}: it is not valid UTF-8 text, and editing it would corrupt its bytes. Use write to replace it, or bash for binary changes.`,
						);
					}
				}
				const bom = raw.startsWith("\uFEFF") ? "\uFEFF" : "";
				const body = bom ? raw.slice(1) : raw;
				const { lf, folded } = foldLineEndings(body);
				const located = locateEdits(lf, edits, path);
				const newLF = applyLocatedEdits(lf, located);
				if (newLF === lf) {
					throw new Error(
						`No changes made to ${path}: the replacements leave the file exactly as it was. Check that newText differs from oldText.`,
					);
				}
				// New text follows the file's own line ending (that of its first line break).
				const firstLF = body.indexOf("\n");
				const crlf = firstLF > 0 && body.charCodeAt(firstLF - 1) === 13;
				let output: string;
				if (folded.length === 0 && !crlf) {
					// No CRLF anywhere: the LF view is the file itself, so the new text is the result.
					output = bom + newLF;
				} else {
					const pieces: string[] = [bom];
					let pos = 0;
					for (const edit of located) {
						const start = originalOffset(folded, edit.start);
						const end = originalOffset(folded, edit.end);
						pieces.push(body.slice(pos, start), crlf ? edit.newText.replace(/\n/g, "\r\n") : edit.newText);
						pos = end;
					}
					pieces.push(body.slice(pos));
					output = pieces.join("");
				}
				// The diff is made before the write: nothing that can go wrong after it may report a
				// failure for a file that was in fact changed.
				const { diff, patch, firstChangedLine } = diffReplacements(lf, newLF, located, path);
				throwIfAborted(signal);
				const written = await ctx.env.writeFile(absolutePath, output, signal ? { signal } : undefined);
				if (!written.ok) {
					if (written.error.code === "aborted") throw abortedError();
					throw new Error(`Could not edit ${path}: ${written.error.message}`);
				}
				const tolerant = located
					.filter((e: LocatedEdit) => e.tolerant)
					.map((e) => e.index)
					.sort((a, b) => a - b);
				let text = `Successfully replaced ${edits.length} block(s) in ${path}.`;
				if (tolerant.length > 0) {
					const names = tolerant.map((i) => `edits[${i}]`).join(", ");
					text += ` Note: ${names} did not match exactly and ${tolerant.length === 1 ? "was" : "were"} matched ignoring trailing whitespace and typographic quotes, dashes and spaces; only the matched text was replaced.`;
				}
				const details: EditToolDetails =
					tolerant.length > 0 ? { diff, patch, firstChangedLine, tolerant } : { diff, patch, firstChangedLine };
				return { content: [{ type: "text", text }], details };
			});
		},
		renderCall(args, theme: Theme) {
			const edits = field(args, "edits");
			const count = Array.isArray(edits) && edits.length > 1 ? theme.fg("muted", ` (${edits.length} edits)`) : "";
			return titleLine(theme, "edit", `${argText(theme, field(args, "path"))}${count}`);
		},
		renderResult(result, options, theme, context) {
			if (context?.isError) {
				return previewLines(theme, resultText(result), { expanded: options.expanded, maxLines: 10 }).map((l) =>
					theme.fg("error", l),
				);
			}
			const diff = field(result?.details, "diff");
			if (typeof diff !== "string" || diff.length === 0) return resultText(result);
			const lines = diff.split("\n");
			const shown = options.expanded ? lines : lines.slice(0, 40);
			const out = shown.map((line) => {
				if (line.startsWith("+")) return theme.fg("toolDiffAdded", line);
				if (line.startsWith("-")) return theme.fg("toolDiffRemoved", line);
				return theme.fg("toolDiffContext", line);
			});
			if (shown.length < lines.length)
				out.push(theme.fg("muted", `... (${lines.length - shown.length} more diff lines)`));
			return out;
		},
	});
}
