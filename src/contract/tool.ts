/**
 * The tool contract: `ToolDefinition` (what an author writes) and `AgentTool` (what an agent loop
 * executes), and the wrapper between them.
 */
import type { Static, TSchema } from "@sinclair/typebox";
import type { JsonValue, ToolCall, ToolResultContent, Usage } from "./content.js";
import { noteDefinitionSite } from "./definition-site.js";
import type { ExecutionEnv } from "./env.js";
import type { RenderContext, RenderOutput, RenderResultOptions, Theme } from "./render.js";

/** `parallel` (the default) lets a batch run concurrently; one `sequential` tool serializes its whole batch. */
export type ToolExecutionMode = "sequential" | "parallel";

/** What a tool returns. A tool reports failure by throwing, or by returning `isError: true` (pi 1.x). */
export interface AgentToolResult<TDetails = unknown> {
	/** Text and image blocks for the model. */
	content: ToolResultContent[];
	/** Structured data for UIs and state; never sent to the model. */
	details: TDetails;
	/**
	 * Machine-readable result matching the tool's `outputSchema`, for programmatic callers (MCP
	 * clients, tools that call tools). Not sent to the model: `content` stays the model's result.
	 */
	structuredContent?: JsonValue;
	usage?: Usage;
	/** Names of tools this call made available. */
	addedToolNames?: string[];
	/**
	 * Report a failure without throwing (pi 1.x): the model gets `content` as an error result
	 * (`isError: true` on the message and the end event), and `details` and `structuredContent`
	 * are kept for UIs and programmatic callers. Only `true` counts.
	 */
	isError?: boolean;
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
	/** JSON Schema of `structuredContent` in successful results (see `ToolDefinition.outputSchema`). */
	readonly outputSchema?: TSchema;
	/** Provider-side constrained sampling for the arguments (see `ConstrainedSamplingConfig`). */
	readonly constrainedSampling?: false | ConstrainedSamplingConfig;
	/**
	 * Copied from the definition (pi's own wrapper drops it): the executor reads it to keep
	 * `model-only` and `hidden` tools out of nested calls' reach.
	 */
	readonly exposure?: ToolExposure;
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
 * How the model reaches a tool (pi 1.x). "Callable" means callable by other tools through nested
 * calls (`ctx.executeTool`), as a codemode tool does; "declared" means sent to the model.
 *
 * - `direct` (the default): declared while active, callable while active.
 * - `model-only`: declared while active, never callable (orchestrating or interactive tools).
 * - `codemode`: callable whenever registered; declared only when explicitly activated. Codemode
 *   tools list it.
 * - `deferred`: like `codemode`, but codemode tools do not list it; tool search can find it.
 * - `hidden`: registered but unreachable; activating it has no effect.
 *
 * `direct` and `model-only` tools are activated when registered (unless `defaultActive: false`);
 * the others never are. See `isToolCallable` and `activatesOnRegistration`.
 */
export type ToolExposure = "direct" | "model-only" | "codemode" | "deferred" | "hidden";

/** A group of related tools, such as the tools of one MCP server (pi 1.x). */
export interface ToolNamespace {
	/** For example `mcp__docs`. */
	readonly name: string;
	/** Other names tools that look namespaces up by name accept (for example `docs`). */
	readonly aliases?: readonly string[];
	/** A short summary, shown once with the group in model-facing tool listings. */
	readonly description?: string;
	/** Longer guidance (an MCP server's instructions), given on request, not in listings. */
	readonly instructions?: string;
}

/** Grammar formats a provider may constrain sampling to (OpenAI's Lark and regex grammars). */
export type GrammarFormat = "openai_lark" | "openai_regex";

/**
 * Provider-side constrained sampling of a tool's arguments (pi 1.x). `json_schema` asks for strict
 * JSON Schema sampling: `"prefer"` when the schema can be made strict, else the tool is sent as it
 * is; `"require"` fails the request instead. `grammar` gives provider-specific grammars of the
 * tool's single string argument.
 */
export type ConstrainedSamplingConfig =
	| { readonly type: "json_schema"; readonly strict: "prefer" | "require" }
	| { readonly type: "grammar"; readonly variants: Readonly<Partial<Record<GrammarFormat, string>>> };

/** The tools of a session as `ToolDefinition.prepareLoadout` sees them. */
export interface ToolLoadout {
	/** The active tools (declared to the model), in order, with their own descriptions. */
	readonly declared: readonly AgentTool[];
	/** The tools other tools may call (see `isToolCallable`). */
	readonly callable: readonly AgentTool[];
	/** Every registered tool. */
	readonly registered: readonly AgentTool[];
	getExposure(name: string): ToolExposure;
	getNamespace(name: string): ToolNamespace | undefined;
	/** A tool's `promptGuidelines` (empty when it has none). */
	getPromptGuidelines(name: string): readonly string[];
}

/** What `prepareLoadout` changes in what the model sees. */
export interface ToolLoadoutChanges {
	/** Model-facing descriptions of declared tools, by name. */
	readonly descriptions?: Readonly<Record<string, string>>;
	/**
	 * Declared tools to leave out of requests and of the prompt. They stay active and callable.
	 */
	readonly hiddenDeclarations?: readonly string[];
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
	 * The schema (TypeBox or a JSON Schema object) of `structuredContent` in successful results, as in
	 * pi 1.x: a tool that declares it should always set `structuredContent`. MCP clients get it as the
	 * tool's `outputSchema` and the result's `structuredContent`, checked against it. A tool written
	 * for toolsmith before 1.x, whose successful results carry no `structuredContent`, has its
	 * `details` checked and sent in its place (the schema's earlier meaning).
	 */
	readonly outputSchema?: TSchema;
	/** How the model reaches the tool (default `"direct"`); see `ToolExposure`. */
	readonly exposure?: ToolExposure;
	/** The group the tool belongs to (for example its MCP server). */
	readonly namespace?: ToolNamespace;
	/**
	 * Whether registering the tool activates it. Default: true for `direct` and `model-only` tools;
	 * other exposures are never activated on registration. A tool with `false` is activated by
	 * `setActiveTools`.
	 */
	readonly defaultActive?: boolean;
	/**
	 * For tools that reach other tools (a codemode tool calls them, a tool search loads them): which
	 * tools a call with `input` may reach, `"all"` or words of the input that may name them (a word
	 * refers to each tool or namespace whose name contains it). Hosts that register tools late use it
	 * to finish registering them before the call runs. Typed and listed by `getAllTools`; toolsmith
	 * registers every tool up front and does not call it.
	 */
	reachesTools?(input: Record<string, unknown>): "all" | readonly string[];
	/**
	 * Adjusts what the model sees while this tool is active: model-facing descriptions of declared
	 * tools, and declarations to leave out of requests. Called whenever the active tools change. May
	 * throw: the registry reports an `E_HANDLER_FAILED` diagnostic and goes on without its changes.
	 */
	prepareLoadout?(loadout: ToolLoadout): ToolLoadoutChanges | undefined;
	/** Provider-side constrained sampling of the arguments; `false` is the same as leaving it out. */
	readonly constrainedSampling?: false | ConstrainedSamplingConfig;
	/**
	 * Whether a UI draws its usual frame around the tool's rendering (`"default"`) or the tool's
	 * renderers draw their own (`"self"`). Hosts without a frame ignore it.
	 */
	readonly renderShell?: "default" | "self";
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

/** The optional fields both shapes share (scheduling, output, sampling), copied only when set (so `in` checks stay honest). */
function schedulingFields(source: {
	readonly executionMode?: ToolExecutionMode;
	readonly outputSchema?: TSchema;
	readonly constrainedSampling?: false | ConstrainedSamplingConfig;
	prepareArguments?(args: unknown): unknown;
}): {
	executionMode?: ToolExecutionMode;
	outputSchema?: TSchema;
	constrainedSampling?: false | ConstrainedSamplingConfig;
	prepareArguments?: (args: unknown) => unknown;
} {
	const fields: {
		executionMode?: ToolExecutionMode;
		outputSchema?: TSchema;
		constrainedSampling?: false | ConstrainedSamplingConfig;
		prepareArguments?: (args: unknown) => unknown;
	} = {};
	if (source.executionMode !== undefined) fields.executionMode = source.executionMode;
	if (source.outputSchema !== undefined) fields.outputSchema = source.outputSchema;
	if (source.constrainedSampling !== undefined) fields.constrainedSampling = source.constrainedSampling;
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
	// Hosts show the file that wrote the definition as the tool's own (see definition-site.ts).
	noteDefinitionSite(definition, defineTool);
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
 * The AgentTool for a definition. Only the model-facing, output and scheduling fields pass through;
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
	if (typeof exposure === "string") (tool as { exposure?: unknown }).exposure = exposure;
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
