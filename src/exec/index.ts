export { executeToolCalls } from "./execute.js";
export type {
	AfterToolCallContext,
	AfterToolCallResult,
	BeforeToolCallResult,
	ExecuteToolCallsConfig,
	ExecuteToolCallsResult,
	ToolCallHookContext,
	ToolErrorDetails,
} from "./types.js";
export {
	assertToolArguments,
	type ParsedArguments,
	parseToolArguments,
	ToolArgumentsError,
	type ValidatableTool,
	type ValidationIssue,
	validateToolArguments,
} from "./validate.js";
