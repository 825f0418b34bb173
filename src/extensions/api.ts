/**
 * The extension API: what an extension's default export receives, the events it can listen to,
 * the diagnostics the runtime reports and what it keeps of a loaded extension. Types only (plus
 * `API_VERSION` and the `defineExtension` identity helper), no `node:` imports, so tools and tests
 * written against it run anywhere.
 */
import type { JsonValue, ToolResultContent } from "../contract/content.js";
import type { TSchema } from "../contract/schema.js";
import type {
	ToolAnnotations,
	ToolContext,
	ToolDefinition,
	ToolDefinitionInput,
	ToolExposure,
	ToolNamespace,
} from "../contract/tool.js";

/**
 * The version of the extension API this build of toolsmith implements (semver). Extensions declare
 * the range they need in `engines.toolsmith`; a major bump means a breaking change of this file.
 */
export const API_VERSION = "1.2.0";

/**
 * Codes of extension diagnostics, one per problem the runtime reports. Match on `code`, never
 * on the message.
 *
 * - `E_PATH_NOT_FOUND`: a path given to discovery does not exist.
 * - `E_MANIFEST`: a package.json could not be read, or names an entry that does not exist.
 * - `E_SYNTAX`: the extension (or a module it imports) does not parse.
 * - `E_EXTENSION_LOAD`: evaluating the module failed (it threw, or an import could not be resolved).
 * - `E_NO_FACTORY`: the module has no default export, or the default export is not a function.
 * - `E_FACTORY_FAILED`: the default export threw or rejected.
 * - `E_LOAD_TIMEOUT`: the default export did not settle within `loadTimeoutMs`.
 * - `E_INCOMPATIBLE`: the extension's `engines.toolsmith` range excludes this `API_VERSION`.
 * - `E_INVALID_ENGINES`: the extension's `engines.toolsmith` is not a valid semver range.
 * - `E_INVALID_TOOL`: a tool definition broke a registration rule; the tool was rejected.
 * - `W_DUPLICATE_TOOL`: two extensions register one tool name; the one loaded first is used.
 * - `E_HANDLER_FAILED`: an event handler threw or rejected (the event went on without it).
 * - `E_UNCAUGHT`: an uncaught exception or unhandled rejection, caught by a host that catches
 *   stray errors (`catchStrayErrors`; `toolsmith dev` does); `path` names the extension whose file
 *   is on the stack, or is empty when none is.
 * - `E_PROCESS_EXIT`: the extension called `process.exit` (or `reallyExit`, `abort`) while loading,
 *   or in a timer or promise of its own, in a host that refuses it (`refuseProcessExit`; the CLI does).
 * - `W_PROVIDER_NAME`: a tool name is valid here but a provider's rule is stricter.
 * - `W_UNKNOWN_TOOL`: `setActiveTools` named a tool that is not registered.
 * - `W_UNSUPPORTED_API`: an extension used an API member toolsmith accepts but does not implement.
 * - `W_LATE_CALL`: an unloaded (or timed-out) extension called the API; the call was ignored.
 * - `I_BUILTIN_OVERRIDDEN`: an extension tool replaces the built-in tool of the same name.
 * - `I_EVENT_NOT_EMITTED`: an extension listens to an event toolsmith never emits.
 * - `E_MCP_SERVER`: an MCP server an extension registered could not be connected, exited, or
 *   reported a problem with one of its tools (the severity says how bad).
 * - `E_RENDERER_FAILED`: a tool renderer resolver (`registerToolRenderer`) threw or returned
 *   something that is not renderers; the next resolver (or the tool's own renderers) was used.
 */
export type ExtensionDiagnosticCode =
	| "E_PATH_NOT_FOUND"
	| "E_MANIFEST"
	| "E_SYNTAX"
	| "E_EXTENSION_LOAD"
	| "E_NO_FACTORY"
	| "E_FACTORY_FAILED"
	| "E_LOAD_TIMEOUT"
	| "E_INCOMPATIBLE"
	| "E_INVALID_ENGINES"
	| "E_INVALID_TOOL"
	| "W_DUPLICATE_TOOL"
	| "E_HANDLER_FAILED"
	| "E_UNCAUGHT"
	| "E_PROCESS_EXIT"
	| "W_PROVIDER_NAME"
	| "W_UNKNOWN_TOOL"
	| "W_UNSUPPORTED_API"
	| "W_LATE_CALL"
	| "I_BUILTIN_OVERRIDDEN"
	| "I_EVENT_NOT_EMITTED"
	| "E_MCP_SERVER"
	| "E_RENDERER_FAILED";

/** How bad a diagnostic is: `error` (something did not load or run), `warning` (it did, with a problem), `info` (a note). */
export type DiagnosticSeverity = "error" | "warning" | "info";

/** One problem found while discovering, loading or running extensions. Never thrown: collected. */
export interface ExtensionDiagnostic {
	readonly severity: DiagnosticSeverity;
	readonly code: ExtensionDiagnosticCode;
	/** A full sentence that names the file, the tool or the rule, and what to do. */
	readonly message: string;
	/** The file the diagnostic is about (an extension entry, a module it imports, a package.json). */
	readonly path: string;
	/** 1-based line, when the problem has a position. */
	readonly line?: number;
	/** 1-based column, when the problem has a position. */
	readonly column?: number;
}

/**
 * Receives diagnostics as they happen (also those raised after loading, e.g. by a tool registered
 * from a `session_start` handler). May throw: the error is swallowed.
 */
export type DiagnosticListener = (diagnostic: ExtensionDiagnostic) => void;

/** A line for the host's log: `ui.notify` calls and runtime messages. May throw: swallowed. */
export type ExtensionLogger = (entry: {
	readonly level: "info" | "warning" | "error";
	readonly message: string;
	/** The extension that logged it, when there is one. */
	readonly path?: string;
}) => void;

// ---------------------------------------------------------------------------------------------
// Events

/** Emitted when a session starts (`startup`) and to an extension after it was reloaded (`reload`). */
export interface SessionStartEvent {
	readonly type: "session_start";
	readonly reason: "startup" | "reload";
}

/** Emitted before an extension goes away: the host exits, or the extension is about to be reloaded. */
export interface SessionShutdownEvent {
	readonly type: "session_shutdown";
	readonly reason: "reload" | "exit";
}

/**
 * Emitted before a tool runs, after its arguments were validated. `input` is the object the tool
 * will receive: a handler may change it in place, and later handlers see the change.
 */
export interface ToolCallEvent {
	readonly type: "tool_call";
	readonly toolCallId: string;
	readonly toolName: string;
	readonly input: Record<string, unknown>;
	/** Set for a call another tool made (`ctx.executeTool`, pi 1.x): the calling call's id. */
	readonly parentToolCallId?: string;
}

/**
 * What a `tool_call` handler may return: `{ block: true, reason }` stops the call; `terminate: true`
 * with it asks the loop to stop after the batch (pi 1.x; it stops only if every result asks).
 */
export interface ToolCallEventResult {
	readonly block?: boolean;
	readonly reason?: string;
	readonly terminate?: boolean;
}

/** Emitted after a tool settled (also when it threw). Handlers see the result as patched so far. */
export interface ToolResultEvent {
	readonly type: "tool_result";
	readonly toolCallId: string;
	readonly toolName: string;
	readonly input: Record<string, unknown>;
	readonly content: ToolResultContent[];
	readonly details: unknown;
	/** The result's `structuredContent` (pi 1.x): handlers that redact `content` should replace it too. */
	readonly structuredContent?: JsonValue;
	readonly isError: boolean;
	/** Set for a call another tool made (`ctx.executeTool`, pi 1.x): the calling call's id. */
	readonly parentToolCallId?: string;
}

/** A partial patch: each field present replaces the result's field; omitted fields stay. */
export interface ToolResultEventResult {
	readonly content?: ToolResultContent[];
	readonly details?: unknown;
	/** Replaces `structuredContent`; replacing `content` without it drops the structured content. */
	readonly structuredContent?: JsonValue;
	readonly isError?: boolean;
}

/**
 * Emitted when an extension registers or unregisters an MCP server (or a reload or removal of an
 * extension changes the servers it registered) once the session started. Servers registered while
 * extensions load are read with `api.getMcpServers()` in a `session_start` handler.
 */
export interface McpServersChangeEvent {
	readonly type: "mcp_servers_change";
	/** Every registered server after the change. */
	readonly servers: RegisteredMcpServer[];
}

/** Events toolsmith emits to extensions, by name. */
export interface ExtensionEventMap {
	session_start: SessionStartEvent;
	session_shutdown: SessionShutdownEvent;
	tool_call: ToolCallEvent;
	tool_result: ToolResultEvent;
	mcp_servers_change: McpServersChangeEvent;
}

/** What a handler of each event may return. */
export interface ExtensionEventResultMap {
	session_start: undefined;
	session_shutdown: undefined;
	tool_call: ToolCallEventResult | undefined;
	tool_result: ToolResultEventResult | undefined;
	mcp_servers_change: undefined;
}

/** The name of an event extensions can handle with `api.on`. */
export type ExtensionEventName = keyof ExtensionEventMap;

/**
 * Handles one event. May throw or reject: for `tool_call` the call is then blocked with the error's
 * message; for the other events the error becomes an `E_HANDLER_FAILED` diagnostic and the
 * remaining handlers still run.
 */
export type ExtensionHandler<E extends ExtensionEventName> = (
	event: ExtensionEventMap[E],
	ctx: ExtensionContext,
	// biome-ignore lint/suspicious/noConfusingVoidType: handlers written as `async () => {}` return Promise<void>.
) => ExtensionEventResultMap[E] | void | Promise<ExtensionEventResultMap[E] | void>;

// ---------------------------------------------------------------------------------------------
// Context, bus, exec

/** The `ctx` extension tools and handlers receive: a `ToolContext` that always names its extension. */
export interface ExtensionContext extends ToolContext {
	readonly extension: { readonly path: string };
}

/**
 * A message bus shared by every extension of one runtime, for extensions that talk to each other.
 * A throwing listener is reported and does not stop the others.
 */
export interface EventBus {
	emit(channel: string, data: unknown): void;
	/** Returns a function that removes the listener. */
	on(channel: string, handler: (data: unknown) => void): () => void;
}

/** Options for `api.exec`: cancellation, a timeout in milliseconds, and the working folder. */
export interface ExtensionExecOptions {
	readonly signal?: AbortSignal;
	/** Milliseconds before the process tree is killed (the reference API's unit). */
	readonly timeout?: number;
	/** Working folder; defaults to the runtime's `cwd`. */
	readonly cwd?: string;
}

/** What `api.exec` resolves with: the output, the exit code, and whether the command was killed. */
export interface ExtensionExecResult {
	readonly stdout: string;
	readonly stderr: string;
	/** The exit code; 1 when the command could not be started. */
	readonly code: number;
	/** True when the command was stopped by the timeout or the signal. */
	readonly killed: boolean;
}

/** A tool as `getAllTools` lists it. */
export interface ToolInfo {
	readonly name: string;
	readonly description: string;
	readonly parameters: TSchema;
	/** The tool's `promptGuidelines`, when it has any. */
	readonly promptGuidelines?: readonly string[];
	/** How the model reaches it: the tool's `exposure`, `"direct"` when it declares none. */
	readonly exposure: ToolExposure;
	readonly namespace?: ToolNamespace;
	readonly annotations?: ToolAnnotations;
	/** The tool's `reachesTools`, for tools that reach other tools. */
	readonly reachesTools?: (input: Record<string, unknown>) => "all" | readonly string[];
	/** `"builtin"` or the absolute path of the extension that registered it. */
	readonly source: string;
	/** Whether it is active: declared to the model (see `ToolExposure`). */
	readonly active: boolean;
	/** Whether other tools may call it through nested calls (see `isToolCallable`). */
	readonly callable: boolean;
}

/** A command an extension registered with `api.registerCommand`, as hosts see it. */
export interface RegisteredCommand {
	readonly name: string;
	readonly description?: string;
	/** Runs the command. May throw: hosts report the error. */
	readonly handler: (args: string, ctx: ExtensionContext) => unknown;
	/** The extension that registered it. */
	readonly path: string;
}

/** A flag an extension registered with `api.registerFlag`, as hosts see it. */
export interface RegisteredFlag {
	readonly name: string;
	readonly description?: string;
	readonly type: "boolean" | "string";
	readonly default?: boolean | string;
	readonly path: string;
}

/**
 * Values an extension keeps for the whole session: they outlive a hot reload of the extension
 * (the new version finds what the previous one kept) and go when the extension is removed or the
 * session ends. Each extension has its own; keys are its own business.
 */
export interface ExtensionState {
	/** The value kept under `key`; on first use `init()` is kept and returned. */
	keep<T>(key: string, init: () => T): T;
	/** Keep `value` under `key`, replacing what was there. */
	set(key: string, value: unknown): void;
	/** Forget `key`; whether it was kept. */
	delete(key: string): boolean;
}

// ---------------------------------------------------------------------------------------------
// Tool renderers and MCP servers

/**
 * The renderers of one tool, as a tool definition has them (any may be missing), and whether they
 * draw their own frame (`renderShell`, pi 1.x).
 */
export type ToolRenderers = Pick<ToolDefinition, "renderCall" | "renderResult" | "renderShell">;

/**
 * Chooses how calls to a tool are drawn, for any tool name, including tools registered later (an
 * MCP server's) and tools that are not registered at all. `next()` returns what the resolvers of
 * extensions loaded later, then the registered tool, would use: return `next()` to leave a tool
 * alone, `next() ?? mine` to fill in only. The object returned is used whole (its `renderCall`,
 * `renderResult` and `renderShell`, not merged with the tool's). May throw: the error is reported as an
 * `E_RENDERER_FAILED` diagnostic and `next()` is used instead.
 */
export type ToolRendererResolver = (
	toolName: string,
	next: () => ToolRenderers | undefined,
) => ToolRenderers | undefined;

/** What every MCP server entry may say besides how to reach the server (the `mcpServers` fields of pi). */
export interface McpServerConfigBase {
	/** What the server offers, in a sentence. Kept and listed; toolsmith does not use it further. */
	readonly description?: string;
	/** `false` registers the server without connecting it. */
	readonly enabled?: boolean;
	/** Seconds one call may go without an answer or a progress notification (default 60). */
	readonly timeout?: number;
	/** pi's exposure of the server's tools. Accepted and kept; toolsmith registers every tool as a plain tool. */
	readonly exposure?: "codemode" | "deferred" | "direct" | "hidden";
	/** pi's exposure of single tools. Accepted and kept, not applied. */
	readonly toolExposure?: Readonly<Record<string, "codemode" | "deferred" | "direct" | "hidden">>;
}

/** An MCP server started as a child process (stdio). */
export interface McpStdioServerConfig extends McpServerConfigBase {
	readonly command: string;
	readonly args?: readonly string[];
	/** Added to the few variables the child inherits. */
	readonly env?: Readonly<Record<string, string>>;
	/** Relative paths resolve against the session's working folder. */
	readonly cwd?: string;
}

/** An MCP server reached over Streamable HTTP. */
export interface McpHttpServerConfig extends McpServerConfigBase {
	readonly url: string;
	readonly headers?: Readonly<Record<string, string>>;
}

/** How to reach an MCP server: the shape of an `mcpServers` entry of pi's `mcp.json`. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** A server an extension registered with `api.registerMcpServer`. */
export interface RegisteredMcpServer {
	readonly name: string;
	readonly config: McpServerConfig;
	/** The extension that registered it. */
	readonly extensionPath: string;
}

// ---------------------------------------------------------------------------------------------
// The API

/**
 * What an extension's default export receives. Registration methods (`registerTool`, `on`,
 * `registerCommand`, `registerFlag`) work during load and later. Action methods (`exec`,
 * `getAllTools`, `getActiveTools`, `setActiveTools`) throw a `ToolsmithError` with code
 * `E_NOT_READY` while the extension's default export is still running: call them from handlers,
 * tools or commands instead.
 */
export interface ExtensionAPI {
	/**
	 * Add a tool, or replace one this extension registered before under the same name. An invalid
	 * definition is rejected with an `E_INVALID_TOOL` diagnostic; never throws. A definition written
	 * inline is typed as `defineTool` types it.
	 */
	registerTool<const TParameters extends TSchema, TDetails = unknown, TUpdateDetails = TDetails>(
		definition: ToolDefinitionInput<TParameters, TDetails, string, TUpdateDetails>,
	): void;
	/**
	 * A definition made before, of any parameters and details: also a union of definitions of
	 * different shapes, as `Object.values` of a module of tools gives (`for (const tool of
	 * Object.values(tools)) api.registerTool(tool)`), which the generic form cannot infer from.
	 */
	registerTool(definition: ToolDefinition): void;
	/** Remove a tool this extension registered. Unknown names are ignored. */
	unregisterTool(name: string): void;
	/**
	 * Listen to an event. Handlers of every extension run in load order. Returns a function that
	 * removes this handler again (as pi 1.x's `on` does).
	 */
	on<E extends ExtensionEventName>(event: E, handler: ExtensionHandler<E>): () => void;
	/** The bus shared by all extensions of this runtime. */
	readonly events: EventBus;
	/**
	 * Run `command` with `args` through the env's shell (each argument quoted, so nothing is
	 * interpreted). Never rejects for a failing command: see `code` and `killed`.
	 */
	exec(command: string, args: readonly string[], options?: ExtensionExecOptions): Promise<ExtensionExecResult>;
	/** Every registered tool (the winners, when names collide). */
	getAllTools(): ToolInfo[];
	/** Names of the tools the model currently sees. */
	getActiveTools(): string[];
	/**
	 * Choose the tools the model sees (any exposure but `hidden`, which stays inactive). Unknown names
	 * get a `W_UNKNOWN_TOOL` diagnostic.
	 */
	setActiveTools(names: readonly string[]): void;
	/** Accepted and listed for hosts that offer commands (`toolsmith dev` lists them). */
	registerCommand(name: string, options: { description?: string; handler: RegisteredCommand["handler"] }): void;
	/**
	 * Accepted and listed. `getFlag` returns the value the host was given for it (the `flags`
	 * option of `createExtensionRuntime`, `loadExtensions` and `createExtensionHost`, as a command
	 * line gives `--name value`), else its default.
	 */
	registerFlag(
		name: string,
		options: { description?: string; type: "boolean" | "string"; default?: boolean | string },
	): void;
	/**
	 * The value of a flag this extension registered: the host's value for it, else its default;
	 * `undefined` for a flag it did not register. Flags are read once the host is ready (in a
	 * `session_start` handler, a tool or a command), as in pi.
	 */
	getFlag(name: string): boolean | string | undefined;
	/**
	 * State for the session that survives hot reloads of this extension: keep what must outlive a
	 * reload here rather than in module or closure variables, which a reload starts afresh. Usable
	 * during load (read what the previous version kept) and later.
	 */
	readonly state: ExtensionState;
	/**
	 * Choose how calls to tools are drawn (`toolsmith dev`, the inspector): `resolver` is asked for
	 * every tool name at render time, so it also covers tools registered later. Resolvers run in
	 * extension load order, before the tool's own `renderCall`/`renderResult` (see
	 * `ToolRendererResolver`). They go with the extension's version: a reload starts afresh.
	 */
	registerToolRenderer(resolver: ToolRendererResolver): void;
	/**
	 * Register an MCP server for the session: the host connects it and registers its tools as
	 * `mcp__<server>__<tool>` (characters other than letters, digits and `_` become `_`), removing
	 * them when the server is unregistered or the extension reloads or goes. Registering a name again
	 * replaces this extension's earlier registration. Throws a `ToolsmithError`
	 * (`E_INVALID_MCP_SERVER`) for an invalid name or config and for a name another extension
	 * registered. Registrations made while loading take effect when the version becomes active.
	 */
	registerMcpServer(name: string, config: McpServerConfig): void;
	/** Remove an MCP server this extension registered, closing its connection and removing its tools. */
	unregisterMcpServer(name: string): void;
	/** Every MCP server extensions registered, in registration order (copies). */
	getMcpServers(): RegisteredMcpServer[];
}

/**
 * The default export of an extension module. May be async. May throw or reject: the extension is
 * then not loaded (its registrations are dropped) and an `E_FACTORY_FAILED` diagnostic names it.
 */
export type ExtensionFactory = (api: ExtensionAPI) => void | Promise<void>;

/**
 * Identity helper that types the API parameter.
 * @example
 * export default defineExtension((api) => { api.registerTool(myTool); });
 */
export function defineExtension<const F extends ExtensionFactory>(factory: F): F {
	return factory;
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
