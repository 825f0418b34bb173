/**
 * Activating one version of one extension: run its factory against a fresh `ExtensionAPI`, let the
 * caller's `beforeSwap` accept or discard it, then swap it in for the previous version in one step
 * (its place in the load order kept).
 */
import { errorMessage } from "../../contract/errors.js";
import { createExtensionAPI, dispose, type Instance, sourceHandlers } from "../_extension-api.js";
import { replaceServersOf } from "../_mcp-servers.js";
import { withTimeout } from "../_timeout.js";
import type { ExtensionDiagnostic, ExtensionFactory, LoadedExtension } from "../api.js";
import { validateToolDefinition } from "../registry.js";
import { mcpChanged } from "./emit.js";
import { errorPosition, refusedExit, TimeoutError } from "./errors.js";
import { DEFAULT_LOAD_TIMEOUT_MS, type RuntimeState, relay, report } from "./state.js";
import type { ActivateOptions, ActivateResult } from "./types.js";

/** `activate`: run `factory` as the extension at `path` and, when it succeeded and `beforeSwap` agrees, swap it in. Never rejects. */
export async function activate(
	state: RuntimeState,
	path: string,
	factory: ExtensionFactory,
	activateOptions: ActivateOptions = {},
): Promise<ActivateResult> {
	const diagnostics: ExtensionDiagnostic[] = [];
	const started = Date.now();
	const instance = newInstance(path);
	// What the API reports while the factory runs (an event never emitted, an unsupported member)
	// is part of this activation's result, as well as going to the listener.
	const api = createExtensionAPI(instance, {
		registry: state.registry,
		bus: state.bus,
		env: state.env,
		cwd: state.cwd,
		active: state.active,
		kept: state.kept,
		flagValues: state.flagValues,
		mcpTable: state.mcpTable,
		mcpChanged: () => mcpChanged(state),
		report: (diagnostic) => report(state, diagnostic, instance.state === "loading" ? diagnostics : undefined),
		relay: (relayed) => relay(state, relayed),
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
		reportFactoryFailure(state, path, timeoutMs, error, diagnostics);
		return { extension: undefined, diagnostics };
	}
	if (!(await swapAllowed(instance, activateOptions))) {
		dispose(instance);
		return { extension: undefined, diagnostics };
	}
	return { extension: swapIn(state, instance, activateOptions, started, diagnostics), diagnostics };
}

/** A version that has registered nothing yet. */
function newInstance(path: string): Instance {
	return {
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
}

/** The diagnostic of a factory that timed out, tried to end the process or threw. */
function reportFactoryFailure(
	state: RuntimeState,
	path: string,
	timeoutMs: number,
	error: unknown,
	diagnostics: ExtensionDiagnostic[],
): void {
	if (error instanceof TimeoutError) {
		report(
			state,
			{
				severity: "error",
				code: "E_LOAD_TIMEOUT",
				message: `The default export of ${path} did not settle within ${timeoutMs} ms; the extension was not loaded. Move slow work into a session_start handler or a tool.`,
				path,
			},
			diagnostics,
		);
		return;
	}
	const position = errorPosition(error, path);
	const exited = refusedExit(error);
	report(
		state,
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

/** Whether the caller's `beforeSwap` lets the new version in (a throw or rejection counts as no). */
async function swapAllowed(instance: Instance, activateOptions: ActivateOptions): Promise<boolean> {
	if (!activateOptions.beforeSwap) return true;
	try {
		return await activateOptions.beforeSwap({ path: instance.path, tools: [...instance.tools.values()] });
	} catch {
		// a failing gate discards the new version, like an explicit `false`
		return false;
	}
}

/** Replace the previous version (tools, handlers, MCP servers, place in the load order) with `instance`. */
function swapIn(
	state: RuntimeState,
	instance: Instance,
	activateOptions: ActivateOptions,
	started: number,
	diagnostics: ExtensionDiagnostic[],
): LoadedExtension {
	const { path } = instance;
	const { active, byPath, registry } = state;
	const previous = byPath.get(path);
	if (previous) dispose(previous);
	const toolDiagnostics = registry.replaceSource(path, [...instance.tools.values()], sourceHandlers(instance));
	relay(state, toolDiagnostics);
	diagnostics.push(...toolDiagnostics);
	for (const [name, definition] of [...instance.tools]) {
		if (validateToolDefinition(definition).length > 0) instance.tools.delete(name);
	}
	instance.state = "active";
	const record = recordOf(instance, activateOptions, (activateOptions.importMs ?? 0) + (Date.now() - started));
	instance.record = record;
	if (previous) {
		const index = active.indexOf(previous);
		if (index >= 0) active[index] = instance;
		else active.push(instance);
	} else {
		active.push(instance);
	}
	byPath.set(path, instance);
	if ((previous?.mcpServers.size ?? 0) > 0 || instance.mcpServers.size > 0) {
		if (replaceServersOf(state.mcpTable, path, [...instance.mcpServers.values()])) mcpChanged(state);
	}
	return record;
}

/** The `LoadedExtension` of a version: its facts, and what it registered read live. */
function recordOf(instance: Instance, activateOptions: ActivateOptions, durationMs: number): LoadedExtension {
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
}
