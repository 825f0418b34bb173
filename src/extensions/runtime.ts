/**
 * The extension runtime: runs extension factories against the `ExtensionAPI`, keeps what each
 * extension registered, swaps a new version of an extension in atomically, and emits session
 * events. Runtime-neutral: importing modules from disk is the Node loader's job; this file only
 * sees factories, so a harness can drive it with a MemoryExecutionEnv.
 */
import { errorMessage, ToolsmithError } from "../contract/errors.js";
import type { ToolDefinition } from "../contract/tool.js";
import type { ExecutionEnv } from "../env/types.js";
import { createEventBus } from "./_event-bus.js";
import { EMITTED_EVENTS, UNSUPPORTED_API_MEMBERS } from "./_pi-stubs.js";
import { createHeadlessUI } from "./_ui.js";
import type {
	DiagnosticListener,
	EventBus,
	ExtensionAPI,
	ExtensionContext,
	ExtensionDiagnostic,
	ExtensionEventMap,
	ExtensionExecOptions,
	ExtensionExecResult,
	ExtensionFactory,
	ExtensionHandler,
	ExtensionLogger,
	ExtensionState,
	RegisteredCommand,
	RegisteredFlag,
	SessionShutdownEvent,
	SessionStartEvent,
} from "./api.js";
import { createToolRegistry, type ToolRegistry, validateToolDefinition } from "./registry.js";

/** Default bound for one extension's factory. */
export const DEFAULT_LOAD_TIMEOUT_MS = 10_000;

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

/** One extension that loaded, as the runtime keeps it. Lists are live views. */
export interface LoadedExtension {
	/** Absolute path of its entry file: the extension's identity. */
	readonly path: string;
	readonly root: string;
	/** Local module files it imported, entry first, `node_modules` excluded. */
	readonly modules: readonly string[];
	readonly engines: string | undefined;
	/** Import plus factory time of the version now active. */
	readonly loadDurationMs: number;
	/** Names of the tools it registered (including any another extension shadows). */
	readonly tools: readonly string[];
	readonly commands: readonly RegisteredCommand[];
	readonly flags: readonly RegisteredFlag[];
	/** Names of the events it listens to. */
	readonly events: readonly string[];
}

export interface ActivateResult {
	/** The new version, or undefined when it failed (the previous version, if any, stays). */
	readonly extension: LoadedExtension | undefined;
	readonly diagnostics: ExtensionDiagnostic[];
}

export interface EmitOptions {
	/** Only this extension's handlers. */
	readonly path?: string;
	/** Bound for each handler; unbounded by default. */
	readonly timeoutMs?: number;
}

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
	emit(event: SessionStartEvent | SessionShutdownEvent, options?: EmitOptions): Promise<ExtensionDiagnostic[]>;
	/** The `ctx` handlers of `path` receive (also what its tools receive). */
	createContext(path: string | undefined, signal?: AbortSignal): ExtensionContext;
	/** Pass a diagnostic raised outside the runtime (by a loader or host) to its listener. */
	report(diagnostic: ExtensionDiagnostic): void;
}

type State = "loading" | "active" | "disposed";

interface Instance {
	readonly path: string;
	state: State;
	readonly tools: Map<string, ToolDefinition>;
	readonly handlers: Map<string, ExtensionHandler<keyof ExtensionEventMap>[]>;
	readonly commands: Map<string, RegisteredCommand>;
	readonly flags: Map<string, RegisteredFlag>;
	readonly reported: Set<string>;
	/** Its `api.events` listeners, removed when it is unloaded so an old version hears nothing more. */
	readonly subscriptions: Set<() => void>;
	record?: LoadedExtension;
}

/** Quote for a POSIX shell: nothing inside single quotes is interpreted. */
function shellQuote(value: string): string {
	if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(value)) return value;
	return `'${value.replace(/'/g, `'\\''`)}'`;
}

function withTimeout<T>(promise: Promise<T>, ms: number | undefined, onTimeout: () => Error): Promise<T> {
	if (ms === undefined || !Number.isFinite(ms)) return promise;
	return new Promise<T>((resolve, reject) => {
		const timer = setTimeout(() => reject(onTimeout()), ms);
		promise.then(
			(value) => {
				clearTimeout(timer);
				resolve(value);
			},
			(error: unknown) => {
				clearTimeout(timer);
				reject(error);
			},
		);
	});
}

class TimeoutError extends Error {}

export function createExtensionRuntime(options: ExtensionRuntimeOptions): ExtensionRuntime {
	const env = options.env;
	const cwd = options.cwd ?? env.cwd;
	const log: ExtensionLogger = options.log ?? (() => {});
	const report = (diagnostic: ExtensionDiagnostic, into?: ExtensionDiagnostic[]): void => {
		into?.push(diagnostic);
		try {
			options.onDiagnostic?.(diagnostic);
		} catch {
			// observers cannot break loading
		}
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
	const stateOf = (path: string): ExtensionState => {
		const values = (): Map<string, unknown> => {
			let map = kept.get(path);
			if (!map) {
				map = new Map();
				kept.set(path, map);
			}
			return map;
		};
		return {
			keep<T>(key: string, init: () => T): T {
				const map = values();
				if (!map.has(key)) map.set(key, init());
				return map.get(key) as T;
			},
			set(key, value) {
				values().set(key, value);
			},
			delete: (key) => kept.get(path)?.delete(key) ?? false,
		};
	};

	const uiFor = (path: string | undefined) =>
		createHeadlessUI((message, level) => {
			try {
				log(path === undefined ? { level, message } : { level, message, path });
			} catch {
				// best effort
			}
		});

	const createContext = (path: string | undefined, signal?: AbortSignal): ExtensionContext => {
		const ui = uiFor(path);
		const ctx = {
			env,
			cwd,
			hasUI: false,
			ui,
			extension: { path: path ?? "builtin" },
			signal,
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
		};
		if (path === undefined) {
			const { extension: _omit, ...builtin } = ctx;
			return builtin as unknown as ExtensionContext;
		}
		return ctx;
	};

	registry.setContextFactory((info) =>
		createContext(info.source.kind === "extension" ? info.source.path : undefined, info.signal),
	);

	const sourceHandlers = (instance: Instance) => ({
		tool_call: (instance.handlers.get("tool_call") ?? []) as ExtensionHandler<"tool_call">[],
		tool_result: (instance.handlers.get("tool_result") ?? []) as ExtensionHandler<"tool_result">[],
	});

	const reportOnce = (instance: Instance, key: string, diagnostic: ExtensionDiagnostic): void => {
		if (instance.reported.has(key)) return;
		instance.reported.add(key);
		report(diagnostic);
	};

	/** Registration after the instance was replaced, removed or timed out: ignored, reported once. */
	const late = (instance: Instance, member: string): boolean => {
		if (instance.state !== "disposed") return false;
		reportOnce(instance, "late", {
			severity: "warning",
			code: "W_LATE_CALL",
			message: `${instance.path} called api.${member}() after it was unloaded (replaced, removed or timed out); the call was ignored.`,
			path: instance.path,
		});
		return true;
	};

	const notReady = (instance: Instance, member: string): void => {
		if (instance.state === "loading") {
			throw new ToolsmithError(
				"E_NOT_READY",
				`api.${member}() is not available while ${instance.path} is loading: call it from an event handler (session_start), a tool or a command instead.`,
			);
		}
	};

	const runExec = async (
		command: string,
		args: readonly string[],
		execOptions: ExtensionExecOptions | undefined,
	): Promise<ExtensionExecResult> => {
		const line = [command, ...args].map((part) => shellQuote(String(part))).join(" ");
		const timeout =
			execOptions?.timeout !== undefined && execOptions.timeout > 0 ? execOptions.timeout / 1000 : undefined;
		const result = await env.exec(line, {
			cwd: execOptions?.cwd ?? cwd,
			...(execOptions?.signal ? { signal: execOptions.signal } : {}),
			...(timeout !== undefined ? { timeout } : {}),
			captureOutput: true,
		});
		if (result.ok) {
			return {
				stdout: result.value.stdout,
				stderr: result.value.stderr,
				code: result.value.exitCode,
				killed: false,
			};
		}
		const killed = result.error.code === "timeout" || result.error.code === "aborted";
		return { stdout: "", stderr: result.error.message, code: 1, killed };
	};

	const dispose = (instance: Instance): void => {
		instance.state = "disposed";
		for (const subscription of [...instance.subscriptions]) subscription();
	};

	const createAPI = (instance: Instance): ExtensionAPI => {
		const path = instance.path;
		const api: ExtensionAPI & Record<string, unknown> = {
			registerTool(definition) {
				if (late(instance, "registerTool")) return;
				const def = definition as unknown as ToolDefinition;
				const name = typeof def?.name === "string" ? def.name : "";
				instance.tools.set(name, def);
				if (instance.state === "active") {
					const result = registry.register(def, { kind: "extension", path });
					relay(result.diagnostics);
					if (!result.accepted) instance.tools.delete(name);
				}
			},
			unregisterTool(name) {
				if (late(instance, "unregisterTool")) return;
				if (!instance.tools.delete(name)) return;
				if (instance.state === "active") registry.unregister(name, { kind: "extension", path });
			},
			on(event, handler) {
				if (late(instance, "on")) return;
				if (typeof handler !== "function") return;
				const list = instance.handlers.get(event) ?? [];
				list.push(handler as unknown as ExtensionHandler<keyof ExtensionEventMap>);
				instance.handlers.set(event, list);
				if (!EMITTED_EVENTS.has(event)) {
					reportOnce(instance, `event:${event}`, {
						severity: "info",
						code: "I_EVENT_NOT_EMITTED",
						message: `${path} listens to "${event}", which toolsmith never emits; the handler will not run.`,
						path,
					});
				}
				if (instance.state === "active" && (event === "tool_call" || event === "tool_result")) {
					registry.setHandlers(path, sourceHandlers(instance));
				}
			},
			events: {
				emit: (channel, data) => bus.emit(channel, data),
				on(channel, handler) {
					if (late(instance, "events.on")) return () => {};
					const off = bus.on(channel, handler);
					const subscription = () => {
						instance.subscriptions.delete(subscription);
						off();
					};
					instance.subscriptions.add(subscription);
					return subscription;
				},
			},
			exec(command, args, execOptions?: ExtensionExecOptions): Promise<ExtensionExecResult> {
				notReady(instance, "exec");
				return runExec(command, args, execOptions);
			},
			getAllTools() {
				notReady(instance, "getAllTools");
				return registry.infos();
			},
			getActiveTools() {
				notReady(instance, "getActiveTools");
				return registry.getActiveTools();
			},
			setActiveTools(names) {
				notReady(instance, "setActiveTools");
				for (const diagnostic of registry.setActiveTools([...names])) {
					report({ ...diagnostic, path });
				}
			},
			registerCommand(name, commandOptions) {
				if (late(instance, "registerCommand")) return;
				const command: RegisteredCommand = { ...commandOptions, name, path };
				instance.commands.set(name, command);
			},
			registerFlag(name, flagOptions) {
				if (late(instance, "registerFlag")) return;
				instance.flags.set(name, { ...flagOptions, name, path });
			},
			getFlag(name) {
				return instance.flags.get(name)?.default;
			},
			state: stateOf(path),
			getCommands() {
				return active.flatMap((other) =>
					[...other.commands.values()].map((command) => ({
						name: command.name,
						description: command.description,
						source: "extension",
						path: command.path,
					})),
				);
			},
		};
		for (const [member, answer] of Object.entries(UNSUPPORTED_API_MEMBERS)) {
			api[member] = () => {
				reportOnce(instance, `member:${member}`, {
					severity: "warning",
					code: "W_UNSUPPORTED_API",
					message: `${path} called api.${member}(), which toolsmith does not implement (it has no sessions, models or UI); the call does nothing.`,
					path,
				});
				return answer();
			};
		}
		return api;
	};

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
		};
		const api = createAPI(instance);
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
				report(
					{
						severity: "error",
						code: "E_FACTORY_FAILED",
						message: `The default export of ${path} threw: ${errorMessage(error)}. The extension was not loaded.`,
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
		return true;
	};

	const emit = async (
		event: SessionStartEvent | SessionShutdownEvent,
		emitOptions: EmitOptions = {},
	): Promise<ExtensionDiagnostic[]> => {
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
	};

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
		createContext,
		report: (diagnostic) => report(diagnostic),
	};
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
