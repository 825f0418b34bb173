/** Small helpers shared by the built-in renderers. Renderers get unchecked args, so nothing here trusts them. */
import { describeValue } from "../contract/errors.js";
import type { Theme } from "../contract/render.js";
import type { AgentToolResult } from "../contract/tool.js";

/** A string field of unknown args, or undefined. */
export function field(args: unknown, name: string): unknown {
	return args !== null && typeof args === "object" ? (args as Record<string, unknown>)[name] : undefined;
}

/** How a path or command argument is shown: `...` while it streams in, a marker when it is not a string. */
export function argText(theme: Theme, value: unknown): string {
	if (typeof value === "string") return value.length > 0 ? theme.fg("accent", value) : theme.fg("muted", "...");
	if (value === undefined || value === null) return theme.fg("muted", "...");
	return theme.fg("error", "[invalid arg]");
}

export function titleLine(theme: Theme, name: string, rest: string): string {
	return `${theme.fg("toolTitle", theme.bold(name))} ${rest}`;
}

/** The text blocks of a result, joined; images are named, not drawn. */
export function resultText(result: AgentToolResult<unknown> | undefined): string {
	if (!result || !Array.isArray(result.content)) return "";
	const parts: string[] = [];
	for (const block of result.content) {
		if (block && block.type === "text" && typeof block.text === "string") parts.push(block.text);
		else if (block && block.type === "image") parts.push(`[image ${describeValue(block.mimeType)}]`);
	}
	return parts.join("\n").replace(/\r/g, "");
}

/**
 * A preview of `text`: everything when expanded, otherwise the first (or, for command output, the
 * last) `maxLines` lines with a note of how many were left out.
 */
export function previewLines(
	theme: Theme,
	text: string,
	options: { expanded: boolean; maxLines: number; fromEnd?: boolean },
): string[] {
	const lines = text.replace(/\t/g, "   ").split("\n");
	while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
	if (options.expanded || lines.length <= options.maxLines) return lines.map((l) => theme.fg("toolOutput", l));
	const hidden = lines.length - options.maxLines;
	if (options.fromEnd) {
		return [
			theme.fg("muted", `... (${hidden} earlier lines)`),
			...lines.slice(-options.maxLines).map((l) => theme.fg("toolOutput", l)),
		];
	}
	return [
		...lines.slice(0, options.maxLines).map((l) => theme.fg("toolOutput", l)),
		theme.fg("muted", `... (${hidden} more lines)`),
	];
}
