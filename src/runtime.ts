/**
 * toolsmith-sdk/runtime: what a host runs tools with: the executor (`executeToolCalls`, its hooks,
 * events and wire messages), argument validation, turning definitions into the `AgentTool`s it
 * runs, the exposure rules, the built-in tools' limits and spill defaults, and the plumbing a host
 * builds its own extension loading on (the extension runtime and the tool registry). Tool authors
 * rarely need it; `toolsmith-sdk/node`'s extension host is built from these parts. Runtime-neutral,
 * like the main entry.
 */

export type { NestedCallRecord, NestedCalls, ToolCall, ToolResultMessage } from "./contract/content.js";
export type {
	ToolExecutionEndEvent,
	ToolExecutionEvent,
	ToolExecutionEventListener,
	ToolExecutionStartEvent,
	ToolExecutionUpdateEvent,
} from "./contract/events.js";
export {
	activatesOnRegistration,
	callableToolNames,
	type ExposedTool,
	exposureOf,
	isActivatable,
	isDeclaredByDefault,
	isToolCallable,
	isToolExposure,
} from "./contract/exposure.js";
export {
	type NestedToolCalls,
	type ToolCallInfo,
	type ToolContextFactory,
	toolDefinitionFromAgentTool,
	wrapToolDefinition,
	wrapToolDefinitions,
} from "./contract/tool.js";
export {
	ToolArgumentsError,
	type ValidationIssue,
} from "./exec/errors.js";
export { executeToolCalls } from "./exec/execute.js";
export type {
	AfterToolCallContext,
	AfterToolCallResult,
	BeforeToolCallResult,
	ExecuteToolCallsConfig,
	ExecuteToolCallsResult,
	ToolCallHookContext,
	ToolErrorDetails,
} from "./exec/types.js";
export {
	assertToolArguments,
	type ParsedArguments,
	parseToolArguments,
	type ValidatableTool,
	validateToolArguments,
} from "./exec/validate.js";
export type { LoadedExtension } from "./extensions/api.js";
export {
	BUILTIN_SOURCE,
	createToolRegistry,
	type RegisterResult,
	type RegistryContextFactory,
	type RegistryContextInfo,
	type RegistrySnapshot,
	type SourceHandlers,
	type ToolDeclaration,
	type ToolEntry,
	type ToolRegistry,
	type ToolRegistryOptions,
	type ToolSource,
	validateToolDefinition,
} from "./extensions/registry.js";
export {
	type ActivateOptions,
	type ActivateResult,
	createExtensionRuntime,
	DEFAULT_LOAD_TIMEOUT_MS,
	type EmitOptions,
	type ExtensionRuntime,
	type ExtensionRuntimeOptions,
} from "./extensions/runtime.js";
export { DEFAULT_MAX_SPILL_BYTES, DEFAULT_MAX_SPILL_TOTAL_BYTES, DEFAULT_SPILL_MAX_AGE_MS } from "./tools/bash.js";
export { DEFAULT_FIND_LIMIT } from "./tools/find.js";
export { DEFAULT_GREP_LIMIT } from "./tools/grep.js";
export { DEFAULT_LS_LIMIT } from "./tools/ls.js";
