/**
 * The public types of the extension runtime (`createExtensionRuntime` in `../runtime.ts`): its
 * options, what `activate` takes and gives, and the `ExtensionRuntime` it returns.
 */

import type { ExecutionEnv } from "../../contract/env.js";
import type { ToolDefinition } from "../../contract/tool.js";
import type {
	DiagnosticListener,
	EventBus,
	ExtensionContext,
	ExtensionDiagnostic,
	ExtensionFactory,
	ExtensionLogger,
	LoadedExtension,
	McpServersChangeEvent,
	RegisteredMcpServer,
	SessionShutdownEvent,
	SessionStartEvent,
	ToolRenderers,
} from "../api.js";
import type { ToolRegistry } from "../registry.js";

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
