/** Text the `dev` loop prints: the tools table, parameter summaries, reload lines, diagnostics. */
import { isAbsolute, relative } from "node:path";
import { describeValue, quoted } from "../contract/errors.js";
import type { Theme } from "../contract/render.js";
import type { ExtensionDiagnostic, RegisteredCommand } from "../extensions/api.js";
import type { ExtensionReloadEvent } from "../extensions/node-host.js";
import type { ToolEntry } from "../extensions/registry.js";
import { truncateToWidth, visibleWidth } from "../render/width.js";

/** A path as the user would type it from `cwd`: relative when inside it, absolute otherwise. */
export function displayPath(path: string, cwd: string): string {
	if (!isAbsolute(path)) return path;
	const rel = relative(cwd, path);
	if (rel === "") return ".";
	if (isAbsolute(rel) || rel === ".." || rel.startsWith("../")) return path;
	return rel;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A short type label for a JSON schema: `string`, `number[]`, `add|list|clear`, `object`. */
export function schemaTypeLabel(schema: unknown): string {
	if (!isRecord(schema)) return "any";
	if (Array.isArray(schema.enum)) {
		const values = schema.enum.map((v) => (typeof v === "string" ? v : describeValue(v)));
		return values.length > 5 ? `${values.slice(0, 5).join("|")}|…` : values.join("|");
	}
	if ("const" in schema) return quoted(schema.const);
	const union = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
	if (union) return [...new Set(union.map(schemaTypeLabel))].join("|");
	const type = Array.isArray(schema.type) ? schema.type.join("|") : schema.type;
	if (type === "array") {
		const item = schemaTypeLabel(schema.items);
		return item.includes("|") ? `(${item})[]` : `${item}[]`;
	}
	return typeof type === "string" ? type : "any";
}

/** `path: string, offset?: number` from an object schema; `(none)` without properties. */
export function summarizeParameters(schema: unknown): string {
	if (!isRecord(schema) || !isRecord(schema.properties)) return "(none)";
	const required = new Set(Array.isArray(schema.required) ? schema.required : []);
	const parts = Object.entries(schema.properties).map(
		([name, property]) => `${name}${required.has(name) ? "" : "?"}: ${schemaTypeLabel(property)}`,
	);
	return parts.length === 0 ? "(none)" : parts.join(", ");
}

/** Columns padded to the widest cell; the last column is cut to `width` when one is given. */
export function formatTable(
	header: readonly string[],
	rows: readonly (readonly string[])[],
	theme: Theme,
	width?: number,
): string[] {
	const widths = header.map((h, i) => Math.max(visibleWidth(h), ...rows.map((r) => visibleWidth(r[i] ?? ""))));
	const line = (cells: readonly string[]) => {
		const text = cells
			.map((cell, i) => (i === cells.length - 1 ? cell : cell + " ".repeat(widths[i]! - visibleWidth(cell))))
			.join("  ");
		return `  ${width === undefined ? text : truncateToWidth(text, width - 2)}`.trimEnd();
	};
	return [theme.fg("muted", line(header)), ...rows.map(line)];
}

export function formatToolsTable(tools: readonly ToolEntry[], cwd: string, theme: Theme, width?: number): string[] {
	if (tools.length === 0) return ["  (no tools)"];
	const rows = tools.map((t) => [
		theme.bold(t.name),
		t.source.kind === "builtin" ? "built-in" : displayPath(t.source.path, cwd),
		t.definition.executionMode ?? "parallel",
		summarizeParameters(t.definition.parameters),
	]);
	return formatTable(["name", "source", "mode", "parameters"], rows, theme, width);
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
	if (diagnostic.path) {
		where = displayPath(diagnostic.path, cwd);
		if (diagnostic.line !== undefined) {
			where += `:${diagnostic.line}`;
			if (diagnostic.column !== undefined) where += `:${diagnostic.column}`;
		}
		where += " ";
	}
	const code = diagnostic.code ? theme.fg("muted", ` [${diagnostic.code}]`) : "";
	return `${theme.fg(role, diagnostic.severity)} ${where}${diagnostic.message}${code}`;
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

/** `/name  description  (file)` for each extension command; nothing when there are none. */
export function formatCommandList(commands: readonly RegisteredCommand[], cwd: string, theme: Theme): string[] {
	if (commands.length === 0) return [];
	const rows = commands.map((c) => [theme.bold(`/${c.name}`), displayPath(c.path, cwd), c.description ?? ""]);
	return formatTable(["command", "source", "description"], rows, theme);
}
