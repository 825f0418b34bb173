/**
 * `toolsmith eval`: options and help here; the eval room (the loop, the scenario loader, the
 * provider library) is imported when the command runs, so `--help` stays fast.
 */
import { UsageError } from "../command/args.js";
import { defineCommand } from "../command/node-command.js";

function positiveInteger(value: string | undefined, option: string): number | undefined {
	if (value === undefined) return undefined;
	const n = Number(value);
	if (!Number.isInteger(n) || n < 1) throw new UsageError(`${option} takes a whole number ≥ 1, got "${value}"`);
	return n;
}

/** The longest `--request-timeout`, in seconds: what one Node timer holds (2^31 - 1 ms, about 24.8 days). */
const MAX_REQUEST_TIMEOUT_S = 2_147_483;

/** `--request-timeout` in milliseconds (0: no limit); a fraction of a second is taken, and never rounds down to "no limit". */
function requestTimeout(value: string | undefined): number | undefined {
	if (value === undefined) return undefined;
	const seconds = /^\d+(?:\.\d+)?$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
	if (!Number.isFinite(seconds) || seconds > MAX_REQUEST_TIMEOUT_S) {
		throw new UsageError(
			`--request-timeout takes a number of seconds up to ${MAX_REQUEST_TIMEOUT_S} (0: no limit), not ${JSON.stringify(value)}`,
		);
	}
	return seconds === 0 ? 0 : Math.max(1, Math.ceil(seconds * 1000));
}

export const evalCommand = defineCommand({
	name: "eval",
	summary: "Run tool-use eval scenarios against a model: does it call your tools right?",
	description: [
		"Each scenario (a *.eval.ts file exporting defineEval(…) or a list of them, or a *.eval.json file of",
		"the same shape) gives a prompt, a world of files, the tools (extensions relative to the file, built-ins,",
		"definitions) and expectations: the calls (with partial arguments and an order), forbidden tools, call",
		"and turn limits, the files at the end and the final answer. Every trial runs the model in a loop",
		"through toolsmith's executor on a fresh world until a final answer, the turn limit or a terminate.",
		"Without files, every *.eval.{ts,js,json} under the current folder is run (node_modules and dot-folders",
		"skipped).",
		"",
		"--model takes provider/model-id (openai/…, anthropic/…, google/…, openai-compatible/<id> with",
		"--base-url for a server such as Ollama, llama.cpp, vLLM or LM Studio, or a provider of pi's",
		"models.json; keys come from the usual environment variables), or scripted:<file>: a module whose",
		"default export is an EvalModel ({ id, turn(request) }) or a script for scriptedModel (a list of",
		"turns or a function of the request), so evals run offline in tests and CI.",
		"",
		"One model request may take --request-timeout seconds (default 600: a long streamed answer or a",
		"provider's queue fits; 0: no limit); past it the request is aborted, that trial fails saying so, and",
		"the run goes on. A scenario file that does not load is reported with the reason and the others run.",
		"",
		"Prints per scenario the pass rate against its goal, what failed in each failing trial (the model's call",
		"beside the expected one), the invalid-argument rate per tool with the fields it got wrong, turns,",
		"tokens and cost where the provider reports them. Exits 1 when a scenario falls under its pass rate.",
		"",
		"Comparing two versions of a tool: --compare <extension> runs every scenario twice, as written (A) and",
		"with that extension loaded before the scenario's own, so its tools replace those of the same name (B);",
		"--compare-description tool=text (repeatable) makes B differ by a description instead. The report",
		"gives per scenario the difference of pass rates B − A with a 95% interval and says when it is within",
		"noise (and about how many trials would resolve it). With --record, A and B go to <dir>/a and <dir>/b.",
	].join("\n"),
	options: {
		model: {
			type: "string",
			short: "m",
			valueName: "provider/id",
			description: "The model: provider/model-id, or scripted:<file> for a scripted model",
		},
		"base-url": { type: "string", valueName: "url", description: "An OpenAI-compatible server's base URL" },
		"api-key-env": {
			type: "string",
			valueName: "VAR",
			description: "The environment variable holding the key for --base-url (e.g. OPENROUTER_API_KEY)",
		},
		trials: {
			type: "string",
			short: "n",
			valueName: "N",
			description: "Trials per scenario (overrides each scenario's)",
		},
		concurrency: { type: "string", short: "c", valueName: "N", description: "Trials run at once (default 1)" },
		"request-timeout": {
			type: "string",
			valueName: "seconds",
			description: "Time one model request may take before its trial fails (default 600; 0: no limit)",
		},
		grep: {
			type: "string",
			short: "g",
			valueName: "pattern",
			description: "Only scenarios whose name matches (a regex)",
		},
		json: { type: "string", valueName: "file", description: "Also write the report as JSON" },
		record: {
			type: "string",
			valueName: "dir",
			description: "Write each trial as a replay fixture for toolsmith test",
		},
		verbose: { type: "boolean", description: "Show every trial's trajectory: each turn's calls and the answer" },
		compare: {
			type: "string",
			valueName: "extension",
			description: "Also run with this extension's tools replacing the scenarios' tools of the same name",
		},
		"compare-description": {
			type: "string",
			multiple: true,
			commas: false,
			valueName: "tool=text",
			description: "Also run with this tool's description replaced (repeatable)",
		},
	},
	positionals: [
		{
			name: "files",
			variadic: true,
			description: "Scenario files or folders (default: *.eval.* under the current folder)",
		},
	],
	examples: [
		"toolsmith eval --model openai/gpt-4.1-mini",
		"toolsmith eval evals/weather.eval.ts --model anthropic/claude-sonnet-4-5 --trials 10 --concurrency 4",
		"toolsmith eval --model openai-compatible/qwen3 --base-url http://127.0.0.1:11434/v1 --record test/fixtures/evals",
		"toolsmith eval --model openai/gpt-4.1-mini --trials 20 --compare-description 'weather=Current weather for a city name.'",
		"toolsmith eval --model scripted:test/evals/model.ts",
	],
	async run({ options, positionals, io, theme, errorTheme }) {
		if (options.model === undefined || options.model.trim() === "") {
			throw new UsageError(
				"give the model to evaluate: --model <provider>/<id> (openai/gpt-4.1-mini, anthropic/…, google/…), or --model scripted:<file> for a scripted one",
			);
		}
		const descriptions: Record<string, string> = {};
		for (const entry of options["compare-description"]) {
			const at = entry.indexOf("=");
			if (at <= 0) throw new UsageError(`--compare-description takes tool=text, got "${entry}"`);
			descriptions[entry.slice(0, at)] = entry.slice(at + 1);
		}
		let grep: RegExp | undefined;
		if (options.grep !== undefined) {
			try {
				grep = new RegExp(options.grep);
			} catch (error) {
				throw new UsageError(`--grep: not a valid pattern (${(error as Error).message})`);
			}
		}
		const { runEvalCommand } = await import("./_eval-run.js");
		return runEvalCommand({
			files: positionals,
			model: options.model,
			baseUrl: options["base-url"],
			apiKeyEnv: options["api-key-env"],
			trials: positiveInteger(options.trials, "--trials"),
			concurrency: positiveInteger(options.concurrency, "--concurrency"),
			requestTimeoutMs: requestTimeout(options["request-timeout"]),
			grep,
			json: options.json,
			record: options.record,
			verbose: options.verbose,
			compare:
				options.compare !== undefined || Object.keys(descriptions).length > 0
					? { extension: options.compare, descriptions }
					: undefined,
			io,
			theme,
			errorTheme,
		});
	},
});
