/**
 * The `{{toolName}}` tool: counts the lines, words and characters of a text file.
 *
 * Replace what `execute` does with your own work, and keep reaching files and processes through
 * `ctx.env` only: that is what lets the tests run the tool on an in-memory env, without a disk.
 */
import { defineTool, Type } from "toolsmith-sdk";

export interface {{ToolIdent}}Details {
	readonly path: string;
	readonly lines: number;
	readonly words: number;
	readonly characters: number;
}

/** Lines as `wc -l` counts them (a last line without a line break still counts), words, and characters. */
function count(text: string): Omit<{{ToolIdent}}Details, "path"> {
	const lines = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
	const words = text.split(/\s+/).filter((word) => word !== "").length;
	return { lines, words, characters: [...text].length };
}

export const {{toolIdent}} = defineTool({
	name: "{{toolName}}",
	label: "{{toolLabel}}",
	description:
		"Count the lines, words and characters of a UTF-8 text file. `path` is relative to the working folder. Fails when the file does not exist or is a folder.",
	promptSnippet: "Count the lines, words and characters of a text file",
	promptGuidelines: ["Use {{toolName}} to size up a file before reading it whole."],
	// What the tool does, for MCP clients and permission layers deciding which calls to confirm
	// (nothing checks these hints): it only reads files of the working folder. Keep them true to `execute`.
	annotations: { readOnlyHint: true, openWorldHint: false },
	parameters: Type.Object({
		path: Type.String({ description: "The file to count, relative to the working folder" }),
	}),
	async execute(_toolCallId, { path }, _signal, _onUpdate, ctx) {
		const file = await ctx.env.readTextFile(path);
		// A FileError's message names the path and the reason: the model reads it as the error result.
		if (!file.ok) throw file.error;
		const details: {{ToolIdent}}Details = { path, ...count(file.value) };
		return {
			content: [
				{
					type: "text",
					text: `${path}: ${details.lines} lines, ${details.words} words, ${details.characters} characters`,
				},
			],
			details,
		};
	},
	renderCall(args, theme) {
		return `${theme.bold(theme.fg("toolTitle", "{{toolName}}"))} ${theme.fg("muted", args.path ?? "")}`;
	},
	renderResult(result, _options, theme, context) {
		// An error result carries the executor's details, not ours: show its text.
		if (context?.isError) {
			const first = result.content[0];
			return theme.fg("error", first?.type === "text" ? first.text : "failed");
		}
		const { lines, words, characters } = result.details;
		return theme.fg("success", `${lines} lines · ${words} words · ${characters} characters`);
	},
});
