/** Loading tool definitions for one-shot commands (`schema`): built-ins or the tools of extensions. */
import { resolve } from "node:path";
import type { ToolDefinition } from "../contract/tool.js";
import { MemoryExecutionEnv } from "../env/memory.js";
import type { ExtensionDiagnostic } from "../extensions/api.js";
import { loadExtensions } from "../extensions/node-loader.js";
import type { ToolDeclaration } from "../extensions/registry.js";

export interface LoadedTools {
	/** The tools a model or another tool can reach: active or callable (not `hidden`, say). */
	readonly tools: readonly { readonly definition: ToolDefinition; readonly source: string }[];
	/**
	 * Those of `tools` that requests declare to the model, as they declare them (`prepareLoadout`
	 * hooks may replace descriptions and hide declarations).
	 */
	readonly declarations: readonly ToolDeclaration[];
	readonly diagnostics: readonly ExtensionDiagnostic[];
	/** Those of `diagnostics` that `session_start` / `session_shutdown` handlers raised. */
	readonly fromEvents: readonly ExtensionDiagnostic[];
}

/**
 * With `paths`: the tools those extensions register (also from `session_start` handlers). Without:
 * the built-ins. Tools never run here, so they get an in-memory env. Never throws for a broken
 * extension: it becomes a diagnostic.
 */
export async function loadToolsForCommand(paths: readonly string[], cwd: string): Promise<LoadedTools> {
	const loaded = await loadExtensions(
		paths.map((p) => resolve(cwd, p)),
		{ cwd, env: new MemoryExecutionEnv({ cwd }), log: () => {} },
	);
	const fromEvents = [...(await loaded.runtime.emit({ type: "session_start", reason: "startup" }))];
	const snapshot = loaded.registry.snapshot();
	// The tools a model or another tool can reach: active or callable (pi 1.x exposure), not hidden.
	const reachable = new Set([...snapshot.active, ...snapshot.callable].map((e) => e.name));
	const entries = snapshot.entries.filter((e) => reachable.has(e.name));
	const declarations = snapshot.declarations();
	fromEvents.push(...(await loaded.runtime.emit({ type: "session_shutdown", reason: "exit" }, { timeoutMs: 3_000 })));
	const diagnostics = [...loaded.diagnostics, ...fromEvents];
	const wanted = paths.length === 0 ? entries : entries.filter((e) => e.source.kind === "extension");
	const wantedNames = new Set(wanted.map((e) => e.name));
	return {
		declarations: declarations.filter((d) => wantedNames.has(d.name)),
		tools: wanted.map((e) => ({
			definition: e.definition,
			source: e.source.kind === "builtin" ? "builtin" : e.source.path,
		})),
		diagnostics,
		fromEvents,
	};
}
