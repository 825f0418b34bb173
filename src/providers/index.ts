/**
 * toolsmith-sdk/providers: what travels between tools and a model provider: tools converted to
 * each provider's wire format (and what the provider changes), tool calls parsed from a provider's
 * message, tool results in its format, tool-name checks, schema compilation, and the tools prompt.
 * For hosts that talk to a model themselves. Runtime-neutral.
 */
export {
	type BuildToolsPromptOptions,
	buildToolsPrompt,
	type PromptTool,
	toolSnippet,
} from "../prompt/tools-prompt.js";
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
export {
	checkToolName,
	type ToolNameReport,
	type ToolNameVerdict,
} from "./names.js";
export { compileToolSchema } from "./schema.js";
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
