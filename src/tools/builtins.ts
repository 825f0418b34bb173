/** The four built-in tools as one list, each configured by its own options. */
import type { ToolDefinition } from "../contract/tool.js";
import { type BashToolOptions, createBashTool } from "./bash.js";
import { createEditTool, type EditToolOptions } from "./edit.js";
import { createReadTool, type ReadToolOptions } from "./read.js";
import { createWriteTool, type WriteToolOptions } from "./write.js";

/** Options for `createBuiltinTools`: each tool's own options, under its name. */
export interface BuiltinToolsOptions {
	readonly read?: ReadToolOptions;
	readonly bash?: BashToolOptions;
	readonly edit?: EditToolOptions;
	readonly write?: WriteToolOptions;
}

/** The four built-in tools, in the order they are usually listed: read, bash, edit, write. */
export function createBuiltinTools(options: BuiltinToolsOptions = {}): ToolDefinition[] {
	return [
		createReadTool(options.read),
		createBashTool(options.bash),
		createEditTool(options.edit),
		createWriteTool(options.write),
	] as ToolDefinition[];
}

/**
 * The built-ins a host's `builtins` option asks for: `false` none, `true` or unset the four with
 * default options, a list that list.
 */
export function builtinsFromOption(option: boolean | readonly ToolDefinition[] | undefined): readonly ToolDefinition[] {
	if (option === false) return [];
	if (option === true || option === undefined) return createBuiltinTools();
	return option;
}
