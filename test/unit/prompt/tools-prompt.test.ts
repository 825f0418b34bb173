import { describe, expect, it } from "vitest";
import { buildToolsPrompt, type PromptTool, toolSnippet } from "../../../src/providers/index.js";

const read: PromptTool = {
	name: "read",
	description: "Read a file. Text is cut at 2000 lines; use offset to continue.",
	promptGuidelines: ["Read a file before you edit it.", "Prefer read over cat in bash."],
};
const edit: PromptTool = {
	name: "edit",
	description: "Replace exact text in a file.\nEach oldText must be unique.",
	promptSnippet: "Make exact, unique replacements in a file",
	promptGuidelines: ["Read a file before you edit it.", "Keep oldText short but unique."],
};
const bash: PromptTool = {
	name: "bash",
	description: "Run a shell command (no default timeout)! Output keeps the tail.",
	promptGuidelines: ["Give long commands a timeout."],
};
const quiet: PromptTool = { name: "quiet", description: "No sentence end here" };

describe("buildToolsPrompt", () => {
	it("lists every tool with its snippet and merges guidelines in tool then bullet order, once each", () => {
		expect(buildToolsPrompt([read, edit, bash, quiet])).toMatchInlineSnapshot(`
			"Available tools:
			- read: Read a file.
			- edit: Make exact, unique replacements in a file
			- bash: Run a shell command (no default timeout)!
			- quiet: No sentence end here

			Guidelines:
			- Read a file before you edit it.
			- Prefer read over cat in bash.
			- Keep oldText short but unique.
			- Give long commands a timeout."
		`);
	});

	it("includes only active tools and only their guidelines", () => {
		expect(buildToolsPrompt([read, edit, bash], { active: ["bash", "edit"] })).toMatchInlineSnapshot(`
			"Available tools:
			- edit: Make exact, unique replacements in a file
			- bash: Run a shell command (no default timeout)!

			Guidelines:
			- Read a file before you edit it.
			- Keep oldText short but unique.
			- Give long commands a timeout."
		`);
	});

	it("omits the guidelines section when no active tool has any, and returns nothing without tools", () => {
		expect(buildToolsPrompt([quiet])).toMatchInlineSnapshot(`
			"Available tools:
			- quiet: No sentence end here"
		`);
		expect(buildToolsPrompt([read], { active: [] })).toBe("");
		expect(buildToolsPrompt([])).toBe("");
	});
});

describe("toolSnippet", () => {
	it("falls back to the first sentence, or the first line, of the description", () => {
		expect(toolSnippet({ name: "a", description: "Fetch a URL. Then more." })).toBe("Fetch a URL.");
		expect(toolSnippet({ name: "a", description: "Version 1.2 is used. More." })).toBe("Version 1.2 is used.");
		expect(toolSnippet({ name: "a", description: "First line\nsecond line." })).toBe("First line");
		expect(toolSnippet({ name: "a", description: "x", promptSnippet: "  spaced \n snippet " })).toBe("spaced snippet");
	});
});
