/**
 * The tool docs/tools.md takes apart, field by field.
 * Try it: `toolsmith dev docs/examples/guide --env memory`, then
 * `call write {"path":"a.ts","content":"let a = 1; // TODO: rename a\n"}` and `call find_todos {"path":"a.ts"}`.
 */
import { defineTool, type ExtensionAPI, StringEnum, Type } from "toolsmith-sdk";

const TAGS = ["TODO", "FIXME", "HACK"] as const;

export interface TodoMatch {
	readonly line: number;
	readonly tag: string;
	readonly text: string;
}

export interface FindTodosDetails {
	readonly path: string;
	readonly matches: readonly TodoMatch[];
	/** Matches left out because of `limit`. */
	readonly omitted: number;
}

export const findTodos = defineTool({
	name: "find_todos",
	label: "Find TODOs",
	description:
		"List the TODO, FIXME and HACK comments of one text file with their line numbers. Returns at most `limit` matches (default 50) and says how many more there are.",
	promptSnippet: "List the TODO/FIXME/HACK comments of a file, with line numbers",
	promptGuidelines: ["Use find_todos rather than bash with grep to list the TODO comments of a file."],
	parameters: Type.Object({
		path: Type.String({ description: "The file to scan, relative to the working folder" }),
		tags: Type.Optional(Type.Array(StringEnum(TAGS), { description: "The tags to look for (default: all three)" })),
		limit: Type.Optional(
			Type.Integer({ minimum: 1, maximum: 500, description: "Most matches to return (default 50)" }),
		),
	}),
	// Version 1 of this tool took `file`; sessions recorded then still replay.
	prepareArguments(args) {
		if (typeof args !== "object" || args === null || !("file" in args) || "path" in args) return args;
		const { file, ...rest } = args as { file: unknown };
		return { ...rest, path: file };
	},
	async execute(_toolCallId, { path, tags, limit = 50 }, signal, _onUpdate, ctx) {
		const read = await ctx.env.readTextFile(path, { signal });
		if (!read.ok) throw read.error; // a FileError whose message names the path
		const wanted = new Set<string>(tags ?? TAGS);
		const all: TodoMatch[] = [];
		read.value.split("\n").forEach((text, index) => {
			const match = /(?:\/\/|\/\*|#|<!--)\s*(TODO|FIXME|HACK)\b:?\s*(.*?)\s*(?:\*\/|-->)?$/.exec(text);
			if (match && wanted.has(match[1] ?? "")) {
				all.push({ line: index + 1, tag: match[1] ?? "", text: (match[2] ?? "").trim() });
			}
		});
		const matches = all.slice(0, limit);
		const omitted = all.length - matches.length;
		const lines = matches.map((m) => `${path}:${m.line}: ${m.tag} ${m.text}`);
		if (lines.length === 0) lines.push(`No ${[...wanted].join(", ")} comments in ${path}.`);
		if (omitted > 0) lines.push(`[${omitted} more; call again with limit=${Math.min(500, limit + omitted)}]`);
		const details: FindTodosDetails = { path, matches, omitted };
		return { content: [{ type: "text", text: lines.join("\n") }], details };
	},
	renderCall(args, theme) {
		// Shown before validation: `args` may be incomplete while the model is still writing it.
		return `${theme.bold(theme.fg("toolTitle", "find_todos"))} ${theme.fg("accent", String(args.path ?? ""))}`;
	},
	renderResult(result, { expanded }, theme, context) {
		// Error results (a throw, invalid arguments) carry the executor's details, not ours.
		if (context?.isError) {
			const first = result.content[0];
			return theme.fg("error", first?.type === "text" ? first.text : "failed");
		}
		const { matches, omitted } = result.details;
		if (matches.length === 0) return theme.fg("muted", "no matches");
		const shown = expanded ? matches : matches.slice(0, 3);
		const lines = shown.map((m) => `${theme.fg("muted", `${m.line}:`)} ${theme.fg("warning", m.tag)} ${m.text}`);
		const hidden = matches.length - shown.length + omitted;
		if (hidden > 0) lines.push(theme.fg("muted", `… ${hidden} more`));
		return lines;
	},
});

export default function (api: ExtensionAPI) {
	api.registerTool(findTodos);
}
