export type { ImageContent, TextContent, ToolCall, ToolResultContent, ToolResultMessage, Usage } from "./content.js";
export { errorMessage, ToolsmithError, type ToolsmithErrorCode } from "./errors.js";
export type {
	ToolExecutionEndEvent,
	ToolExecutionEvent,
	ToolExecutionEventListener,
	ToolExecutionStartEvent,
	ToolExecutionUpdateEvent,
} from "./events.js";
export type {
	RenderComponent,
	RenderContext,
	RenderOutput,
	RenderResultOptions,
	Theme,
	ThemeColor,
} from "./render.js";
export {
	ExecutionError,
	type ExecutionErrorCode,
	err,
	FileError,
	type FileErrorCode,
	ok,
	type Result,
	unwrap,
} from "./result.js";
export { type Static, StringEnum, type TObject, type TSchema, Type } from "./schema.js";
export {
	type AgentTool,
	type AgentToolResult,
	type AgentToolUpdateCallback,
	defineTool,
	type ExtensionInfo,
	type ToolCallInfo,
	type ToolContext,
	type ToolContextFactory,
	type ToolDefinition,
	type ToolDefinitionInput,
	type ToolExecutionMode,
	type ToolUI,
	toolDefinitionFromAgentTool,
	wrapToolDefinition,
	wrapToolDefinitions,
} from "./tool.js";
