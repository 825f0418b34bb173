/**
 * `runEvals` on Node: per scenario its tools (built-ins, definitions, extensions loaded as `toolsmith
 * dev` loads them, relative to the scenario file), per trial a fresh world (a MemoryExecutionEnv
 * with the scenario's files, or a temporary folder with the Node env), trials run `concurrency` at a
 * time, and with `record` every trial written as a replay fixture `toolsmith test` replays.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { ExecutionEnv } from "../contract/env.js";
import { errorMessage } from "../contract/errors.js";
import { MemoryExecutionEnv } from "../env/memory.js";
import { NodeExecutionEnv } from "../env/node.js";
import { loadExtensions } from "../extensions/node-loader.js";
import type { ReplayFixture } from "../harness/fixture.js";
import { recordingEnv } from "../harness/record.js";
import { observer } from "../shared/listeners.js";
import { defineEval } from "./define.js";
import { requestTimeoutOf, runTrial } from "./loop.js";
import { scenarioReport } from "./report.js";
import { type EvalToolset, scenarioRegistry, toolsetOf } from "./toolset.js";
import type { EvalReport, EvalRunOptions, EvalScenario, TrialResult } from "./types.js";

/** A scenario's name as a file name: letters, digits, `.`, `_` and `-`, the rest as `-`. */
export function fixtureSlug(name: string): string {
	return name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "") || "scenario";
}

/** The file a trial is recorded in: `<scenario>-<trial>.fixture.json` (a `*.json` that `toolsmith test` finds). */
export function fixtureFileName(scenario: string, trial: number): string {
	return `${fixtureSlug(scenario)}-${trial}.fixture.json`;
}

/**
 * `fixture` with the text expected of "tool not found" results loosened to the sentence naming the
 * tool: the list of available tools after it differs where the replay runs (`toolsmith test` adds
 * the built-ins).
 */
function portableFixture(fixture: ReplayFixture): ReplayFixture {
	return {
		...fixture,
		steps: fixture.steps.map((step) => ({
			...step,
			calls: step.calls.map((call) => {
				const text = call.expect?.text;
				const found = typeof text === "string" && call.expect?.isError ? /^Tool \S+ not found\./.exec(text) : null;
				return found ? { ...call, expect: { ...call.expect, text: { contains: found[0] } } } : call;
			}),
		})),
	};
}

/** The scenario's extension paths (absolute), the run's own first so their tools win name clashes. */
function extensionPaths(scenario: EvalScenario, options: EvalRunOptions): string[] {
	const cwd = resolve(options.cwd ?? process.cwd());
	const own = (scenario.tools?.extensions ?? []).map((path) => resolve(scenario.dir ?? cwd, path));
	return [...(options.extensions ?? []).map((path) => resolve(cwd, path)), ...own];
}

/** The scenario with the run's description overrides (for the tools it has) over its own. */
function withRunDescriptions(scenario: EvalScenario, names: readonly string[], options: EvalRunOptions): EvalScenario {
	const extra = Object.entries(options.descriptions ?? {}).filter(([name]) => names.includes(name));
	if (extra.length === 0) return scenario;
	return {
		...scenario,
		tools: { ...scenario.tools, descriptions: { ...scenario.tools?.descriptions, ...Object.fromEntries(extra) } },
	};
}

/** A scenario's tools, ready for its trials, and how to tell its extensions the session ended. */
interface PreparedTools {
	readonly toolset: EvalToolset;
	close(): Promise<void>;
}

/**
 * The tools of one scenario, loaded once for all its trials (each trial's calls get its own env; what
 * an extension keeps in its own module is shared by the trials), with the run's description overrides.
 */
async function prepareToolset(
	scenario: EvalScenario,
	paths: readonly string[],
	options: EvalRunOptions,
): Promise<PreparedTools> {
	const registry = scenarioRegistry(scenario);
	let close = async () => {};
	if (paths.length > 0) {
		const cwd = scenario.dir ?? dirname(paths[0]!);
		const loaded = await loadExtensions(paths, { registry, cwd, env: new MemoryExecutionEnv(), log: () => {} });
		const errors = [
			...loaded.diagnostics,
			...(await loaded.runtime.emit({ type: "session_start", reason: "startup" })),
		].filter((diagnostic) => diagnostic.severity === "error");
		close = async () => {
			await loaded.runtime.emit({ type: "session_shutdown", reason: "exit" }, { timeoutMs: 3_000 });
		};
		if (errors.length > 0) {
			await close().catch(() => {});
			throw new Error(`the scenario's extensions did not load: ${errors.map((d) => d.message).join("; ")}`);
		}
	}
	const names = registry
		.snapshot()
		.declarations()
		.map((declaration) => declaration.name);
	try {
		return { toolset: toolsetOf(registry, withRunDescriptions(scenario, names, options)), close };
	} catch (error) {
		await close().catch(() => {});
		throw error;
	}
}

interface World {
	readonly env: ExecutionEnv;
	/** Where the end state is read: the world itself, or an env confined to its folder. */
	readonly reader: ExecutionEnv;
	dispose(): Promise<void>;
}

/**
 * A fresh world for one trial: the scenario's files in a memory env, or in a new temporary folder
 * (under `worldPolicy`, with the folder as its only root, when one is given).
 */
async function createWorld(scenario: EvalScenario, worldPolicy: EvalRunOptions["worldPolicy"]): Promise<World> {
	const files = scenario.world?.files ?? {};
	if (scenario.world?.env !== "node") {
		const env = new MemoryExecutionEnv({ cwd: scenario.world?.cwd ?? "/project", files: { ...files } });
		return { env, reader: env, dispose: async () => {} };
	}
	const dir = await mkdtemp(join(tmpdir(), "toolsmith-eval-"));
	for (const [path, text] of Object.entries(files)) {
		const target = resolve(dir, path);
		if (target !== dir && !target.startsWith(`${dir}${sep}`))
			throw new Error(`world.files: ${path} is outside the world's folder`);
		await mkdir(dirname(target), { recursive: true });
		await writeFile(target, text);
	}
	return {
		env: new NodeExecutionEnv({ cwd: dir, ...(worldPolicy ? { policy: { ...worldPolicy, read: [dir] } } : {}) }),
		// The end state is read under a policy with the folder as its only root, so a link a tool made
		// (or swaps in while it is read) cannot lead the read outside.
		reader: new NodeExecutionEnv({ cwd: dir, policy: { read: [dir], write: [] } }),
		dispose: () => rm(dir, { recursive: true, force: true }),
	};
}

function errorTrial(scenario: EvalScenario, trial: number, message: string): TrialResult {
	return {
		scenario: scenario.name,
		trial,
		passed: false,
		failures: [{ expectation: "error", message, actual: message }],
		calls: [],
		turns: 0,
		answer: "",
		usage: {},
		durationMs: 0,
		ended: "error",
	};
}

/** Run one trial in a fresh world; with `record`, write it as a replay fixture. Never throws. */
async function trialInWorld(
	scenario: EvalScenario,
	trial: number,
	toolset: EvalToolset,
	paths: readonly string[],
	options: EvalRunOptions,
): Promise<TrialResult> {
	let world: World | undefined;
	try {
		world = await createWorld(scenario, options.worldPolicy);
		const recorder = options.record !== undefined ? recordingEnv(world.env) : undefined;
		const result = await runTrial({
			scenario,
			trial,
			model: options.model,
			toolset,
			env: recorder ?? world.env,
			world: world.reader,
			...(recorder ? { onBatch: (calls, results) => recorder.recordBatch(calls, results) } : {}),
			...(options.signal ? { signal: options.signal } : {}),
			...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
		});
		if (recorder && options.record !== undefined) {
			const folder = resolve(options.cwd ?? process.cwd(), options.record);
			const fixture = await recorder.fixture({
				name: `${scenario.name} #${trial}`,
				description: `Recorded by toolsmith eval with ${options.model.id}: ${result.passed ? "passed" : `failed (${result.failures.map((f) => f.expectation).join(", ")})`}`,
			});
			if (fixture.steps.length > 0) {
				const extensions = paths.map((path) => {
					const rel = relative(folder, path).split(sep).join("/");
					return isAbsolute(rel) || rel.startsWith(".") ? rel : `./${rel}`;
				});
				await mkdir(folder, { recursive: true });
				await writeFile(
					join(folder, fixtureFileName(scenario.name, trial)),
					`${JSON.stringify({ ...portableFixture(fixture), ...(extensions.length > 0 ? { extensions } : {}) }, null, "\t")}\n`,
				);
			}
		}
		return result;
	} catch (error) {
		return errorTrial(scenario, trial, `the trial could not run: ${errorMessage(error)}`);
	} finally {
		await world?.dispose().catch(() => {});
	}
}

/** Run `tasks` with at most `limit` at once; results in task order. */
async function pooled<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
	const results: T[] = new Array(tasks.length);
	let next = 0;
	const worker = async () => {
		while (next < tasks.length) {
			const index = next++;
			results[index] = await tasks[index]!();
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, tasks.length)) }, worker));
	return results;
}

/**
 * Run every scenario's trials against `options.model` and sum them up: per scenario the pass rate
 * against its goal, the failures of each trial, invalid arguments per tool, turns and usage;
 * `ok` when every scenario met its goal. Scenarios are checked first (a `defineEval` error throws).
 */
export async function runEvals(scenarios: readonly EvalScenario[], options: EvalRunOptions): Promise<EvalReport> {
	for (const scenario of scenarios) defineEval(scenario);
	const chosen = scenarios.filter((scenario) => !options.grep || options.grep.test(scenario.name));
	const names = new Set<string>();
	const slugs = new Map<string, string>();
	for (const scenario of chosen) {
		if (names.has(scenario.name)) throw new Error(`two scenarios are named "${scenario.name}": names must be unique`);
		names.add(scenario.name);
		const other = slugs.get(fixtureSlug(scenario.name));
		if (options.record !== undefined && other !== undefined) {
			throw new Error(
				`scenarios "${other}" and "${scenario.name}" would be recorded in the same files (${fixtureFileName(scenario.name, 1)}, …): rename one`,
			);
		}
		slugs.set(fixtureSlug(scenario.name), scenario.name);
	}
	if (options.trials !== undefined && !(Number.isInteger(options.trials) && options.trials >= 1)) {
		throw new Error(`trials: a whole number ≥ 1, got ${options.trials}`);
	}
	requestTimeoutOf(options.requestTimeoutMs);
	const onTrial = observer(options.onTrial);
	const tasks: (() => Promise<TrialResult>)[] = [];
	const pending: { scenario: EvalScenario; index: number }[] = [];
	// Each scenario's tools are loaded when its first trial starts, once.
	const loads: Promise<PreparedTools>[] = [];
	const prepared = chosen.map((scenario) => {
		const paths = extensionPaths(scenario, options);
		let load: Promise<PreparedTools> | undefined;
		const toolset = async () => {
			if (!load) {
				load = prepareToolset(scenario, paths, options);
				loads.push(load);
			}
			return (await load).toolset;
		};
		return { scenario, paths, toolset };
	});
	for (const { scenario, toolset, paths } of prepared) {
		const count = options.trials ?? scenario.trials ?? 1;
		for (let trial = 1; trial <= count; trial++) {
			pending.push({ scenario, index: tasks.length });
			tasks.push(async () => {
				let result: TrialResult;
				try {
					result = await trialInWorld(scenario, trial, await toolset(), paths, options);
				} catch (error) {
					result = errorTrial(scenario, trial, errorMessage(error));
				}
				onTrial(result);
				return result;
			});
		}
	}
	let results: TrialResult[];
	try {
		results = await pooled(tasks, options.concurrency ?? 1);
	} finally {
		const settled = await Promise.allSettled(loads);
		for (const entry of settled) if (entry.status === "fulfilled") await entry.value.close().catch(() => {});
	}
	const reports = chosen.map((scenario) =>
		scenarioReport(
			scenario,
			pending.filter((entry) => entry.scenario === scenario).map((entry) => results[entry.index]!),
		),
	);
	return { model: options.model.id, scenarios: reports, ok: reports.every((report) => report.ok) };
}
