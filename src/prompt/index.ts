export { type BuildToolsPromptOptions, buildToolsPrompt, type PromptTool, toolSnippet } from "./tools-prompt.js";
