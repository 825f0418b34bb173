/**
 * The state of one extension host: its options worked out, the runtime and registry it fills, what
 * it knows of each extension entry, the listeners, the watcher, and where the diagnostics of the
 * operation in progress go. The host's steps (start, activate, unload, reload, close) are functions
 * over it, in the files beside this one.
 */
import { createHash } from "node:crypto";
import { readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, resolve, sep } from "node:path";
import type { ExecutionEnv } from "../../contract/env.js";
import { errorMessage } from "../../contract/errors.js";
import { NodeExecutionEnv } from "../../env/node.js";
import { type Listener, notifyListeners, observer } from "../../shared/listeners.js";
import { builtinsFromOption } from "../../tools/builtins.js";
import type { HostFiles } from "../_change-routing.js";
import { installErrorGuard } from "../_node-error-guard.js";
import { connectRegisteredMcpServers, type McpConnections } from "../_node-mcp-connections.js";
import { createReloadQueue, type ReloadQueue } from "../_reload-queue.js";
import { createSwapGate, type SwapGate } from "../_swap-gate.js";
import { signaturesOf } from "../_tool-changes.js";
import type { ExtensionDiagnostic, ExtensionLogger } from "../api.js";
import type { DiscoveredExtension } from "../node-discovery.js";
import { installExitGuard } from "../node-process-guard.js";
import type { FileWatcher } from "../node-watcher.js";
import type { ToolRegistry } from "../registry.js";
import { createExtensionRuntime, DEFAULT_LOAD_TIMEOUT_MS, type ExtensionRuntime } from "../runtime.js";
import type {
	ExtensionDiagnosticListener,
	ExtensionHostOptions,
	ExtensionHostReady,
	ExtensionReloadEvent,
	ExtensionReloadListener,
} from "./types.js";

/** Default bound for `session_shutdown` handlers (per handler), in milliseconds. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 3_000;

/** What the host knows about one extension entry, loaded or not. */
export interface Known {
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

/** The diagnostics one operation (the startup, or one load, reload or unload) collects. */
export interface Collecting {
	/** The extension the operation is about; undefined for the startup, which takes every diagnostic. */
	readonly path: string | undefined;
	readonly diagnostics: ExtensionDiagnostic[];
}

/** Everything one host holds; the host's steps are functions over it. */
export interface HostState {
	readonly options: ExtensionHostOptions;
	readonly cwd: string;
	readonly env: ExecutionEnv;
	readonly loadTimeoutMs: number;
	readonly shutdownTimeoutMs: number;
	readonly log: ExtensionLogger;
	/** The log as an observer: what it throws is dropped. */
	readonly tellLog: Listener<Parameters<ExtensionLogger>[0]>;
	readonly reloadListeners: Set<ExtensionReloadListener>;
	readonly diagnosticListeners: Set<ExtensionDiagnosticListener>;
	/** Every extension entry the host knows, by absolute entry path. */
	readonly known: Map<string, Known>;
	/** Diagnostics raised while one operation runs land in its list (startup uses one too). */
	collecting: Collecting | undefined;
	readonly runtime: ExtensionRuntime;
	readonly registry: ToolRegistry;
	readonly mcpConnections: McpConnections;
	readonly removeErrorGuard: (() => void) | undefined;
	readonly removeExitGuard: (() => void) | undefined;
	/** The folders of `paths` (rescanned on change). */
	readonly roots: readonly string[];
	/** The files of `paths` (watched even while missing). */
	readonly files: readonly string[];
	/** Batches wait while an extension is between its shutdown and its start. */
	readonly swapGate: SwapGate;
	/** Set by `close()`: no new reload step starts. */
	closed: boolean;
	watcher: FileWatcher | undefined;
	/** The reload steps (`reload.ts`), one at a time; after each the watcher follows the modules and the listeners hear the events. */
	readonly reloads: ReloadQueue<ExtensionReloadEvent>;
	/** The initial load; set by `startHost` (`start.ts`). */
	ready: Promise<ExtensionHostReady> | undefined;
	/** Whether `ready` settled. */
	isReady: boolean;
	/** The one run of `close()`. */
	closing: Promise<void> | undefined;
}

/** The host's path arithmetic, for change routing. */
const NODE_PATHS: HostFiles["path"] = { sep, dirname, basename };

const MISSING = "missing";

/**
 * The state of a new host: the runtime (and its registry) created, the MCP connections and the
 * opted-in process guards in place, nothing loaded yet.
 */
export function createHostState(options: ExtensionHostOptions): HostState {
	const cwd = resolve(options.cwd ?? options.env?.cwd ?? process.cwd());
	const log: ExtensionLogger = options.log ?? (() => {});
	const base = {
		options,
		cwd,
		env: options.env ?? new NodeExecutionEnv({ cwd }),
		loadTimeoutMs: options.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS,
		shutdownTimeoutMs: options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS,
		log,
		tellLog: observer(log),
		reloadListeners: new Set<ExtensionReloadListener>(),
		diagnosticListeners: new Set<ExtensionDiagnosticListener>(),
		known: new Map<string, Known>(),
		collecting: undefined as Collecting | undefined,
	};
	const onDiagnostic = (diagnostic: ExtensionDiagnostic): void => routeDiagnostic(base, diagnostic);
	const runtime = createExtensionRuntime({
		env: base.env,
		cwd,
		builtins: builtinsFromOption(options.builtins),
		log,
		onDiagnostic,
		...(options.flags ? { flags: options.flags } : {}),
	});
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
	const state: HostState = Object.assign(base, {
		runtime,
		registry: runtime.registry,
		mcpConnections,
		removeErrorGuard,
		removeExitGuard,
		roots,
		files,
		swapGate: createSwapGate(),
		closed: false,
		watcher: undefined,
		reloads: createReloadQueue<ExtensionReloadEvent>({
			closed: () => state.closed,
			afterEach: (events) => {
				updateWatch(state);
				for (const event of events) emitReload(state, event);
			},
			onError: (error) => logError(state, `A reload step failed unexpectedly: ${errorMessage(error)}`),
		}),
		ready: undefined,
		isReady: false,
		closing: undefined,
	});
	return state;
}

/** What the host knows of an entry it has not loaded yet: its entry file is its only module. */
export function knownEntry(entry: DiscoveredExtension, origin: string | undefined): Known {
	return { entry, origin, modules: [entry.path], signatures: new Map(), failed: false };
}

/**
 * Tell the diagnostic listeners, and put the diagnostic in the list of the operation in progress
 * unless it is about another known extension (a handler failing in a batch meanwhile).
 */
function routeDiagnostic(
	state: Pick<HostState, "collecting" | "known" | "diagnosticListeners">,
	diagnostic: ExtensionDiagnostic,
): void {
	const collecting = state.collecting;
	if (
		collecting &&
		(collecting.path === undefined || diagnostic.path === collecting.path || !state.known.has(diagnostic.path))
	) {
		collecting.diagnostics.push(diagnostic);
	}
	notifyListeners(state.diagnosticListeners, diagnostic);
}

/**
 * Run one operation with its own list of diagnostics (those about `path`, or all with `path`
 * undefined); once it is done, they also go to the operation it ran inside, if any.
 */
export async function collectDiagnostics<T>(
	state: HostState,
	path: string | undefined,
	diagnostics: ExtensionDiagnostic[],
	run: () => Promise<T>,
): Promise<T> {
	const outer = state.collecting;
	state.collecting = { path, diagnostics };
	try {
		return await run();
	} finally {
		state.collecting = outer;
		outer?.diagnostics.push(...diagnostics);
	}
}

/** An error line to the host's log (a log that throws is ignored). */
export function logError(state: HostState, message: string): void {
	state.tellLog({ level: "error", message });
}

/** The tools one extension provides now, with their signatures. */
export function toolsOf(state: HostState, path: string): ReturnType<typeof signaturesOf> {
	return signaturesOf(state.registry.entries(), path);
}

/** Tell the reload listeners of one event. */
export function emitReload(state: HostState, event: ExtensionReloadEvent): void {
	notifyListeners(state.reloadListeners, event);
}

/** Point the watcher at the folders of every known module and of every file of `paths`. */
export function updateWatch(state: HostState): void {
	if (!state.watcher) return;
	const dirs = new Set<string>();
	for (const entry of state.known.values()) for (const file of entry.modules) dirs.add(dirname(file));
	for (const file of state.files) dirs.add(dirname(file));
	state.watcher.update({ dirs, roots: state.roots });
}

/** What change routing needs to know of the host: its paths and each extension's files. */
export function hostFiles(state: HostState): HostFiles {
	return {
		extensions: new Map(
			[...state.known].map(([path, entry]) => [
				path,
				{ root: entry.entry.root, modules: entry.modules, origin: entry.origin, failed: entry.failed },
			]),
		),
		roots: state.roots,
		files: state.files,
		path: NODE_PATHS,
	};
}

/** A fingerprint of a file's content, or `"missing"` when it cannot be read. */
export function fingerprint(file: string): string {
	try {
		return createHash("sha1").update(readFileSync(file)).digest("base64");
	} catch {
		return MISSING;
	}
}

/** The real path, or `path` itself when it does not exist. */
export function realpathOr(path: string): string {
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
