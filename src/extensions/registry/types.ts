/**
 * The public types of the tool registry (`createToolRegistry` in `../registry.ts`): tool sources
 * and entries, its options, the snapshots it gives and the `ToolRegistry` itself.
 */
import type {
	AgentTool,
	ConstrainedSamplingConfig,
	ToolCallInfo,
	ToolContext,
	ToolContextFactory,
	ToolDefinition,
} from "../../contract/tool.js";
import type { ExecuteToolCallsConfig } from "../../exec/types.js";
import type { DiagnosticListener, ExtensionDiagnostic, ExtensionHandler, ToolInfo } from "../api.js";

/** Where a tool came from: a built-in, or the extension at `path` (absolute entry file). */
export type ToolSource = { readonly kind: "builtin" } | { readonly kind: "extension"; readonly path: string };

/** One tool as the registry holds it. */
export interface ToolEntry {
	readonly name: string;
	readonly definition: ToolDefinition;
	readonly source: ToolSource;
}

/** Extra facts a context factory gets: which tool (or handler) the context is for. */
export interface RegistryContextInfo extends ToolCallInfo {
	readonly source: ToolSource;
}

/**
 * Builds the `ctx` for a tool call or a handler invocation. May throw: a tool call then fails with
 * an error result carrying the message; a handler is skipped with an `E_HANDLER_FAILED` diagnostic.
 */
export type RegistryContextFactory = (info: RegistryContextInfo) => ToolContext;

/** The `tool_call` and `tool_result` handlers one extension contributes. */
export interface SourceHandlers {
	readonly tool_call?: readonly ExtensionHandler<"tool_call">[];
	readonly tool_result?: readonly ExtensionHandler<"tool_result">[];
}

/** Options for `createToolRegistry`: the built-ins, how `ctx` is made, and where diagnostics go. */
export interface ToolRegistryOptions {
	/** Built-in tools (always registered first, overridable by extensions). */
	readonly builtins?: readonly ToolDefinition[];
	/** How tools and handlers get their `ctx`. Needed by `toAgentTools()` without an argument and by hooks. */
	readonly context?: RegistryContextFactory;
	/** Receives every diagnostic the registry raises, also those returned to the caller. */
	readonly onDiagnostic?: DiagnosticListener;
}

/**
 * A tool as it is declared to the model: its name, the description `prepareLoadout` hooks may
 * have replaced, its parameters and constrained sampling. The provider converters take it.
 */
export interface ToolDeclaration {
	readonly name: string;
	readonly description: string;
	readonly parameters: ToolDefinition["parameters"];
	readonly constrainedSampling?: false | ConstrainedSamplingConfig;
}

/** An immutable view of the registry at one moment. */
export interface RegistrySnapshot {
	/** Increases with every change of the registry. */
	readonly version: number;
	/** Every tool that wins its name, built-ins first, then extension tools in load order. */
	readonly entries: readonly ToolEntry[];
	/**
	 * The active subset of `entries`, in the same order: the tools the model may call. Never a
	 * `hidden` tool; other non-`direct`/`model-only` tools only when `setActiveTools` named them.
	 */
	readonly active: readonly ToolEntry[];
	/** The subset of `entries` other tools may call through nested calls (see `isToolCallable`). */
	readonly callable: readonly ToolEntry[];
	/**
	 * What requests declare to the model: the active tools, less those `prepareLoadout` hooks hide,
	 * with the descriptions those hooks give. Send these to a provider (`toProviderTools`).
	 */
	declarations(): readonly ToolDeclaration[];
	get(name: string): ToolEntry | undefined;
	/** AgentTools for the active set; every call gets a fresh `ctx` (extension tools: with `extension.path`). */
	toAgentTools(ctxFactory?: ToolContextFactory): AgentTool[];
	/** The "Available tools" / "Guidelines" prompt section for the declared tools (see `declarations`). */
	buildToolsPrompt(): string;
	/** `beforeToolCall`/`afterToolCall` running the extensions' handlers as of this snapshot. */
	hooks(): Required<Pick<ExecuteToolCallsConfig, "beforeToolCall" | "afterToolCall">>;
	/** `tools` plus hooks: pass it (with your own extras) to `executeToolCalls`. */
	executorConfig(ctxFactory?: ToolContextFactory): ExecuteToolCallsConfig;
}

/** What `ToolRegistry.register` did: whether the definition was accepted, and the diagnostics. */
export interface RegisterResult {
	/** False when the definition was rejected (the diagnostics say why). */
	readonly accepted: boolean;
	readonly diagnostics: ExtensionDiagnostic[];
}

/** The tools of a session by name and source: built-ins first, extensions over them in load order; snapshots, change listeners, and the tools as AgentTools. */
export interface ToolRegistry {
	/**
	 * Register one tool for `source` (default: built-in), replacing that source's earlier tool of the
	 * same name. Validates the definition; never throws.
	 */
	register(definition: ToolDefinition, source?: ToolSource): RegisterResult;
	/** Remove the tool `name` of `source` (default: whichever source provides the winning one). */
	unregister(name: string, source?: ToolSource): boolean;
	/**
	 * Replace everything one extension contributes (tools and handlers) in one step, so no snapshot
	 * ever sees half of an extension. Invalid tools are left out with a diagnostic.
	 */
	replaceSource(path: string, tools: readonly ToolDefinition[], handlers?: SourceHandlers): ExtensionDiagnostic[];
	/** Replace only the handlers of an extension (its tools stay). */
	setHandlers(path: string, handlers: SourceHandlers): void;
	/** Remove every tool and handler of an extension. */
	removeSource(path: string): void;
	/** Record `path` in the load order (first loaded wins name clashes) without contributing anything yet. */
	reserveSource(path: string): void;
	/** The winning tool for `name`. */
	get(name: string): ToolEntry | undefined;
	/** Every winning tool (see `RegistrySnapshot.entries`). */
	entries(): readonly ToolEntry[];
	/** `getAllTools` of the extension API. */
	infos(): ToolInfo[];
	/**
	 * Choose the tools the model sees. Unknown names are kept (they count once registered) and
	 * reported; `hidden` tools stay inactive.
	 */
	setActiveTools(names: readonly string[]): ExtensionDiagnostic[];
	/** Names of the active tools, in registry order. */
	getActiveTools(): string[];
	snapshot(): RegistrySnapshot;
	toAgentTools(ctxFactory?: ToolContextFactory): AgentTool[];
	buildToolsPrompt(): string;
	hooks(): Required<Pick<ExecuteToolCallsConfig, "beforeToolCall" | "afterToolCall">>;
	executorConfig(ctxFactory?: ToolContextFactory): ExecuteToolCallsConfig;
	/** Called after every change. Returns a function that removes the listener. Listener errors are swallowed. */
	onChange(listener: (snapshot: RegistrySnapshot) => void): () => void;
	/** Set (or replace) the context factory used when none is passed. */
	setContextFactory(factory: RegistryContextFactory): void;
}
