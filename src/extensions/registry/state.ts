/**
 * The state of one tool registry: every registration by name, the extensions' load order, their
 * `tool_call`/`tool_result` handlers, the explicit active set, the listeners and the cached
 * snapshot. Its steps (registering, snapshots, hooks, the loadout) are functions over it, in the
 * files beside this one.
 */
import type { AgentTool, ToolContext, ToolContextFactory, ToolDefinition } from "../../contract/tool.js";
import { notifyListeners } from "../../shared/listeners.js";
import type { ExtensionDiagnostic, ExtensionHandler } from "../api.js";
import type {
	RegistryContextFactory,
	RegistryContextInfo,
	RegistrySnapshot,
	ToolDeclaration,
	ToolEntry,
	ToolRegistryOptions,
	ToolSource,
} from "./types.js";

/** The source value used in diagnostics and `ToolInfo.source` for built-ins. */
export const BUILTIN_SOURCE = "builtin";

/** One registration of one tool by one source. */
export interface Registration {
	readonly definition: ToolDefinition;
	readonly source: ToolSource;
	/** Order of registration within the registry, for a stable order among one source's tools. */
	readonly seq: number;
}

/** The `tool_call` and `tool_result` handlers of one extension. */
export interface HandlerSet {
	readonly path: string;
	readonly toolCall: readonly ExtensionHandler<"tool_call">[];
	readonly toolResult: readonly ExtensionHandler<"tool_result">[];
}

/** Everything one registry holds; its steps are functions over it. */
export interface RegistryState {
	readonly options: ToolRegistryOptions;
	/** How `ctx` is made when the caller passes no factory. */
	contextFactory: RegistryContextFactory | undefined;
	readonly listeners: Set<(snapshot: RegistrySnapshot) => void>;
	/** name → registrations, in registration order. */
	readonly byName: Map<string, Registration[]>;
	/** Extension paths in load order. */
	readonly rank: Map<string, number>;
	readonly handlers: Map<string, HandlerSet>;
	/** Explicit active set, or null for "every tool that activates on registration". */
	explicitActive: Set<string> | null;
	/** Whether the last registration of each name seen activates on registration. */
	readonly activating: Map<string, boolean>;
	seq: number;
	/** Increases with every change. */
	version: number;
	/** The snapshot of the current version, once asked for. */
	cached: RegistrySnapshot | undefined;
}

/** The state of an empty registry (the built-ins are added by the front). */
export function createRegistryState(options: ToolRegistryOptions): RegistryState {
	return {
		options,
		contextFactory: options.context,
		listeners: new Set(),
		byName: new Map(),
		rank: new Map(),
		handlers: new Map(),
		explicitActive: null,
		activating: new Map(),
		seq: 0,
		version: 0,
		cached: undefined,
	};
}

/** The source's name in diagnostics and `ToolInfo.source`: the extension's path, or `builtin`. */
export function sourcePath(source: ToolSource): string {
	return source.kind === "builtin" ? BUILTIN_SOURCE : source.path;
}

export function sameSource(a: ToolSource, b: ToolSource): boolean {
	return sourcePath(a) === sourcePath(b);
}

/** Add a diagnostic to `into` and tell the registry's listener (a listener that throws is ignored). */
export function report(state: RegistryState, diagnostic: ExtensionDiagnostic, into: ExtensionDiagnostic[]): void {
	into.push(diagnostic);
	notifyListeners([state.options.onDiagnostic], diagnostic);
}

/** Where a source stands in the load order: built-ins first, unknown extensions last. */
export function rankOf(state: RegistryState, source: ToolSource): number {
	return source.kind === "builtin" ? -1 : (state.rank.get(source.path) ?? Number.MAX_SAFE_INTEGER);
}

/** Record `path` in the load order, once. */
export function reserve(state: RegistryState, path: string): void {
	if (!state.rank.has(path)) state.rank.set(path, state.rank.size);
}

/** The registration that wins `name`: the extension loaded first, else the built-in. */
export function winner(state: RegistryState, list: readonly Registration[]): Registration | undefined {
	let best: Registration | undefined;
	for (const reg of list) {
		if (reg.source.kind === "builtin") {
			if (!best) best = reg;
			continue;
		}
		if (!best || best.source.kind === "builtin" || rankOf(state, reg.source) < rankOf(state, best.source)) best = reg;
	}
	return best;
}

/**
 * The `ctx` of one call: from `override`, else the registry's factory; an extension's tool gets
 * its `extension.path` when the context does not name it already. Throws when there is no factory.
 */
export function resolveContext(
	state: RegistryState,
	info: RegistryContextInfo,
	override?: ToolContextFactory,
): ToolContext {
	const base = override ? override(info) : state.contextFactory?.(info);
	if (!base) {
		throw new Error(
			`No context for tool ${info.toolName}: pass a ctxFactory to toAgentTools() or a context to createToolRegistry().`,
		);
	}
	if (info.source.kind !== "extension") return base;
	// The runtime's contexts name their extension already; a context from elsewhere gets it added.
	const path = info.source.path;
	const named = (base as { extension?: { path?: unknown } }).extension;
	return named?.path === path ? base : { ...base, extension: { path } };
}

/** What a snapshot's `prepareLoadout` hooks made of the active tools: the declarations and the tools declared. */
export interface Loadout {
	readonly declarations: readonly ToolDeclaration[];
	readonly declared: readonly ToolEntry[];
}

/** The state of one snapshot: the registry's tools and handlers at one version, and what it worked out once. */
export interface SnapshotState {
	/** The registry, for its context factory (read at call time) and its diagnostic listener. */
	readonly registry: RegistryState;
	readonly version: number;
	readonly entries: readonly ToolEntry[];
	readonly active: readonly ToolEntry[];
	readonly callable: readonly ToolEntry[];
	readonly byEntryName: ReadonlyMap<string, ToolEntry>;
	/** The extensions' handlers, in load order. */
	readonly handlerSets: readonly HandlerSet[];
	/** Callable tools that are not active: what nested calls may reach besides the batch's own tools. */
	readonly inactiveCallable: readonly ToolEntry[];
	/** The loadout, worked out when first asked for. */
	loadout: Loadout | undefined;
	/** The executor's tools with the registry's own context factory, wrapped when first asked for. */
	defaultTools: readonly AgentTool[] | undefined;
	/** The same for `inactiveCallable`. */
	defaultCallable: readonly AgentTool[] | undefined;
}
