/**
 * The public types of the extension host (`createExtensionHost` in `../node-host.ts`): its options,
 * the reload events and ready report it gives, and the `ExtensionHost` it returns.
 */
import type { ToolCall } from "../../contract/content.js";
import type { ExecutionEnv } from "../../contract/env.js";
import type { AgentTool, ToolContextFactory, ToolDefinition } from "../../contract/tool.js";
import type { ExecuteToolCallsConfig, ExecuteToolCallsResult } from "../../exec/types.js";
import type { ExtensionDiagnostic, ExtensionLogger, LoadedExtension } from "../api.js";
import type { ToolRegistry } from "../registry.js";
import type { ExtensionRuntime } from "../runtime.js";

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
