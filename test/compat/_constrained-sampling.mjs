/**
 * What pi-ai sends for tools, through its own converters: run under the Node the release needs,
 * with the pi-ai package folder as the first argument. Reads `{ tools, runs }` (JSON) on stdin,
 * each run `{ provider, strictTools?, grammarTools? }`; writes, per run, `{ tools }` (the `tools`
 * of the request pi builds; Google's function declarations with `parameters`) or `{ error }`.
 * Chat Completions and Anthropic requests are built by pi's own `stream` and caught in its
 * `onPayload` hook, so nothing is sent.
 */
const [piAi] = process.argv.slice(2);
const load = (path) => import(`${piAi}/dist/${path}`);
const chat = await load("api/openai-completions.js");
const anthropic = await load("api/anthropic-messages.js");
const responses = await load("api/openai-responses-shared.js");
const google = await load("api/google-shared.js");
const transcript = await load("utils/transcript.js");

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { tools, runs } = JSON.parse(input);

function model(api, provider, compat) {
	return {
		id: "reference-model",
		name: "reference model",
		api,
		provider,
		baseUrl: "http://127.0.0.1:9",
		reasoning: false,
		input: ["text"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: 100000,
		maxTokens: 1000,
		compat,
	};
}

const STOP = "payload caught";

/** The `tools` of the request `mod.stream` builds, caught before anything is sent. */
async function viaStream(mod, m) {
	let payload;
	let failure;
	const context = transcript.normalizeContext({
		systemPrompt: "s",
		tools,
		messages: [{ role: "user", content: "hi", timestamp: 1 }],
	});
	const events = mod.stream(m, context, {
		apiKey: "not-used",
		cacheRetention: "none",
		maxRetries: 0,
		onPayload: (params) => {
			payload = params;
			throw new Error(STOP);
		},
	});
	for await (const event of events) {
		if (event.type === "error" && payload === undefined) failure = event.error?.errorMessage ?? "error";
	}
	return payload ? { tools: payload.tools } : { error: failure ?? "no request was built" };
}

function attempt(build) {
	try {
		return { tools: build() };
	} catch (error) {
		return { error: error instanceof Error ? error.message : String(error) };
	}
}

const out = [];
for (const run of runs) {
	if (run.provider === "openai-chat") {
		out.push(
			await viaStream(
				chat,
				model("openai-completions", "openai", {
					supportsStrictMode: true,
					supportsOpenAIGrammarTools: run.grammarTools === true,
				}),
			),
		);
	} else if (run.provider === "anthropic") {
		out.push(
			await viaStream(
				anthropic,
				model("anthropic-messages", "anthropic", {
					supportsStrictTools: run.strictTools !== false,
					supportsEagerToolInputStreaming: false,
				}),
			),
		);
	} else if (run.provider === "openai-responses") {
		out.push(
			attempt(() => responses.convertResponsesTools(tools, { supportsOpenAIGrammarTools: run.grammarTools === true })),
		);
	} else if (run.provider === "google") {
		out.push(attempt(() => google.convertTools(tools, true, run.strictTools !== false)));
	} else {
		out.push({ error: `unknown provider ${run.provider}` });
	}
}
process.stdout.write(JSON.stringify(out));
