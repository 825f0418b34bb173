/**
 * Changing a registry: registering and unregistering tools, replacing or removing everything one
 * extension contributes (tools and handlers) in one step, and choosing the active set. Each change
 * makes a new version (`changed`).
 */
import { activatesOnRegistration } from "../../contract/exposure.js";
import type { ToolDefinition } from "../../contract/tool.js";
import { providerNameProblems } from "../_names.js";
import type { ExtensionDiagnostic } from "../api.js";
import { changed, snapshot } from "./snapshot.js";
import { BUILTIN_SOURCE, type RegistryState, report, reserve, sameSource, sourcePath, winner } from "./state.js";
import type { RegisterResult, SourceHandlers, ToolSource } from "./types.js";
import { toolLabel, validateToolDefinition } from "./validate.js";

/** `register`: one tool for `source`, replacing that source's earlier tool of the same name. */
export function register(state: RegistryState, definition: ToolDefinition, source: ToolSource): RegisterResult {
	const diagnostics: ExtensionDiagnostic[] = [];
	const accepted = add(state, definition, source, diagnostics);
	if (accepted) changed(state);
	return { accepted, diagnostics };
}

/** `unregister`: the tool `name` of `source` (default: the source of the winning one). */
export function unregister(state: RegistryState, name: string, source: ToolSource | undefined): boolean {
	const list = state.byName.get(name);
	if (!list) return false;
	const target = source ?? winner(state, list)?.source;
	if (!target) return false;
	const kept = list.filter((reg) => !sameSource(reg.source, target));
	if (kept.length === list.length) return false;
	if (kept.length === 0) state.byName.delete(name);
	else state.byName.set(name, kept);
	changed(state);
	return true;
}

/** `replaceSource`: everything the extension at `path` contributes, in one version. */
export function replaceSource(
	state: RegistryState,
	path: string,
	tools: readonly ToolDefinition[],
	sourceHandlers: SourceHandlers | undefined,
): ExtensionDiagnostic[] {
	const diagnostics: ExtensionDiagnostic[] = [];
	reserve(state, path);
	removeFromSource(state, path);
	const source: ToolSource = { kind: "extension", path };
	for (const definition of tools) add(state, definition, source, diagnostics);
	putHandlers(state, path, sourceHandlers ?? {});
	changed(state);
	return diagnostics;
}

/** `setHandlers`: only the handlers of the extension at `path`. */
export function setHandlers(state: RegistryState, path: string, sourceHandlers: SourceHandlers): void {
	reserve(state, path);
	putHandlers(state, path, sourceHandlers);
	changed(state);
}

/** `removeSource`: every tool and handler of the extension at `path` (a new version only when there was one). */
export function removeSource(state: RegistryState, path: string): void {
	const removed = removeFromSource(state, path);
	const hadHandlers = state.handlers.delete(path);
	if (removed || hadHandlers) changed(state);
}

/** `setActiveTools`: the names the model sees from now on; unknown names are kept and reported. */
export function setActiveTools(state: RegistryState, names: readonly string[]): ExtensionDiagnostic[] {
	const diagnostics: ExtensionDiagnostic[] = [];
	const known = new Set(snapshot(state).entries.map((entry) => entry.name));
	for (const name of names) {
		if (!known.has(name)) {
			report(
				state,
				{
					severity: "warning",
					code: "W_UNKNOWN_TOOL",
					message: `setActiveTools named "${name}", which is not registered; it becomes active if a tool of that name is registered later.`,
					path: BUILTIN_SOURCE,
				},
				diagnostics,
			);
		}
	}
	state.explicitActive = new Set(names);
	changed(state);
	return diagnostics;
}

/** Validate and add without a new version; returns whether it was accepted. */
export function add(
	state: RegistryState,
	definition: ToolDefinition,
	source: ToolSource,
	into: ExtensionDiagnostic[],
): boolean {
	const path = sourcePath(source);
	const problems = validateToolDefinition(definition);
	if (problems.length > 0) {
		report(
			state,
			{
				severity: "error",
				code: "E_INVALID_TOOL",
				message: `Tool ${toolLabel(definition)} from ${path} was rejected: ${problems.join("; ")}.`,
				path,
			},
			into,
		);
		return false;
	}
	for (const problem of providerNameProblems(definition.name)) {
		report(
			state,
			{
				severity: "warning",
				code: "W_PROVIDER_NAME",
				message: `Tool "${definition.name}" from ${path}: ${problem}.`,
				path,
			},
			into,
		);
	}
	if (source.kind === "extension") reserve(state, source.path);
	const list = (state.byName.get(definition.name) ?? []).filter((reg) => !sameSource(reg.source, source));
	const previous = list.length > 0 ? winner(state, list) : undefined;
	list.push({ definition, source, seq: state.seq++ });
	state.byName.set(definition.name, list);
	noteActivation(state, definition);
	if (source.kind === "extension" && previous) {
		reportOverride(state, definition.name, source, previous.source, winner(state, list)?.source, into);
	}
	return true;
}

/**
 * A tool that appears for the first time after `setActiveTools` is active when its exposure says
 * so (extensions that register tools at runtime expect the model to see them), and so is one whose
 * exposure changed to one that activates (as pi 1.x does on a reload).
 */
function noteActivation(state: RegistryState, definition: ToolDefinition): void {
	const activates = activatesOnRegistration(definition);
	const wasActivating = state.activating.get(definition.name);
	state.activating.set(definition.name, activates);
	if (activates && wasActivating !== true) state.explicitActive?.add(definition.name);
}

/** An extension's tool that takes a name from the built-ins (info) or clashes with another extension's (warning). */
function reportOverride(
	state: RegistryState,
	name: string,
	source: Extract<ToolSource, { kind: "extension" }>,
	previous: ToolSource,
	now: ToolSource | undefined,
	into: ExtensionDiagnostic[],
): void {
	const path = source.path;
	if (previous.kind === "builtin" && now === source) {
		report(
			state,
			{
				severity: "info",
				code: "I_BUILTIN_OVERRIDDEN",
				message: `Tool "${name}" from ${path} replaces the built-in tool of the same name.`,
				path,
			},
			into,
		);
	} else if (previous.kind === "extension") {
		const newWins = now === source;
		const first = newWins ? path : previous.path;
		const ignored = newWins ? previous.path : path;
		report(
			state,
			{
				severity: "warning",
				code: "W_DUPLICATE_TOOL",
				message: `Tool "${name}" is registered by both ${first} and ${ignored}; the one from ${first} (loaded first) is used.`,
				path: ignored,
			},
			into,
		);
	}
}

/** Set (or, when it has none, delete) the handlers of the extension at `path`. */
function putHandlers(state: RegistryState, path: string, sourceHandlers: SourceHandlers): void {
	const toolCall = sourceHandlers.tool_call ?? [];
	const toolResult = sourceHandlers.tool_result ?? [];
	if (toolCall.length > 0 || toolResult.length > 0) state.handlers.set(path, { path, toolCall, toolResult });
	else state.handlers.delete(path);
}

/** Remove every registration of the extension at `path`; whether there was one. */
function removeFromSource(state: RegistryState, path: string): boolean {
	let removed = false;
	for (const [name, list] of state.byName) {
		const kept = list.filter((reg) => sourcePath(reg.source) !== path);
		if (kept.length !== list.length) {
			removed = true;
			if (kept.length === 0) state.byName.delete(name);
			else state.byName.set(name, kept);
		}
	}
	return removed;
}
