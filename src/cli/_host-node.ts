/**
 * The `dev` host over the extension host: built-ins plus extensions, hot reload through its watcher,
 * the executor over a registry snapshot per batch, and the extensions' commands.
 */
import { MemoryExecutionEnv } from "../env/memory.js";
import { NodeExecutionEnv } from "../env/node.js";
import type { ExecutionEnv } from "../env/types.js";
import type { ExtensionDiagnostic } from "../extensions/api.js";
import { createExtensionHost, type ExtensionReloadEvent } from "../extensions/node-host.js";
import type { ToolEntry } from "../extensions/registry.js";
import type { DevDiagnostic, DevHost, DevHostFactory, DevReloadEvent, DevToolEntry } from "./_host.js";

// The same diagnostic reaches the loop through the `diagnostic` listener and inside its reload
// event; mapping each one to a single object lets the loop show it once.
const converted = new WeakMap<ExtensionDiagnostic, DevDiagnostic>();

export function toDevDiagnostic(diagnostic: ExtensionDiagnostic): DevDiagnostic {
	const known = converted.get(diagnostic);
	if (known) return known;
	const mapped: DevDiagnostic = {
		level: diagnostic.severity,
		message: diagnostic.message,
		code: diagnostic.code,
		...(diagnostic.path ? { path: diagnostic.path } : {}),
		...(diagnostic.line !== undefined ? { line: diagnostic.line } : {}),
		...(diagnostic.column !== undefined ? { column: diagnostic.column } : {}),
	};
	converted.set(diagnostic, mapped);
	return mapped;
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

function toDevReload(event: ExtensionReloadEvent): DevReloadEvent {
	return {
		path: event.path,
		kind: event.kind,
		durationMs: event.durationMs,
		added: event.added,
		removed: event.removed,
		changed: event.changed,
		diagnostics: event.diagnostics.map(toDevDiagnostic),
	};
}

/** Starts `createExtensionHost` over the paths and waits until it is ready (watching, when asked). */
export const createNodeDevHost: DevHostFactory = async (options) => {
	const env: ExecutionEnv =
		options.env === "memory"
			? new MemoryExecutionEnv({ cwd: options.cwd })
			: new NodeExecutionEnv({ cwd: options.cwd });
	const extensionHost = createExtensionHost({
		paths: options.paths,
		env,
		cwd: options.cwd,
		watch: options.watch,
		log: ({ level, message }) => options.log(message, level),
	});
	const ready = await extensionHost.ready;
	const { registry, runtime } = extensionHost;

	const host: DevHost = {
		tools: () => registry.snapshot().active.map(toDevEntry),
		execute: (toolCalls, { signal, onEvent }) =>
			extensionHost.execute(toolCalls, { ...(signal ? { signal } : {}), ...(onEvent ? { onEvent } : {}) }),
		on(event: "reload" | "diagnostic", listener: (value: never) => void) {
			if (event === "reload") {
				const forward = listener as (event: DevReloadEvent) => void;
				return extensionHost.on("reload", (e) => forward(toDevReload(e)));
			}
			const forward = listener as (diagnostic: DevDiagnostic) => void;
			return extensionHost.on("diagnostic", (d) => forward(toDevDiagnostic(d)));
		},
		buildToolsPrompt: () => extensionHost.buildToolsPrompt(),
		commands: () =>
			extensionHost.extensions().flatMap((extension) =>
				extension.commands.map((command) => ({
					name: command.name,
					source: extension.path,
					...(command.description ? { description: command.description } : {}),
				})),
			),
		async runCommand(name, args) {
			for (const extension of extensionHost.extensions()) {
				const command = extension.commands.find((c) => c.name === name);
				if (command) {
					await command.handler(args, runtime.createContext(extension.path));
					return;
				}
			}
			throw new Error(`no extension registered the command /${name}`);
		},
		async reload(path) {
			await extensionHost.reload(path);
		},
		close: () => extensionHost.close(),
	};
	return { host, diagnostics: ready.diagnostics.map(toDevDiagnostic), watching: ready.watching };
};
