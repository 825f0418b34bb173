/** What the inspector sends the page, made from the host's values: JSON, rendered blocks, diagnostics, validation, provider formats. */
import { errorMessage } from "../../contract/errors.js";
import type { ToolDefinition } from "../../contract/tool.js";
import { parseToolArguments, validateToolArguments } from "../../exec/validate.js";
import type { ExtensionDiagnostic } from "../../extensions/api.js";
import { formatDiagnostic } from "../../extensions/node-event-lines.js";
import { compatibilityReport, type ProviderTool, toProviderTools } from "../../providers/tools.js";
import type { ToolProvider } from "../../providers/types.js";
import type { RenderedBlock } from "../../render/renderer.js";
import { plainTheme } from "../../render/theme.js";
import type { InspectorDiagnostic, Json, ProviderView, RenderedView, ValidateResponse } from "../protocol.js";

/** `value` as JSON the page can show: functions and symbols dropped, cycles and bigints described. */
export function toJson(value: unknown): Json {
	const seen = new WeakSet<object>();
	const text = JSON.stringify(value, (_key, v: unknown) => {
		if (typeof v === "bigint") return `${v}n`;
		if (typeof v === "object" && v !== null) {
			if (seen.has(v)) return "[circular]";
			seen.add(v);
		}
		return v;
	});
	return text === undefined ? null : (JSON.parse(text) as Json);
}

export function view(block: RenderedBlock): RenderedView {
	return block.error ? { lines: block.lines, error: block.error } : { lines: block.lines };
}

export function diagnosticView(diagnostic: ExtensionDiagnostic, cwd: string): InspectorDiagnostic {
	return {
		severity: diagnostic.severity,
		message: diagnostic.message,
		...(diagnostic.code ? { code: diagnostic.code } : {}),
		...(diagnostic.path ? { path: diagnostic.path } : {}),
		...(diagnostic.line !== undefined ? { line: diagnostic.line } : {}),
		...(diagnostic.column !== undefined ? { column: diagnostic.column } : {}),
		text: formatDiagnostic(diagnostic, cwd, plainTheme),
	};
}

/** Problems of `args` for `tool` exactly as the executor finds them (`prepareArguments`, then validation with repair). */
export function validateForTool(tool: ToolDefinition, args: unknown): ValidateResponse {
	let value: unknown = args;
	if (typeof tool.prepareArguments === "function") {
		const copied = parseToolArguments(tool.name, args);
		if (!copied.ok) return { ok: false, message: copied.error.message, problems: [] };
		try {
			value = tool.prepareArguments(copied.value.value);
		} catch (error) {
			return {
				ok: false,
				message: `Could not prepare the arguments of tool ${tool.name}: ${errorMessage(error)}`,
				problems: [],
			};
		}
	}
	const validated = validateToolArguments(tool, value);
	if (validated.ok) return { ok: true, value: toJson(validated.value) };
	return {
		ok: false,
		message: validated.error.message,
		problems: validated.error.issues.map((issue) => ({ path: issue.path, message: issue.message })),
	};
}

export function providerView(tool: ProviderTool, provider: ToolProvider): ProviderView {
	const [report] = compatibilityReport([tool], provider);
	const json = report?.ok ? toJson(toProviderTools([tool], provider, { invalid: "omit" })[0]) : undefined;
	return {
		provider,
		...(json !== undefined ? { json } : {}),
		rewrites: (report?.rewrites ?? []).map((r) => ({ path: r.path, kind: r.kind, message: r.message })),
		errors: (report?.errors ?? []).map((e) => ({ path: e.path, kind: e.kind, message: e.message })),
		nameOk: report?.nameVerdict.ok ?? false,
		...(report?.nameVerdict.problem ? { nameProblem: report.nameVerdict.problem } : {}),
	};
}
