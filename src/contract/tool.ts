/**
 * The tool contract: `ToolDefinition` (what an author writes) and `AgentTool` (what an agent loop
 * executes), and the wrapper between them.
 */
import type { Static, TSchema } from "@sinclair/typebox";
import type { ExecutionEnv } from "../env/types.js";
import type { ToolCall, ToolResultContent, Usage } from "./content.js";
import type { RenderContext, RenderOutput, RenderResultOptions, Theme } from "./render.js";

/** `parallel` (the default) lets a batch run concurrently; one `sequential` tool serializes its whole batch. */
export type ToolExecutionMode = "sequential" | "parallel";

/** What a tool returns. A tool reports failure by throwing; returning never marks an error. */
export interface AgentToolResult<TDetails = unknown> {
	/** Text and image blocks for the model. */
	content: ToolResultContent[];
	/** Structured data for UIs and state; never sent to the model. */
	details: TDetails;
	usage?: Usage;
	/** Names of tools this call made available. */
	addedToolNames?: string[];
	/** Ask the agent loop to stop after this batch; it stops only if every result in the batch asks. */
	terminate?: boolean;
}

/**
 * Receives partial results while a tool runs (for UIs; the model sees only the final result).
 * Calls made after `execute` settled are ignored. Never throws: the executor catches listener
 * errors, so a tool need not guard its calls.
 */
export type AgentToolUpdateCallback<TDetails = unknown> = (partialResult: AgentToolResult<TDetails>) => void;

/** The tool as an agent loop sees it: model-facing fields, scheduling, and `execute`. */
export interface AgentTool<TParameters extends TSchema = TSchema, TDetails = unknown> {
	/** Stable name the model calls the tool by. */
	readonly name: string;
	/** Human-readable name for UIs. */
	readonly label: string;
	/** Written for the model: what the tool does, its limits, how to continue. */
	readonly description: string;
	/** TypeBox schema of the arguments; sent to providers as JSON Schema and used for validation. */
	readonly parameters: TParameters;
	readonly executionMode?: ToolExecutionMode;
	/**
	 * Shim for older argument shapes, run on the parsed arguments before validation. May throw:
	 * the call then fails with an error result carrying the message.
	 */
	prepareArguments?(args: unknown): unknown;
	/**
	 * Run the tool with validated arguments. Throw (any value) to report failure: the executor turns
	 * it into an error result with the message. Should settle promptly once `signal` aborts.
	 */
	execute(
		toolCallId: string,
		params: Static<TParameters>,
		signal?: AbortSignal,
		onUpdate?: AgentToolUpdateCallback<TDetails>,
		nested?: NestedToolCalls,
	): Promise<AgentToolResult<TDetails>>;
}

/** Options of a nested call (`ctx.executeTool`). */
export interface ExecuteToolOptions {
	/** The nested call's abort signal; defaults to the calling tool's. */
	readonly signal?: AbortSignal;
	/** Receives the nested tool's partial results (besides the `tool_execution_update` events). */
	readonly onUpdate?: AgentToolUpdateCallback<unknown>;
}

/** What a nested call gives back (pi 1.x's `AgentToolCallOutcome`). */
export interface ToolCallOutcome {
	/** The nested call, with its id `<calling id>/<n>`. */
	readonly toolCall: ToolCall;
	readonly result: AgentToolResult<unknown>;
	readonly isError: boolean;
	/** Milliseconds its tool ran; absent when it did not run. */
	readonly durationMs?: number;
}

/**
 * What the executor hands a running call (as `execute`'s fifth argument) so that it can call other
 * tools; `wrapToolDefinition` puts it on `ctx`.
 */
export interface NestedToolCalls {
	/** The tools `executeTool` can reach. */
	readonly tools: readonly AgentTool[];
	/** Runs another tool through the executor's whole path; never rejects. */
	executeTool(name: string, args: unknown, options?: ExecuteToolOptions): Promise<ToolCallOutcome>;
}

/** Dialogs a tool may open. Headless hosts resolve every dialog to `undefined`/`false`. */
export interface ToolUI {
	select(title: string, options: readonly string[]): Promise<string | undefined>;
	confirm(title: string, message: string): Promise<boolean>;
	input(title: string, placeholder?: string): Promise<string | undefined>;
	/** A message for the user; headless hosts route it to their log. Never throws. */
	notify(message: string, level?: "info" | "warning" | "error"): void;
}

/** Where a tool came from, when it came from an extension. */
export interface ExtensionInfo {
	/** Absolute path of the extension's entry file. */
	readonly path: string;
}

/** The fifth argument of `ToolDefinition.execute`: the world the tool may touch. */
export interface ToolContext {
	/** The only door to files and processes. */
	readonly env: ExecutionEnv;
	/** The working folder of the session (usually `env.cwd`). */
	readonly cwd: string;
	/** Whether a person can answer `ui` dialogs. */
	readonly hasUI: boolean;
	readonly ui: ToolUI;
	/** Set for tools registered by an extension. */
	readonly extension?: ExtensionInfo;
	/** The call's abort signal (the same one `execute` receives). */
	readonly signal?: AbortSignal;
	/** The tools `executeTool` can reach (pi 1.x); set by `wrapToolDefinition`. */
	readonly tools?: readonly AgentTool[];
	/**
	 * Runs another tool (pi 1.x) through the same validation, hooks and permission checks as the
	 * model's calls, with the id `<calling id>/<n>`; set by `wrapToolDefinition`. Never rejects:
	 * failures come back as `isError: true`.
	 */
	readonly executeTool?: (name: string, args: unknown, options?: ExecuteToolOptions) => Promise<ToolCallOutcome>;
}

/**
 * Hints about what a tool does, with the meaning of MCP tool annotations (and the shape pi 1.x
 * uses). The author declares them and nothing verifies them: MCP clients and permission layers read
 * them to decide which calls to confirm.
 */
export interface ToolAnnotations {
	/** The tool does not modify its environment. */
	readonly readOnlyHint?: boolean;
	/** It may delete or overwrite data, rather than only add to it (meaningful when not read-only). */
	readonly destructiveHint?: boolean;
	/** Repeating a call with the same arguments has no further effect (meaningful when not read-only). */
	readonly idempotentHint?: boolean;
	/** It reaches an open world of external entities (the web, a shell) rather than a closed domain. */
	readonly openWorldHint?: boolean;
}

/**
 * The tool as an author writes it. `TName` is the name as a literal type when it is known (a
 * `defineTool` call, the built-ins), so a harness can check the arguments of a call by name.
 */
export interface ToolDefinition<
	TParameters extends TSchema = TSchema,
	TDetails = unknown,
	TName extends string = string,
> {
	readonly name: TName;
	readonly label: string;
	readonly description: string;
	readonly parameters: TParameters;
	/** One line for the "Available tools" prompt section; the description's first sentence otherwise. */
	readonly promptSnippet?: string;
	/** Bullets added to the prompt's "Guidelines" only while this tool is active. */
	readonly promptGuidelines?: readonly string[];
	readonly executionMode?: ToolExecutionMode;
	/**
	 * The same arguments may give different results (clocks, randomness, state kept between calls).
	 * Conformance checks then skip the determinism check instead of failing it.
	 */
	readonly nondeterministic?: boolean;
	/** What the tool does, as hints (see `ToolAnnotations`); MCP clients get them as `annotations`. */
	readonly annotations?: ToolAnnotations;
	/**
	 * The schema (TypeBox or a JSON Schema object) of `details` in successful results. MCP clients
	 * then get `details` as `structuredContent`, checked against it; otherwise `details` travel under
	 * `_meta`. (pi 1.x's `outputSchema` describes a separate `structuredContent` field instead.)
	 */
	readonly outputSchema?: TSchema;
	/** See `AgentTool.prepareArguments`. */
	prepareArguments?(args: unknown): unknown;
	/** See `AgentTool.execute`; `ctx` gives the env, cwd and UI. Throw to report failure. */
	execute(
		toolCallId: string,
		params: Static<TParameters>,
		signal: AbortSignal | undefined,
		onUpdate: AgentToolUpdateCallback<TDetails> | undefined,
		ctx: ToolContext,
	): Promise<AgentToolResult<TDetails>>;
	/**
	 * How a call looks in a UI. May throw: hosts fall back to the tool name and show the error.
	 * `args` may be partial or invalid (it is shown before validation).
	 */
	renderCall?(args: Static<TParameters>, theme: Theme, context?: RenderContext): RenderOutput;
	/**
	 * How a (partial or final) result looks in a UI. May throw: hosts fall back to the text content
	 * and show the error.
	 */
	renderResult?(
		result: AgentToolResult<TDetails>,
		options: RenderResultOptions,
		theme: Theme,
		context?: RenderContext,
	): RenderOutput;
}

/**
 * What `run` returns, always as a promise: a throw (a ctx factory, a tool that throws before its
 * first await) becomes a rejection, and a promise `run` returns is passed on as it is.
 */
function promiseOf<T>(run: () => T | Promise<T>): Promise<T> {
	try {
		return Promise.resolve(run());
	} catch (error) {
		return Promise.reject(error);
	}
}

/** The optional scheduling fields both shapes share, copied only when set (so `in` checks stay honest). */
function schedulingFields(source: {
	readonly executionMode?: ToolExecutionMode;
	prepareArguments?(args: unknown): unknown;
}): { executionMode?: ToolExecutionMode; prepareArguments?: (args: unknown) => unknown } {
	const fields: { executionMode?: ToolExecutionMode; prepareArguments?: (args: unknown) => unknown } = {};
	if (source.executionMode !== undefined) fields.executionMode = source.executionMode;
	const prepare = source.prepareArguments;
	if (prepare) fields.prepareArguments = (args) => prepare.call(source, args);
	return fields;
}

/**
 * What `defineTool` (and `registerTool`) accept: a `ToolDefinition` whose types are inferred from
 * the definition itself. `TDetails` comes only from what `execute` returns: TypeScript settles a
 * type parameter as soon as it types a callback parameter that mentions it, so if `onUpdate`
 * mentioned `TDetails`, an `execute` that takes `onUpdate` would settle it as `unknown` before its
 * return was seen. `onUpdate` therefore has a parameter of its own (`TUpdateDetails`, the same as
 * `TDetails` when the type arguments are written out), and the renderers never infer (`NoInfer`).
 */
export interface ToolDefinitionInput<
	TParameters extends TSchema = TSchema,
	TDetails = unknown,
	TName extends string = string,
	TUpdateDetails = TDetails,
> extends Omit<ToolDefinition<TParameters, TDetails, TName>, "execute" | "renderResult"> {
	/** See `ToolDefinition.execute`. */
	execute(
		toolCallId: string,
		params: Static<TParameters>,
		signal: AbortSignal | undefined,
		onUpdate: AgentToolUpdateCallback<TUpdateDetails> | undefined,
		ctx: ToolContext,
	): Promise<AgentToolResult<TDetails>>;
	/** See `ToolDefinition.renderResult`; `result.details` has the type `execute` returns. */
	renderResult?(
		result: AgentToolResult<NoInfer<TDetails>>,
		options: RenderResultOptions,
		theme: Theme,
		context?: RenderContext,
	): RenderOutput;
}

/**
 * Identity helper that keeps the exact types: `execute` sees typed `params`, `renderCall` typed
 * `args`, `renderResult` the `details` type `execute` returns, and the name stays a literal type.
 * @example
 * export const greet = defineTool({ name: "greet", label: "Greet", description: "…",
 *   parameters: Type.Object({ who: Type.String() }),
 *   async execute(_id, { who }) { return { content: [{ type: "text", text: `hi ${who}` }], details: { who } }; } });
 */
export function defineTool<
	const TParameters extends TSchema,
	TDetails = unknown,
	TName extends string = string,
	TUpdateDetails = TDetails,
>(
	definition: ToolDefinitionInput<TParameters, TDetails, TName, TUpdateDetails>,
): ToolDefinition<TParameters, TDetails, TName> {
	// Only the type of `onUpdate`'s partials differs, and only when inferred (see ToolDefinitionInput).
	return definition as unknown as ToolDefinition<TParameters, TDetails, TName>;
}

/** Facts a `ToolContextFactory` gets for one call. */
export interface ToolCallInfo {
	readonly toolCallId: string;
	readonly toolName: string;
	readonly signal?: AbortSignal;
}

/**
 * Builds the `ctx` for one call. May throw: the call then fails with an error result carrying
 * the message (the tool does not run).
 */
export type ToolContextFactory = (info: ToolCallInfo) => ToolContext;

/**
 * The AgentTool for a definition. Only the model-facing and scheduling fields pass through;
 * prompt and render fields stay on the definition. Each call gets a fresh `ctx` from `ctxFactory`.
 */
export function wrapToolDefinition<TParameters extends TSchema, TDetails>(
	definition: ToolDefinition<TParameters, TDetails>,
	ctxFactory: ToolContextFactory,
): AgentTool<TParameters, TDetails> {
	const tool: AgentTool<TParameters, TDetails> = {
		name: definition.name,
		label: definition.label,
		description: definition.description,
		parameters: definition.parameters,
		execute: (toolCallId, params, signal, onUpdate, nested) =>
			promiseOf(() =>
				definition.execute(
					toolCallId,
					params,
					signal,
					onUpdate,
					withNestedCalls(ctxFactory({ toolCallId, toolName: definition.name, signal }), toolCallId, nested),
				),
			),
	};
	const exposure: unknown = (definition as { exposure?: unknown }).exposure;
	if (typeof exposure === "string") (tool as { exposure?: string }).exposure = exposure;
	return Object.assign(tool, schedulingFields(definition));
}

/**
 * `ctx` with `tools` and `executeTool` from the executor's `nested` (a ctx that brings its own keeps
 * them). Without an executor behind the call, `executeTool` answers that nested calls are not
 * available, as pi 1.x does.
 */
function withNestedCalls(ctx: ToolContext, toolCallId: string, nested: NestedToolCalls | undefined): ToolContext {
	if (typeof ctx !== "object" || ctx === null || typeof ctx.executeTool === "function") return ctx;
	const executeTool: NonNullable<ToolContext["executeTool"]> = nested
		? (name, args, options) => nested.executeTool(name, args, options)
		: (name) =>
				Promise.resolve({
					toolCall: { type: "toolCall", id: `${toolCallId}/0`, name, arguments: {} },
					result: {
						content: [{ type: "text", text: "Nested tool calls are not available in this context" }],
						details: {},
					},
					isError: true,
				});
	const fields: PropertyDescriptorMap = {
		tools: { value: nested ? nested.tools : [], enumerable: true, configurable: true },
		executeTool: { value: executeTool, enumerable: true, configurable: true },
	};
	// A fresh ctx gets the fields; a frozen one is extended through its prototype chain.
	return Object.isExtensible(ctx) ? Object.defineProperties(ctx, fields) : Object.create(ctx, fields);
}

/** `wrapToolDefinition` over a list, keeping its order. */
export function wrapToolDefinitions(
	definitions: readonly ToolDefinition[],
	ctxFactory: ToolContextFactory,
): AgentTool[] {
	return definitions.map((definition) => wrapToolDefinition(definition, ctxFactory));
}

/**
 * A definition for an existing AgentTool (its `execute` ignores `ctx`). Lets plain AgentTools sit
 * in a registry next to definitions.
 */
export function toolDefinitionFromAgentTool<TParameters extends TSchema, TDetails>(
	tool: AgentTool<TParameters, TDetails>,
): ToolDefinition<TParameters, TDetails> {
	const definition: ToolDefinition<TParameters, TDetails> = {
		name: tool.name,
		label: tool.label,
		description: tool.description,
		parameters: tool.parameters,
		execute: (toolCallId, params, signal, onUpdate) =>
			promiseOf(() => tool.execute(toolCallId, params, signal, onUpdate)),
	};
	return Object.assign(definition, schedulingFields(tool));
}
