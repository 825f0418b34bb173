/** The engine behind `toolsmith eval`, imported on first use: find and load scenarios, pick the model, run, print. */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { CommandError, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE } from "../command/node-command.js";
import type { CliIO } from "../command/node-io.js";
import { errorMessage } from "../contract/errors.js";
import type { Theme } from "../contract/render.js";
import { compareEvals } from "../eval/compare.js";
import { findScenarioFiles, loadScenarioFile, loadScriptedModel, ScenarioFileError } from "../eval/node-files.js";
import { createEvalModel } from "../eval/node-model.js";
import { runEvals } from "../eval/node-run.js";
import type { EvalModel, EvalReport, EvalRunOptions, EvalScenario, TrialResult } from "../eval/types.js";
import { displayPath } from "../extensions/node-event-lines.js";
import { formatComparison, formatReport, trialLine } from "./_eval-format.js";

export interface EvalCommandRun {
	readonly files: readonly string[];
	readonly model: string;
	readonly baseUrl: string | undefined;
	/** The environment variable that holds the key for `baseUrl`. */
	readonly apiKeyEnv: string | undefined;
	readonly trials: number | undefined;
	readonly concurrency: number | undefined;
	/** `--request-timeout` in milliseconds (0: no limit; undefined: the default). */
	readonly requestTimeoutMs: number | undefined;
	readonly grep: RegExp | undefined;
	readonly json: string | undefined;
	readonly record: string | undefined;
	/** Print every trial's trajectory, not only what failed. */
	readonly verbose: boolean;
	/** B's difference from A: an extension loaded first, and/or description overrides. */
	readonly compare:
		| { readonly extension: string | undefined; readonly descriptions: Readonly<Record<string, string>> }
		| undefined;
	readonly io: CliIO;
	readonly theme: Theme;
	readonly errorTheme: Theme;
}

async function modelOf(spec: string, run: EvalCommandRun): Promise<EvalModel> {
	if (spec.startsWith("scripted:")) {
		const file = spec.slice("scripted:".length);
		if (file === "") throw new CommandError("--model scripted:<file> needs the file of the scripted model", EXIT_USAGE);
		return loadScriptedModel(resolve(run.io.cwd, file));
	}
	let apiKey: string | undefined;
	if (run.apiKeyEnv !== undefined) {
		if (run.baseUrl === undefined) {
			throw new CommandError(
				"--api-key-env names the key of an OpenAI-compatible server: give its --base-url too",
				EXIT_USAGE,
			);
		}
		apiKey = run.io.env[run.apiKeyEnv];
		if (apiKey === undefined || apiKey === "") {
			throw new CommandError(`--api-key-env: the environment variable ${run.apiKeyEnv} is not set`, EXIT_USAGE);
		}
	}
	return createEvalModel(spec, {
		...(run.baseUrl !== undefined ? { baseUrl: run.baseUrl } : {}),
		...(apiKey !== undefined ? { apiKey } : {}),
	});
}

/** A scenario file that did not load: as shown (relative to the cwd), and why. */
interface LoadError {
	readonly file: string;
	readonly error: string;
}

/** The scenarios chosen, and the files that did not load (each already reported on stderr). */
interface LoadedScenarios {
	readonly scenarios: EvalScenario[];
	readonly loadErrors: readonly LoadError[];
}

/**
 * Every scenario of the files asked for. A file that does not load is reported on stderr (its name
 * and why) and the others still run; the command then exits 1 at the end.
 */
async function loadScenarios(run: EvalCommandRun): Promise<LoadedScenarios> {
	let files: string[];
	try {
		files = await findScenarioFiles(run.files, run.io.cwd);
	} catch (error) {
		throw new CommandError(errorMessage(error), EXIT_USAGE);
	}
	if (files.length === 0) {
		const where = run.files.length > 0 ? run.files.join(", ") : "the current folder";
		throw new CommandError(
			`no scenario files (*.eval.ts, *.eval.js, *.eval.json) found in ${where}. Write one with defineEval from toolsmith-sdk/eval (see docs/evals.md), or name the files: toolsmith eval path/to/x.eval.ts --model …`,
			EXIT_USAGE,
		);
	}
	const scenarios: EvalScenario[] = [];
	const loadErrors: LoadError[] = [];
	for (const file of files) {
		try {
			scenarios.push(...(await loadScenarioFile(file)));
		} catch (error) {
			const shown = displayPath(file, run.io.cwd);
			const reason = error instanceof ScenarioFileError ? error.reason : errorMessage(error);
			loadErrors.push({ file: shown, error: reason });
			run.io.stderr.write(`${run.errorTheme.fg("error", `${shown}: ${reason}`)}\n`);
		}
	}
	if (scenarios.length === 0) {
		throw new CommandError(
			`no scenario could be loaded from the ${files.length} scenario file${files.length === 1 ? "" : "s"} (each listed above with the reason)`,
			EXIT_FAILURE,
		);
	}
	const chosen = run.grep ? scenarios.filter((s) => run.grep!.test(s.name)) : scenarios;
	if (chosen.length === 0) {
		throw new CommandError(
			`no scenario name matches --grep ${run.grep} (there are: ${scenarios.map((s) => s.name).join(", ")})`,
			EXIT_USAGE,
		);
	}
	return { scenarios: chosen, loadErrors };
}

/** The closing line for files that did not load (empty when all did). */
function loadErrorsLine(loadErrors: readonly LoadError[], theme: Theme): string {
	if (loadErrors.length === 0) return "";
	const count = loadErrors.length;
	return `\n${theme.fg("error", `${count} scenario file${count === 1 ? "" : "s"} did not load (see above): ${loadErrors.map((e) => e.file).join(", ")}`)}`;
}

/** A progress line on a terminal (rewritten in place), else one line per trial. */
function progress(
	run: EvalCommandRun,
	total: number,
	label: string,
): { onTrial: (r: TrialResult) => void; done: () => void } {
	const out = run.io.stdout;
	let finished = 0;
	let failed = 0;
	if (out.isTTY) {
		const draw = (last: string) =>
			out.write(`\r\x1b[K${label}${finished}/${total} trials, ${failed} failed${last ? ` — ${last}` : ""}`);
		draw("");
		return {
			onTrial: (result) => {
				finished++;
				if (!result.passed) failed++;
				draw(`${result.scenario} #${result.trial}`);
			},
			done: () => out.write("\r\x1b[K"),
		};
	}
	return {
		onTrial: (result) => {
			out.write(`${label}${trialLine(result, run.theme)}\n`);
		},
		done: () => {},
	};
}

async function runSide(
	run: EvalCommandRun,
	scenarios: readonly EvalScenario[],
	model: EvalModel,
	label: string,
	extra: Partial<EvalRunOptions>,
	record: string | undefined,
	signal: AbortSignal,
): Promise<EvalReport> {
	const total = scenarios.reduce((sum, s) => sum + (run.trials ?? s.trials ?? 1), 0);
	const shown = progress(run, total, label);
	try {
		return await runEvals(scenarios, {
			model,
			cwd: run.io.cwd,
			...(run.trials !== undefined ? { trials: run.trials } : {}),
			...(run.concurrency !== undefined ? { concurrency: run.concurrency } : {}),
			...(run.requestTimeoutMs !== undefined ? { requestTimeoutMs: run.requestTimeoutMs } : {}),
			...(record !== undefined ? { record } : {}),
			onTrial: shown.onTrial,
			signal,
			...extra,
		});
	} finally {
		shown.done();
	}
}

async function writeJson(path: string, value: unknown, cwd: string): Promise<void> {
	const target = resolve(cwd, path);
	await mkdir(dirname(target), { recursive: true });
	const replacer = (_key: string, inner: unknown) => (inner instanceof RegExp ? String(inner) : inner);
	await writeFile(target, `${JSON.stringify(value, replacer, "\t")}\n`);
}

/** Run the scenarios (twice with --compare), print the report, write JSON; exit 1 when a scenario is under its goal. */
export async function runEvalCommand(run: EvalCommandRun): Promise<number> {
	const { scenarios, loadErrors } = await loadScenarios(run);
	let model: EvalModel;
	try {
		model = await modelOf(run.model, run);
	} catch (error) {
		if (error instanceof CommandError) throw error;
		throw new CommandError(`--model ${run.model}: ${errorMessage(error)}`, EXIT_USAGE);
	}
	// Ctrl-C stops the trials (each ends as an error) and prints what was done.
	const controller = new AbortController();
	const stopListening = run.io.onInterrupt(() => controller.abort());
	try {
		const code = await runAndPrint(run, scenarios, loadErrors, model, controller.signal);
		return controller.signal.aborted ? EXIT_INTERRUPTED : loadErrors.length > 0 ? EXIT_FAILURE : code;
	} finally {
		stopListening();
	}
}

async function runAndPrint(
	run: EvalCommandRun,
	scenarios: readonly EvalScenario[],
	loadErrors: readonly LoadError[],
	model: EvalModel,
	signal: AbortSignal,
): Promise<number> {
	const { io, theme } = run;
	const unloaded = loadErrors.length > 0 ? { loadErrors } : {};
	if (!run.compare) {
		const report = await runSide(run, scenarios, model, "", {}, run.record, signal);
		io.stdout.write(`${formatReport(report, theme, run.verbose)}${loadErrorsLine(loadErrors, theme)}\n`);
		if (run.json !== undefined) await writeJson(run.json, { ...report, ...unloaded }, io.cwd);
		return report.ok ? EXIT_OK : EXIT_FAILURE;
	}
	const compare = run.compare;
	const a = await runSide(
		run,
		scenarios,
		model,
		"A ",
		{},
		run.record === undefined ? undefined : join(run.record, "a"),
		signal,
	);
	const b = await runSide(
		run,
		scenarios,
		model,
		"B ",
		{
			...(compare.extension !== undefined ? { extensions: [resolve(io.cwd, compare.extension)] } : {}),
			descriptions: compare.descriptions,
		},
		run.record === undefined ? undefined : join(run.record, "b"),
		signal,
	);
	const bLabel = [
		...(compare.extension !== undefined ? [`with ${compare.extension}`] : []),
		...Object.keys(compare.descriptions).map((tool) => `${tool}'s description replaced`),
	].join(", ");
	const comparison = compareEvals(a, b, { a: "the scenarios as written", b: bLabel });
	io.stdout.write(
		`${theme.bold("A")}\n${formatReport(a, theme, run.verbose)}\n\n${theme.bold("B")}\n${formatReport(b, theme, run.verbose)}\n\n${formatComparison(comparison, theme)}${loadErrorsLine(loadErrors, theme)}\n`,
	);
	if (run.json !== undefined) await writeJson(run.json, { a, b, comparison, ...unloaded }, io.cwd);
	return a.ok && b.ok ? EXIT_OK : EXIT_FAILURE;
}
