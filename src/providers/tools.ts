/**
 * Tools → each provider's request format. Only name, description and parameters travel, and what a
 * tool's `constrainedSampling` asks for: strict tools (every provider), grammar tools (OpenAI).
 */
import type { TSchema } from "@sinclair/typebox";
import { ToolsmithError } from "../contract/errors.js";
import type { ConstrainedSamplingConfig } from "../contract/tool.js";
import { checkToolName, type ToolNameVerdict } from "./names.js";
import { strictSamplingSchema, type ToolGrammar, toolGrammar } from "./sampling.js";
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
	 * pi 1.x's constrained sampling, sent as pi 1.6.0 sends it. `json_schema` sends the tool strict
	 * when its schema fits the strict subset (every property required, optional ones nullable,
	 * objects closed; Anthropic refuses a few more keywords), whatever the `strict` option:
	 * `"prefer"` falls back to a plain tool, `"require"` makes the tool one the provider cannot take
	 * (`strict-required`), as it does with `strictTools: false`. `grammar` makes an OpenAI tool a
	 * custom tool with a Lark or regex grammar (unless `grammarTools: false`); other providers get
	 * a plain tool.
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
	/**
	 * Anthropic and Google: whether the model takes strict tools (default `true`: every Claude model
	 * of pi 1.6.0's list, Gemini 3 and later). With `false`, `constrainedSampling` `"prefer"` tools
	 * go plain and `"require"` ones are refused, as pi does for such models.
	 */
	readonly strictTools?: boolean;
	/**
	 * OpenAI: whether the model takes custom tools with a grammar (OpenAI's GPT-5 models do). With
	 * `true`, `grammar` tools become custom tools (and the converters' results may hold them);
	 * without (the default, as pi does for a model whose entry does not say it takes them), they go
	 * as plain function tools.
	 */
	readonly grammarTools?: boolean;
}

/** A function tool as the OpenAI Chat Completions API takes it. */
export interface OpenAIChatTool {
	readonly type: "function";
	readonly function: {
		readonly name: string;
		readonly description: string;
		readonly parameters: Record<string, unknown>;
		readonly strict?: boolean;
	};
}

/** A custom tool with a grammar, as OpenAI Chat Completions takes it (a `grammar` tool). */
export interface OpenAIChatCustomTool {
	readonly type: "custom";
	readonly custom: {
		readonly name: string;
		readonly description: string;
		readonly format: {
			readonly type: "grammar";
			readonly grammar: { readonly syntax: "lark" | "regex"; readonly definition: string };
		};
	};
}

/** A function tool as the OpenAI Responses API takes it. */
export interface OpenAIResponsesTool {
	readonly type: "function";
	readonly name: string;
	readonly description: string;
	readonly parameters: Record<string, unknown>;
	readonly strict: boolean;
}

/** A custom tool with a grammar, as the OpenAI Responses API takes it (a `grammar` tool). */
export interface OpenAIResponsesCustomTool {
	readonly type: "custom";
	readonly name: string;
	readonly description: string;
	readonly format: { readonly type: "grammar"; readonly syntax: "lark" | "regex"; readonly definition: string };
}

/** A tool as the Anthropic Messages API takes it; `strict` for strict tools (`constrainedSampling`). */
export interface AnthropicTool {
	readonly name: string;
	readonly description: string;
	readonly strict?: true;
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
	/** The tool goes as an OpenAI custom tool with this grammar (`constrainedSampling` `grammar`). */
	readonly grammar?: { readonly syntax: "lark" | "regex"; readonly definition: string };
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
	readonly grammar?: ToolGrammar;
	readonly report: ToolCompatibility;
}

/** What the model takes, as the converter was told (see `ConvertToolsOptions`). */
interface Capabilities {
	readonly strictTools: boolean;
	readonly grammarTools: boolean;
}

function capabilities(options: ConvertToolsOptions | undefined): Capabilities {
	return { strictTools: options?.strictTools !== false, grammarTools: options?.grammarTools === true };
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

function strictRequired(reason: string): SchemaError {
	return {
		path: "",
		kind: "strict-required",
		message: `The tool requires strict JSON Schema sampling (constrainedSampling), but ${reason}.`,
	};
}

function convertOne(tool: ProviderTool, provider: ToolProvider, strictOption: boolean, caps: Capabilities): Converted {
	const config = tool.constrainedSampling;
	if (
		typeof config === "object" &&
		config !== null &&
		config.type === "grammar" &&
		isOpenAI(provider) &&
		caps.grammarTools
	) {
		const compiled = compileToolSchema(tool.parameters, provider, { strict: false });
		if (compiled.errors.length > 0) return finish(tool, provider, compiled, false, undefined);
		const resolved = toolGrammar(config, compiled.schema);
		if (!resolved.ok) {
			const error: SchemaError = {
				path: "",
				kind: "grammar-invalid",
				message: `The tool asks for grammar-constrained sampling, but ${resolved.reason}.`,
			};
			return finish(tool, provider, { ...compiled, errors: [error] }, false, undefined);
		}
		return finish(tool, provider, compiled, false, undefined, resolved.grammar);
	}
	const sampling = strictSampling(tool);
	if (sampling !== undefined) {
		const takesStrict = isOpenAI(provider) || caps.strictTools;
		// The tool's schema as plain JSON (refs inlined, literal unions as enums), then the strict subset.
		const open = compileToolSchema(tool.parameters, "anthropic", { strict: false });
		const strict = takesStrict && open.errors.length === 0 ? strictSamplingSchema(open.schema, provider) : undefined;
		if (strict?.ok) {
			const dialect = provider === "google" ? compileToolSchema(strict.schema, "google", { strict: false }) : undefined;
			const compiled: CompiledToolSchema = {
				schema: dialect?.schema ?? strict.schema,
				rewrites: [...open.rewrites, ...strict.rewrites, ...(dialect?.rewrites ?? [])],
				errors: dialect?.errors ?? [],
			};
			return finish(tool, provider, compiled, true, undefined);
		}
		const plain = compileToolSchema(tool.parameters, provider, { strict: false });
		if (sampling === "require") {
			const reason = !takesStrict
				? `${provider} is set not to take strict tools (strictTools: false)`
				: strict && !strict.ok
					? `its schema cannot be strict: ${strict.reason}`
					: "its schema cannot be strict";
			return finish(
				tool,
				provider,
				{ ...plain, errors: [...plain.errors, strictRequired(reason)] },
				takesStrict,
				undefined,
			);
		}
		if (strict && !strict.ok && plain.errors.length === 0) {
			// "prefer": sent as a plain tool, and the report says why.
			const why: SchemaError = {
				path: "",
				kind: "unsupported-keyword",
				message: `Strict sampling is not possible (${strict.reason}); the tool is sent non-strict.`,
			};
			return finish(tool, provider, plain, false, [why]);
		}
		if (!isOpenAI(provider)) return finish(tool, provider, plain, false, undefined);
	}
	const strict = strictOption && isOpenAI(provider);
	const compiled = compileToolSchema(tool.parameters, provider, { strict });
	if (strict && compiled.errors.length > 0) {
		const relaxed = compileToolSchema(tool.parameters, provider, { strict: false });
		// Strict is per tool at OpenAI: one tool that cannot be strict should not sink the others.
		if (relaxed.errors.length === 0) return finish(tool, provider, relaxed, false, compiled.errors);
	}
	return finish(tool, provider, compiled, strict, undefined);
}

function convert(
	tools: readonly ProviderTool[],
	provider: ToolProvider,
	strictOption: boolean,
	options?: ConvertToolsOptions,
): Converted[] {
	const caps = capabilities(options);
	return tools.map((tool) => convertOne(tool, provider, strictOption, caps));
}

function finish(
	tool: ProviderTool,
	provider: ToolProvider,
	compiled: CompiledToolSchema,
	strict: boolean,
	/** Set when strict mode was asked for but the schema cannot be strict: why. */
	strictErrors: readonly SchemaError[] | undefined,
	grammar?: ToolGrammar,
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
		...(grammar ? { grammar: { syntax: grammar.syntax, definition: grammar.definition } } : {}),
		ok: verdict.ok && compiled.errors.length === 0,
	};
	return { tool, compiled, strict, ...(grammar ? { grammar } : {}), report };
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

/** Options of the OpenAI converters: `strict` asks for strict function calling. */
export interface OpenAIConvertOptions extends ConvertToolsOptions {
	readonly strict?: boolean;
}

/**
 * Tools for OpenAI Chat Completions (`tools` of a request). `strict` asks for strict function
 * calling; with `grammarTools: true`, a `grammar` tool becomes a custom tool.
 */
export function toOpenAIChatTools(
	tools: readonly ProviderTool[],
	options?: OpenAIConvertOptions & { readonly grammarTools?: false },
): OpenAIChatTool[];
export function toOpenAIChatTools(
	tools: readonly ProviderTool[],
	options: OpenAIConvertOptions,
): (OpenAIChatTool | OpenAIChatCustomTool)[];
export function toOpenAIChatTools(
	tools: readonly ProviderTool[],
	options?: OpenAIConvertOptions,
): (OpenAIChatTool | OpenAIChatCustomTool)[] {
	const strict = options?.strict === true;
	return accepted(convert(tools, "openai-chat", strict, options), "openai-chat", options).map(
		(c): OpenAIChatTool | OpenAIChatCustomTool =>
			c.grammar
				? {
						type: "custom",
						custom: {
							name: c.tool.name,
							description: c.tool.description,
							format: { type: "grammar", grammar: { syntax: c.grammar.syntax, definition: c.grammar.definition } },
						},
					}
				: {
						type: "function",
						function: {
							name: c.tool.name,
							description: c.tool.description,
							parameters: c.compiled.schema,
							...(strict || strictSampling(c.tool) !== undefined ? { strict: c.strict } : {}),
						},
					},
	);
}

/**
 * Tools for the OpenAI Responses API (flat `function` tools); with `grammarTools: true`, a
 * `grammar` tool becomes a custom tool.
 */
export function toOpenAIResponsesTools(
	tools: readonly ProviderTool[],
	options?: OpenAIConvertOptions & { readonly grammarTools?: false },
): OpenAIResponsesTool[];
export function toOpenAIResponsesTools(
	tools: readonly ProviderTool[],
	options: OpenAIConvertOptions,
): (OpenAIResponsesTool | OpenAIResponsesCustomTool)[];
export function toOpenAIResponsesTools(
	tools: readonly ProviderTool[],
	options?: OpenAIConvertOptions,
): (OpenAIResponsesTool | OpenAIResponsesCustomTool)[] {
	const strict = options?.strict === true;
	return accepted(convert(tools, "openai-responses", strict, options), "openai-responses", options).map(
		(c): OpenAIResponsesTool | OpenAIResponsesCustomTool =>
			c.grammar
				? {
						type: "custom",
						name: c.tool.name,
						description: c.tool.description,
						format: { type: "grammar", syntax: c.grammar.syntax, definition: c.grammar.definition },
					}
				: {
						type: "function",
						name: c.tool.name,
						description: c.tool.description,
						parameters: c.compiled.schema,
						strict: c.strict,
					},
	);
}

/** Tools for the Anthropic Messages API (`input_schema`; `strict: true` for strict tools). */
export function toAnthropicTools(tools: readonly ProviderTool[], options?: ConvertToolsOptions): AnthropicTool[] {
	return accepted(convert(tools, "anthropic", false, options), "anthropic", options).map((c) => ({
		name: c.tool.name,
		description: c.tool.description,
		...(c.strict ? { strict: true as const } : {}),
		input_schema: c.compiled.schema,
	}));
}

/** Gemini function declarations, wrapped as one `tools` entry: `[{ functionDeclarations }]`. */
export function toGoogleTools(tools: readonly ProviderTool[], options?: ConvertToolsOptions): GoogleTools[] {
	const declarations = accepted(convert(tools, "google", false, options), "google", options).map((c) => ({
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
	options?: OpenAIConvertOptions,
):
	| (OpenAIChatTool | OpenAIChatCustomTool)[]
	| (OpenAIResponsesTool | OpenAIResponsesCustomTool)[]
	| AnthropicTool[]
	| GoogleTools[] {
	if (provider === "openai-chat") return toOpenAIChatTools(tools, options ?? {});
	if (provider === "openai-responses") return toOpenAIResponsesTools(tools, options ?? {});
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
	options?: Pick<ConvertToolsOptions, "strictTools" | "grammarTools"> & { readonly strict?: boolean },
): ToolCompatibility[] {
	return convert(tools, provider, options?.strict === true, options).map((c) => c.report);
}
