/**
 * The state of one extension runtime: the env and folder, the registry it fills, the active
 * versions in load order, what outlives a version (`api.state`), the MCP servers they registered,
 * and the listeners. Its steps (activate, remove, emit, contexts, renderers) are functions over it,
 * in the files beside this one.
 */

import type { ExecutionEnv } from "../../contract/env.js";
import { errorMessage } from "../../contract/errors.js";
import { notifyListeners } from "../../shared/listeners.js";
import { createEventBus } from "../_event-bus.js";
import type { Instance } from "../_extension-api.js";
import type { McpServerTable } from "../_mcp-servers.js";
import { createHeadlessSession, type HeadlessSession } from "../_session.js";
import type { EventBus, ExtensionContext, ExtensionDiagnostic, ExtensionLogger, RegisteredMcpServer } from "../api.js";
import { createToolRegistry, type ToolRegistry } from "../registry.js";
import type { ExtensionRuntimeOptions } from "./types.js";

/** Default bound for one extension's factory. */
export const DEFAULT_LOAD_TIMEOUT_MS = 10_000;

/** Everything one runtime holds; its steps are functions over it. */
export interface RuntimeState {
	readonly options: ExtensionRuntimeOptions;
	readonly env: ExecutionEnv;
	readonly cwd: string;
	readonly log: ExtensionLogger;
	readonly registry: ToolRegistry;
	readonly bus: EventBus;
	/** Active instances in load order. */
	readonly active: Instance[];
	readonly byPath: Map<string, Instance>;
	/** `api.state` of each extension, by path: outlives its versions, goes with `remove`. */
	readonly kept: Map<string, Map<string, unknown>>;
	readonly flagValues: ReadonlyMap<string, boolean | string>;
	readonly mcpTable: McpServerTable;
	readonly mcpListeners: Set<(servers: RegisteredMcpServer[]) => void>;
	/** Set by the first `session_start` (`startup`) to all: from then on MCP changes are emitted as events. */
	started: boolean;
	/** The session contexts show: never written, this runtime's folder. */
	readonly session: HeadlessSession;
	/**
	 * The base of the contexts of each extension (and of the built-ins, under undefined), made once:
	 * a context is built for every tool call, and the headless UI alone has some thirty members.
	 */
	readonly contextBases: Map<string | undefined, ExtensionContext>;
}

/** The state of a new runtime, with no extension yet (a new registry with the built-ins unless one was given). */
export function createRuntimeState(options: ExtensionRuntimeOptions): RuntimeState {
	const env = options.env;
	const cwd = options.cwd ?? env.cwd;
	const registry =
		options.registry ?? createToolRegistry({ builtins: options.builtins ?? [], onDiagnostic: options.onDiagnostic });
	const bus = createEventBus((channel, error) =>
		report(
			{ options },
			{
				severity: "error",
				code: "E_HANDLER_FAILED",
				message: `A listener of the event bus channel "${channel}" threw: ${errorMessage(error)}.`,
				path: "events",
			},
		),
	);
	return {
		options,
		env,
		cwd,
		log: options.log ?? (() => {}),
		registry,
		bus,
		active: [],
		byPath: new Map(),
		kept: new Map(),
		flagValues: new Map(Object.entries(options.flags ?? {})),
		mcpTable: { servers: new Map() },
		mcpListeners: new Set(),
		started: false,
		session: createHeadlessSession(cwd),
		contextBases: new Map(),
	};
}

/** Tell the runtime's diagnostic listener (a listener that throws is ignored), and add it to `into`. */
export function report(
	state: Pick<RuntimeState, "options">,
	diagnostic: ExtensionDiagnostic,
	into?: ExtensionDiagnostic[],
): void {
	into?.push(diagnostic);
	notifyListeners([state.options.onDiagnostic], diagnostic);
}

/** Diagnostics of a registry the runtime did not create have not reached its listener yet. */
export function relay(state: RuntimeState, diagnostics: readonly ExtensionDiagnostic[]): void {
	if (state.options.registry) for (const diagnostic of diagnostics) report(state, diagnostic);
}
