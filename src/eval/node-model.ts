/**
 * Models for evals from a `provider/model-id` spec (Node only). Placeholder while the provider
 * adapter is written: every spec is refused.
 */
import type { EvalModel } from "./types.js";

/** Options of `createEvalModel`: an OpenAI-compatible server's base URL, an API key. */
export interface EvalModelOptions {
	readonly baseUrl?: string;
	readonly apiKey?: string;
}

/** The model a spec such as `openai/gpt-4.1-mini` names. */
export async function createEvalModel(spec: string, _options: EvalModelOptions = {}): Promise<EvalModel> {
	throw new Error(`No model provider is available yet for "${spec}".`);
}
