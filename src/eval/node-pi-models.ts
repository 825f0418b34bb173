/**
 * The reference agent's own model configuration, where the user has one: a provider of pi's
 * `models.json` (in `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`), with its base URL, API, key and
 * headers. Values resolve as pi resolves them (an environment variable's name, else the literal),
 * except `!command` values, which are refused rather than run (Node only).
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** The APIs of pi's `models.json` this adapter speaks. */
export type PiModelApi = "openai-completions" | "openai-responses" | "anthropic-messages" | "google-generative-ai";

const APIS: readonly PiModelApi[] = [
	"openai-completions",
	"openai-responses",
	"anthropic-messages",
	"google-generative-ai",
];

/** One provider of pi's `models.json`, its values resolved. */
export interface PiProviderConfig {
	readonly name: string;
	readonly file: string;
	readonly baseUrl?: string;
	readonly api?: PiModelApi;
	readonly apiKey?: string;
	readonly headers?: Readonly<Record<string, string>>;
}

/** Where pi keeps `models.json`. */
export function piModelsPath(env: NodeJS.ProcessEnv = process.env): string {
	const dir = env.PI_CODING_AGENT_DIR;
	const agentDir = dir ? dir.replace(/^~(?=$|\/)/, homedir()) : join(homedir(), ".pi", "agent");
	return join(agentDir, "models.json");
}

function resolveValue(value: string, what: string, file: string, env: NodeJS.ProcessEnv): string {
	if (value.startsWith("!")) {
		throw new Error(
			`${what} in ${file} is a shell command ("!…"); evals do not run commands from it. Put the value in an environment variable and name that variable in models.json instead.`,
		);
	}
	return env[value] || value;
}

function record(value: unknown): Record<string, unknown> | undefined {
	return typeof value === "object" && value !== null && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: undefined;
}

/**
 * The provider `name` of pi's `models.json`, or `undefined` when there is no such file or
 * provider. A file that is not JSON, or a provider whose `api` this adapter does not speak, throws.
 */
export function readPiProvider(name: string, env: NodeJS.ProcessEnv = process.env): PiProviderConfig | undefined {
	const file = piModelsPath(env);
	let text: string;
	try {
		text = readFileSync(file, "utf8");
	} catch {
		return undefined;
	}
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch (error) {
		throw new Error(`${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
	}
	const entry = record(record(record(parsed)?.providers)?.[name]);
	if (entry === undefined) return undefined;
	const api = entry.api;
	if (api !== undefined && !APIS.includes(api as PiModelApi)) {
		throw new Error(`Provider "${name}" in ${file} uses the API "${String(api)}"; evals speak ${APIS.join(", ")}.`);
	}
	const headers: Record<string, string> = {};
	for (const [key, value] of Object.entries(record(entry.headers) ?? {})) {
		if (typeof value === "string") headers[key] = resolveValue(value, `Header "${key}" of "${name}"`, file, env);
	}
	const apiKey =
		typeof entry.apiKey === "string" ? resolveValue(entry.apiKey, `The apiKey of "${name}"`, file, env) : undefined;
	return {
		name,
		file,
		...(typeof entry.baseUrl === "string" ? { baseUrl: entry.baseUrl } : {}),
		...(api === undefined ? {} : { api: api as PiModelApi }),
		...(apiKey === undefined ? {} : { apiKey }),
		...(Object.keys(headers).length > 0 ? { headers } : {}),
	};
}
