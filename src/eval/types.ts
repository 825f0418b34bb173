/**
 * The shapes of tool-use evals: a scenario (a prompt, the world it starts from, the tools, and what
 * must hold at the end), the model the loop talks to, and what one trial gives. Runtime-neutral.
 */
import type { ToolCall, ToolResultMessage } from "../contract/content.js";
import type { PathPolicy } from "../contract/env.js";
import type { ToolDefinition } from "../contract/tool.js";

/**
 * What an expected value may be inside expected arguments: a plain value (objects match as a deep
 * subset: every key given must be there and match; arrays element by element, same length), a
 * `RegExp` (the actual value must be a string it matches), or a predicate (true when it matches).
 */
export type ValueMatcher = RegExp | ((value: unknown) => boolean) | unknown;

/** One tool call a scenario expects: the tool's name and, optionally, arguments matched partially. */
export interface ExpectedCall {
	readonly tool: string;
	/** A deep subset of the arguments, each value a {@link ValueMatcher}. */
	readonly args?: Readonly<Record<string, ValueMatcher>>;
}

/**
 * How the actual calls are compared with the expected ones (as agentevals' trajectory match
 * defines them): `strict`, the same calls in the same order; `unordered`, the same calls in any
 * order; `subset`, every actual call is one of the expected ones; `superset`, every expected call
 * is among the actual ones.
 */
export type CallOrder = "strict" | "unordered" | "subset" | "superset";

/** What a text (a file's content, the final answer) must be: exactly this string, match this pattern, or pass this predicate. */
export type TextMatcher = string | RegExp | ((text: string) => boolean);

/** What must hold at the end of a trial. Every expectation given must hold for the trial to pass. */
export interface EvalExpectations {
	/** The tool calls expected, compared by {@link CallOrder} (`order`, default `superset`). */
	readonly calls?: readonly ExpectedCall[];
	readonly order?: CallOrder;
	/** Tools that must not be called at all. */
	readonly forbid?: readonly string[];
	/** At most this many tool calls in the whole trial. */
	readonly maxCalls?: number;
	/** At most this many model turns (an answer that needs more fails). */
	readonly maxTurns?: number;
	/** Files after the trial, by path relative to the world's cwd: a {@link TextMatcher}, or `null` for "must not exist". */
	readonly files?: Readonly<Record<string, TextMatcher | null>>;
	/** The model's final answer (the text of its last turn). */
	readonly answer?: TextMatcher;
}

/** The world a trial starts from. Each trial gets a fresh copy. */
export interface EvalWorld {
	/** `memory` (default): a MemoryExecutionEnv; `node`: a fresh temporary folder on disk with the Node env. */
	readonly env?: "memory" | "node";
	/** Initial files, by path relative to cwd. */
	readonly files?: Readonly<Record<string, string>>;
	/** The working folder of the memory env (default `/project`). */
	readonly cwd?: string;
}

/** Which tools the model gets. */
export interface EvalTools {
	/** Extension files or folders (relative to the scenario file), loaded as `toolsmith dev` loads them. */
	readonly extensions?: readonly string[];
	/** Tool definitions given directly. */
	readonly definitions?: readonly ToolDefinition[];
	/** The built-in tools: `true` (default `false`) for all, or the names of those to include. */
	readonly builtins?: boolean | readonly string[];
	/** Replace tools' descriptions by name (what `--compare` varies). */
	readonly descriptions?: Readonly<Record<string, string>>;
}

/** A scenario: what `defineEval` takes. */
export interface EvalScenario {
	readonly name: string;
	/** The user's message. */
	readonly prompt: string;
	/** Added to the system prompt after the tools section. */
	readonly system?: string;
	readonly world?: EvalWorld;
	readonly tools?: EvalTools;
	readonly expect: EvalExpectations;
	/** How many trials to run (default 1; the command's `--trials` overrides it). */
	readonly trials?: number;
	/** The share of trials that must pass, 0 to 1 (default 1). */
	readonly passRate?: number;
	/** The loop stops after this many model turns (default 10). */
	readonly turnLimit?: number;
	/**
	 * The folder `tools.extensions` resolve against. The scenario file loader sets it to the file's
	 * folder; `runEvals` uses its `cwd` when it is absent.
	 */
	readonly dir?: string;
}

/** A tool as the model is told of it: its name, description and parameters as JSON Schema. */
export interface EvalModelTool {
	readonly name: string;
	readonly description: string;
	readonly parameters: Readonly<Record<string, unknown>>;
}

/** One message of the conversation the loop keeps. */
export type EvalMessage =
	| { readonly role: "user"; readonly text: string }
	| { readonly role: "assistant"; readonly text: string; readonly toolCalls: readonly ToolCall[] }
	| { readonly role: "tool"; readonly results: readonly ToolResultMessage[] };

/** What the loop asks the model for one turn. */
export interface EvalModelRequest {
	readonly system: string;
	readonly messages: readonly EvalMessage[];
	readonly tools: readonly EvalModelTool[];
	readonly signal?: AbortSignal;
}

/** Tokens and cost of one turn, as far as the provider reports them. */
export interface EvalUsage {
	readonly inputTokens?: number;
	readonly outputTokens?: number;
	/** In US dollars, only where the provider reports it. */
	readonly costUsd?: number;
}

/** What the model answered in one turn: text, tool calls (possibly several), usage. */
export interface EvalModelTurn {
	readonly text: string;
	readonly toolCalls: readonly ToolCall[];
	readonly usage?: EvalUsage;
}

/** A model the loop can talk to: a real provider, an OpenAI-compatible server, or a scripted one in tests. */
export interface EvalModel {
	/** `provider/model-id`, as reports show it. */
	readonly id: string;
	turn(request: EvalModelRequest): Promise<EvalModelTurn>;
}

/** Why a trial failed: which expectation, and what was expected beside what happened. */
export interface ExpectationFailure {
	readonly expectation: "calls" | "forbid" | "maxCalls" | "maxTurns" | "files" | "answer" | "error";
	readonly message: string;
	readonly expected?: unknown;
	readonly actual?: unknown;
}

/** One tool call the model made in a trial, with how it went. */
export interface TrialCall {
	readonly turn: number;
	readonly call: ToolCall;
	readonly isError: boolean;
	/** The argument fields validation refused (empty when the arguments were valid). */
	readonly invalidFields: readonly string[];
}

/** What one trial gave. */
export interface TrialResult {
	readonly scenario: string;
	/** 1-based. */
	readonly trial: number;
	readonly passed: boolean;
	readonly failures: readonly ExpectationFailure[];
	readonly calls: readonly TrialCall[];
	readonly turns: number;
	/** The text of the model's last turn. */
	readonly answer: string;
	readonly usage: EvalUsage;
	readonly durationMs: number;
	/** How the loop ended: a final answer, the turn limit, a tool's `terminate`, or an error. */
	readonly ended: "answer" | "turn-limit" | "terminate" | "error";
}

/** Options of `runEvals`. */
export interface EvalRunOptions {
	readonly model: EvalModel;
	/** Trials per scenario, overriding each scenario's `trials`. */
	readonly trials?: number;
	/** Trials run at once (default 1). */
	readonly concurrency?: number;
	/** Only scenarios whose name matches. */
	readonly grep?: RegExp;
	/** Write every trial as a replay fixture into this folder. */
	readonly record?: string;
	/** Relative extension paths of scenarios without a `dir` resolve against it (default the process's cwd). */
	readonly cwd?: string;
	/**
	 * Extension files or folders loaded before each scenario's own, so their tools replace the
	 * scenario's tools of the same name (another version of a tool, for `--compare`).
	 */
	readonly extensions?: readonly string[];
	/** Description overrides applied to every scenario that has the tool (over the scenario's own). */
	readonly descriptions?: Readonly<Record<string, string>>;
	/** Told of each trial as it ends (for a progress line). */
	readonly onTrial?: (result: TrialResult) => void;
	readonly signal?: AbortSignal;
	/**
	 * How long one model request (one turn) may take, in milliseconds: default 600 000 (10 minutes,
	 * room for a long streamed answer or a provider's queue); 0 or `Infinity`: no limit. Past it the
	 * request is aborted and that trial fails with an error naming the option; the run goes on.
	 */
	readonly requestTimeoutMs?: number;
	/**
	 * Run Node worlds (`world.env: "node"`) under a path policy: these settings, with the trial's
	 * temporary folder as the only root for reading and writing, so the tools (bash in its OS
	 * sandbox) cannot reach the rest of the machine. A host whose own tools run under a policy passes
	 * its settings here (the inspector under `--confine` does). Memory worlds have no disk to reach.
	 * Default: Node worlds unconfined, as the scenario's own tools would be.
	 */
	readonly worldPolicy?: Omit<PathPolicy, "read" | "write">;
}

/** How often the model got one tool's arguments wrong in a scenario, and which fields. */
export interface InvalidArgumentStats {
	readonly calls: number;
	readonly invalid: number;
	/** Field name → how many calls got it wrong. */
	readonly fields: Readonly<Record<string, number>>;
}

/** One scenario's trials, summed up. */
export interface ScenarioReport {
	readonly scenario: string;
	readonly trials: number;
	readonly passed: number;
	/** `passed / trials`. */
	readonly passRate: number;
	/** The scenario's goal. */
	readonly goal: number;
	/** Whether `passRate >= goal`. */
	readonly ok: boolean;
	readonly results: readonly TrialResult[];
	readonly invalidArguments: Readonly<Record<string, InvalidArgumentStats>>;
	readonly meanTurns: number;
	readonly usage: EvalUsage;
}

/** What `runEvals` gives: every scenario's report, and whether all met their goal. */
export interface EvalReport {
	readonly model: string;
	readonly scenarios: readonly ScenarioReport[];
	readonly ok: boolean;
}
