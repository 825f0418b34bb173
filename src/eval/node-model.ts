/**
 * Models for evals from a `provider/model-id` spec (Node only): OpenAI, Anthropic, Google, any
 * OpenAI-compatible server (a base URL), and the providers of pi's `models.json`, through the AI
 * SDK, which only this module loads (by dynamic import, when a model is created). The tools reach
 * the model converted by toolsmith's provider converters; one turn is one model call.
 */
import type { LanguageModel, ToolSet } from "ai";
import {
	type ProviderTool,
	toAnthropicTools,
	toGoogleTools,
	toOpenAIChatTools,
	toOpenAIResponsesTools,
} from "../providers/tools.js";
import { fromStepToolCalls, googleSchemaForAiSdk, toEvalUsage, toModelMessages } from "./model-messages.js";
import { type PiModelApi, readPiProvider } from "./node-pi-models.js";
import type { EvalModel, EvalModelRequest, EvalModelTool, EvalModelTurn } from "./types.js";

/** Options of `createEvalModel`: an OpenAI-compatible server's base URL, an API key. */
export interface EvalModelOptions {
	readonly baseUrl?: string;
	readonly apiKey?: string;
}

type Api = "openai-compatible" | "openai" | "anthropic" | "google";

/** Where one spec's requests go: resolved before anything is loaded or sent. */
interface Connection {
	readonly api: Api;
	readonly provider: string;
	readonly modelId: string;
	readonly apiKey?: string;
	readonly baseUrl?: string;
	readonly headers?: Readonly<Record<string, string>>;
}

const KEY_VARIABLES: Readonly<Record<Exclude<Api, "openai-compatible">, readonly string[]>> = {
	openai: ["OPENAI_API_KEY"],
	anthropic: ["ANTHROPIC_API_KEY"],
	google: ["GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"],
};

const PI_APIS: Readonly<Record<PiModelApi, Api>> = {
	"openai-completions": "openai-compatible",
	"openai-responses": "openai",
	"anthropic-messages": "anthropic",
	"google-generative-ai": "google",
};

function resolveConnection(spec: string, options: EvalModelOptions, env: NodeJS.ProcessEnv): Connection {
	const slash = spec.indexOf("/");
	if (slash <= 0 || slash === spec.length - 1) {
		throw new Error(
			`Model "${spec}" is not a provider/model-id spec (e.g. openai/gpt-4.1-mini, anthropic/claude-sonnet-4-5, google/gemini-2.5-flash, openai-compatible/qwen3 with a base URL).`,
		);
	}
	const provider = spec.slice(0, slash);
	const modelId = spec.slice(slash + 1);
	const pi = readPiProvider(provider, env);
	const baseUrl = options.baseUrl ?? pi?.baseUrl;
	const headers = pi?.headers === undefined ? {} : { headers: pi.headers };
	if (options.baseUrl !== undefined || provider === "openai-compatible") {
		if (baseUrl === undefined) {
			throw new Error(`Model "${spec}" needs the base URL of its OpenAI-compatible server (--base-url).`);
		}
		const apiKey = options.apiKey ?? pi?.apiKey;
		return { api: "openai-compatible", provider, modelId, baseUrl, ...headers, ...(apiKey ? { apiKey } : {}) };
	}
	const builtin = provider in KEY_VARIABLES ? (provider as keyof typeof KEY_VARIABLES) : undefined;
	const api = builtin ?? (pi === undefined ? undefined : PI_APIS[pi.api ?? "openai-completions"]);
	if (api === undefined) {
		throw new Error(
			`Unknown model provider "${provider}" in "${spec}": use openai, anthropic, google, openai-compatible (with a base URL), or a provider of pi's models.json.`,
		);
	}
	if (builtin === undefined && baseUrl === undefined) {
		throw new Error(`Provider "${provider}" in ${pi?.file ?? "models.json"} has no baseUrl.`);
	}
	const variables = api === "openai-compatible" ? [] : KEY_VARIABLES[api];
	const apiKey = options.apiKey ?? variables.map((name) => env[name]).find(Boolean) ?? pi?.apiKey;
	if (!apiKey && api !== "openai-compatible") {
		throw new Error(
			`Model "${spec}" needs an API key: set ${variables.join(" or ")}${pi === undefined ? "" : ` (or apiKey of "${provider}" in ${pi.file})`}.`,
		);
	}
	return {
		api,
		provider,
		modelId,
		...headers,
		...(baseUrl === undefined ? {} : { baseUrl }),
		...(apiKey ? { apiKey } : {}),
	};
}

/** The tools' parameters in the provider's dialect, by toolsmith's converters (they throw on a tool the provider would reject). */
function toolSchemas(api: Api, tools: readonly ProviderTool[]): Map<string, Record<string, unknown>> {
	const schemas = new Map<string, Record<string, unknown>>();
	if (api === "openai-compatible") {
		for (const t of toOpenAIChatTools(tools)) schemas.set(t.function.name, t.function.parameters);
	} else if (api === "openai") {
		for (const t of toOpenAIResponsesTools(tools)) schemas.set(t.name, t.parameters);
	} else if (api === "anthropic") {
		for (const t of toAnthropicTools(tools)) schemas.set(t.name, t.input_schema);
	} else {
		// The AI SDK's Google provider converts JSON Schema to Gemini's schema itself.
		for (const group of toGoogleTools(tools)) {
			for (const t of group.functionDeclarations) schemas.set(t.name, googleSchemaForAiSdk(t.parameters));
		}
	}
	return schemas;
}

/**
 * OpenRouter (and others) report a request's cost in `usage.cost`; the AI SDK's OpenAI-compatible
 * provider keeps it when told where to look.
 */
function costExtractor(name: string) {
	const costOf = (body: unknown): number | undefined => {
		const usage = typeof body === "object" && body !== null ? (body as { usage?: unknown }).usage : undefined;
		const cost = typeof usage === "object" && usage !== null ? (usage as { cost?: unknown }).cost : undefined;
		return typeof cost === "number" ? cost : undefined;
	};
	const metadata = (cost: number | undefined) => (cost === undefined ? undefined : { [name]: { cost } });
	return {
		extractMetadata: async ({ parsedBody }: { parsedBody: unknown }) => metadata(costOf(parsedBody)),
		createStreamExtractor: () => {
			let cost: number | undefined;
			return {
				processChunk: (chunk: unknown) => {
					cost = costOf(chunk) ?? cost;
				},
				buildMetadata: () => metadata(cost),
			};
		},
	};
}

/** A provider package, or an error saying how to install it when it is missing. */
async function provided<T>(loading: Promise<T>, name: string): Promise<T> {
	try {
		return await loading;
	} catch (error) {
		const code = (error as { code?: unknown } | null)?.code;
		if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
			throw new Error(`Evals need the package "${name}", which is not installed: npm install ${name}`, {
				cause: error,
			});
		}
		throw error;
	}
}

async function languageModel(connection: Connection): Promise<LanguageModel> {
	const { api, modelId, apiKey, headers } = connection;
	const baseURL = connection.baseUrl;
	const common = { ...(apiKey ? { apiKey } : {}), ...(headers ? { headers: { ...headers } } : {}) };
	if (api === "openai") {
		const { createOpenAI } = await provided(import("@ai-sdk/openai"), "@ai-sdk/openai");
		return createOpenAI({ ...common, ...(baseURL ? { baseURL } : {}) })(modelId);
	}
	if (api === "anthropic") {
		const { createAnthropic } = await provided(import("@ai-sdk/anthropic"), "@ai-sdk/anthropic");
		return createAnthropic({ ...common, ...(baseURL ? { baseURL } : {}) })(modelId);
	}
	if (api === "google") {
		const { createGoogleGenerativeAI } = await provided(import("@ai-sdk/google"), "@ai-sdk/google");
		return createGoogleGenerativeAI({ ...common, ...(baseURL ? { baseURL } : {}) })(modelId);
	}
	const { createOpenAICompatible } = await provided(import("@ai-sdk/openai-compatible"), "@ai-sdk/openai-compatible");
	const settings = {
		...common,
		name: connection.provider,
		baseURL: baseURL ?? "",
		includeUsage: true,
		metadataExtractor: costExtractor(connection.provider),
	};
	return createOpenAICompatible(settings).chatModel(modelId);
}

/**
 * The model a spec such as `openai/gpt-4.1-mini` names. `openai/…`, `anthropic/…` and `google/…`
 * take their key from `OPENAI_API_KEY`, `ANTHROPIC_API_KEY` and `GOOGLE_GENERATIVE_AI_API_KEY` (or
 * `GEMINI_API_KEY`), unless `apiKey` is given; `openai-compatible/…`, and any spec with a
 * `baseUrl`, talk to an OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio) with an
 * optional key. Another provider name is looked up in pi's `models.json`. A missing key or base URL
 * throws here, before anything is sent.
 */
export async function createEvalModel(spec: string, options: EvalModelOptions = {}): Promise<EvalModel> {
	const connection = resolveConnection(spec, options, process.env);
	const [ai, model] = await Promise.all([provided(import("ai"), "ai"), languageModel(connection)]);
	const toolSets = new WeakMap<readonly EvalModelTool[], ToolSet>();
	const toolSet = (tools: readonly EvalModelTool[]): ToolSet => {
		let set = toolSets.get(tools);
		if (set === undefined) {
			const schemas = toolSchemas(connection.api, tools);
			set = {};
			for (const tool of tools) {
				const schema = schemas.get(tool.name) ?? tool.parameters;
				set[tool.name] = { description: tool.description, inputSchema: ai.jsonSchema(schema) };
			}
			toolSets.set(tools, set);
		}
		return set;
	};
	const turn = async (request: EvalModelRequest): Promise<EvalModelTurn> => {
		request.signal?.throwIfAborted();
		const result = ai.streamText({
			model,
			...(request.system === "" ? {} : { system: request.system }),
			messages: toModelMessages(request.messages),
			...(request.tools.length === 0 ? {} : { tools: toolSet(request.tools) }),
			stopWhen: ai.stepCountIs(1),
			...(request.signal === undefined ? {} : { abortSignal: request.signal }),
			onError: () => {},
		});
		let failure: { error: unknown } | undefined;
		try {
			for await (const part of result.fullStream) {
				if (part.type === "error") failure ??= { error: part.error };
			}
		} catch (error) {
			// An abort surfaces as whatever the stream was doing when it was cut: say why instead.
			request.signal?.throwIfAborted();
			throw error;
		}
		request.signal?.throwIfAborted();
		if (failure !== undefined) throw failure.error;
		const [text, toolCalls, usage, metadata] = await Promise.all([
			result.text,
			result.toolCalls,
			result.usage,
			result.providerMetadata,
		]);
		return { text, toolCalls: fromStepToolCalls(toolCalls), usage: toEvalUsage(usage, metadata) };
	};
	return { id: spec, turn };
}
