/**
 * Tools → each provider's request format. Only name, description and parameters travel, and, for
 * OpenAI, the strict flag a tool's `constrainedSampling` asks for.
 */
import type { TSchema } from "@sinclair/typebox";
import { ToolsmithError } from "../contract/errors.js";
import type { ConstrainedSamplingConfig } from "../contract/tool.js";
import { checkToolName, type ToolNameVerdict } from "./names.js";
import { compileToolSchema } from "./schema.js";
import type { CompiledToolSchema, SchemaError, SchemaRewrite, ToolProvider } from "./types.js";

/**
 * What a converter needs of a tool: `AgentTool`, `ToolDefinition` and the registry's
 * `ToolDeclaration` all fit.
 */
export interface ProviderTool {
	readonly name: string;
	readonly description: string;
	readonly parameters: TSchema | Record<string, unknown>;
	/**
	 * pi 1.x's constrained sampling. `json_schema` makes the OpenAI converters send the tool strict
	 * when its schema can be strict, whatever their `strict` option: `"prefer"` falls back to a
	 * plain tool, `"require"` makes the tool one the provider cannot take (`strict-required`), as it
	 * does for Anthropic and Google, to which toolsmith sends no strict tools. `grammar` is not
	 * converted: the tool goes as a plain function tool.
	 */
	readonly constrainedSampling?: false | ConstrainedSamplingConfig;
}

/** Options for the provider converters: what to do with a tool the provider would reject, and OpenAI strict mode. */
export interface ConvertToolsOptions {
	/**
	 * What to do with a tool the provider would reject (a bad name or a schema error):
	 * `"throw"` (default) throws one `ToolsmithError` (`E_INVALID_TOOL`) listing every problem;
	 * `"omit"` leaves the tool out. Either way, `compatibilityReport` explains.
	 */
	readonly invalid?: "throw" | "omit";
}

/** A tool as the OpenAI Chat Completions API takes it. */
export interface OpenAIChatTool {
	readonly type: "function";
	readonly function: {
		readonly name: string;
		readonly description: string;
		readonly parameters: Record<string, unknown>;
		readonly strict?: boolean;
	};
}

/** A tool as the OpenAI Responses API takes it. */
export interface OpenAIResponsesTool {
	readonly type: "function";
	readonly name: string;
	readonly description: string;
	readonly parameters: Record<string, unknown>;
	readonly strict: boolean;
}

/** A tool as the Anthropic Messages API takes it. */
export interface AnthropicTool {
	readonly name: string;
	readonly description: string;
	readonly input_schema: Record<string, unknown>;
}

/** A function declaration as the Google Gemini API takes it. */
export interface GoogleFunctionDeclaration {
	readonly name: string;
	readonly description: string;
	readonly parameters: Record<string, unknown>;
}

/** One entry of Gemini's `tools` array. */
export interface GoogleTools {
	readonly functionDeclarations: GoogleFunctionDeclaration[];
}

/** How one tool fares with one provider. */
export interface ToolCompatibility {
	readonly name: string;
	readonly provider: ToolProvider;
	readonly strict: boolean;
	readonly nameVerdict: ToolNameVerdict;
	readonly rewrites: readonly SchemaRewrite[];
	readonly errors: readonly SchemaError[];
	/** For OpenAI strict requests: the tool falls back to `strict: false` because its schema cannot be made strict. */
	readonly strictFallback: boolean;
	/** The provider would take the tool as converted. */
	readonly ok: boolean;
}

function nameVerdict(name: string, provider: ToolProvider): ToolNameVerdict {
	const report = checkToolName(name);
	if (provider === "anthropic") return report.anthropic;
	if (provider === "google") return report.google;
	return report.openai;
}

interface Converted {
	readonly tool: ProviderTool;
	readonly compiled: CompiledToolSchema;
	readonly strict: boolean;
	readonly report: ToolCompatibility;
}

/** What a tool's `constrainedSampling` asks of JSON Schema sampling: `"prefer"`, `"require"`, or nothing. */
function strictSampling(tool: ProviderTool): "prefer" | "require" | undefined {
	const config = tool.constrainedSampling;
	if (typeof config !== "object" || config === null || config.type !== "json_schema") return undefined;
	return config.strict === "require" ? "require" : "prefer";
}

function isOpenAI(provider: ToolProvider): boolean {
	return provider === "openai-chat" || provider === "openai-responses";
}

function convert(tools: readonly ProviderTool[], provider: ToolProvider, strictOption: boolean): Converted[] {
	return tools.map((tool) => {
		const sampling = strictSampling(tool);
		if (sampling === "require" && !isOpenAI(provider)) {
			const compiled = compileToolSchema(tool.parameters, provider, { strict: false });
			const error: SchemaError = {
				path: "",
				kind: "strict-required",
				message: `The tool requires strict JSON Schema sampling (constrainedSampling), which toolsmith does not send to ${provider}.`,
			};
			return finish(tool, provider, { ...compiled, errors: [...compiled.errors, error] }, false, undefined);
		}
		const strict = strictOption || (sampling !== undefined && isOpenAI(provider));
		const compiled = compileToolSchema(tool.parameters, provider, { strict });
		if (strict && compiled.errors.length > 0) {
			if (sampling === "require") {
				const error: SchemaError = {
					path: "",
					kind: "strict-required",
					message:
						"The tool requires strict JSON Schema sampling (constrainedSampling), but its schema cannot be strict.",
				};
				return finish(tool, provider, { ...compiled, errors: [...compiled.errors, error] }, true, undefined);
			}
			const relaxed = compileToolSchema(tool.parameters, provider, { strict: false });
			// Strict is per tool at OpenAI: one tool that cannot be strict should not sink the others.
			if (relaxed.errors.length === 0) return finish(tool, provider, relaxed, false, compiled.errors);
		}
		return finish(tool, provider, compiled, strict, undefined);
	});
}

function finish(
	tool: ProviderTool,
	provider: ToolProvider,
	compiled: CompiledToolSchema,
	strict: boolean,
	/** Set when strict mode was asked for but the schema cannot be strict: why. */
	strictErrors: readonly SchemaError[] | undefined,
): Converted {
	const verdict = nameVerdict(tool.name, provider);
	const report: ToolCompatibility = {
		name: tool.name,
		provider,
		strict,
		nameVerdict: verdict,
		rewrites: compiled.rewrites,
		errors: strictErrors ?? compiled.errors,
		strictFallback: strictErrors !== undefined,
		ok: verdict.ok && compiled.errors.length === 0,
	};
	return { tool, compiled, strict, report };
}

function accepted(
	converted: Converted[],
	provider: ToolProvider,
	options: ConvertToolsOptions | undefined,
): Converted[] {
	const bad = converted.filter((c) => !c.report.ok);
	if (bad.length === 0) return converted;
	if (options?.invalid === "omit") return converted.filter((c) => c.report.ok);
	const lines = bad.flatMap((c) => [
		...(c.report.nameVerdict.ok
			? []
			: [`- ${c.tool.name}: name ${c.report.nameVerdict.problem} (rule ${c.report.nameVerdict.rule})`]),
		...c.compiled.errors.map((e) => `- ${c.tool.name}${e.path}: ${e.message}`),
	]);
	throw new ToolsmithError(
		"E_INVALID_TOOL",
		`${bad.length} tool(s) cannot be sent to ${provider}:\n${lines.join("\n")}\nFix them, or pass { invalid: "omit" } to leave them out.`,
	);
}

/** Tools for OpenAI Chat Completions (`tools` of a request). `strict` asks for strict function calling. */
export function toOpenAIChatTools(
	tools: readonly ProviderTool[],
	options?: ConvertToolsOptions & { readonly strict?: boolean },
): OpenAIChatTool[] {
	const strict = options?.strict === true;
	return accepted(convert(tools, "openai-chat", strict), "openai-chat", options).map((c) => ({
		type: "function",
		function: {
			name: c.tool.name,
			description: c.tool.description,
			parameters: c.compiled.schema,
			...(strict || strictSampling(c.tool) !== undefined ? { strict: c.strict } : {}),
		},
	}));
}

/** Tools for the OpenAI Responses API (flat `function` tools). */
export function toOpenAIResponsesTools(
	tools: readonly ProviderTool[],
	options?: ConvertToolsOptions & { readonly strict?: boolean },
): OpenAIResponsesTool[] {
	const strict = options?.strict === true;
	return accepted(convert(tools, "openai-responses", strict), "openai-responses", options).map((c) => ({
		type: "function",
		name: c.tool.name,
		description: c.tool.description,
		parameters: c.compiled.schema,
		strict: c.strict,
	}));
}

/** Tools for the Anthropic Messages API (`input_schema`). */
export function toAnthropicTools(tools: readonly ProviderTool[], options?: ConvertToolsOptions): AnthropicTool[] {
	return accepted(convert(tools, "anthropic", false), "anthropic", options).map((c) => ({
		name: c.tool.name,
		description: c.tool.description,
		input_schema: c.compiled.schema,
	}));
}

/** Gemini function declarations, wrapped as one `tools` entry: `[{ functionDeclarations }]`. */
export function toGoogleTools(tools: readonly ProviderTool[], options?: ConvertToolsOptions): GoogleTools[] {
	const declarations = accepted(convert(tools, "google", false), "google", options).map((c) => ({
		name: c.tool.name,
		description: c.tool.description,
		parameters: c.compiled.schema,
	}));
	return declarations.length > 0 ? [{ functionDeclarations: declarations }] : [];
}

/** The tools in `provider`'s format: the converter of that provider (`strict` counts for OpenAI only). */
export function toProviderTools(
	tools: readonly ProviderTool[],
	provider: ToolProvider,
	options?: ConvertToolsOptions & { readonly strict?: boolean },
): OpenAIChatTool[] | OpenAIResponsesTool[] | AnthropicTool[] | GoogleTools[] {
	if (provider === "openai-chat") return toOpenAIChatTools(tools, options);
	if (provider === "openai-responses") return toOpenAIResponsesTools(tools, options);
	if (provider === "anthropic") return toAnthropicTools(tools, options);
	return toGoogleTools(tools, options);
}

/**
 * How every tool fares with `provider`: the name verdict, each lossy rewrite and each error.
 * Never throws; use it to show authors what a provider will see.
 */
export function compatibilityReport(
	tools: readonly ProviderTool[],
	provider: ToolProvider,
	options?: { readonly strict?: boolean },
): ToolCompatibility[] {
	return convert(tools, provider, options?.strict === true).map((c) => c.report);
}
