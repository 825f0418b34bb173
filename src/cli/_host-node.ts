/**
 * The `dev` host over the extension loader: built-ins plus extensions in one runtime, the executor
 * over a registry snapshot per batch, and reloads on demand (`reload` at the prompt).
 */
import type { ToolDefinition } from "../contract/tool.js";
import { MemoryExecutionEnv } from "../env/memory.js";
import { NodeExecutionEnv } from "../env/node.js";
import type { ExecutionEnv } from "../env/types.js";
import { executeToolCalls } from "../exec/execute.js";
import type { ExtensionDiagnostic } from "../extensions/api.js";
import { loadExtension, loadExtensions } from "../extensions/loader.js";
import type { ToolEntry } from "../extensions/registry.js";
import type { DevDiagnostic, DevHost, DevHostFactory, DevReloadEvent, DevToolEntry } from "./_host.js";

/** Bound for the extensions' `session_shutdown` handlers when `dev` exits. */
const SHUTDOWN_TIMEOUT_MS = 3_000;

export function toDevDiagnostic(diagnostic: ExtensionDiagnostic): DevDiagnostic {
	return {
		level: diagnostic.severity,
		message: diagnostic.message,
		code: diagnostic.code,
		...(diagnostic.path ? { path: diagnostic.path } : {}),
		...(diagnostic.line !== undefined ? { line: diagnostic.line } : {}),
		...(diagnostic.column !== undefined ? { column: diagnostic.column } : {}),
	};
}

function toDevEntry(entry: ToolEntry): DevToolEntry {
	return {
		name: entry.name,
		source: entry.source.kind === "builtin" ? "builtin" : entry.source.path,
		executionMode: entry.definition.executionMode ?? "parallel",
		parameters: entry.definition.parameters,
		definition: entry.definition,
	};
}

/** Names added, removed and changed (a different definition object) between two tool maps. */
export function diffTools(
	before: ReadonlyMap<string, ToolDefinition>,
	after: ReadonlyMap<string, ToolDefinition>,
): Pick<DevReloadEvent, "added" | "removed" | "changed"> {
	const added = [...after.keys()].filter((name) => !before.has(name));
	const removed = [...before.keys()].filter((name) => !after.has(name));
	const changed = [...after.keys()].filter((name) => before.has(name) && before.get(name) !== after.get(name));
	return { added, removed, changed };
}

/**
 * Loads the built-ins and the extensions at `options.paths`. Watching is not part of this host:
 * `watch` is ignored and reported as off; reloads happen through `reload()`.
 */
export const createLoaderDevHost: DevHostFactory = async (options) => {
	const env: ExecutionEnv =
		options.env === "memory"
			? new MemoryExecutionEnv({ cwd: options.cwd })
			: new NodeExecutionEnv({ cwd: options.cwd });
	const reloadListeners = new Set<(event: DevReloadEvent) => void>();
	const diagnosticListeners = new Set<(diagnostic: DevDiagnostic) => void>();
	let started = false;
	let closed = false;
	const loaded = await loadExtensions(options.paths, {
		cwd: options.cwd,
		env,
		log: ({ level, message }) => options.log(message, level),
		onDiagnostic: (diagnostic) => {
			// Load-time diagnostics are returned with the result; only later ones are pushed.
			if (!started || reloading > 0) return;
			for (const listener of diagnosticListeners) {
				try {
					listener(toDevDiagnostic(diagnostic));
				} catch {
					// a listener's failure must not break the runtime
				}
			}
		},
	});
	let reloading = 0;
	const { registry, runtime } = loaded;
	const startupDiagnostics = [...loaded.diagnostics];
	startupDiagnostics.push(...(await runtime.emit({ type: "session_start", reason: "startup" })));
	started = true;

	const toolsOf = (path: string) =>
		new Map(
			registry
				.entries()
				.filter((e) => e.source.kind === "extension" && e.source.path === path)
				.map((e) => [e.name, e.definition] as const),
		);

	const reloadOne = async (path: string) => {
		const before = toolsOf(path);
		const startedAt = performance.now();
		reloading++;
		const diagnostics: ExtensionDiagnostic[] = [];
		try {
			const previous = runtime.get(path);
			if (previous)
				diagnostics.push(
					...(await runtime.emit(
						{ type: "session_shutdown", reason: "reload" },
						{ path, timeoutMs: SHUTDOWN_TIMEOUT_MS },
					)),
				);
			const result = await loadExtension(path, runtime);
			diagnostics.push(...result.diagnostics);
			if (result.extension)
				diagnostics.push(...(await runtime.emit({ type: "session_start", reason: "reload" }, { path })));
		} finally {
			reloading--;
		}
		const event: DevReloadEvent = {
			path,
			durationMs: performance.now() - startedAt,
			...diffTools(before, toolsOf(path)),
			diagnostics: diagnostics.map(toDevDiagnostic),
		};
		for (const listener of reloadListeners) {
			try {
				listener(event);
			} catch {
				// a listener's failure must not stop the other listeners
			}
		}
	};

	const host: DevHost = {
		tools: () => registry.snapshot().active.map(toDevEntry),
		execute: (toolCalls, { signal, onEvent }) => {
			const config = registry.snapshot().executorConfig();
			return executeToolCalls(toolCalls, {
				...config,
				...(signal ? { signal } : {}),
				...(onEvent ? { onEvent } : {}),
			});
		},
		on(event: "reload" | "diagnostic", listener: (value: never) => void) {
			const set = (event === "reload" ? reloadListeners : diagnosticListeners) as Set<typeof listener>;
			set.add(listener);
			return () => {
				set.delete(listener);
			};
		},
		buildToolsPrompt: () => registry.buildToolsPrompt(),
		async reload(path) {
			const paths = path === undefined ? runtime.extensions().map((e) => e.path) : [path];
			for (const p of paths) await reloadOne(p);
		},
		async close() {
			if (closed) return;
			closed = true;
			await runtime.emit({ type: "session_shutdown", reason: "exit" }, { timeoutMs: SHUTDOWN_TIMEOUT_MS });
		},
	};
	return { host, diagnostics: startupDiagnostics.map(toDevDiagnostic), watching: false };
};
