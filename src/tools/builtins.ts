/** The built-in tools as lists (the reference's sets), each tool configured by its own options. */
import type { ToolDefinition } from "../contract/tool.js";
import { type BashToolOptions, createBashTool } from "./bash.js";
import { createEditTool, type EditToolOptions } from "./edit.js";
import { createFindTool, type FindToolOptions } from "./find.js";
import { createGrepTool, type GrepToolOptions } from "./grep.js";
import { createLsTool, type LsToolOptions } from "./ls.js";
import { createReadTool, type ReadToolOptions } from "./read.js";
import { createWriteTool, type WriteToolOptions } from "./write.js";

/**
 * A named list of built-ins, as the reference groups them: `coding` (read, bash, edit, write),
 * `readOnly` (read and the searching tools, nothing that changes files or runs commands), `all`
 * (every built-in).
 */
export type BuiltinToolSet = "coding" | "readOnly" | "all";

/** The tool names of each set, in the order `createBuiltinTools` lists them. */
export const BUILTIN_TOOL_SETS: Readonly<Record<BuiltinToolSet, readonly string[]>> = {
	coding: ["read", "bash", "edit", "write"],
	readOnly: ["read", "grep", "find", "ls"],
	all: ["read", "bash", "edit", "write", "grep", "find", "ls"],
};

/** Options for `createBuiltinTools`: which set, and each tool's own options under its name. */
export interface BuiltinToolsOptions {
	/** Which tools to create. Default `coding` (read, bash, edit, write). */
	readonly set?: BuiltinToolSet;
	readonly read?: ReadToolOptions;
	readonly bash?: BashToolOptions;
	readonly edit?: EditToolOptions;
	readonly write?: WriteToolOptions;
	readonly grep?: GrepToolOptions;
	readonly find?: FindToolOptions;
	readonly ls?: LsToolOptions;
}

/**
 * The built-in tools of one set (default `coding`: read, bash, edit, write, in that order), each
 * a fresh definition with its own options.
 */
export function createBuiltinTools(options: BuiltinToolsOptions = {}): ToolDefinition[] {
	const factories: Record<string, () => ToolDefinition> = {
		read: () => createReadTool(options.read) as ToolDefinition,
		bash: () => createBashTool(options.bash) as ToolDefinition,
		edit: () => createEditTool(options.edit) as ToolDefinition,
		write: () => createWriteTool(options.write) as ToolDefinition,
		grep: () => createGrepTool(options.grep) as ToolDefinition,
		find: () => createFindTool(options.find) as ToolDefinition,
		ls: () => createLsTool(options.ls) as ToolDefinition,
	};
	const set = options.set ?? "coding";
	const names = BUILTIN_TOOL_SETS[set];
	if (names === undefined)
		throw new Error(`Unknown built-in tool set ${JSON.stringify(set)}: use "coding", "readOnly" or "all"`);
	return names.map((name) => {
		const create = factories[name];
		if (create === undefined) throw new Error(`No factory for built-in tool ${name}`);
		return create();
	});
}

/**
 * The built-ins a host's `builtins` option asks for: `false` none, `true` or unset the `coding`
 * set with default options, a list that list.
 */
export function builtinsFromOption(option: boolean | readonly ToolDefinition[] | undefined): readonly ToolDefinition[] {
	if (option === false) return [];
	if (option === true || option === undefined) return createBuiltinTools();
	return option;
}
