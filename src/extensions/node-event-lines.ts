/**
 * A running extension host's events as lines for a person: paths as typed from the cwd, one line
 * per diagnostic, a reload line with the tools it changed. `toolsmith dev`, `toolsmith mcp` and the
 * inspector show the same text.
 */
import { isAbsolute, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { definitionSite } from "../contract/definition-site.js";
import type { Theme } from "../contract/render.js";
import type { ExtensionDiagnostic, LoadedExtension } from "./api.js";
import type { ExtensionReloadEvent } from "./node-host.js";
import type { ToolEntry } from "./registry.js";

/** A path as the user would type it from `cwd`: relative when inside it, absolute otherwise. */
export function displayPath(path: string, cwd: string): string {
	if (!isAbsolute(path)) return path;
	const rel = relative(cwd, path);
	if (rel === "") return ".";
	if (isAbsolute(rel) || rel === ".." || rel.startsWith("../")) return path;
	return rel;
}

/**
 * The file that defines an extension's tool, absolute: where its `defineTool` call was written when
 * that is one of the extension's own modules (an entry that imports its tools from `src/tools/*.ts`
 * shows those files), the extension's entry otherwise (a definition made without `defineTool`, or by
 * a package under node_modules). Undefined for a built-in.
 */
export function toolFile(
	entry: Pick<ToolEntry, "definition" | "source">,
	extensions: readonly Pick<LoadedExtension, "path" | "modules">[],
): string | undefined {
	if (entry.source.kind !== "extension") return undefined;
	const entryPath = entry.source.path;
	const site = definitionSite(entry.definition);
	if (site === undefined) return entryPath;
	let file = site.file;
	try {
		if (file.startsWith("file:")) file = fileURLToPath(file);
	} catch {
		return entryPath;
	}
	const modules = extensions.find((e) => e.path === entryPath)?.modules ?? [];
	return modules.includes(file) ? file : entryPath;
}

/** What `reloadToolFiles` reads from a host: its active tools and its extensions. */
export interface ToolFileSource {
	readonly registry: { snapshot(): { readonly active: readonly Pick<ToolEntry, "name" | "definition" | "source">[] } };
	extensions(): readonly Pick<LoadedExtension, "path" | "modules">[];
}

/** For `formatReload`: the file defining each tool the reloaded extension `path` now provides. */
export function reloadToolFiles(host: ToolFileSource, path: string): (tool: string) => string | undefined {
	return (name) => {
		const entry = host.registry
			.snapshot()
			.active.find((e) => e.name === name && e.source.kind === "extension" && e.source.path === path);
		return entry === undefined ? undefined : toolFile(entry, host.extensions());
	};
}

/**
 * `error weather.ts:3:7 Unexpected token [E_EXTENSION_LOAD]`. Also for findings that are not
 * extension diagnostics (`toolsmith check`'s result conditions), so the path and the code may be absent.
 */
export function formatDiagnostic(
	diagnostic: Pick<ExtensionDiagnostic, "severity" | "message" | "line" | "column"> &
		Partial<Pick<ExtensionDiagnostic, "path" | "code">>,
	cwd: string,
	theme: Theme,
): string {
	const role = diagnostic.severity === "error" ? "error" : diagnostic.severity === "warning" ? "warning" : "muted";
	let where = "";
	let message = diagnostic.message;
	if (diagnostic.path) {
		let position = "";
		if (diagnostic.line !== undefined) {
			position += `:${diagnostic.line}`;
			if (diagnostic.column !== undefined) position += `:${diagnostic.column}`;
		}
		where = `${displayPath(diagnostic.path, cwd)}${position} `;
		// A message that starts with the same place (a syntax error's does, for readers of the bare
		// message) would say it twice: the line gives it once, as typed from the cwd.
		const absolute = `${diagnostic.path}${position} `;
		if (position !== "" && message.startsWith(absolute)) message = message.slice(absolute.length);
		// An imported module's error names the extension that imported it: as typed from the cwd too.
		message = message.replace(
			/\(imported by the extension ([^)]+)\)/,
			(_, entry: string) => `(imported by the extension ${displayPath(entry, cwd)})`,
		);
	}
	const code = diagnostic.code ? theme.fg("muted", ` [${diagnostic.code}]`) : "";
	return `${theme.fg(role, diagnostic.severity)} ${where}${message}${code}`;
}

function changeList(
	event: ExtensionReloadEvent,
	theme: Theme,
	cwd: string,
	fileOf: ((tool: string) => string | undefined) | undefined,
): string {
	// A tool defined in a module of its own says which: the head names only the entry.
	const at = (name: string) => {
		const file = fileOf?.(name);
		return file !== undefined && file !== event.path ? ` (${displayPath(file, cwd)})` : "";
	};
	const parts = [
		...event.added.map((n) => `${theme.fg("success", `+${n}`)}${at(n)}`),
		...event.removed.map((n) => theme.fg("error", `-${n}`)),
		...event.changed.map((n) => `${theme.fg("warning", `~${n}`)}${at(n)}`),
	];
	return parts.length > 0 ? parts.join(" ") : theme.fg("muted", "no tool changes");
}

/**
 * `reloaded weather.ts in 18 ms · +forecast ~current`, or a failure line saying the previous version
 * stays active, followed by one line per diagnostic. With `fileOf` (a tool's defining file, see
 * `toolFile`), each added or changed tool defined outside the entry is followed by its file:
 * `~json_get (src/tools/json-get.ts)`.
 */
export function formatReload(
	event: ExtensionReloadEvent,
	cwd: string,
	theme: Theme,
	fileOf?: (tool: string) => string | undefined,
): string[] {
	const file = displayPath(event.path, cwd);
	const ms = `${Math.round(event.durationMs)} ms`;
	const failed = event.diagnostics.some((d) => d.severity === "error");
	let head: string;
	if (failed) {
		const kept = event.kind === "load" ? "not loaded" : "the previous version stays active";
		head = `${theme.fg("error", "reload failed")} ${file} in ${ms} · ${kept}`;
	} else if (event.kind === "unload") {
		head = `${theme.fg("accent", "unloaded")} ${file} in ${ms} · ${changeList(event, theme, cwd, fileOf)}`;
	} else {
		const verb = event.kind === "load" ? "loaded" : "reloaded";
		head = `${theme.fg("accent", verb)} ${file} in ${ms} · ${changeList(event, theme, cwd, fileOf)}`;
	}
	return [head, ...event.diagnostics.map((d) => `  ${formatDiagnostic(d, cwd, theme)}`)];
}
