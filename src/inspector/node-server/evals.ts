/**
 * The inspector's evals: the scenario files under the cwd with their scenarios' names, and one
 * scenario run against a model (or a `scripted:<file>` one) with the host's extensions, answered
 * with every trial's trajectory. The eval room is imported on the first request, never at start-up
 * (Node only).
 *
 * Every file is read from inside the cwd (symlinks resolved). Under a path policy the model may have
 * written any of them, so no code is imported from there (scenario modules, a JSON scenario's
 * extensions, scripted model modules) unless the host allows eval code; JSON stays usable, and the
 * trials' Node worlds run under the policy's settings.
 */
import { existsSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { PathPolicy } from "../../contract/env.js";
import { errorMessage } from "../../contract/errors.js";
import type { EvalModel, EvalScenario, TrialResult } from "../../eval/types.js";
import { RequestError } from "../../mcp/node-request.js";
import type { EvalRunResponse, EvalScenarioFile, EvalScenariosResponse, EvalTrialView, Json } from "../protocol.js";
import { isRecord } from "./http.js";
import { broadcast, type ServerState } from "./state.js";

/** Most trials one request may ask for. */
const MAX_TRIALS = 100;

/** Why code is not imported under a policy, and what to do instead. */
const NO_CODE_UNDER_POLICY =
	"which is not run under a path policy: the model may have written it, and it would run in the inspector's own process, outside the sandbox. Start the inspector with --allow-eval-code (allowEvalCode) to import it";

/** Whether eval code may be imported: always without a policy, else only when the host allows it. */
function codeAllowed(state: ServerState): boolean {
	return state.options.policy === undefined || state.options.allowEvalCode === true;
}

/** The eval room's Node parts, imported on the first request (extensions get their provisions from whoever started the inspector). */
const loadEvalRoom = async () => {
	const [files, model, run] = await Promise.all([
		import("../../eval/node-files.js"),
		import("../../eval/node-model.js"),
		import("../../eval/node-run.js"),
	]);
	return { ...files, ...model, ...run };
};

type EvalRoom = Awaited<ReturnType<typeof loadEvalRoom>>;

/** `file` as the page shows it: relative to the cwd when inside it. */
function shownPath(file: string, cwd: string): string {
	const rel = relative(cwd, file);
	return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? file : rel.split(sep).join("/");
}

/** JSON for the page: patterns as `/…/`, predicates as `(predicate)`. */
export function evalJson(value: unknown): Json {
	const seen = new WeakSet<object>();
	const text = JSON.stringify(value, (_key, v: unknown) => {
		if (v instanceof RegExp) return String(v);
		if (typeof v === "function") return "(predicate)";
		if (typeof v === "bigint") return `${v}n`;
		if (typeof v === "object" && v !== null) {
			if (seen.has(v)) return "[circular]";
			seen.add(v);
		}
		return v;
	});
	return text === undefined ? null : (JSON.parse(text) as Json);
}

function trialView(result: TrialResult): EvalTrialView {
	return {
		trial: result.trial,
		passed: result.passed,
		turns: result.turns,
		ended: result.ended,
		answer: result.answer,
		durationMs: result.durationMs,
		calls: result.calls.map((c) => ({
			turn: c.turn,
			tool: c.call.name,
			args: evalJson(c.call.arguments),
			isError: c.isError,
			invalidFields: [...c.invalidFields],
		})),
		failures: result.failures.map((f) => ({
			expectation: f.expectation,
			message: f.message,
			...(f.expected !== undefined ? { expected: evalJson(f.expected) } : {}),
			...(f.actual !== undefined ? { actual: evalJson(f.actual) } : {}),
		})),
	};
}

/** `GET /api/evals`: every scenario file under the cwd, with its scenarios' names or its load error. */
export async function listScenarios(state: ServerState): Promise<EvalScenariosResponse> {
	const { findScenarioFiles, loadScenarioFile, CODE_SCENARIO_FILE, ScenarioFileError } = await loadEvalRoom();
	const files: EvalScenarioFile[] = [];
	for (const path of await findScenarioFiles([], state.cwd)) {
		const file = shownPath(path, state.cwd);
		if (CODE_SCENARIO_FILE.test(path) && !codeAllowed(state)) {
			files.push({
				file,
				scenarios: [],
				error: `not imported: this file is scenario code, ${NO_CODE_UNDER_POLICY}, or write the scenario as a .eval.json file`,
			});
			continue;
		}
		try {
			files.push({ file, scenarios: (await loadScenarioFile(path, { within: state.cwd })).map((s) => s.name) });
		} catch (error) {
			files.push({
				file,
				scenarios: [],
				error: error instanceof ScenarioFileError ? error.reason : errorMessage(error),
			});
		}
	}
	return { files };
}

/** The settings of the host's policy that a trial's Node world runs under (its roots are the world's own folder). */
function worldPolicyOf(policy: PathPolicy): Omit<PathPolicy, "read" | "write"> {
	const { read: _read, write: _write, ...settings } = policy;
	return settings;
}

/**
 * The model `scripted:<file>` names: a file inside the cwd (symlinks resolved), read as data when it
 * is `.json`, imported only when code is allowed. A `RequestError` saying why otherwise.
 */
async function scriptedModelOf(state: ServerState, room: EvalRoom, spec: string): Promise<EvalModel> {
	const name = spec.slice("scripted:".length);
	const refuse = (status: number, why: string): never => {
		throw new RequestError(status, `The model: ${spec} ${why}.`);
	};
	if (name.trim() === "") refuse(400, "names no file: give scripted:<file>, a path inside the working folder");
	if (name.includes("\0")) refuse(400, "holds a NUL byte, which no file name may hold");
	const file = resolve(state.cwd, name);
	if (!existsSync(file)) refuse(400, `names no file (looked for ${file})`);
	if (!(await room.realPathInside(file, state.cwd))) {
		refuse(
			400,
			`is outside the working folder ${state.cwd} (symlinks resolved): scripted models are read from inside it only`,
		);
	}
	const data = file.endsWith(".json");
	if (!data && !codeAllowed(state)) {
		refuse(
			403,
			`is code, ${NO_CODE_UNDER_POLICY}; or give a .json list of turns (scripted:<file>.json), which is read as data`,
		);
	}
	try {
		return await room.loadScriptedModel(file, { within: state.cwd });
	} catch (error) {
		throw new RequestError(
			400,
			`The model: ${error instanceof room.ScenarioFileError ? error.reason : errorMessage(error)}`,
		);
	}
}

/**
 * `POST /api/evals/run`: one scenario of a listed file, its trials run with the host's extensions
 * loaded before the scenario's own. Each trial is broadcast as an `eval-trial` event as it ends; the
 * answer comes once every trial has run. Aborted when the server closes.
 */
export async function runScenario(state: ServerState, body: unknown): Promise<EvalRunResponse> {
	if (!isRecord(body) || typeof body.file !== "string" || typeof body.scenario !== "string") {
		throw new RequestError(400, "Send { file, scenario, model, baseUrl?, trials? }.");
	}
	const spec = typeof body.model === "string" ? body.model.trim() : "";
	if (spec === "") {
		throw new RequestError(400, "Name the model: <provider>/<id> (openai/gpt-4.1-mini, …) or scripted:<file>.");
	}
	const trials = body.trials ?? 1;
	if (typeof trials !== "number" || !Number.isInteger(trials) || trials < 1 || trials > MAX_TRIALS) {
		throw new RequestError(400, `trials: a whole number from 1 to ${MAX_TRIALS}.`);
	}
	const baseUrl = typeof body.baseUrl === "string" && body.baseUrl.trim() !== "" ? body.baseUrl.trim() : undefined;
	const room = await loadEvalRoom();
	// Only the files the list shows: a request cannot load another module as a scenario.
	const wanted = resolve(state.cwd, body.file);
	const path = (await room.findScenarioFiles([], state.cwd)).find((candidate) => candidate === wanted);
	if (!path) throw new RequestError(404, `No scenario file ${JSON.stringify(body.file)} under ${state.cwd}.`);
	if (room.CODE_SCENARIO_FILE.test(path) && !codeAllowed(state)) {
		throw new RequestError(
			403,
			`${body.file} is scenario code, ${NO_CODE_UNDER_POLICY}, or write the scenario as a .eval.json file.`,
		);
	}
	let scenarios: EvalScenario[];
	try {
		scenarios = await room.loadScenarioFile(path, { within: state.cwd });
	} catch (error) {
		throw new RequestError(422, error instanceof room.ScenarioFileError ? error.reason : errorMessage(error));
	}
	const scenario = scenarios.find((s) => s.name === body.scenario);
	if (!scenario) throw new RequestError(404, `${body.file} has no scenario named ${JSON.stringify(body.scenario)}.`);
	const extensions = scenario.tools?.extensions ?? [];
	if (extensions.length > 0 && !codeAllowed(state)) {
		throw new RequestError(
			403,
			`The scenario ${JSON.stringify(scenario.name)} loads extension code (${extensions.join(", ")}), ${NO_CODE_UNDER_POLICY}; or leave out tools.extensions, since the inspector's own extensions are loaded for every scenario.`,
		);
	}
	if (!codeAllowed(state)) {
		// The host's own extensions were imported at start, before any tool ran; a run imports them
		// again from disk, where the confined model may have rewritten those in the working folder.
		const exposed: string[] = [];
		for (const path of state.options.extensionPaths) {
			if (await room.realPathInside(path, state.cwd)) exposed.push(shownPath(path, state.cwd));
		}
		if (exposed.length > 0) {
			throw new RequestError(
				403,
				`The inspector's extensions ${exposed.join(", ")} lie in the working folder and are imported again for each run: ${NO_CODE_UNDER_POLICY}; or keep the extensions outside the working folder.`,
			);
		}
	}
	const model = spec.startsWith("scripted:")
		? await scriptedModelOf(state, room, spec)
		: await room.createEvalModel(spec, baseUrl !== undefined ? { baseUrl } : {}).catch((error: unknown) => {
				throw new RequestError(400, `The model: ${errorMessage(error)}`);
			});
	const controller = new AbortController();
	const id = `eval-${++state.evalCounter}`;
	state.running.set(id, () => controller.abort());
	try {
		const policy = state.options.policy;
		const report = await room.runEvals([scenario], {
			model,
			trials,
			cwd: state.cwd,
			extensions: state.options.extensionPaths,
			signal: controller.signal,
			...(policy ? { worldPolicy: worldPolicyOf(policy) } : {}),
			onTrial: (trial) =>
				broadcast(state, { type: "eval-trial", run: id, scenario: scenario.name, trials, trial: trialView(trial) }),
		});
		const result = report.scenarios[0];
		if (!result) throw new RequestError(500, "The scenario did not run.");
		return {
			run: id,
			model: report.model,
			scenario: result.scenario,
			trials: result.trials,
			passed: result.passed,
			passRate: result.passRate,
			goal: result.goal,
			ok: result.ok,
			expected: evalJson(scenario.expect),
			results: result.results.map(trialView),
		};
	} finally {
		state.running.delete(id);
	}
}
