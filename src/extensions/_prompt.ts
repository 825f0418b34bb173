/** The tools section of the system prompt, for the registry's active definitions. */
import type { ToolDefinition } from "../contract/tool.js";
import type { ToolsPromptOptions } from "./registry.js";

function firstSentence(text: string): string {
	const line = text.trim().split("\n")[0] ?? "";
	const stop = line.search(/\.(\s|$)/);
	return stop >= 0 ? line.slice(0, stop + 1) : line;
}

/** "Available tools" (one line per tool) and "Guidelines" (bullets of active tools, de-duplicated). */
export function renderToolsPrompt(definitions: readonly ToolDefinition[], options: ToolsPromptOptions = {}): string {
	const lines = ["Available tools:"];
	for (const definition of definitions) {
		const snippet = definition.promptSnippet?.trim() || firstSentence(definition.description);
		lines.push(`- ${definition.name}: ${snippet}`);
	}
	const guidelines: string[] = [];
	for (const definition of definitions) {
		for (const bullet of definition.promptGuidelines ?? []) {
			if (!guidelines.includes(bullet)) guidelines.push(bullet);
		}
	}
	for (const bullet of options.guidelines ?? []) if (!guidelines.includes(bullet)) guidelines.push(bullet);
	if (guidelines.length > 0) {
		lines.push("", "Guidelines:");
		for (const bullet of guidelines) lines.push(`- ${bullet}`);
	}
	return lines.join("\n");
}
