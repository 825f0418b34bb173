/** `toolsmith schema`: tools in a provider's wire format plus the report of what the provider changes. */

import { EXIT_FAILURE, EXIT_OK } from "../command/node-command.js";
import type { CliIO } from "../command/node-io.js";
import type { Theme } from "../contract/render.js";
import { formatDiagnostic } from "../extensions/node-event-lines.js";
import { compatibilityReport, toProviderTools } from "../providers/tools.js";
import type { ToolProvider } from "../providers/types.js";
import { loadToolsForCommand } from "./_load-tools.js";

export interface SchemaRun {
	readonly paths: readonly string[];
	readonly provider: ToolProvider;
	readonly strict: boolean;
	readonly io: CliIO;
	/** Styles for the report (stderr). */
	readonly theme: Theme;
}

export async function runSchema(run: SchemaRun): Promise<number> {
	const { io, theme, provider } = run;
	const loaded = await loadToolsForCommand(run.paths, io.cwd);
	const failedLoad = loaded.diagnostics.some((d) => d.severity === "error");
	for (const diagnostic of loaded.diagnostics) io.stderr.write(`${formatDiagnostic(diagnostic, io.cwd, theme)}\n`);
	// What requests declare: the active tools, as prepareLoadout hooks present them.
	const tools = loaded.declarations;
	io.stdout.write(
		`${JSON.stringify(toProviderTools(tools, provider, { invalid: "omit", strict: run.strict }), null, 2)}\n`,
	);

	const report = compatibilityReport(tools, provider, { strict: run.strict });
	const rejected = report.filter((r) => !r.ok);
	const rewritten = report.filter((r) => r.ok && (r.rewrites.length > 0 || r.strictFallback));
	const lines = [
		`${provider}${run.strict ? " (strict)" : ""} · ${tools.length} tool${tools.length === 1 ? "" : "s"} · ${rewritten.length} rewritten · ${rejected.length} rejected`,
	];
	for (const r of report) {
		const problems: string[] = [];
		if (!r.nameVerdict.ok) problems.push(`name: ${r.nameVerdict.problem ?? "invalid"} (${r.nameVerdict.rule})`);
		for (const e of r.errors) {
			const line = `${e.path || "/"} ${e.kind}: ${e.message}`;
			problems.push(r.strictFallback ? `not strict: ${line}` : line);
		}
		const rewrites = r.rewrites.map((w) => `${w.path || "/"} ${w.kind}: ${w.message}`);
		if (problems.length === 0 && rewrites.length === 0) continue;
		const verdict = r.ok ? theme.fg("warning", "rewritten") : theme.fg("error", "rejected");
		lines.push(`  ${theme.bold(r.name)} ${verdict}`);
		for (const p of problems) lines.push(`    ${r.ok ? "" : theme.fg("error", "✗ ")}${p}`);
		for (const w of rewrites) lines.push(`    ${w}`);
	}
	io.stderr.write(`${lines.join("\n")}\n`);
	return failedLoad || rejected.length > 0 ? EXIT_FAILURE : EXIT_OK;
}
