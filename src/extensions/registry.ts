/**
 * The tool registry: built-in tools and the tools extensions register, with their sources, the
 * active set the model sees, and the `tool_call`/`tool_result` handlers that wrap every call.
 *
 * Runtime-neutral: no `node:` imports. The loader fills it; hosts read immutable snapshots from it,
 * so a batch that started keeps the tool versions it started with while a reload swaps in new ones.
 */
import { describeValue, errorMessage } from "../contract/errors.js";
import {
	activatesOnRegistration,
	exposureOf,
	isActivatable,
	isToolCallable,
	isToolExposure,
} from "../contract/exposure.js";
import type {
	AgentTool,
	ConstrainedSamplingConfig,
	ToolCallInfo,
	ToolContext,
	ToolContextFactory,
	ToolDefinition,
	ToolLoadout,
} from "../contract/tool.js";
import { wrapToolDefinition } from "../contract/tool.js";
import { mergeAfterHook, structuredAfter, withStructured } from "../exec/after-hook.js";
import type {
	AfterToolCallContext,
	AfterToolCallResult,
	ExecuteToolCallsConfig,
	ToolCallHookContext,
} from "../exec/types.js";
import { buildToolsPrompt } from "../prompt/tools-prompt.js";
import { notifyListeners } from "../shared/listeners.js";
import { providerNameProblems } from "./_names.js";
import type {
	DiagnosticListener,
	ExtensionContext,
	ExtensionDiagnostic,
	ExtensionHandler,
	ToolCallEvent,
	ToolCallEventResult,
	ToolInfo,
	ToolResultEvent,
	ToolResultEventResult,
} from "./api.js";

/** Where a tool came from: a built-in, or the extension at `path` (absolute entry file). */
export type ToolSource = { readonly kind: "builtin" } | { readonly kind: "extension"; readonly path: string };

/** The source value used in diagnostics and `ToolInfo.source` for built-ins. */
export const BUILTIN_SOURCE = "builtin";

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

const NAME_RULE = /^[a-zA-Z0-9_-]{1,64}$/;

/** What a `tool_result` handler's answer replaces in the event the next handler sees. */
const EVENT_FIELDS = ["content", "details", "isError"] as const;

interface Registration {
	readonly definition: ToolDefinition;
	readonly source: ToolSource;
	/** Order of registration within the registry, for a stable order among one source's tools. */
	readonly seq: number;
}

interface HandlerSet {
	readonly path: string;
	readonly toolCall: readonly ExtensionHandler<"tool_call">[];
	readonly toolResult: readonly ExtensionHandler<"tool_result">[];
}

function sourcePath(source: ToolSource): string {
	return source.kind === "builtin" ? BUILTIN_SOURCE : source.path;
}

function sameSource(a: ToolSource, b: ToolSource): boolean {
	return sourcePath(a) === sourcePath(b);
}

/** Reasons a definition cannot be registered, each naming the rule. */
export function validateToolDefinition(definition: unknown): string[] {
	if (typeof definition !== "object" || definition === null) return ["a tool definition must be an object"];
	const def = definition as Record<string, unknown>;
	const problems: string[] = [];
	const name = def.name;
	if (typeof name !== "string" || !NAME_RULE.test(name)) {
		problems.push(
			`name ${typeof name === "string" ? JSON.stringify(name) : describeValue(name)} must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, "_" and "-", at most 64)`,
		);
	}
	if (typeof def.description !== "string" || def.description.trim() === "") {
		problems.push("description must be a non-empty string (the model reads it to decide when to call the tool)");
	}
	const parameters = def.parameters as { type?: unknown } | undefined;
	if (typeof parameters !== "object" || parameters === null || parameters.type !== "object") {
		problems.push('parameters must be an object schema (Type.Object({...}), JSON Schema with type "object")');
	}
	if (typeof def.execute !== "function") problems.push("execute must be a function");
	if (def.exposure !== undefined && !isToolExposure(def.exposure)) {
		problems.push(
			`exposure ${typeof def.exposure === "string" ? JSON.stringify(def.exposure) : describeValue(def.exposure)} must be one of "direct", "model-only", "codemode", "deferred", "hidden"`,
		);
	}
	const namespace = def.namespace as { name?: unknown } | undefined;
	if (
		namespace !== undefined &&
		(typeof namespace !== "object" || namespace === null || typeof namespace.name !== "string")
	) {
		problems.push("namespace must be an object with a string name");
	}
	for (const hook of ["prepareLoadout", "reachesTools"] as const) {
		if (def[hook] !== undefined && typeof def[hook] !== "function") problems.push(`${hook} must be a function`);
	}
	return problems;
}

function toolLabel(definition: ToolDefinition): string {
	return typeof definition.name === "string" ? `"${definition.name}"` : "(unnamed)";
}

/** The validated arguments as handlers see them: an object, or `{}` for a tool without object arguments. */
function argsRecord(args: unknown): Record<string, unknown> {
	return (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
}

/** Creates a tool registry holding the built-ins and the tools extensions register, with the hooks they add. Hosts use it; `createExtensionRuntime` makes one when given none. */
export function createToolRegistry(options: ToolRegistryOptions = {}): ToolRegistry {
	let contextFactory = options.context;
	const listeners = new Set<(snapshot: RegistrySnapshot) => void>();
	/** name → registrations, in registration order. */
	const byName = new Map<string, Registration[]>();
	/** Extension paths in load order. */
	const rank = new Map<string, number>();
	const handlers = new Map<string, HandlerSet>();
	/** Explicit active set, or null for "every tool that activates on registration". */
	let explicitActive: Set<string> | null = null;
	/** Whether the last registration of each name seen activates on registration. */
	const activating = new Map<string, boolean>();
	let seq = 0;
	let version = 0;
	let cached: RegistrySnapshot | undefined;

	const report = (diagnostic: ExtensionDiagnostic, into: ExtensionDiagnostic[]): void => {
		into.push(diagnostic);
		notifyListeners([options.onDiagnostic], diagnostic);
	};

	const rankOf = (source: ToolSource): number =>
		source.kind === "builtin" ? -1 : (rank.get(source.path) ?? Number.MAX_SAFE_INTEGER);

	const reserve = (path: string): void => {
		if (!rank.has(path)) rank.set(path, rank.size);
	};

	/** The registration that wins `name`: the extension loaded first, else the built-in. */
	const winner = (list: readonly Registration[]): Registration | undefined => {
		let best: Registration | undefined;
		for (const reg of list) {
			if (reg.source.kind === "builtin") {
				if (!best) best = reg;
				continue;
			}
			if (!best || best.source.kind === "builtin" || rankOf(reg.source) < rankOf(best.source)) best = reg;
		}
		return best;
	};

	const changed = (): void => {
		version++;
		cached = undefined;
		if (listeners.size === 0) return;
		const snap = snapshot();
		notifyListeners(listeners, snap);
	};

	/** Validate and add without notifying; returns whether it was accepted. */
	const add = (definition: ToolDefinition, source: ToolSource, into: ExtensionDiagnostic[]): boolean => {
		const path = sourcePath(source);
		const problems = validateToolDefinition(definition);
		if (problems.length > 0) {
			report(
				{
					severity: "error",
					code: "E_INVALID_TOOL",
					message: `Tool ${toolLabel(definition)} from ${path} was rejected: ${problems.join("; ")}.`,
					path,
				},
				into,
			);
			return false;
		}
		for (const problem of providerNameProblems(definition.name)) {
			report(
				{
					severity: "warning",
					code: "W_PROVIDER_NAME",
					message: `Tool "${definition.name}" from ${path}: ${problem}.`,
					path,
				},
				into,
			);
		}
		if (source.kind === "extension") reserve(source.path);
		const list = (byName.get(definition.name) ?? []).filter((reg) => !sameSource(reg.source, source));
		const previous = list.length > 0 ? winner(list) : undefined;
		list.push({ definition, source, seq: seq++ });
		byName.set(definition.name, list);
		const activates = activatesOnRegistration(definition);
		const wasActivating = activating.get(definition.name);
		activating.set(definition.name, activates);
		if (activates && wasActivating !== true) {
			// A tool that appears for the first time after setActiveTools is active when its exposure
			// says so (extensions that register tools at runtime expect the model to see them), and so
			// is one whose exposure changed to one that activates (as pi 1.x does on a reload).
			explicitActive?.add(definition.name);
		}
		const now = winner(list);
		if (source.kind === "extension" && previous) {
			if (previous.source.kind === "builtin" && now?.source === source) {
				report(
					{
						severity: "info",
						code: "I_BUILTIN_OVERRIDDEN",
						message: `Tool "${definition.name}" from ${path} replaces the built-in tool of the same name.`,
						path,
					},
					into,
				);
			} else if (previous.source.kind === "extension") {
				const newWins = now?.source === source;
				const first = newWins ? path : previous.source.path;
				const ignored = newWins ? previous.source.path : path;
				report(
					{
						severity: "warning",
						code: "W_DUPLICATE_TOOL",
						message: `Tool "${definition.name}" is registered by both ${first} and ${ignored}; the one from ${first} (loaded first) is used.`,
						path: ignored,
					},
					into,
				);
			}
		}
		return true;
	};

	const removeFromSource = (path: string): boolean => {
		let removed = false;
		for (const [name, list] of byName) {
			const kept = list.filter((reg) => sourcePath(reg.source) !== path);
			if (kept.length !== list.length) {
				removed = true;
				if (kept.length === 0) byName.delete(name);
				else byName.set(name, kept);
			}
		}
		return removed;
	};

	const currentEntries = (): ToolEntry[] => {
		const winners: Registration[] = [];
		for (const list of byName.values()) {
			const win = winner(list);
			if (win) winners.push(win);
		}
		winners.sort((a, b) => rankOf(a.source) - rankOf(b.source) || a.seq - b.seq);
		return winners.map((reg) =>
			Object.freeze({ name: reg.definition.name, definition: reg.definition, source: reg.source }),
		);
	};

	const snapshot = (): RegistrySnapshot => {
		if (cached) return cached;
		const entries = Object.freeze(currentEntries());
		const isActive = (entry: ToolEntry): boolean =>
			isActivatable(exposureOf(entry.definition)) &&
			(explicitActive === null ? activatesOnRegistration(entry.definition) : explicitActive.has(entry.name));
		const active = Object.freeze(entries.filter(isActive));
		const byEntryName = new Map(entries.map((entry) => [entry.name, entry]));
		const handlerSets = [...handlers.values()].sort((a, b) => (rank.get(a.path) ?? 0) - (rank.get(b.path) ?? 0));
		const activeNames = new Set(active.map((entry) => entry.name));
		const callable = Object.freeze(
			entries.filter((entry) => isToolCallable(exposureOf(entry.definition), activeNames.has(entry.name))),
		);
		const snap = createSnapshot(version, entries, active, callable, byEntryName, handlerSets);
		cached = snap;
		return snap;
	};

	const resolveContext = (info: RegistryContextInfo, override?: ToolContextFactory): ToolContext => {
		const base = override ? override(info) : contextFactory?.(info);
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
	};

	const createSnapshot = (
		snapVersion: number,
		entries: readonly ToolEntry[],
		active: readonly ToolEntry[],
		callable: readonly ToolEntry[],
		byEntryName: Map<string, ToolEntry>,
		handlerSets: readonly HandlerSet[],
	): RegistrySnapshot => {
		const handlerContext = (
			path: string,
			info: { toolCallId: string; toolName: string; signal?: AbortSignal },
		): ExtensionContext => {
			const source: ToolSource = { kind: "extension", path };
			const ctx = resolveContext({ ...info, source });
			return ctx as ExtensionContext;
		};
		const reportLater = (diagnostic: ExtensionDiagnostic): void => report(diagnostic, []);

		const beforeToolCall = async (context: ToolCallHookContext): Promise<ToolCallEventResult | undefined> => {
			const input = argsRecord(context.args);
			const event: ToolCallEvent = {
				type: "tool_call",
				toolCallId: context.toolCall.id,
				toolName: context.toolCall.name,
				input,
				...(context.parentToolCallId !== undefined ? { parentToolCallId: context.parentToolCallId } : {}),
			};
			for (const set of handlerSets) {
				for (const handler of set.toolCall) {
					try {
						const ctx = handlerContext(set.path, {
							toolCallId: event.toolCallId,
							toolName: event.toolName,
							signal: context.signal,
						});
						const verdict = await handler(event, ctx);
						if (verdict?.block) {
							const reason = verdict.reason ?? `Blocked by the extension ${set.path}.`;
							return verdict.terminate === true ? { block: true, reason, terminate: true } : { block: true, reason };
						}
					} catch (error) {
						// Blocking is the safe answer when a guard is broken.
						return { block: true, reason: `Blocked by ${set.path}: ${errorMessage(error)}` };
					}
				}
			}
			return undefined;
		};

		const afterToolCall = async (context: AfterToolCallContext): Promise<AfterToolCallResult | undefined> => {
			const input = argsRecord(context.args);
			let current: ToolResultEvent = {
				type: "tool_result",
				toolCallId: context.toolCall.id,
				toolName: context.toolCall.name,
				input,
				content: context.result.content,
				details: context.result.details,
				...(context.result.structuredContent !== undefined
					? { structuredContent: context.result.structuredContent }
					: {}),
				isError: context.isError,
				...(context.parentToolCallId !== undefined ? { parentToolCallId: context.parentToolCallId } : {}),
			};
			let modified = false;
			for (const set of handlerSets) {
				for (const handler of set.toolResult) {
					try {
						const ctx = handlerContext(set.path, {
							toolCallId: current.toolCallId,
							toolName: current.toolName,
							signal: context.signal,
						});
						const patch = (await handler(current, ctx)) as ToolResultEventResult | undefined;
						if (!patch) continue;
						current = withStructured(
							mergeAfterHook(current, patch, EVENT_FIELDS),
							structuredAfter(current.structuredContent, patch),
						);
						modified = true;
					} catch (error) {
						reportLater({
							severity: "error",
							code: "E_HANDLER_FAILED",
							message: `A tool_result handler of ${set.path} failed for tool ${current.toolName}: ${errorMessage(error)}. The result went on unchanged by it.`,
							path: set.path,
						});
					}
				}
			}
			if (!modified) return undefined;
			return {
				content: current.content,
				details: current.details,
				isError: current.isError,
				...(current.structuredContent !== undefined ? { structuredContent: current.structuredContent } : {}),
			};
		};

		const hasHandlers = handlerSets.some((set) => set.toolCall.length > 0 || set.toolResult.length > 0);
		const hooks = () => ({ beforeToolCall, afterToolCall });

		const agentToolOf = (entry: ToolEntry, ctxFactory?: ToolContextFactory): AgentTool => {
			const tool = wrapToolDefinition(entry.definition, (info) =>
				// Spelled out: a spread followed by another key is slow in V8, and this runs for every call.
				resolveContext(
					{ toolCallId: info.toolCallId, toolName: info.toolName, signal: info.signal, source: entry.source },
					ctxFactory,
				),
			);
			if (typeof tool.label !== "string" || tool.label === "") return { ...tool, label: entry.name };
			return tool;
		};
		const toAgentTools = (ctxFactory?: ToolContextFactory): AgentTool[] =>
			active.map((entry) => agentToolOf(entry, ctxFactory));

		// What the model is shown, worked out once per snapshot: the active tools' prepareLoadout
		// hooks may replace descriptions and hide declarations (the tools stay active and callable).
		let loadout:
			| { readonly declarations: readonly ToolDeclaration[]; readonly declared: readonly ToolEntry[] }
			| undefined;
		const prepareLoadout = () => {
			if (loadout) return loadout;
			const hooks = active.filter((entry) => typeof entry.definition.prepareLoadout === "function");
			const descriptions = new Map<string, string>();
			const hidden = new Set<string>();
			if (hooks.length > 0) {
				const view: ToolLoadout = {
					declared: active.map((entry) => agentToolOf(entry)),
					callable: callable.map((entry) => agentToolOf(entry)),
					registered: entries.map((entry) => agentToolOf(entry)),
					getExposure: (name) => {
						const entry = byEntryName.get(name);
						return entry ? exposureOf(entry.definition) : "direct";
					},
					getNamespace: (name) => byEntryName.get(name)?.definition.namespace,
					getPromptGuidelines: (name) => byEntryName.get(name)?.definition.promptGuidelines ?? [],
				};
				for (const entry of hooks) {
					try {
						const changes = entry.definition.prepareLoadout?.(view);
						for (const [name, description] of Object.entries(changes?.descriptions ?? {})) {
							if (typeof description === "string") descriptions.set(name, description);
						}
						for (const name of changes?.hiddenDeclarations ?? []) hidden.add(name);
					} catch (error) {
						const path = sourcePath(entry.source);
						reportLater({
							severity: "error",
							code: "E_HANDLER_FAILED",
							message: `prepareLoadout of tool ${entry.name} (${path}) failed: ${errorMessage(error)}. The tools are declared without its changes.`,
							path,
						});
					}
				}
			}
			const declared = active.filter((entry) => !hidden.has(entry.name));
			const declarations = declared.map((entry): ToolDeclaration => {
				const { name, description, parameters, constrainedSampling } = entry.definition;
				return {
					name,
					description: descriptions.get(name) ?? description,
					parameters,
					...(constrainedSampling !== undefined ? { constrainedSampling } : {}),
				};
			});
			loadout = { declarations: Object.freeze(declarations), declared };
			return loadout;
		};

		// The executor's tools with the registry's own context factory, wrapped once per snapshot: a
		// host runs every batch with them (their contexts are still made call by call).
		let defaultTools: readonly AgentTool[] | undefined;
		const executorTools = (ctxFactory?: ToolContextFactory): readonly AgentTool[] => {
			if (ctxFactory) return toAgentTools(ctxFactory);
			defaultTools ??= Object.freeze(toAgentTools());
			return defaultTools;
		};

		// What nested calls may reach besides the batch's own tools: callable tools that are not
		// active (a codemode or deferred tool is callable whenever it is registered).
		const activeNames = new Set(active.map((entry) => entry.name));
		const inactiveCallable = callable.filter((entry) => !activeNames.has(entry.name));
		let defaultCallable: readonly AgentTool[] | undefined;
		const callableTools = (ctxFactory?: ToolContextFactory): readonly AgentTool[] => {
			if (ctxFactory) return inactiveCallable.map((entry) => agentToolOf(entry, ctxFactory));
			defaultCallable ??= Object.freeze(inactiveCallable.map((entry) => agentToolOf(entry)));
			return defaultCallable;
		};
		const withCallable = (config: ExecuteToolCallsConfig, ctxFactory?: ToolContextFactory): ExecuteToolCallsConfig =>
			inactiveCallable.length === 0 ? config : { ...config, callableTools: callableTools(ctxFactory) };

		return Object.freeze({
			version: snapVersion,
			entries,
			active,
			callable,
			declarations: () => prepareLoadout().declarations,
			get: (name: string) => byEntryName.get(name),
			toAgentTools,
			buildToolsPrompt: () => buildToolsPrompt(prepareLoadout().declared.map((entry) => entry.definition)),
			hooks,
			executorConfig: (ctxFactory?: ToolContextFactory): ExecuteToolCallsConfig =>
				withCallable(
					hasHandlers
						? { tools: executorTools(ctxFactory), beforeToolCall, afterToolCall }
						: { tools: executorTools(ctxFactory) },
					ctxFactory,
				),
		});
	};

	const registry: ToolRegistry = {
		register(definition, source = { kind: "builtin" }) {
			const diagnostics: ExtensionDiagnostic[] = [];
			const accepted = add(definition, source, diagnostics);
			if (accepted) changed();
			return { accepted, diagnostics };
		},
		unregister(name, source) {
			const list = byName.get(name);
			if (!list) return false;
			const target = source ?? winner(list)?.source;
			if (!target) return false;
			const kept = list.filter((reg) => !sameSource(reg.source, target));
			if (kept.length === list.length) return false;
			if (kept.length === 0) byName.delete(name);
			else byName.set(name, kept);
			changed();
			return true;
		},
		replaceSource(path, tools, sourceHandlers) {
			const diagnostics: ExtensionDiagnostic[] = [];
			reserve(path);
			removeFromSource(path);
			const source: ToolSource = { kind: "extension", path };
			for (const definition of tools) add(definition, source, diagnostics);
			const toolCall = sourceHandlers?.tool_call ?? [];
			const toolResult = sourceHandlers?.tool_result ?? [];
			if (toolCall.length > 0 || toolResult.length > 0) handlers.set(path, { path, toolCall, toolResult });
			else handlers.delete(path);
			changed();
			return diagnostics;
		},
		setHandlers(path, sourceHandlers) {
			reserve(path);
			const toolCall = sourceHandlers.tool_call ?? [];
			const toolResult = sourceHandlers.tool_result ?? [];
			if (toolCall.length > 0 || toolResult.length > 0) handlers.set(path, { path, toolCall, toolResult });
			else handlers.delete(path);
			changed();
		},
		removeSource(path) {
			const removed = removeFromSource(path);
			const hadHandlers = handlers.delete(path);
			if (removed || hadHandlers) changed();
		},
		reserveSource: reserve,
		get: (name) => snapshot().get(name),
		entries: () => snapshot().entries,
		infos: () => {
			const snap = snapshot();
			const activeNames = new Set(snap.active.map((entry) => entry.name));
			const callableNames = new Set(snap.callable.map((entry) => entry.name));
			return snap.entries.map((entry): ToolInfo => {
				const { definition } = entry;
				return {
					name: entry.name,
					description: definition.description,
					parameters: definition.parameters,
					...(definition.promptGuidelines ? { promptGuidelines: definition.promptGuidelines } : {}),
					exposure: exposureOf(definition),
					...(definition.namespace ? { namespace: definition.namespace } : {}),
					...(definition.annotations ? { annotations: { ...definition.annotations } } : {}),
					...(definition.reachesTools ? { reachesTools: definition.reachesTools.bind(definition) } : {}),
					source: sourcePath(entry.source),
					active: activeNames.has(entry.name),
					callable: callableNames.has(entry.name),
				};
			});
		},
		setActiveTools(names) {
			const diagnostics: ExtensionDiagnostic[] = [];
			const known = new Set(snapshot().entries.map((entry) => entry.name));
			for (const name of names) {
				if (!known.has(name)) {
					report(
						{
							severity: "warning",
							code: "W_UNKNOWN_TOOL",
							message: `setActiveTools named "${name}", which is not registered; it becomes active if a tool of that name is registered later.`,
							path: BUILTIN_SOURCE,
						},
						diagnostics,
					);
				}
			}
			explicitActive = new Set(names);
			changed();
			return diagnostics;
		},
		getActiveTools: () => snapshot().active.map((entry) => entry.name),
		snapshot,
		toAgentTools: (ctxFactory) => snapshot().toAgentTools(ctxFactory),
		buildToolsPrompt: () => snapshot().buildToolsPrompt(),
		hooks: () => snapshot().hooks(),
		executorConfig: (ctxFactory) => snapshot().executorConfig(ctxFactory),
		onChange(listener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
		setContextFactory(factory) {
			contextFactory = factory;
		},
	};

	for (const builtin of options.builtins ?? []) add(builtin, { kind: "builtin" }, []);
	return registry;
}
