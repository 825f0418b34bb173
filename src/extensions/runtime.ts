/**
 * The extension runtime: runs extension factories against the `ExtensionAPI`, keeps what each
 * extension registered, swaps a new version of an extension in atomically, and emits session
 * events. Runtime-neutral: importing modules from disk is the Node loader's job; this file only
 * sees factories, so a harness can drive it with a MemoryExecutionEnv. What each member of the API
 * does is `_extension-api.ts`; this file runs the versions' lifecycle.
 */

import type { ExecutionEnv } from "../contract/env.js";
import { errorMessage, ToolsmithError } from "../contract/errors.js";
import type { ToolDefinition } from "../contract/tool.js";
import { notifyListeners } from "../shared/listeners.js";
import { createEventBus } from "./_event-bus.js";
import { createExtensionAPI, dispose, type Instance, sourceHandlers } from "./_extension-api.js";
import { listServers, type McpServerTable, replaceServersOf } from "./_mcp-servers.js";
import { createHeadlessSession } from "./_session.js";
import { withTimeout } from "./_timeout.js";
import { createHeadlessUI } from "./_ui.js";
import type {
	DiagnosticListener,
	EventBus,
	ExtensionContext,
	ExtensionDiagnostic,
	ExtensionFactory,
	ExtensionHandler,
	ExtensionLogger,
	LoadedExtension,
	McpServersChangeEvent,
	RegisteredMcpServer,
	SessionShutdownEvent,
	SessionStartEvent,
	ToolRenderers,
} from "./api.js";
import { createToolRegistry, type ToolRegistry, validateToolDefinition } from "./registry.js";

/** Default bound for one extension's factory. */
export const DEFAULT_LOAD_TIMEOUT_MS = 10_000;

/** Options for `createExtensionRuntime`: the env, the working folder, the registry to fill and where diagnostics go. */
export interface ExtensionRuntimeOptions {
	/** The env tools and `api.exec` use. */
	readonly env: ExecutionEnv;
	/** The session's working folder; defaults to `env.cwd`. */
	readonly cwd?: string;
	/** The registry to fill; a new one (with `builtins`) by default. */
	readonly registry?: ToolRegistry;
	/** Built-in tools for a new registry. */
	readonly builtins?: readonly ToolDefinition[];
	/** Where `ctx.ui.notify` and runtime messages go. */
	readonly log?: ExtensionLogger;
	/** Receives every diagnostic raised after (and during) loading. */
	readonly onDiagnostic?: DiagnosticListener;
	/**
	 * Values of the flags extensions register (`api.registerFlag`), by name, as a command line
	 * gives them (`--ssh user@host` is `{ ssh: "user@host" }`, `--no-sandbox` is
	 * `{ "no-sandbox": true }`). `api.getFlag` answers them, for the extensions that registered the
	 * flag, before the flag's default.
	 */
	readonly flags?: Readonly<Record<string, boolean | string>>;
}

/** Facts the loader knows about an extension before its factory runs. */
export interface ActivateOptions {
	/** Bound for the factory; `DEFAULT_LOAD_TIMEOUT_MS` by default. */
	readonly timeoutMs?: number;
	/** The extension's folder (its package root, or the folder of a single file). */
	readonly root?: string;
	/** Local module files the extension imported, its entry first (for watchers). */
	readonly modules?: readonly string[];
	/** The `engines.toolsmith` range it declared. */
	readonly engines?: string;
	/** Milliseconds already spent importing it (added to `loadDurationMs`). */
	readonly importMs?: number;
	/**
	 * Called once the factory succeeded, before the new version replaces the previous one, with
	 * what it registered. Resolve `false` to discard the new version (the previous one stays, and
	 * `activate` resolves with no extension); a hot-reload host uses it to reject a version with
	 * invalid tools and to run the previous version's `session_shutdown` handlers right before the
	 * swap. May throw or reject: the new version is discarded, as with `false`.
	 */
	readonly beforeSwap?: (staged: StagedExtension) => boolean | Promise<boolean>;
}

/** A new version of an extension whose factory ran, not yet swapped in. */
export interface StagedExtension {
	readonly path: string;
	/** The tool definitions it registered, unvalidated, in registration order. */
	readonly tools: readonly ToolDefinition[];
}

/** What activating a version of an extension gave: the new version, or none and the diagnostics saying why. */
export interface ActivateResult {
	/** The new version, or undefined when it failed (the previous version, if any, stays). */
	readonly extension: LoadedExtension | undefined;
	readonly diagnostics: ExtensionDiagnostic[];
}

/** Options for `ExtensionRuntime.emit`. */
export interface EmitOptions {
	/** Only this extension's handlers. */
	readonly path?: string;
	/** Bound for each handler; unbounded by default. */
	readonly timeoutMs?: number;
}

/** Runs extension factories and keeps what each version registered: activate, swap and remove versions, and emit session events to their handlers. */
export interface ExtensionRuntime {
	readonly registry: ToolRegistry;
	readonly events: EventBus;
	readonly env: ExecutionEnv;
	readonly cwd: string;
	/** Loaded extensions, in load order. */
	extensions(): readonly LoadedExtension[];
	get(path: string): LoadedExtension | undefined;
	/**
	 * Run `factory` as the extension at `path`. On success its tools and handlers replace those of
	 * its previous version in one step (keeping its place in the load order); on failure nothing
	 * changes and the diagnostics say why. Never rejects.
	 */
	activate(path: string, factory: ExtensionFactory, options?: ActivateOptions): Promise<ActivateResult>;
	/** Remove an extension: its tools and handlers go, it is forgotten. Runs no handlers. */
	remove(path: string): boolean;
	/**
	 * Run the handlers of `event` (every extension in load order, or one with `options.path`).
	 * Handler failures become diagnostics; never rejects.
	 */
	emit(
		event: SessionStartEvent | SessionShutdownEvent | McpServersChangeEvent,
		options?: EmitOptions,
	): Promise<ExtensionDiagnostic[]>;
	/**
	 * The renderers to draw calls to `toolName` with: the `registerToolRenderer` resolvers of the
	 * active extensions in load order, then `base()` (the registered tool's renderers, as the host
	 * finds them). A resolver that throws or returns something other than an object is skipped (an
	 * `E_RENDERER_FAILED` diagnostic, once per extension version). Never throws.
	 */
	resolveToolRenderers(toolName: string, base: () => ToolRenderers | undefined): ToolRenderers | undefined;
	/** The MCP servers the active extensions registered, in registration order (copies). */
	mcpServers(): RegisteredMcpServer[];
	/**
	 * Hear every change of the registered MCP servers (a registration, an unregistration, a version
	 * swapped in or removed), with the servers after it; how a host connects them. Returns a function
	 * that removes the listener. A listener that throws is ignored.
	 */
	onMcpServersChange(listener: (servers: RegisteredMcpServer[]) => void): () => void;
	/** The `ctx` handlers of `path` receive (also what its tools receive). */
	createContext(path: string | undefined, signal?: AbortSignal): ExtensionContext;
	/** Pass a diagnostic raised outside the runtime (by a loader or host) to its listener. */
	report(diagnostic: ExtensionDiagnostic): void;
}

class TimeoutError extends Error {}

/** Creates an extension runtime over `options.env`: run factories with `activate`, remove them with `remove`, emit session events with `emit`. Hosts use it; `createExtensionHost` builds one for you. */
export function createExtensionRuntime(options: ExtensionRuntimeOptions): ExtensionRuntime {
	const env = options.env;
	const cwd = options.cwd ?? env.cwd;
	const log: ExtensionLogger = options.log ?? (() => {});
	const report = (diagnostic: ExtensionDiagnostic, into?: ExtensionDiagnostic[]): void => {
		into?.push(diagnostic);
		notifyListeners([options.onDiagnostic], diagnostic);
	};
	const registry =
		options.registry ?? createToolRegistry({ builtins: options.builtins ?? [], onDiagnostic: options.onDiagnostic });
	/** Diagnostics of a registry we did not create have not reached our listener yet. */
	const relay = (diagnostics: readonly ExtensionDiagnostic[]): void => {
		if (options.registry) for (const diagnostic of diagnostics) report(diagnostic);
	};
	const bus = createEventBus((channel, error) =>
		report({
			severity: "error",
			code: "E_HANDLER_FAILED",
			message: `A listener of the event bus channel "${channel}" threw: ${errorMessage(error)}.`,
			path: "events",
		}),
	);
	/** Active instances in load order. */
	const active: Instance[] = [];
	const byPath = new Map<string, Instance>();
	/** `api.state` of each extension, by path: outlives its versions, goes with `remove`. */
	const kept = new Map<string, Map<string, unknown>>();
	const flagValues: ReadonlyMap<string, boolean | string> = new Map(Object.entries(options.flags ?? {}));
	const uiFor = (path: string | undefined) =>
		createHeadlessUI((message, level) => {
			try {
				log(path === undefined ? { level, message } : { level, message, path });
			} catch {
				// best effort
			}
		});

	const mcpTable: McpServerTable = { servers: new Map() };
	const mcpListeners = new Set<(servers: RegisteredMcpServer[]) => void>();
	/** Set by the first `session_start` (`startup`) to all: from then on changes are emitted as events. */
	let started = false;
	const mcpChanged = (): void => {
		notifyListeners(mcpListeners, listServers(mcpTable));
		if (started) void emit({ type: "mcp_servers_change", servers: listServers(mcpTable) });
	};

	const session = createHeadlessSession(cwd);
	/** What a context holds besides its signal: the same for every call of one extension (or of the built-ins). */
	const contextBase = (path: string | undefined) => {
		const base = {
			env,
			cwd,
			hasUI: false,
			// pi 1.x's run mode: toolsmith runs without a terminal UI, as pi's print mode does.
			mode: "print",
			ui: uiFor(path),
			...(path !== undefined ? { extension: { path } } : {}),
			// Present in the base so that a call's copy only sets it (adding a key to a spread copy is slow in V8).
			signal: undefined as AbortSignal | undefined,
			// What the reference context offers beyond the tool context, answered for a host
			// without an agent loop, so pi handlers that look at them keep working.
			model: undefined,
			isIdle: () => true,
			abort: () => {},
			hasPendingMessages: () => false,
			shutdown: () => {},
			getContextUsage: () => undefined,
			compact: () => {},
			getSystemPrompt: () => registry.buildToolsPrompt(),
			// A session that is never written: no file, no entries, this runtime's folder.
			sessionManager: session,
			scopedModels: [],
			// toolsmith loads the project's own extensions when asked to, so project trust is on.
			isProjectTrusted: () => true,
		};
		return base as unknown as ExtensionContext;
	};
	// Made once per extension path: a context is built for every tool call, and the headless UI
	// alone has some thirty members. Each call still gets an object of its own.
	const contextBases = new Map<string | undefined, ExtensionContext>();
	const createContext = (path: string | undefined, signal?: AbortSignal): ExtensionContext => {
		let base = contextBases.get(path);
		if (!base) {
			base = contextBase(path);
			contextBases.set(path, base);
		}
		const ctx = { ...base };
		(ctx as { signal?: AbortSignal }).signal = signal;
		return ctx;
	};

	registry.setContextFactory((info) =>
		createContext(info.source.kind === "extension" ? info.source.path : undefined, info.signal),
	);

	const recordOf = (instance: Instance, activateOptions: ActivateOptions, durationMs: number): LoadedExtension => {
		const root = activateOptions.root ?? instance.path.slice(0, Math.max(1, instance.path.lastIndexOf("/")));
		const modules = Object.freeze([...(activateOptions.modules ?? [instance.path])]);
		return {
			path: instance.path,
			root,
			modules,
			engines: activateOptions.engines,
			loadDurationMs: durationMs,
			get tools() {
				return [...instance.tools.keys()];
			},
			get commands() {
				return [...instance.commands.values()];
			},
			get flags() {
				return [...instance.flags.values()];
			},
			get events() {
				return [...instance.handlers.keys()];
			},
		};
	};

	const activate = async (
		path: string,
		factory: ExtensionFactory,
		activateOptions: ActivateOptions = {},
	): Promise<ActivateResult> => {
		const diagnostics: ExtensionDiagnostic[] = [];
		const started = Date.now();
		const instance: Instance = {
			path,
			state: "loading",
			tools: new Map(),
			handlers: new Map(),
			commands: new Map(),
			flags: new Map(),
			reported: new Set(),
			subscriptions: new Set(),
			toolRenderers: [],
			mcpServers: new Map(),
		};
		// What the API reports while the factory runs (an event never emitted, an unsupported member)
		// is part of this activation's result, as well as going to the listener.
		const api = createExtensionAPI(instance, {
			registry,
			bus,
			env,
			cwd,
			active,
			kept,
			flagValues,
			mcpTable,
			mcpChanged,
			report: (diagnostic) => report(diagnostic, instance.state === "loading" ? diagnostics : undefined),
			relay,
		});
		const timeoutMs = activateOptions.timeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS;
		try {
			await withTimeout(
				Promise.resolve().then(() => factory(api)),
				timeoutMs,
				() => new TimeoutError(),
			);
		} catch (error) {
			dispose(instance);
			if (error instanceof TimeoutError) {
				report(
					{
						severity: "error",
						code: "E_LOAD_TIMEOUT",
						message: `The default export of ${path} did not settle within ${timeoutMs} ms; the extension was not loaded. Move slow work into a session_start handler or a tool.`,
						path,
					},
					diagnostics,
				);
			} else {
				const position = errorPosition(error, path);
				const exited = refusedExit(error);
				report(
					{
						severity: "error",
						code: exited ? "E_PROCESS_EXIT" : "E_FACTORY_FAILED",
						message: exited
							? `The default export of ${path} tried to end the process: ${errorMessage(error)} The extension was not loaded.`
							: `The default export of ${path} threw: ${errorMessage(error)}. The extension was not loaded.`,
						path,
						...position,
					},
					diagnostics,
				);
			}
			return { extension: undefined, diagnostics };
		}
		if (activateOptions.beforeSwap) {
			let proceed = false;
			try {
				proceed = await activateOptions.beforeSwap({ path, tools: [...instance.tools.values()] });
			} catch {
				// a failing gate discards the new version, like an explicit `false`
			}
			if (!proceed) {
				dispose(instance);
				return { extension: undefined, diagnostics };
			}
		}
		const previous = byPath.get(path);
		if (previous) dispose(previous);
		const toolDiagnostics = registry.replaceSource(path, [...instance.tools.values()], sourceHandlers(instance));
		relay(toolDiagnostics);
		diagnostics.push(...toolDiagnostics);
		for (const [name, definition] of [...instance.tools]) {
			if (validateToolDefinition(definition).length > 0) instance.tools.delete(name);
		}
		instance.state = "active";
		instance.record = recordOf(instance, activateOptions, (activateOptions.importMs ?? 0) + (Date.now() - started));
		if (previous) {
			const index = active.indexOf(previous);
			if (index >= 0) active[index] = instance;
			else active.push(instance);
		} else {
			active.push(instance);
		}
		byPath.set(path, instance);
		if ((previous?.mcpServers.size ?? 0) > 0 || instance.mcpServers.size > 0) {
			if (replaceServersOf(mcpTable, path, [...instance.mcpServers.values()])) mcpChanged();
		}
		return { extension: instance.record, diagnostics };
	};

	const remove = (path: string): boolean => {
		const instance = byPath.get(path);
		if (!instance) return false;
		dispose(instance);
		byPath.delete(path);
		kept.delete(path);
		const index = active.indexOf(instance);
		if (index >= 0) active.splice(index, 1);
		registry.removeSource(path);
		if (replaceServersOf(mcpTable, path, [])) mcpChanged();
		return true;
	};

	const resolveToolRenderers = (toolName: string, base: () => ToolRenderers | undefined): ToolRenderers | undefined => {
		const chain = active.flatMap((instance) => instance.toolRenderers.map((resolver) => ({ instance, resolver })));
		const resolve = (index: number): ToolRenderers | undefined => {
			const link = chain[index];
			if (!link) return base();
			const next = (): ToolRenderers | undefined => resolve(index + 1);
			let failure: string | undefined;
			try {
				const chosen = link.resolver(toolName, next);
				if (chosen === undefined || (typeof chosen === "object" && chosen !== null)) return chosen;
				failure = `returned ${typeof chosen === "function" ? "a function" : String(chosen)} instead of an object with renderCall/renderResult`;
			} catch (error) {
				failure = `threw: ${errorMessage(error)}`;
			}
			const key = "renderer";
			if (!link.instance.reported.has(key)) {
				link.instance.reported.add(key);
				report({
					severity: "warning",
					code: "E_RENDERER_FAILED",
					message: `A tool renderer resolver of ${link.instance.path} ${failure} (for the tool "${toolName}"); the next one was used.`,
					path: link.instance.path,
				});
			}
			return next();
		};
		return resolve(0);
	};

	async function emit(
		event: SessionStartEvent | SessionShutdownEvent | McpServersChangeEvent,
		emitOptions: EmitOptions = {},
	): Promise<ExtensionDiagnostic[]> {
		if (event.type === "session_start" && event.reason === "startup" && emitOptions.path === undefined) started = true;
		const diagnostics: ExtensionDiagnostic[] = [];
		const targets = emitOptions.path === undefined ? [...active] : active.filter((i) => i.path === emitOptions.path);
		for (const instance of targets) {
			for (const handler of instance.handlers.get(event.type) ?? []) {
				try {
					const ctx = createContext(instance.path);
					await withTimeout(
						Promise.resolve().then(() => (handler as ExtensionHandler<typeof event.type>)(event as never, ctx)),
						emitOptions.timeoutMs,
						() => new TimeoutError(),
					);
				} catch (error) {
					const timedOut = error instanceof TimeoutError;
					report(
						{
							severity: "error",
							code: "E_HANDLER_FAILED",
							message: timedOut
								? `A ${event.type} handler of ${instance.path} did not settle within ${emitOptions.timeoutMs} ms; the runtime went on without it.`
								: `A ${event.type} handler of ${instance.path} threw: ${errorMessage(error)}.`,
							path: instance.path,
							...(timedOut ? {} : errorPosition(error, instance.path)),
						},
						diagnostics,
					);
				}
			}
		}
		return diagnostics;
	}

	return {
		registry,
		events: bus,
		env,
		cwd,
		extensions: () => active.map((instance) => instance.record as LoadedExtension),
		get: (path) => byPath.get(path)?.record,
		activate,
		remove,
		emit,
		resolveToolRenderers,
		mcpServers: () => listServers(mcpTable),
		onMcpServersChange(listener) {
			mcpListeners.add(listener);
			return () => {
				mcpListeners.delete(listener);
			};
		},
		createContext,
		report: (diagnostic) => report(diagnostic),
	};
}

/** Whether `error` is a host's refusal of `process.exit` (see `refuseProcessExit` of the Node host). */
function refusedExit(error: unknown): boolean {
	try {
		return error instanceof ToolsmithError && error.code === "E_PROCESS_EXIT";
	} catch {
		return false;
	}
}

/** Line and column of the first stack frame inside `path`, when the error has a stack. */
export function errorPosition(error: unknown, path: string): { line?: number; column?: number } {
	const stack = error instanceof Error ? error.stack : undefined;
	if (!stack) return {};
	for (const frame of stack.split("\n")) {
		const at = frame.indexOf(path);
		if (at < 0) continue;
		const match = /^:(\d+):(\d+)/.exec(frame.slice(at + path.length));
		if (match) return { line: Number(match[1]), column: Number(match[2]) };
	}
	return {};
}
