/**
 * toolsmith-sdk: the runtime-neutral entry, for tool authors: the tool contract, results, schemas,
 * the envs, the built-in tools and their output budgets, and the extension API. What hosts need
 * (the executor, the registry), rendering and provider formats have entries of their own
 * (`toolsmith-sdk/runtime`, `toolsmith-sdk/render`, `toolsmith-sdk/providers`; docs/migration.md
 * lists where each name went). Every export is named here and listed in docs/api.md. Nothing
 * reachable from here imports a `node:` module, so tools and the memory env run in workers,
 * browsers and edge runtimes too.
 */
export type { ImageContent, JsonValue, TextContent, ToolResultContent, Usage } from "./contract/content.js";
export type {
	DirEntry,
	ExecOptions,
	ExecResult,
	ExecutionEnv,
	FileInfo,
	FileKind,
	FileSystem,
	FindFilesRequest,
	FindFilesResult,
	LimitReached,
	PathPolicy,
	SandboxLimits,
	SearchTextMatch,
	SearchTextRequest,
	SearchTextResult,
	Shell,
	SignalOptions,
} from "./contract/env.js";
export {
	ToolsmithError,
	type ToolsmithErrorCode,
} from "./contract/errors.js";
export type {
	RenderComponent,
	RenderContext,
	RenderOutput,
	RenderResultOptions,
	Theme,
	ThemeColor,
} from "./contract/render.js";
export {
	ExecutionError,
	type ExecutionErrorCode,
	err,
	FileError,
	type FileErrorCode,
	ok,
	type Result,
	unwrap,
} from "./contract/result.js";
export {
	type Static,
	StringEnum,
	type TObject,
	type TSchema,
	Type,
} from "./contract/schema.js";
export {
	type AgentTool,
	type AgentToolResult,
	type AgentToolUpdateCallback,
	type ConstrainedSamplingConfig,
	defineTool,
	type ExecuteToolOptions,
	type ExtensionInfo,
	type GrammarFormat,
	type ToolAnnotations,
	type ToolCallOutcome,
	type ToolContext,
	type ToolDefinition,
	type ToolDefinitionInput,
	type ToolExecutionMode,
	type ToolExposure,
	type ToolLoadout,
	type ToolLoadoutChanges,
	type ToolNamespace,
	type ToolUI,
} from "./contract/tool.js";
export { createOperationsEnv, type EnvOperations, type OperationsEnvOptions } from "./env/from-operations.js";
export {
	MemoryExecutionEnv,
	type MemoryExecutionEnvOptions,
	type MemorySeedFile,
	type ScriptedCommand,
	type ScriptedRunContext,
} from "./env/memory.js";
export type { CommandLogEntry, ScriptedChunk, ScriptedOutput } from "./env/memory-shell.js";
export { withFileMutationQueue } from "./env/mutation-queue.js";
export {
	API_VERSION,
	type DiagnosticListener,
	type DiagnosticSeverity,
	defineExtension,
	type EventBus,
	type ExtensionAPI,
	type ExtensionContext,
	type ExtensionDiagnostic,
	type ExtensionDiagnosticCode,
	type ExtensionEventMap,
	type ExtensionEventName,
	type ExtensionEventResultMap,
	type ExtensionExecOptions,
	type ExtensionExecResult,
	type ExtensionFactory,
	type ExtensionHandler,
	type ExtensionLogger,
	type ExtensionState,
	type McpHttpServerConfig,
	type McpServerConfig,
	type McpServerConfigBase,
	type McpServersChangeEvent,
	type McpStdioServerConfig,
	type RegisteredCommand,
	type RegisteredFlag,
	type RegisteredMcpServer,
	type SessionShutdownEvent,
	type SessionStartEvent,
	type ToolCallEvent,
	type ToolCallEventResult,
	type ToolInfo,
	type ToolRendererResolver,
	type ToolRenderers,
	type ToolResultEvent,
	type ToolResultEventResult,
} from "./extensions/api.js";
export {
	type BashToolDetails,
	type BashToolOptions,
	type BashToolParams,
	bashToolParameters,
	createBashTool,
} from "./tools/bash.js";
export {
	BUILTIN_TOOL_SETS,
	type BuiltinToolSet,
	type BuiltinToolsOptions,
	createBuiltinTools,
} from "./tools/builtins.js";
export {
	createEditTool,
	type EditToolDetails,
	type EditToolOptions,
	type EditToolParams,
	editToolParameters,
	prepareEditArguments,
} from "./tools/edit.js";
export {
	createFindTool,
	type FindToolDetails,
	type FindToolOptions,
	type FindToolParams,
	findToolParameters,
} from "./tools/find.js";
export {
	createGrepTool,
	type GrepToolDetails,
	type GrepToolOptions,
	type GrepToolParams,
	grepToolParameters,
} from "./tools/grep.js";
export {
	createLsTool,
	type LsToolDetails,
	type LsToolOptions,
	type LsToolParams,
	lsToolParameters,
} from "./tools/ls.js";
export {
	createReadTool,
	type ReadToolDetails,
	type ReadToolOptions,
	type ReadToolParams,
	readToolParameters,
} from "./tools/read.js";
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
} from "./tools/truncate.js";
export {
	createWriteTool,
	type WriteToolDetails,
	type WriteToolOptions,
	type WriteToolParams,
	writeToolParameters,
} from "./tools/write.js";
