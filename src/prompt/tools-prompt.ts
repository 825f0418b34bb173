/** The tools section of a system prompt: what the model can call, and how to use it well. */

/** What the prompt needs of a tool: `ToolDefinition` fits, and so does an `AgentTool`. */
export interface PromptTool {
	readonly name: string;
	readonly description: string;
	readonly promptSnippet?: string;
	readonly promptGuidelines?: readonly string[];
}

/** Options for `buildToolsPrompt`: which of the tools passed the model may call now. */
export interface BuildToolsPromptOptions {
	/**
	 * Names of the tools the model may call now. When given, only these tools are listed and only
	 * their guidelines are included; when absent, every tool passed is active.
	 */
	readonly active?: Iterable<string>;
}

function oneLine(text: string): string {
	return text.replace(/\s+/g, " ").trim();
}

/**
 * The one line that introduces a tool: its `promptSnippet`, or else the first sentence of its
 * description (up to the first `.`, `!` or `?` followed by a space or the end, or the first line).
 */
export function toolSnippet(tool: PromptTool): string {
	if (typeof tool.promptSnippet === "string" && tool.promptSnippet.trim() !== "") return oneLine(tool.promptSnippet);
	const description = typeof tool.description === "string" ? tool.description.trim() : "";
	const firstLine = description.split(/\r?\n\s*\r?\n|\r?\n/)[0] ?? "";
	const sentence = /^(.*?[.!?])(?=\s|$)/.exec(firstLine);
	return oneLine(sentence?.[1] ?? firstLine);
}

/**
 * The "Available tools" list (`- name: snippet`, in the order given) and, when any active tool has
 * `promptGuidelines`, a "Guidelines" list: each bullet once, in tool order then bullet order.
 * Returns `""` when no tool is active.
 */
export function buildToolsPrompt(definitions: readonly PromptTool[], options: BuildToolsPromptOptions = {}): string {
	const activeNames = options.active === undefined ? undefined : new Set(options.active);
	const tools = definitions.filter((tool) => activeNames === undefined || activeNames.has(tool.name));
	if (tools.length === 0) return "";
	const lines = ["Available tools:", ...tools.map((tool) => `- ${tool.name}: ${toolSnippet(tool)}`)];
	const seen = new Set<string>();
	const guidelines: string[] = [];
	for (const tool of tools) {
		for (const bullet of tool.promptGuidelines ?? []) {
			const text = typeof bullet === "string" ? oneLine(bullet) : "";
			if (text === "" || seen.has(text)) continue;
			seen.add(text);
			guidelines.push(`- ${text}`);
		}
	}
	if (guidelines.length > 0) lines.push("", "Guidelines:", ...guidelines);
	return lines.join("\n");
}
