/**
 * Loading one extension, or a new version of it: import it fresh, run its factory while the
 * previous version keeps serving, and swap it in only when its tools are valid. The previous
 * version's `session_shutdown` runs right before the swap (batches wait meanwhile), the new
 * version's `session_start` right after it.
 */
import { errorMessage } from "../../contract/errors.js";
import { toolChanges } from "../_tool-changes.js";
import type { ExtensionDiagnostic, ExtensionFactory, LoadedExtension } from "../api.js";
import { importExtension, reportCompatTo } from "../node-loader.js";
import { validateToolDefinition } from "../registry.js";
import type { StagedExtension } from "../runtime.js";
import { collectDiagnostics, fingerprint, type HostState, type Known, logError, toolsOf } from "./state.js";
import type { ExtensionReloadEvent } from "./types.js";

/** What started one load: a file change, `reload()`, or the initial load (no event, one `session_start` for all). */
export type ActivateTrigger = "watch" | "manual" | "startup";

/** One attempt to load a version of one extension. */
interface Attempt {
	readonly path: string;
	readonly trigger: ActivateTrigger;
	/** The version active before, if any. */
	readonly previous: LoadedExtension | undefined;
}

/**
 * Import, run and swap in one extension (`startup`: part of the initial load, so no per-extension
 * `session_start` and no event). Never rejects.
 */
export async function activateOne(
	state: HostState,
	entry: Known,
	trigger: ActivateTrigger,
	changedFiles: readonly string[],
): Promise<ExtensionReloadEvent> {
	const path = entry.entry.path;
	const started = performance.now();
	const before = toolsOf(state, path);
	const attempt: Attempt = { path, trigger, previous: state.runtime.get(path) };
	const diagnostics: ExtensionDiagnostic[] = [];
	const ok = await collectDiagnostics(state, path, diagnostics, async () => {
		try {
			return await importAndActivate(state, entry, attempt);
		} catch (error) {
			// importExtension and activate never reject; this is a bug guard, not a code path.
			logError(state, `Reloading ${path} failed unexpectedly: ${errorMessage(error)}`);
			return false;
		}
	});
	entry.failed = !ok;
	return {
		path,
		kind: attempt.previous ? "reload" : "load",
		ok,
		trigger: trigger === "startup" ? "manual" : trigger,
		files: [...changedFiles],
		durationMs: performance.now() - started,
		...toolChanges(before, toolsOf(state, path)),
		diagnostics,
	};
}

/** Fingerprint the modules, import the entry fresh and, when it has a factory, activate it. */
async function importAndActivate(state: HostState, entry: Known, attempt: Attempt): Promise<boolean> {
	const { path } = attempt;
	entry.signatures = new Map([...new Set([path, ...entry.modules])].map((file) => [file, fingerprint(file)] as const));
	// What the compat layer reports while this extension loads (its top level included) is part
	// of this load.
	await reportCompatTo(state.runtime.report);
	const imported = await importExtension(entry.entry, {
		cwd: state.cwd,
		env: state.env,
		timeoutMs: state.loadTimeoutMs,
	});
	for (const diagnostic of imported.diagnostics) state.runtime.report(diagnostic);
	entry.modules = [...new Set([...imported.modules, ...(attempt.previous?.modules ?? [])])];
	if (!imported.factory) return false;
	if (!attempt.previous) state.registry.reserveSource(path);
	try {
		return await activateVersion(state, entry, attempt, imported.factory, imported);
	} finally {
		state.swapGate.release();
	}
}

/** Run the factory and swap the new version in; then, after startup, its `session_start`. */
async function activateVersion(
	state: HostState,
	entry: Known,
	attempt: Attempt,
	factory: ExtensionFactory,
	imported: { readonly modules: readonly string[]; readonly durationMs: number },
): Promise<boolean> {
	const { path, previous, trigger } = attempt;
	const result = await state.runtime.activate(path, factory, {
		root: entry.entry.root,
		modules: imported.modules,
		...(entry.entry.engines !== undefined ? { engines: entry.entry.engines } : {}),
		importMs: imported.durationMs,
		timeoutMs: state.loadTimeoutMs,
		beforeSwap: (staged) => beforeSwap(state, attempt, staged),
	});
	if (!result.extension) return false;
	entry.modules = [...result.extension.modules];
	if (trigger !== "startup") {
		await state.runtime.emit(
			{ type: "session_start", reason: previous ? "reload" : "startup" },
			{ path, timeoutMs: state.loadTimeoutMs },
		);
	}
	return true;
}

/**
 * The last step before a new version replaces the previous one: reject it when it has an invalid
 * tool, else hold batches and run the previous version's `session_shutdown` (`reload`).
 */
async function beforeSwap(state: HostState, attempt: Attempt, staged: StagedExtension): Promise<boolean> {
	if (attempt.previous && rejectInvalidTools(state, attempt.path, staged)) return false;
	state.swapGate.hold();
	if (attempt.previous && attempt.trigger !== "startup") {
		await state.runtime.emit(
			{ type: "session_shutdown", reason: "reload" },
			{ path: attempt.path, timeoutMs: state.shutdownTimeoutMs },
		);
	}
	return true;
}

/**
 * Report every invalid tool of a new version and say whether there was one: a new version that
 * would lose a tool to a broken definition is rejected whole, as the previous version is the last
 * good one.
 */
function rejectInvalidTools(state: HostState, path: string, staged: StagedExtension): boolean {
	const rejected = staged.tools.flatMap((tool) => {
		const problems = validateToolDefinition(tool);
		return problems.length > 0 ? [{ tool, problems }] : [];
	});
	for (const { tool, problems } of rejected) {
		const name = typeof tool?.name === "string" ? `"${tool.name}"` : "(unnamed)";
		state.runtime.report({
			severity: "error",
			code: "E_INVALID_TOOL",
			message: `Tool ${name} from ${path} was rejected: ${problems.join("; ")}. The new version was not loaded; the previous one stays active.`,
			path,
		});
	}
	return rejected.length > 0;
}
