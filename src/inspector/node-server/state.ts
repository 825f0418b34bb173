/**
 * The inspector server's state: what the page shows (the latest diagnostics of each file, the
 * reloads, the calls), the calls running now, the open event streams, and the host's events folded
 * into them (Node only).
 */
import { errorMessage } from "../../contract/errors.js";
import type { ToolDefinition } from "../../contract/tool.js";
import type { ExtensionDiagnostic } from "../../extensions/api.js";
import { displayPath, formatReload, reloadToolFiles, toolFile } from "../../extensions/node-event-lines.js";
import type { ExtensionHostReady, ExtensionReloadEvent } from "../../extensions/node-host.js";
import type { RegistrySnapshot } from "../../extensions/registry.js";
import { type RenderableTool, toolRenderersFor } from "../../render/renderer.js";
import { ansiTheme } from "../../render/theme.js";
import type {
	InspectorCall,
	InspectorDiagnostic,
	InspectorEvent,
	InspectorReload,
	InspectorState,
	InspectorTool,
	InspectorToolsState,
} from "../protocol.js";
import type { InspectorSession } from "../session.js";
import { AnswerBudget } from "./http.js";
import { DEFAULT_MAX_EVENT_STREAMS, DEFAULT_MAX_UNSENT_EVENT_BYTES, EventStreams, eventFrame } from "./streams.js";
import type { InspectorHost, InspectorOptions } from "./types.js";
import { diagnosticView, toJson } from "./views.js";

/** Default bound on the bytes of JSON answers their clients have not taken yet: 64 MiB. */
const DEFAULT_MAX_PENDING_ANSWER_BYTES = 64 * 1024 * 1024;
/** Default time a client has to take a JSON answer before it is cut off: 60 s. */
const DEFAULT_ANSWER_TIMEOUT_MS = 60_000;

/** Reloads kept for the page. */
const MAX_RELOADS = 200;
/** Calls kept in the history. */
const MAX_CALLS = 500;

/** Everything one inspector server keeps between requests. */
export interface ServerState {
	readonly options: InspectorOptions;
	readonly host: InspectorHost;
	readonly session: InspectorSession;
	readonly cwd: string;
	/** Tool names that are built-ins. */
	readonly builtinNames: ReadonlySet<string>;
	/** The latest diagnostics of each file. */
	readonly diagnosticsByFile: Map<string, ExtensionDiagnostic[]>;
	/** Diagnostics of no file. */
	readonly loose: ExtensionDiagnostic[];
	readonly reloads: InspectorReload[];
	readonly calls: InspectorCall[];
	/** How to abort each call that runs now, by its id on the page. */
	readonly running: Map<string, () => void>;
	/** The open event streams. */
	readonly streams: EventStreams;
	/** What the JSON answers not yet taken by their clients hold, within a bound. */
	readonly answers: AnswerBudget;
	/** What to call to stop following the host and the session. */
	readonly unsubscribe: (() => void)[];
	/** Calls started from the page so far (their ids count up). */
	callCounter: number;
	/** Calls made at the `dev --ui` prompt so far. */
	terminalCounter: number;
	/** Eval runs started from the page so far (their ids count up). */
	evalCounter: number;
}

/** A fresh state over `options.host`, holding the diagnostics it is `ready` with. */
export function createServerState(
	options: InspectorOptions,
	builtinNames: readonly string[],
	ready: ExtensionHostReady,
): ServerState {
	const state: ServerState = {
		options,
		host: options.host,
		session: options.session,
		cwd: options.cwd,
		builtinNames: new Set(builtinNames),
		diagnosticsByFile: new Map(),
		loose: [],
		reloads: [],
		calls: [],
		running: new Map(),
		streams: new EventStreams(
			options.maxEventStreams ?? DEFAULT_MAX_EVENT_STREAMS,
			options.maxUnsentEventBytes ?? DEFAULT_MAX_UNSENT_EVENT_BYTES,
		),
		answers: new AnswerBudget(
			options.maxPendingAnswerBytes ?? DEFAULT_MAX_PENDING_ANSWER_BYTES,
			options.answerTimeoutMs ?? DEFAULT_ANSWER_TIMEOUT_MS,
		),
		unsubscribe: [],
		callCounter: 0,
		terminalCounter: 0,
		evalCounter: 0,
	};
	for (const diagnostic of ready.diagnostics) remember(state, diagnostic);
	return state;
}

/** Keeps `diagnostic` under its file (or with those of no file). */
export function remember(state: ServerState, diagnostic: ExtensionDiagnostic): void {
	if (!diagnostic.path) {
		state.loose.push(diagnostic);
		return;
	}
	const list = state.diagnosticsByFile.get(diagnostic.path) ?? [];
	if (!list.includes(diagnostic)) list.push(diagnostic);
	state.diagnosticsByFile.set(diagnostic.path, list);
}

function allDiagnostics(state: ServerState): InspectorDiagnostic[] {
	return [...state.loose, ...[...state.diagnosticsByFile.values()].flat()].map((d) => diagnosticView(d, state.cwd));
}

function toolView(state: ServerState, entry: RegistrySnapshot["active"][number]): InspectorTool {
	const { host, cwd } = state;
	const d = entry.definition;
	const path = entry.source.kind === "extension" ? entry.source.path : undefined;
	const file = toolFile(entry, host.extensions?.() ?? []) ?? path;
	return {
		name: entry.name,
		label: typeof d.label === "string" ? d.label : entry.name,
		description: typeof d.description === "string" ? d.description : "",
		kind: path === undefined ? "builtin" : state.builtinNames.has(entry.name) ? "override" : "extension",
		...(file !== undefined ? { source: displayPath(file, cwd) } : {}),
		mode: d.executionMode === "sequential" ? "sequential" : "parallel",
		parameters: toJson(d.parameters),
		...(typeof d.promptSnippet === "string" ? { promptSnippet: d.promptSnippet } : {}),
		...(Array.isArray(d.promptGuidelines) ? { promptGuidelines: d.promptGuidelines.map(String) } : {}),
		diagnostics: (path ? (state.diagnosticsByFile.get(path) ?? []) : []).map((x) => diagnosticView(x, cwd)),
	};
}

/** The tools, diagnostics and prompt as they are now. */
export function toolsState(state: ServerState): InspectorToolsState {
	let prompt: string;
	try {
		prompt = state.host.buildToolsPrompt();
	} catch (error) {
		prompt = `(the prompt could not be built: ${errorMessage(error)})`;
	}
	return {
		cwd: state.cwd,
		env: state.options.envKind,
		tools: state.host.registry.snapshot().active.map((entry) => toolView(state, entry)),
		diagnostics: allDiagnostics(state),
		prompt,
	};
}

/** Everything the page shows, as `GET /api/state` and the `hello` event give it. */
export function pageState(state: ServerState): InspectorState {
	return { ...toolsState(state), reloads: [...state.reloads], calls: [...state.calls] };
}

/** Sends `event` down every open event stream (dropping a client that fell behind instead). */
export function broadcast(state: ServerState, event: InspectorEvent): void {
	state.streams.broadcast(eventFrame(event));
}

/** Shows `call` in the history (in the place of the call of its id, if any) and tells the page. */
export function replaceCall(state: ServerState, call: InspectorCall): void {
	const { calls } = state;
	const index = calls.findIndex((c) => c.id === call.id);
	if (index >= 0) calls[index] = call;
	else {
		calls.push(call);
		if (calls.length > MAX_CALLS) calls.shift();
	}
	broadcast(state, { type: "call", call });
}

export function activeDefinition(state: ServerState, name: string): ToolDefinition | undefined {
	return state.host.registry.snapshot().active.find((t) => t.name === name)?.definition;
}

/** What draws calls to `name`: the extensions' tool renderers, then the tool's own. */
export function renderersOf(state: ServerState, name: string): RenderableTool | undefined {
	return toolRenderersFor(state.host.runtime, name, activeDefinition(state, name));
}

/** What draws calls to `name`, among the callable tools too: a tool may call one that is not active (a `codemode` tool, say). */
export function callableRenderersOf(state: ServerState, name: string): RenderableTool | undefined {
	const snapshot = state.host.registry.snapshot();
	const definition = (snapshot.active.find((t) => t.name === name) ?? snapshot.callable?.find((t) => t.name === name))
		?.definition;
	return toolRenderersFor(state.host.runtime, name, definition);
}

/** Folds the host's reloads and diagnostics into `state` and tells the page of each. */
export function followHost(state: ServerState): void {
	const { host, cwd, diagnosticsByFile, reloads } = state;
	state.unsubscribe.push(
		host.on("reload", (event: ExtensionReloadEvent) => {
			// A diagnostic of a module the extension imports (a syntax error in src/tools/x.ts) was
			// remembered under that module: this load of the extension replaces it too.
			const modules = host.extensions?.().find((e) => e.path === event.path)?.modules ?? [];
			for (const file of [...event.files, ...modules]) if (file !== event.path) diagnosticsByFile.delete(file);
			diagnosticsByFile.set(event.path, [...event.diagnostics]);
			if (event.kind === "unload" && event.diagnostics.length === 0) diagnosticsByFile.delete(event.path);
			const reload: InspectorReload = {
				at: Date.now(),
				path: event.path,
				kind: event.kind,
				ok: event.ok,
				durationMs: event.durationMs,
				added: [...event.added],
				removed: [...event.removed],
				changed: [...event.changed],
				lines: formatReload(
					event,
					cwd,
					ansiTheme,
					host.extensions
						? reloadToolFiles({ registry: host.registry, extensions: () => host.extensions?.() ?? [] }, event.path)
						: undefined,
				),
				diagnostics: event.diagnostics.map((d) => diagnosticView(d, cwd)),
			};
			reloads.push(reload);
			if (reloads.length > MAX_RELOADS) reloads.shift();
			broadcast(state, { type: "reload", reload, state: toolsState(state) });
		}),
		host.on("diagnostic", (diagnostic: ExtensionDiagnostic) => {
			remember(state, diagnostic);
			broadcast(state, { type: "diagnostic", diagnostic: diagnosticView(diagnostic, cwd), state: toolsState(state) });
		}),
	);
}
