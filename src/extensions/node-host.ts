/**
 * The extension host: built-in tools plus extensions in one runtime, a batch executor over a
 * registry snapshot, and hot reload of one extension at a time. Node-only.
 *
 * Reload order (see docs/hot-reload.md): the new version is imported and its factory run while the
 * previous version keeps serving; only when that worked and its tools are valid does the previous
 * version get its `session_shutdown`, the swap happen, and the new version get its `session_start`.
 * A failure anywhere before the swap leaves the previous version exactly as it was, with no handler
 * of it run. Batches that start during the shutdown–swap–start step wait for it; batches already
 * running finish on the snapshot they started with.
 *
 * This file puts the parts together and runs the reload steps (import, activate, unload,
 * rediscover); the parts are modules of their own: which extensions a change concerns
 * (`_change-routing.ts`), one step at a time (`_reload-queue.ts`), batches waiting out a swap
 * (`_swap-gate.ts`), the caller's hooks after the extensions' (`_host-hooks.ts`) and the tool
 * changes a reload reports (`_tool-changes.ts`).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, resolve, sep } from "node:path";
import type { ToolCall } from "../contract/content.js";
import type { ExecutionEnv } from "../contract/env.js";
import { errorMessage } from "../contract/errors.js";
import type { AgentTool, ToolContextFactory, ToolDefinition } from "../contract/tool.js";
import { NodeExecutionEnv } from "../env/node.js";
import { batchConfig } from "../exec/batch-config.js";
import { executeToolCalls } from "../exec/execute.js";
import type { ExecuteToolCallsConfig, ExecuteToolCallsResult } from "../exec/types.js";
import { notifyListeners, observer } from "../shared/listeners.js";
import { builtinsFromOption } from "../tools/builtins.js";
import { type HostFiles, type RouteAction, routeChanges, routeReload } from "./_change-routing.js";
import { composeAfter, composeBefore } from "./_host-hooks.js";
import { installErrorGuard } from "./_node-error-guard.js";
import { connectRegisteredMcpServers } from "./_node-mcp-connections.js";
import { createReloadQueue, type QueuedJob } from "./_reload-queue.js";
import { createSwapGate } from "./_swap-gate.js";
import { signaturesOf, toolChanges } from "./_tool-changes.js";
import type { ExtensionDiagnostic, ExtensionLogger, LoadedExtension } from "./api.js";
import { type DiscoveredExtension, discoverExtensions } from "./node-discovery.js";
import { importExtension, reportCompatTo } from "./node-loader.js";
import { installExitGuard } from "./node-process-guard.js";
import { createFileWatcher, DEFAULT_DEBOUNCE_MS, type FileChangeKind, type FileWatcher } from "./node-watcher.js";
import { type ToolRegistry, validateToolDefinition } from "./registry.js";
import { createExtensionRuntime, DEFAULT_LOAD_TIMEOUT_MS, type ExtensionRuntime } from "./runtime.js";

export { DEFAULT_DEBOUNCE_MS } from "./node-watcher.js";

/** Default bound for `session_shutdown` handlers (per handler), in milliseconds. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 3_000;

/** Options for `createExtensionHost`: which extensions to load, the env and folder they run in, whether to watch them, and the caller's own hooks. */
export interface ExtensionHostOptions {
	/** Extension files and folders (see `discoverExtensions`); relative ones resolve against `cwd`. */
	readonly paths: readonly string[];
	/** The env tools and `api.exec` use; a `NodeExecutionEnv` in `cwd` by default. */
	readonly env?: ExecutionEnv;
	/** The session's working folder; `env.cwd`, else `process.cwd()`, by default. */
	readonly cwd?: string;
	/**
	 * Watch the extensions' files and reload on change. Off by default: a watching host keeps the
	 * process alive until `close()`.
	 */
	readonly watch?: boolean;
	/** Quiet time after the last file event before reloading, in milliseconds. Default 10. */
	readonly debounceMs?: number;
	/** Built-in tools: `true` (default) for read, bash, edit, write; `false` for none; or your own list. */
	readonly builtins?: boolean | readonly ToolDefinition[];
	/**
	 * Bound for each extension's module evaluation (a top-level `await`), for its default export and
	 * for its `session_start` handlers, each on its own; also on reload. Default 10 000 ms. An
	 * extension past it gets an `E_LOAD_TIMEOUT` diagnostic (on reload, its previous version stays).
	 */
	readonly loadTimeoutMs?: number;
	/** Bound for each `session_shutdown` handler. Default 3 000 ms. */
	readonly shutdownTimeoutMs?: number;
	/** Where `ctx.ui.notify`, runtime messages and watcher errors go. */
	readonly log?: ExtensionLogger;
	/**
	 * Catch uncaught exceptions and unhandled rejections process-wide while the host is open (a throw
	 * in an extension's timer, a promise it left without a `catch`) and report each as an
	 * `E_UNCAUGHT` diagnostic naming the extension whose file is on the stack, instead of letting the
	 * process end. Off by default: it changes the whole process, so only the owner of the process
	 * should turn it on. `toolsmith dev` does. The handlers are removed by `close()`.
	 */
	readonly catchStrayErrors?: boolean;
	/**
	 * While the host is open, make `process.exit`, `process.reallyExit` and `process.abort` throw an
	 * `E_PROCESS_EXIT` error instead of ending the process: an extension that calls one while loading
	 * fails to load with that diagnostic, in a tool call gets an error result, in a timer becomes a
	 * stray error (an `E_PROCESS_EXIT` diagnostic with `catchStrayErrors`). Off by default: it
	 * changes the whole process (code of yours that calls `process.exit` meanwhile is refused too),
	 * so only the owner of the process should turn it on. The `toolsmith` CLI does. `close()` puts
	 * the functions back (guards of several hosts nest).
	 */
	readonly refuseProcessExit?: boolean;
	/** Values of the flags extensions register, by name (see `ExtensionRuntimeOptions.flags`). */
	readonly flags?: Readonly<Record<string, boolean | string>>;
}

/** One load, reload or unload of one extension. */
export interface ExtensionReloadEvent {
	/** The extension's entry file, absolute. */
	readonly path: string;
	/** `load`: a new extension; `reload`: a new version of a known one; `unload`: its file went away. */
	readonly kind: "load" | "reload" | "unload";
	/**
	 * True when the new version is active (or the extension was removed). False when the new
	 * version was rejected: the previous version, if any, is still the one answering.
	 */
	readonly ok: boolean;
	/** `watch`: a file changed on disk; `manual`: `reload()` was called. */
	readonly trigger: "watch" | "manual";
	/** The files whose content differs from what the previous import read (empty for a manual reload). */
	readonly files: readonly string[];
	/** From the start of the reload (after the debounce) to the new version being callable. */
	readonly durationMs: number;
	/** Tool names the extension provides now and did not before. */
	readonly added: readonly string[];
	/** Tool names it provided before and does not now. */
	readonly removed: readonly string[];
	/**
	 * Tools it still provides whose definition differs: description, label, schema, prompt text,
	 * execution mode, or the source text of their functions. (Every tool of a reloaded extension
	 * runs its new code, listed here or not: a change in a helper module does not show here.)
	 */
	readonly changed: readonly string[];
	/** What went wrong or is worth knowing, in order; with an error and `ok: false`, the reason. */
	readonly diagnostics: readonly ExtensionDiagnostic[];
}

/** What the initial load gave. */
export interface ExtensionHostReady {
	/** The extensions that loaded, in load order. */
	readonly extensions: readonly LoadedExtension[];
	/** Every diagnostic of discovery, loading and the `session_start` handlers. */
	readonly diagnostics: readonly ExtensionDiagnostic[];
	/** Whether the host watches the files (and the watchers are in place). */
	readonly watching: boolean;
}

/**
 * Options of `execute`: the executor's config without `tools`, plus the context factory. Your
 * `beforeToolCall` runs after the extensions' `tool_call` handlers (and not when they blocked);
 * your `afterToolCall` sees the result as their `tool_result` handlers patched it.
 */
export interface ExtensionHostExecuteOptions extends Omit<ExecuteToolCallsConfig, "tools"> {
	/** Builds each tool's `ctx`; the runtime's context (env, cwd, headless UI) by default. */
	readonly ctxFactory?: ToolContextFactory;
}

/** Hears one reload, unload or load. May throw: the error is swallowed. */
export type ExtensionReloadListener = (event: ExtensionReloadEvent) => void;
/** Hears one diagnostic as it is raised. May throw: the error is swallowed. */
export type ExtensionDiagnosticListener = (diagnostic: ExtensionDiagnostic) => void;

/** A running extension host: the registry and runtime it fills, the tools to hand the agent, a batch executor with the extensions' hooks, and `reload`/`close`. */
export interface ExtensionHost {
	readonly registry: ToolRegistry;
	readonly runtime: ExtensionRuntime;
	/**
	 * Settles once the initial load is done, `session_start` (`startup`) was emitted and, when
	 * watching, the watchers are in place. Never rejects.
	 */
	readonly ready: Promise<ExtensionHostReady>;
	/** AgentTools for the active set as of now (a later reload does not change them: ask again). */
	tools(ctxFactory?: ToolContextFactory): AgentTool[];
	/**
	 * Run a batch over a registry snapshot taken when it starts (after `ready`, and after a swap in
	 * progress), with the extensions' `tool_call`/`tool_result` handlers of that snapshot. Never rejects.
	 */
	execute(toolCalls: readonly ToolCall[], options?: ExtensionHostExecuteOptions): Promise<ExecuteToolCallsResult>;
	/** The "Available tools" / "Guidelines" prompt section for the active tools. */
	buildToolsPrompt(): string;
	/** The active extensions, in load order. */
	extensions(): readonly LoadedExtension[];
	/**
	 * `reload`: every load, reload and unload after startup. `diagnostic`: every diagnostic as it is
	 * raised, from startup on (those of a reload are also in its event). Returns an unsubscribe function.
	 */
	on(event: "reload", listener: ExtensionReloadListener): () => void;
	on(event: "diagnostic", listener: ExtensionDiagnosticListener): () => void;
	/**
	 * Reload now: the extension whose entry (or one of whose modules) is `path`, every extension of
	 * a folder given in `paths`, or, without `path`, every folder rescanned and every extension
	 * reloaded. Resolves with the events (also emitted to listeners). Rejects only when `path` is
	 * none of those, naming it.
	 */
	reload(path?: string): Promise<ExtensionReloadEvent[]>;
	/**
	 * Stop watching, let a reload in progress finish (queued ones are dropped), then run every
	 * extension's `session_shutdown` (`exit`). Idempotent; never rejects.
	 */
	close(): Promise<void>;
}

/** What the host knows about one extension entry, loaded or not. */
interface Known {
	entry: DiscoveredExtension;
	/** The folder from `paths` it was found in, or undefined when the path named it directly. */
	readonly origin: string | undefined;
	/** Files to watch for it: the active version's modules and those of the last attempt. */
	modules: string[];
	/** Content fingerprints of its modules, taken right before the last import. */
	signatures: Map<string, string>;
	/** The last attempt to load it failed (whatever version, if any, is active). */
	failed: boolean;
}

const MISSING = "missing";

/** The host's path arithmetic, for change routing. */
const NODE_PATHS: HostFiles["path"] = { sep, dirname, basename };

function fingerprint(file: string): string {
	try {
		return createHash("sha1").update(readFileSync(file)).digest("base64");
	} catch {
		return MISSING;
	}
}

function realpathOr(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

function isDirectory(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}

/**
 * Create a host: it starts loading at once (`ready` says when it is done) and, with `watch`,
 * reloads an extension when one of its files changes. Never throws.
 */
export function createExtensionHost(options: ExtensionHostOptions): ExtensionHost {
	const cwd = resolve(options.cwd ?? options.env?.cwd ?? process.cwd());
	const env = options.env ?? new NodeExecutionEnv({ cwd });
	const loadTimeoutMs = options.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS;
	const shutdownTimeoutMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
	const log: ExtensionLogger = options.log ?? (() => {});
	const tellLog = observer(log);
	const safeLog = (level: "info" | "warning" | "error", message: string): void => tellLog({ level, message });

	const reloadListeners = new Set<ExtensionReloadListener>();
	const diagnosticListeners = new Set<ExtensionDiagnosticListener>();
	const known = new Map<string, Known>();
	/** Diagnostics raised while one operation runs land in its list (startup uses one too). */
	let collecting: { path: string | undefined; diagnostics: ExtensionDiagnostic[] } | undefined;

	const onDiagnostic = (diagnostic: ExtensionDiagnostic): void => {
		// A diagnostic about another known extension (a handler failing in a batch meanwhile) is not
		// part of this operation's report.
		if (
			collecting &&
			(collecting.path === undefined || diagnostic.path === collecting.path || !known.has(diagnostic.path))
		) {
			collecting.diagnostics.push(diagnostic);
		}
		notifyListeners(diagnosticListeners, diagnostic);
	};

	const runtime = createExtensionRuntime({
		env,
		cwd,
		builtins: builtinsFromOption(options.builtins),
		log,
		onDiagnostic,
		...(options.flags ? { flags: options.flags } : {}),
	});
	const registry = runtime.registry;
	const mcpConnections = connectRegisteredMcpServers(runtime, cwd);
	const removeErrorGuard = options.catchStrayErrors
		? installErrorGuard(() => runtime.extensions(), onDiagnostic)
		: undefined;
	const removeExitGuard = options.refuseProcessExit ? installExitGuard() : undefined;

	// Paths as given: folders are rescanned on change, files are watched even while missing.
	const roots: string[] = [];
	const files: string[] = [];
	for (const raw of options.paths) {
		const target = realpathOr(resolve(cwd, raw));
		if (isDirectory(target)) roots.push(target);
		else files.push(target);
	}

	let closed = false;
	let watcher: FileWatcher | undefined;

	// Batches wait while an extension is between its shutdown and its start.
	const swapGate = createSwapGate();

	const toolsOf = (path: string) => signaturesOf(registry.entries(), path);

	const emitReload = (event: ExtensionReloadEvent): void => {
		notifyListeners(reloadListeners, event);
	};

	const updateWatch = (): void => {
		if (!watcher) return;
		const dirs = new Set<string>();
		for (const entry of known.values()) for (const file of entry.modules) dirs.add(dirname(file));
		for (const file of files) dirs.add(dirname(file));
		watcher.update({ dirs, roots });
	};

	/** What change routing needs to know of the host: its paths and each extension's files. */
	const hostFiles = (): HostFiles => ({
		extensions: new Map(
			[...known].map(([path, entry]) => [
				path,
				{ root: entry.entry.root, modules: entry.modules, origin: entry.origin, failed: entry.failed },
			]),
		),
		roots,
		files,
		path: NODE_PATHS,
	});

	/**
	 * Import, run and swap in one extension (`startup`: part of the initial load, so no per-extension
	 * `session_start` and no event). Never rejects.
	 */
	const activateOne = async (
		entry: Known,
		trigger: "watch" | "manual" | "startup",
		changedFiles: readonly string[],
	): Promise<ExtensionReloadEvent> => {
		const path = entry.entry.path;
		const started = performance.now();
		const before = toolsOf(path);
		const previous = runtime.get(path);
		const kind = previous ? "reload" : "load";
		const diagnostics: ExtensionDiagnostic[] = [];
		const outer = collecting;
		collecting = { path, diagnostics };
		let ok = false;
		try {
			entry.signatures = new Map(
				[...new Set([path, ...entry.modules])].map((file) => [file, fingerprint(file)] as const),
			);
			// What the compat layer reports while this extension loads (its top level included) is part
			// of this load.
			await reportCompatTo(runtime.report);
			const imported = await importExtension(entry.entry, { cwd, env, timeoutMs: loadTimeoutMs });
			for (const diagnostic of imported.diagnostics) runtime.report(diagnostic);
			entry.modules = [...new Set([...imported.modules, ...(previous?.modules ?? [])])];
			if (imported.factory) {
				if (!previous) registry.reserveSource(path);
				try {
					const result = await runtime.activate(path, imported.factory, {
						root: entry.entry.root,
						modules: imported.modules,
						...(entry.entry.engines !== undefined ? { engines: entry.entry.engines } : {}),
						importMs: imported.durationMs,
						timeoutMs: loadTimeoutMs,
						beforeSwap: async (staged) => {
							if (previous) {
								// A new version that would lose a tool to a broken definition is rejected
								// whole: the previous version is the last good one.
								const rejected = staged.tools.flatMap((tool) => {
									const problems = validateToolDefinition(tool);
									return problems.length > 0 ? [{ tool, problems }] : [];
								});
								for (const { tool, problems } of rejected) {
									const name = typeof tool?.name === "string" ? `"${tool.name}"` : "(unnamed)";
									runtime.report({
										severity: "error",
										code: "E_INVALID_TOOL",
										message: `Tool ${name} from ${path} was rejected: ${problems.join("; ")}. The new version was not loaded; the previous one stays active.`,
										path,
									});
								}
								if (rejected.length > 0) return false;
							}
							swapGate.hold();
							if (previous && trigger !== "startup") {
								await runtime.emit(
									{ type: "session_shutdown", reason: "reload" },
									{ path, timeoutMs: shutdownTimeoutMs },
								);
							}
							return true;
						},
					});
					if (result.extension) {
						ok = true;
						entry.modules = [...result.extension.modules];
						if (trigger !== "startup") {
							await runtime.emit(
								{ type: "session_start", reason: previous ? "reload" : "startup" },
								{ path, timeoutMs: loadTimeoutMs },
							);
						}
					}
				} finally {
					swapGate.release();
				}
			}
		} catch (error) {
			// importExtension and activate never reject; this is a bug guard, not a code path.
			safeLog("error", `Reloading ${path} failed unexpectedly: ${errorMessage(error)}`);
		} finally {
			collecting = outer;
			outer?.diagnostics.push(...diagnostics);
		}
		entry.failed = !ok;
		const after = toolsOf(path);
		return {
			path,
			kind,
			ok,
			trigger: trigger === "startup" ? "manual" : trigger,
			files: [...changedFiles],
			durationMs: performance.now() - started,
			...toolChanges(before, after),
			diagnostics,
		};
	};

	const unloadOne = async (path: string, trigger: "watch" | "manual", changedFiles: readonly string[]) => {
		const started = performance.now();
		const before = toolsOf(path);
		const diagnostics: ExtensionDiagnostic[] = [];
		const outer = collecting;
		collecting = { path, diagnostics };
		swapGate.hold();
		try {
			if (runtime.get(path)) {
				await runtime.emit({ type: "session_shutdown", reason: "exit" }, { path, timeoutMs: shutdownTimeoutMs });
				runtime.remove(path);
			}
		} finally {
			swapGate.release();
			collecting = outer;
			outer?.diagnostics.push(...diagnostics);
			known.delete(path);
		}
		const event: ExtensionReloadEvent = {
			path,
			kind: "unload",
			ok: true,
			trigger,
			files: [...changedFiles],
			durationMs: performance.now() - started,
			added: [],
			removed: [...before.keys()],
			changed: [],
			diagnostics,
		};
		return event;
	};

	/** Bring one entry in line with the disk: unload it if its file is gone, else (re)load it. */
	const sync = async (path: string, job: QueuedJob, trigger: "watch" | "manual"): Promise<ExtensionReloadEvent[]> => {
		const entry = known.get(path);
		const changedFiles = [...job.files];
		if (!existsSync(path)) {
			if (!entry) return [];
			return [await unloadOne(path, trigger, changedFiles)];
		}
		if (entry && !job.force) {
			// Editors and file systems often report one save twice: a version already imported is not
			// imported again.
			const same = [...entry.signatures].every(([file, signature]) => fingerprint(file) === signature);
			const unseen = entry.modules.some((file) => !entry.signatures.has(file));
			if (same && !unseen) return [];
		}
		const target: Known = entry ?? {
			entry: { path, root: dirname(path), kind: "file" },
			origin: undefined,
			modules: [path],
			signatures: new Map(),
			failed: false,
		};
		if (!entry) known.set(path, target);
		// Report only the files whose content differs from what the last import read: a batch can
		// also carry late notices about files that did not change.
		const differing = entry
			? changedFiles.filter((file) => entry.signatures.get(file) !== fingerprint(file))
			: changedFiles;
		return [await activateOne(target, trigger, differing)];
	};

	/** Rediscover one folder from `paths`: load what is new, unload what is gone, reload what changed kind. */
	const scan = async (root: string, trigger: "watch" | "manual", force: boolean): Promise<ExtensionReloadEvent[]> => {
		const events: ExtensionReloadEvent[] = [];
		const found = await discoverExtensions([root], { cwd });
		for (const diagnostic of found.diagnostics) runtime.report(diagnostic);
		const now = new Set(found.extensions.map((entry) => entry.path));
		for (const [path, entry] of [...known]) {
			if (entry.origin === root && !now.has(path)) events.push(await unloadOne(path, trigger, [path]));
		}
		for (const discovered of found.extensions) {
			const entry = known.get(discovered.path);
			if (!entry) {
				const fresh: Known = {
					entry: discovered,
					origin: root,
					modules: [discovered.path],
					signatures: new Map(),
					failed: false,
				};
				known.set(discovered.path, fresh);
				events.push(await activateOne(fresh, trigger, [discovered.path]));
				continue;
			}
			const manifestChanged = entry.entry.engines !== discovered.engines;
			if (entry.origin === root) entry.entry = discovered;
			if (force || manifestChanged) events.push(await activateOne(entry, trigger, []));
		}
		return events;
	};

	const reloads = createReloadQueue<ExtensionReloadEvent>({
		closed: () => closed,
		afterEach: (events) => {
			updateWatch();
			for (const event of events) emitReload(event);
		},
		onError: (error) => safeLog("error", `A reload step failed unexpectedly: ${errorMessage(error)}`),
	});
	const perform = (action: RouteAction, trigger: "watch" | "manual"): Promise<ExtensionReloadEvent[]> =>
		action.kind === "rediscover"
			? reloads.enqueue(`scan:${action.root}`, [], action.force, (job) => scan(action.root, trigger, job.force))
			: reloads.enqueue(`sync:${action.path}`, action.files, action.force, (job) => sync(action.path, job, trigger));

	const onChanges = (changes: ReadonlyMap<string, FileChangeKind>): void => {
		for (const action of routeChanges(changes, hostFiles())) void perform(action, "watch");
	};

	// --- startup
	const ready = (async (): Promise<ExtensionHostReady> => {
		const diagnostics: ExtensionDiagnostic[] = [];
		collecting = { path: undefined, diagnostics };
		try {
			const seen = new Set<string>();
			for (const raw of options.paths) {
				const found = await discoverExtensions([raw], { cwd });
				for (const diagnostic of found.diagnostics) runtime.report(diagnostic);
				const target = realpathOr(resolve(cwd, raw));
				const origin = roots.includes(target) ? target : undefined;
				for (const discovered of found.extensions) {
					if (seen.has(discovered.path)) continue;
					seen.add(discovered.path);
					registry.reserveSource(discovered.path);
					known.set(discovered.path, {
						entry: discovered,
						origin,
						modules: [discovered.path],
						signatures: new Map(),
						failed: false,
					});
				}
			}
			for (const entry of [...known.values()]) {
				if (closed) break;
				await activateOne(entry, "startup", []);
			}
			await runtime.emit({ type: "session_start", reason: "startup" }, { timeoutMs: loadTimeoutMs });
			// Servers registered while loading (or on session_start) bring their tools before the host is ready.
			await mcpConnections.settled(loadTimeoutMs);
		} finally {
			collecting = undefined;
		}
		let watching = false;
		if (options.watch && !closed) {
			try {
				watcher = await createFileWatcher({
					debounceMs: options.debounceMs ?? DEFAULT_DEBOUNCE_MS,
					onChange: onChanges,
					onError: (error) => safeLog("error", `Watching the extension files failed: ${error.message}`),
				});
				updateWatch();
				await watcher.ready();
				watching = !closed;
			} catch (error) {
				safeLog("error", `Could not start watching the extension files: ${errorMessage(error)}`);
			}
		}
		return { extensions: runtime.extensions(), diagnostics, watching };
	})().catch((error: unknown) => {
		safeLog("error", `Loading the extensions failed unexpectedly: ${errorMessage(error)}`);
		return { extensions: runtime.extensions(), diagnostics: [], watching: false };
	});
	let isReady = false;
	void ready.then(() => {
		isReady = true;
	});

	const waitForSwap = async (): Promise<void> => {
		if (!isReady) await ready;
		await swapGate.wait();
	};

	let closing: Promise<void> | undefined;

	const host: ExtensionHost = {
		registry,
		runtime,
		ready,
		tools: (ctxFactory) => registry.snapshot().toAgentTools(ctxFactory),
		async execute(toolCalls, executeOptions = {}) {
			await waitForSwap();
			const config = registry.snapshot().executorConfig(executeOptions.ctxFactory);
			const hooks = {
				beforeToolCall: composeBefore(config.beforeToolCall, executeOptions.beforeToolCall),
				afterToolCall: composeAfter(config.afterToolCall, executeOptions.afterToolCall),
			};
			return executeToolCalls(toolCalls, batchConfig(config, hooks, executeOptions));
		},
		buildToolsPrompt: () => registry.buildToolsPrompt(),
		extensions: () => runtime.extensions(),
		on(event: "reload" | "diagnostic", listener: ExtensionReloadListener | ExtensionDiagnosticListener) {
			const set = (event === "reload" ? reloadListeners : diagnosticListeners) as Set<typeof listener>;
			set.add(listener);
			return () => {
				set.delete(listener);
			};
		},
		async reload(path) {
			await ready;
			const target = path === undefined ? undefined : realpathOr(resolve(cwd, path));
			const actions = routeReload(target, hostFiles());
			if (actions === undefined) {
				throw new Error(
					`${target} is not an extension this host loaded, a module one imported, or a path it was given; pass one of those (or nothing, to reload everything).`,
				);
			}
			const results = await Promise.all(actions.map((action) => perform(action, "manual")));
			return results.flat();
		},
		close() {
			closing ??= (async () => {
				closed = true;
				await ready;
				try {
					await watcher?.close();
				} catch {
					// closing never fails the caller
				}
				await reloads.idle();
				await runtime.emit({ type: "session_shutdown", reason: "exit" }, { timeoutMs: shutdownTimeoutMs });
				await mcpConnections.close();
			})()
				.catch((error: unknown) => {
					safeLog("error", `Closing the extension host failed: ${errorMessage(error)}`);
				})
				.finally(() => {
					removeErrorGuard?.();
					removeExitGuard?.();
				});
			return closing;
		},
	};
	return host;
}
