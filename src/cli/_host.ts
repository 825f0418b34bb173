/**
 * The host the `dev` loop drives: what it needs from the extension host, and nothing more, so the
 * loop can be exercised with a fake and wired to the real host with a thin adapter.
 */
import type { ToolCall } from "../contract/content.js";
import type { ToolExecutionEventListener } from "../contract/events.js";
import type { TSchema } from "../contract/schema.js";
import type { ToolDefinition, ToolExecutionMode } from "../contract/tool.js";
import type { ExecuteToolCallsResult } from "../exec/types.js";

/** One active tool as the loop lists it. */
export interface DevToolEntry {
	readonly name: string;
	/** `builtin`, or the absolute path of the extension that registered the tool. */
	readonly source: string;
	readonly executionMode: ToolExecutionMode;
	readonly parameters: TSchema;
	/** The current definition, for `renderCall` / `renderResult`. */
	readonly definition: ToolDefinition;
}

export type DevDiagnosticLevel = "error" | "warning" | "info";

/** A problem (or note) about an extension or a tool. */
export interface DevDiagnostic {
	readonly level: DevDiagnosticLevel;
	readonly message: string;
	/** The file concerned, absolute. */
	readonly path?: string;
	/** 1-based. */
	readonly line?: number;
	/** 1-based. */
	readonly column?: number;
	readonly code?: string;
}

/** One (re)load of one extension. */
export interface DevReloadEvent {
	/** The extension's entry file, absolute. */
	readonly path: string;
	/** `reload` (default): a changed file; `load`: a new file; `unload`: a deleted one. */
	readonly kind?: "reload" | "load" | "unload";
	readonly durationMs: number;
	/** Tool names that appeared, disappeared, and whose definition changed. */
	readonly added: readonly string[];
	readonly removed: readonly string[];
	readonly changed: readonly string[];
	/** Any error here means the new version was rejected and the previous one stays active. */
	readonly diagnostics: readonly DevDiagnostic[];
}

/** A command an extension registered (`api.registerCommand`), run at the prompt as `/name args`. */
export interface DevCommandEntry {
	readonly name: string;
	readonly description?: string;
	/** The extension that registered it, absolute. */
	readonly source: string;
}

export interface DevExecuteOptions {
	readonly signal?: AbortSignal;
	readonly onEvent?: ToolExecutionEventListener;
}

export interface DevHost {
	/** The active tools, built-ins and extension tools, in registry order. */
	tools(): DevToolEntry[];
	/** Runs a batch through the executor over the current registry snapshot. Never rejects. */
	execute(toolCalls: readonly ToolCall[], options: DevExecuteOptions): Promise<ExecuteToolCallsResult>;
	/**
	 * Subscribe to reloads or diagnostics emitted after startup. Returns an unsubscribe function.
	 * Listener errors are swallowed by the host. A diagnostic raised by a reload may arrive both on
	 * its own and in the reload event: it must then be the same object (the loop shows it once).
	 */
	on(event: "reload", listener: (event: DevReloadEvent) => void): () => void;
	on(event: "diagnostic", listener: (diagnostic: DevDiagnostic) => void): () => void;
	/** The "Available tools" / "Guidelines" system-prompt section for the active tools. */
	buildToolsPrompt(): string;
	/** Commands the extensions registered; optional. */
	commands?(): DevCommandEntry[];
	/**
	 * Run an extension command with the rest of the line as its argument string. Rejects with the
	 * handler's error (the loop prints it); optional.
	 */
	runCommand?(name: string, args: string): Promise<void>;
	/** Reload one extension, or all when `path` is absent; optional. */
	reload?(path?: string): Promise<void>;
	/** Stops watching and runs the extensions' shutdown handlers. Never rejects. */
	close(): Promise<void>;
}

export interface DevHostOptions {
	/** Extension files or folders, absolute. */
	readonly paths: readonly string[];
	readonly env: "node" | "memory";
	/** The working folder tools see, absolute. */
	readonly cwd: string;
	readonly watch: boolean;
	/** Where `ctx.ui.notify` messages go. */
	readonly log: (message: string, level: "info" | "warning" | "error") => void;
}

/** What starting a host gives: the host and the diagnostics of the initial load. */
export interface StartedDevHost {
	readonly host: DevHost;
	readonly diagnostics: readonly DevDiagnostic[];
	/** Whether the host watches the extension files (false when `watch` was off or is unsupported). */
	readonly watching: boolean;
}

/** Builds the host for `toolsmith dev`. Rejects when the host cannot start at all. */
export type DevHostFactory = (options: DevHostOptions) => Promise<StartedDevHost>;

/** The factory `toolsmith dev` uses; the loader is imported on first use so `--help` stays fast. */
export const createDevHost: DevHostFactory = async (options) => {
	const { createNodeDevHost } = await import("./_host-node.js");
	return createNodeDevHost(options);
};
