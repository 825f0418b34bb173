/** The built-in tools and the truncation helpers they share. */
import type { ToolDefinition } from "../contract/tool.js";
import { type BashToolOptions, createBashTool } from "./bash.js";
import { createEditTool, type EditToolOptions } from "./edit.js";
import { createReadTool, type ReadToolOptions } from "./read.js";
import { createWriteTool, type WriteToolOptions } from "./write.js";

export {
	type BashToolDetails,
	type BashToolOptions,
	type BashToolParams,
	bashToolParameters,
	createBashTool,
} from "./bash.js";
export {
	createEditTool,
	type EditToolDetails,
	type EditToolOptions,
	type EditToolParams,
	editToolParameters,
	prepareEditArguments,
} from "./edit.js";
export {
	createReadTool,
	type ReadToolDetails,
	type ReadToolOptions,
	type ReadToolParams,
	readToolParameters,
} from "./read.js";
export {
	DEFAULT_MAX_BYTES,
	DEFAULT_MAX_LINE_CHARS,
	DEFAULT_MAX_LINES,
	formatSize,
	type TruncationOptions,
	type TruncationResult,
	truncateHead,
	truncateLine,
	truncateTail,
} from "./truncate.js";
export {
	createWriteTool,
	type WriteToolDetails,
	type WriteToolOptions,
	type WriteToolParams,
	writeToolParameters,
} from "./write.js";

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
