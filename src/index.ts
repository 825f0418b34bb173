/**
 * toolsmith-sdk: the runtime-neutral entry, for tool authors and the hosts that run their tools.
 * Every export is named here and listed in docs/api.md. Nothing reachable from here imports a
 * `node:` module, so tools, the executor and the memory env run in workers, browsers and edge
 * runtimes too.
 */
export type {
	ImageContent,
	JsonValue,
	NestedCallRecord,
	NestedCalls,
	TextContent,
	ToolCall,
	ToolResultContent,
	ToolResultMessage,
	Usage,
} from "./contract/content.js";
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
	PathPolicy,
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
	type NestedToolCalls,
	type ToolAnnotations,
	type ToolCallInfo,
	type ToolCallOutcome,
	type ToolContext,
	type ToolContextFactory,
	type ToolDefinition,
	type ToolDefinitionInput,
	type ToolExecutionMode,
	type ToolExposure,
	type ToolLoadout,
	type ToolLoadoutChanges,
	type ToolNamespace,
	type ToolUI,
	toolDefinitionFromAgentTool,
	wrapToolDefinition,
	wrapToolDefinitions,
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
	type BuildToolsPromptOptions,
	buildToolsPrompt,
	type PromptTool,
	toolSnippet,
} from "./prompt/tools-prompt.js";
export {
	type AnthropicToolResultBlock,
	type AnthropicToolResultContent,
	GOOGLE_SYNTHETIC_ID_PREFIX,
	type GoogleFunctionResponsePart,
	type OpenAIChatToolMessage,
	type OpenAIResponsesOutputPart,
	type OpenAIResponsesToolOutput,
	type ProviderToolResults,
	parseToolCalls,
	toProviderToolResult,
} from "./providers/calls.js";
export {
	checkToolName,
	type ToolNameReport,
	type ToolNameVerdict,
} from "./providers/names.js";
export { compileToolSchema } from "./providers/schema.js";
export {
	type AnthropicTool,
	type ConvertToolsOptions,
	compatibilityReport,
	type GoogleFunctionDeclaration,
	type GoogleTools,
	type OpenAIChatCustomTool,
	type OpenAIChatTool,
	type OpenAIConvertOptions,
	type OpenAIResponsesCustomTool,
	type OpenAIResponsesTool,
	type ProviderTool,
	type ToolCompatibility,
	toAnthropicTools,
	toGoogleTools,
	toOpenAIChatTools,
	toOpenAIResponsesTools,
} from "./providers/tools.js";
export {
	type CompiledToolSchema,
	type CompileSchemaOptions,
	type SchemaError,
	type SchemaErrorKind,
	type SchemaRewrite,
	type SchemaRewriteKind,
	TOOL_PROVIDERS,
	type ToolProvider,
} from "./providers/types.js";
export {
	DEFAULT_OUTPUT_PAD,
	type RenderableTool,
	type RenderedBlock,
	type RenderOverflow,
	type RenderToLinesOptions,
	type RenderToolResultOptions,
	renderToLines,
	renderToolBlock,
	renderToolCall,
	renderToolResult,
	sanitizeText,
	shellLayout,
	type ToolBlockInput,
	type ToolRendererSource,
	toolRenderersFor,
	toolShell,
} from "./render/renderer.js";
export {
	type AnsiColor,
	type AnsiColorName,
	type AnsiThemeOptions,
	ansiTheme,
	createAnsiTheme,
	DEFAULT_ANSI_BACKGROUNDS,
	DEFAULT_ANSI_COLORS,
	plainTheme,
} from "./render/theme.js";
export {
	expandTabs,
	graphemeWidth,
	stripAnsi,
	truncateToWidth,
	visibleWidth,
} from "./render/width.js";
export {
	type BashToolDetails,
	type BashToolOptions,
	type BashToolParams,
	bashToolParameters,
	createBashTool,
	DEFAULT_MAX_SPILL_BYTES,
	DEFAULT_MAX_SPILL_TOTAL_BYTES,
	DEFAULT_SPILL_MAX_AGE_MS,
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
	DEFAULT_FIND_LIMIT,
	type FindToolDetails,
	type FindToolOptions,
	type FindToolParams,
	findToolParameters,
} from "./tools/find.js";
export {
	createGrepTool,
	DEFAULT_GREP_LIMIT,
	type GrepToolDetails,
	type GrepToolOptions,
	type GrepToolParams,
	grepToolParameters,
} from "./tools/grep.js";
export {
	createLsTool,
	DEFAULT_LS_LIMIT,
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
