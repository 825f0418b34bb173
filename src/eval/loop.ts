/**
 * One trial: the model's turns through `EvalModel.turn`, each turn's tool calls run as one batch
 * through the executor (validation, hooks and sequential rules as in a host), the results appended
 * to the conversation, until a turn without tool calls (the final answer), the turn limit, a batch
 * whose every result asks to terminate, or an error. Then the expectations are checked.
 * Runtime-neutral: the world (env) and the toolset come from the caller.
 */
import type { ToolCall, ToolResultMessage } from "../contract/content.js";
import type { ExecutionEnv } from "../contract/env.js";
import { errorMessage } from "../contract/errors.js";
import { executeToolCalls } from "../exec/execute.js";
import type { ToolErrorDetails } from "../exec/types.js";
import { worldPathProblem } from "./define.js";
import { checkExpectations, describeValue } from "./matchers.js";
import type { EvalToolset } from "./toolset.js";
import type {
	EvalMessage,
	EvalModel,
	EvalModelRequest,
	EvalModelTurn,
	EvalScenario,
	EvalUsage,
	ExpectationFailure,
	TrialCall,
	TrialResult,
} from "./types.js";

/** The turn limit when a scenario names none. */
export const DEFAULT_TURN_LIMIT = 10;

/**
 * How long one model request (one turn) may take when nothing else is said: 10 minutes. A model
 * that streams a long answer, or waits in a provider's queue, takes minutes; one that takes longer
 * has most likely stalled (a server that never ends its response), and would hang the run.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 600_000;

/** The longest request timeout a timer can hold (2^31 - 1 ms, about 24.8 days). */
const MAX_REQUEST_TIMEOUT_MS = 2_147_483_647;

/** What `runTrial` needs: the scenario, which trial, the model, the tools, and the world. */
export interface TrialSetup {
	readonly scenario: EvalScenario;
	/** 1-based. */
	readonly trial: number;
	readonly model: EvalModel;
	readonly toolset: EvalToolset;
	/** The env the tools act on (a recording env around the world, say). */
	readonly env: ExecutionEnv;
	/** Where the end state is read (default `env`): the world itself, so reading it is not recorded. */
	readonly world?: ExecutionEnv;
	/** Told of each batch right after it ran (a recorder). */
	readonly onBatch?: (calls: readonly ToolCall[], results: readonly ToolResultMessage[]) => Promise<void> | void;
	readonly signal?: AbortSignal;
	/**
	 * How long one model request may take, in milliseconds (default {@link DEFAULT_REQUEST_TIMEOUT_MS};
	 * 0 or `Infinity`: no limit). Past it the request's signal is aborted and the trial ends as an
	 * error naming the option.
	 */
	readonly requestTimeoutMs?: number;
}

/**
 * `value` as a request timeout in milliseconds (undefined: no limit). Throws for anything but a
 * number from 0 to about 24.8 days, or `Infinity`.
 */
export function requestTimeoutOf(value: number | undefined): number | undefined {
	const ms = value ?? DEFAULT_REQUEST_TIMEOUT_MS;
	if (ms === 0 || ms === Number.POSITIVE_INFINITY) return undefined;
	if (typeof ms !== "number" || !(ms > 0) || ms > MAX_REQUEST_TIMEOUT_MS) {
		throw new Error(
			`requestTimeoutMs: a number of milliseconds from 1 to ${MAX_REQUEST_TIMEOUT_MS} (0 or Infinity: no limit), got ${String(value)}`,
		);
	}
	return Math.ceil(ms);
}

/** How a timeout reads: `500 ms`, `90 s`, `10 min`. */
function duration(ms: number): string {
	if (ms < 1000) return `${ms} ms`;
	if (ms < 120_000 || ms % 60_000 !== 0) return `${Number((ms / 1000).toFixed(3))} s`;
	return `${ms / 60_000} min`;
}

/**
 * The model's answer to `request`, given at most `timeoutMs`: then the request's signal is aborted
 * (so a provider cuts its connection) and this rejects at once, even if the model ignores its
 * signal. The trial's own signal still aborts the request as before.
 */
async function timedTurn(
	model: EvalModel,
	request: EvalModelRequest,
	timeoutMs: number | undefined,
): Promise<EvalModelTurn> {
	if (timeoutMs === undefined) return model.turn(request);
	const controller = new AbortController();
	const signal = request.signal ? AbortSignal.any([request.signal, controller.signal]) : controller.signal;
	let timer: ReturnType<typeof setTimeout> | undefined;
	const timedOut = new Promise<never>((_resolve, reject) => {
		timer = setTimeout(() => {
			const error = new Error(
				`the model did not answer within ${duration(timeoutMs)} (the request timeout: --request-timeout of toolsmith eval, requestTimeoutMs of runEvals); raise it for a slower model or server`,
			);
			controller.abort(error);
			reject(error);
		}, timeoutMs);
	});
	try {
		return await Promise.race([model.turn({ ...request, signal }), timedOut]);
	} finally {
		clearTimeout(timer);
	}
}

/**
 * The argument fields a result says were invalid: the paths of an `E_INVALID_ARGS` result's issues
 * (JSON pointers without the leading `/`; `(root)` for the arguments as a whole), `(json)` for
 * arguments that were not valid JSON. Empty for any other result.
 */
export function invalidFieldsOf(result: ToolResultMessage): string[] {
	if (!result.isError) return [];
	const details = result.details as Partial<ToolErrorDetails> | undefined;
	if (details?.code === "E_INVALID_JSON") return ["(json)"];
	if (details?.code !== "E_INVALID_ARGS") return [];
	const fields = (details.issues ?? []).map((issue) => (issue.path === "" ? "(root)" : issue.path.replace(/^\//, "")));
	return [...new Set(fields.length > 0 ? fields : ["(root)"])];
}

function addUsage(sum: EvalUsage, more: EvalUsage | undefined): EvalUsage {
	if (!more) return sum;
	const add = (a: number | undefined, b: number | undefined) =>
		a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
	const inputTokens = add(sum.inputTokens, more.inputTokens);
	const outputTokens = add(sum.outputTokens, more.outputTokens);
	const costUsd = add(sum.costUsd, more.costUsd);
	return {
		...(inputTokens !== undefined ? { inputTokens } : {}),
		...(outputTokens !== undefined ? { outputTokens } : {}),
		...(costUsd !== undefined ? { costUsd } : {}),
	};
}

/** Sum usages (a field stays absent when no usage reports it). */
export function sumUsage(usages: readonly (EvalUsage | undefined)[]): EvalUsage {
	return usages.reduce<EvalUsage>((sum, usage) => addUsage(sum, usage), {});
}

/** Whether canonical `path` is `root` or lies under it. */
function isUnder(path: string, root: string): boolean {
	if (path === root || root === "/") return true;
	return path.startsWith(`${root}/`) || path.startsWith(`${root}\\`);
}

/** The files `expect.files` names as they are at the end, and the names refused because they lead out of the world. */
interface EndState {
	readonly files: Record<string, string | null>;
	readonly refused: Map<string, string>;
}

/**
 * The end state of `paths` in `world`: each read only when its canonical path (symlinks resolved)
 * lies inside the world's folder; one that leads outside (an absolute path, `..`, a symlink a tool
 * made) is refused with the reason and never read. `null` for a file that does not exist or is not
 * readable text.
 */
async function endFiles(world: ExecutionEnv, paths: readonly string[]): Promise<EndState> {
	const files: Record<string, string | null> = {};
	const refused = new Map<string, string>();
	if (paths.length === 0) return { files, refused };
	const rootResult = await world.canonicalPath(world.cwd);
	const root = rootResult.ok ? rootResult.value : undefined;
	const outside = `it leads outside the world's folder (${root ?? world.cwd}); only the world's own files are read`;
	for (const path of paths) {
		const lexical = worldPathProblem(path);
		if (lexical !== undefined || root === undefined) {
			refused.set(path, lexical ?? `the world's folder ${world.cwd} cannot be resolved`);
			continue;
		}
		const canonical = await world.canonicalPath(path);
		if (!canonical.ok) {
			if (canonical.error.code === "permission_denied") refused.set(path, outside);
			else files[path] = null;
			continue;
		}
		if (!isUnder(canonical.value, root)) {
			refused.set(path, outside);
			continue;
		}
		const read = await world.readTextFile(canonical.value);
		if (!read.ok && read.error.code === "permission_denied") refused.set(path, outside);
		else files[path] = read.ok ? read.value : null;
	}
	return { files, refused };
}

/** Run one trial and check it. Never throws: an error of the model or the loop is an `error` failure. */
export async function runTrial(setup: TrialSetup): Promise<TrialResult> {
	const { scenario, model, toolset, env } = setup;
	const started = performance.now();
	const limit = scenario.turnLimit ?? DEFAULT_TURN_LIMIT;
	const messages: EvalMessage[] = [{ role: "user", text: scenario.prompt }];
	const calls: TrialCall[] = [];
	const usages: (EvalUsage | undefined)[] = [];
	const failures: ExpectationFailure[] = [];
	let ended: TrialResult["ended"] = "turn-limit";
	let answer = "";
	let turns = 0;
	try {
		const config = toolset.executorConfig(env);
		const timeoutMs = requestTimeoutOf(setup.requestTimeoutMs);
		while (turns < limit) {
			if (setup.signal?.aborted) throw new Error("aborted");
			const reply = await timedTurn(
				model,
				{
					system: toolset.system,
					messages: [...messages],
					tools: toolset.modelTools,
					...(setup.signal ? { signal: setup.signal } : {}),
				},
				timeoutMs,
			);
			turns++;
			usages.push(reply.usage);
			answer = reply.text;
			messages.push({ role: "assistant", text: reply.text, toolCalls: reply.toolCalls });
			if (reply.toolCalls.length === 0) {
				ended = "answer";
				break;
			}
			const batch = await executeToolCalls([...reply.toolCalls], {
				...config,
				...(setup.signal ? { signal: setup.signal } : {}),
			});
			await setup.onBatch?.(reply.toolCalls, batch.results);
			reply.toolCalls.forEach((call, index) => {
				const result = batch.results[index];
				calls.push({
					turn: turns,
					call,
					isError: result?.isError ?? true,
					invalidFields: result ? invalidFieldsOf(result) : [],
				});
			});
			messages.push({ role: "tool", results: batch.results });
			if (batch.terminate) {
				ended = "terminate";
				break;
			}
		}
	} catch (error) {
		ended = "error";
		failures.push({
			expectation: "error",
			message: `the trial stopped on an error: ${errorMessage(error)}`,
			actual: errorMessage(error),
		});
	}
	let expect = scenario.expect;
	let files: Record<string, string | null> = {};
	try {
		const end = await endFiles(setup.world ?? env, Object.keys(expect.files ?? {}));
		files = end.files;
		for (const [path, why] of end.refused) {
			const matcher = expect.files?.[path];
			failures.push({
				expectation: "files",
				message: `expect.files[${JSON.stringify(path)}]: refused: ${why}`,
				expected: matcher === null ? null : describeValue(matcher),
				actual: null,
			});
		}
		if (end.refused.size > 0) {
			const kept = Object.entries(expect.files ?? {}).filter(([path]) => !end.refused.has(path));
			expect = { ...expect, files: Object.fromEntries(kept) };
		}
	} catch (error) {
		failures.push({ expectation: "error", message: `reading the end state failed: ${errorMessage(error)}` });
	}
	failures.push(
		...checkExpectations(expect, {
			calls: calls.map((entry) => entry.call),
			turns,
			answer,
			files,
		}),
	);
	return {
		scenario: scenario.name,
		trial: setup.trial,
		passed: failures.length === 0,
		failures,
		calls,
		turns,
		answer,
		usage: sumUsage(usages),
		durationMs: performance.now() - started,
		ended,
	};
}
