/** Text the `dev` loop prints: the tools table, parameter summaries, reload lines, diagnostics. */
import { describeValue, quoted } from "../contract/errors.js";
import type { Theme } from "../contract/render.js";
import type { LoadedExtension, RegisteredCommand } from "../extensions/api.js";
import { displayPath, toolFile } from "../extensions/node-event-lines.js";
import type { ToolEntry } from "../extensions/registry.js";
import { truncateToWidth, visibleWidth } from "../render/width.js";

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

/**
 * One row per tool: its name, the file that defines it (see `toolFile`; the extension's entry when
 * `extensions` is not given), its mode and parameters.
 */
export function formatToolsTable(
	tools: readonly ToolEntry[],
	cwd: string,
	theme: Theme,
	width?: number,
	extensions?: readonly Pick<LoadedExtension, "path" | "modules">[],
): string[] {
	if (tools.length === 0) return ["  (no tools)"];
	const rows = tools.map((t) => [
		theme.bold(t.name),
		t.source.kind === "builtin" ? "built-in" : displayPath(toolFile(t, extensions ?? []) ?? t.source.path, cwd),
		t.definition.executionMode ?? "parallel",
		summarizeParameters(t.definition.parameters),
	]);
	return formatTable(["name", "source", "mode", "parameters"], rows, theme, width);
}

/** `/name  description  (file)` for each extension command; nothing when there are none. */
export function formatCommandList(commands: readonly RegisteredCommand[], cwd: string, theme: Theme): string[] {
	if (commands.length === 0) return [];
	const rows = commands.map((c) => [theme.bold(`/${c.name}`), displayPath(c.path, cwd), c.description ?? ""]);
	return formatTable(["command", "source", "description"], rows, theme);
}
