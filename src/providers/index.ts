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
} from "./calls.js";
export { checkToolName, type ToolNameReport, type ToolNameVerdict } from "./names.js";
export { compileToolSchema } from "./schema.js";
export {
	type AnthropicTool,
	type ConvertToolsOptions,
	compatibilityReport,
	type GoogleFunctionDeclaration,
	type GoogleTools,
	type OpenAIChatTool,
	type OpenAIResponsesTool,
	type ProviderTool,
	type ToolCompatibility,
	toAnthropicTools,
	toGoogleTools,
	toOpenAIChatTools,
	toOpenAIResponsesTools,
} from "./tools.js";
export {
	type CompiledToolSchema,
	type CompileSchemaOptions,
	type SchemaError,
	type SchemaErrorKind,
	type SchemaRewrite,
	type SchemaRewriteKind,
	TOOL_PROVIDERS,
	type ToolProvider,
} from "./types.js";
