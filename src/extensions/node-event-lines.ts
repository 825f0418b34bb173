/**
 * A running extension host's events as lines for a person: paths as typed from the cwd, one line
 * per diagnostic, a reload line with the tools it changed. `toolsmith dev`, `toolsmith mcp` and the
 * inspector show the same text.
 */
import { isAbsolute, relative } from "node:path";
import type { Theme } from "../contract/render.js";
import type { ExtensionDiagnostic } from "./api.js";
import type { ExtensionReloadEvent } from "./node-host.js";

/** A path as the user would type it from `cwd`: relative when inside it, absolute otherwise. */
export function displayPath(path: string, cwd: string): string {
	if (!isAbsolute(path)) return path;
	const rel = relative(cwd, path);
	if (rel === "") return ".";
	if (isAbsolute(rel) || rel === ".." || rel.startsWith("../")) return path;
	return rel;
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
	}
	const code = diagnostic.code ? theme.fg("muted", ` [${diagnostic.code}]`) : "";
	return `${theme.fg(role, diagnostic.severity)} ${where}${message}${code}`;
}

function changeList(event: ExtensionReloadEvent, theme: Theme): string {
	const parts = [
		...event.added.map((n) => theme.fg("success", `+${n}`)),
		...event.removed.map((n) => theme.fg("error", `-${n}`)),
		...event.changed.map((n) => theme.fg("warning", `~${n}`)),
	];
	return parts.length > 0 ? parts.join(" ") : theme.fg("muted", "no tool changes");
}

/**
 * `reloaded weather.ts in 18 ms · +forecast ~current`, or a failure line saying the previous version
 * stays active, followed by one line per diagnostic.
 */
export function formatReload(event: ExtensionReloadEvent, cwd: string, theme: Theme): string[] {
	const file = displayPath(event.path, cwd);
	const ms = `${Math.round(event.durationMs)} ms`;
	const failed = event.diagnostics.some((d) => d.severity === "error");
	let head: string;
	if (failed) {
		const kept = event.kind === "load" ? "not loaded" : "the previous version stays active";
		head = `${theme.fg("error", "reload failed")} ${file} in ${ms} · ${kept}`;
	} else if (event.kind === "unload") {
		head = `${theme.fg("accent", "unloaded")} ${file} in ${ms} · ${changeList(event, theme)}`;
	} else {
		const verb = event.kind === "load" ? "loaded" : "reloaded";
		head = `${theme.fg("accent", verb)} ${file} in ${ms} · ${changeList(event, theme)}`;
	}
	return [head, ...event.diagnostics.map((d) => `  ${formatDiagnostic(d, cwd, theme)}`)];
}
