/** The engines behind `toolsmith test`, `toolsmith check` and `toolsmith replay-session`, imported on first use. */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { UsageError } from "../command/args.js";
import { CommandError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "../command/node-command.js";
import type { CliIO } from "../command/node-io.js";
import { errorMessage } from "../contract/errors.js";
import type { Theme } from "../contract/render.js";
import type { ToolDefinition } from "../contract/tool.js";
import { MemoryExecutionEnv } from "../env/memory.js";
import type { ExtensionDiagnostic } from "../extensions/api.js";
import { displayPath, formatDiagnostic } from "../extensions/node-event-lines.js";
import { loadExtensions } from "../extensions/node-loader.js";
import { checkTool } from "../harness/conformance.js";
import {
	applyConformanceBaseline,
	type ConformanceBaseline,
	parseConformanceBaseline,
} from "../harness/conformance-baseline.js";
import { formatConformanceReport } from "../harness/conformance-report.js";
import { replayFile } from "../harness/node-replay.js";
import { loadSession } from "../harness/node-session.js";
import { formatReplayReport } from "../harness/replay.js";
import { replaySession } from "../harness/replay-session.js";
import type { SessionToolFigures } from "../harness/session-report.js";
import type { McpHttpServer, McpStdioServer, McpToolSet } from "../mcp/node-client.js";
import { formatTable } from "./_format.js";
import { type LoadedTools, loadToolsForCommand } from "./_load-tools.js";
import { checkResultConditions } from "./_result-truthiness.js";
import { findFixtures, loadCheckSeeds } from "./_seeds.js";
import { splitCommandLine } from "./_split-command.js";

export interface TestRun {
	readonly fixtures: readonly string[];
	readonly extensions: readonly string[];
	readonly verbose: boolean;
	readonly io: CliIO;
	readonly theme: Theme;
	/** For what goes to stderr (the extension diagnostics). */
	readonly errorTheme: Theme;
}

/**
 * Replay every fixture; a summary table, then the report of each failing fixture. Every extension
 * diagnostic goes to stderr once (each fixture loads the extensions afresh, so the same problem
 * comes back per fixture). Exit 1 on any failure; an extension error fails the fixtures it concerns.
 */
export async function runTests(run: TestRun): Promise<number> {
	const { io, theme } = run;
	const printed = new Set<string>();
	const printDiagnostics = (diagnostics: readonly ExtensionDiagnostic[]) => {
		for (const diagnostic of diagnostics) {
			const line = formatDiagnostic(diagnostic, io.cwd, run.errorTheme);
			if (printed.has(line)) continue;
			printed.add(line);
			io.stderr.write(`${line}\n`);
		}
	};
	const showDiagnostic = (diagnostic: ExtensionDiagnostic) => formatDiagnostic(diagnostic, io.cwd, theme);
	const files = await findFixtures(run.fixtures, io.cwd);
	if (files.length === 0) throw new CommandError(`no fixture files (*.json) found in ${run.fixtures.join(", ")}`);
	const extensions = run.extensions.map((p) => resolve(io.cwd, p));
	const rows: string[][] = [];
	const details: string[] = [];
	let failed = 0;
	for (const file of files) {
		const name = displayPath(file, io.cwd);
		try {
			const report = await replayFile(file, extensions.length > 0 ? { extensions } : {});
			printDiagnostics(report.diagnostics);
			const f = report.figures;
			if (!report.pass) failed++;
			rows.push([
				report.pass ? theme.fg("success", "pass") : theme.fg("error", "FAIL"),
				name,
				`${f.passedCalls}/${f.calls}`,
				`${f.steps - f.failedSteps}/${f.steps}`,
			]);
			if (!report.pass || run.verbose) {
				details.push(
					`${name}\n${formatReplayReport(report, { verbose: run.verbose, formatDiagnostic: showDiagnostic })}`,
				);
			}
		} catch (error) {
			failed++;
			rows.push([theme.fg("error", "FAIL"), name, "-", "-"]);
			details.push(`${name}\n  ${errorMessage(error).split("\n").join("\n  ")}`);
		}
	}
	const out = [...formatTable(["result", "fixture", "calls", "steps"], rows, theme), ""];
	if (details.length > 0) out.push(...details.flatMap((d) => [d, ""]));
	out.push(
		failed === 0
			? theme.fg("success", `${files.length} fixture${files.length === 1 ? "" : "s"} passed`)
			: theme.fg("error", `${failed} of ${files.length} fixture${files.length === 1 ? "" : "s"} failed`),
	);
	io.stdout.write(`${out.join("\n")}\n`);
	return failed === 0 ? EXIT_OK : EXIT_FAILURE;
}

export interface ReplaySessionRun {
	readonly file: string;
	readonly extensions: readonly string[];
	readonly verbose: boolean;
	readonly io: CliIO;
	readonly theme: Theme;
}

function figureRow(name: string, f: SessionToolFigures): string[] {
	return [
		name,
		String(f.calls),
		String(f.stateVerified),
		String(f.formatOnly),
		String(f.mismatch),
		String(f.unknowable),
	];
}

/** Replay a recorded session; figures per tool, then every mismatch with its diff. Exit 1 on a mismatch. */
export async function runReplaySession(run: ReplaySessionRun): Promise<number> {
	const { io, theme } = run;
	const path = resolve(io.cwd, run.file);
	let session: Awaited<ReturnType<typeof loadSession>>;
	try {
		session = await loadSession(path);
	} catch (error) {
		throw new CommandError(errorMessage(error));
	}
	let failedLoad = false;
	let tools: Parameters<typeof replaySession>[1] = {};
	if (run.extensions.length > 0) {
		const loaded = await loadExtensions(
			run.extensions.map((p) => resolve(io.cwd, p)),
			{ cwd: io.cwd, env: new MemoryExecutionEnv({ cwd: io.cwd }), builtins: false, log: () => {} },
		);
		for (const diagnostic of loaded.diagnostics) {
			if (diagnostic.severity === "error") failedLoad = true;
			io.stderr.write(`${formatDiagnostic(diagnostic, io.cwd, theme)}\n`);
		}
		tools = { tools: loaded.registry.entries().map((e) => e.definition) };
	}
	const report = await replaySession(session, tools);
	const f = report.figures;
	const rows = Object.entries(f.byTool)
		.sort(([a], [b]) => a.localeCompare(b))
		.map(([name, figures]) => figureRow(name, figures));
	rows.push(figureRow(theme.bold("total"), f));
	const out = [
		`${theme.bold("replay-session")} ${displayPath(path, io.cwd)} · cwd ${report.cwd}`,
		`${theme.bold(`${f.stateVerified} of ${f.calls} calls verified against the replayed files`)}; ${f.formatOnly} more match in format only`,
		"",
		...formatTable(["tool", "calls", "state-verified", "format-only", "mismatch", "unknowable"], rows, theme),
	];
	const reasons = Object.entries(f.unknowableReasons);
	if (reasons.length > 0) out.push("", `unknowable: ${reasons.map(([r, n]) => `${r} ${n}`).join(", ")}`);
	const rules = Object.entries(f.rules);
	if (rules.length > 0) out.push(`normalized: ${rules.map(([r, n]) => `${r} ${n}`).join(", ")}`);
	if (f.seededReads > 0) out.push(`reads checked against their own page: ${f.seededReads}`);
	for (const call of report.calls) {
		if (call.status !== "mismatch" && !run.verbose) continue;
		const mark =
			call.status === "match"
				? theme.fg("success", "match")
				: call.status === "mismatch"
					? theme.fg("error", "mismatch")
					: theme.fg("muted", `unknowable (${call.reason ?? "?"})`);
		out.push("", `#${call.index + 1} ${call.toolName} ${call.toolCallId}: ${mark} · ${call.message}`);
		if (call.diff) out.push(...call.diff.split("\n").map((l) => `  ${l}`));
	}
	out.push(
		"",
		report.ok
			? theme.fg("success", `no mismatches in ${f.calls} calls`)
			: theme.fg("error", `${f.mismatch} mismatch${f.mismatch === 1 ? "" : "es"} in ${f.calls} calls`),
	);
	io.stdout.write(`${out.join("\n")}\n`);
	return report.ok && !failedLoad ? EXIT_OK : EXIT_FAILURE;
}

/** An MCP server whose tools `toolsmith check --mcp` checks. */
export interface CheckMcpServer {
	/** As given: a command line (started over stdio) or an http(s) URL. */
	readonly spec: string;
	/** `Name: value` headers for a URL. */
	readonly headers: readonly string[];
	/** Also call the tools the server does not mark read-only. */
	readonly callAll: boolean;
}

export interface CheckRun {
	readonly paths: readonly string[];
	readonly mcp?: CheckMcpServer | undefined;
	readonly baseline: string | undefined;
	readonly nondeterministic: readonly string[];
	/** Folders whose files seed the env of the behavioral checks. */
	readonly files: readonly string[];
	/** `<tool>=<JSON arguments>` samples of one's own. */
	readonly samples: readonly string[];
	/** Replay fixtures (files or folders) whose files, commands and calls seed the checks. */
	readonly fixtures: readonly string[];
	readonly verbose: boolean;
	readonly io: CliIO;
	readonly theme: Theme;
	/** For what goes to stderr (diagnostics and Result conditions). */
	readonly errorTheme: Theme;
}

/**
 * Conformance checks on every tool the extensions register and the MCP server lists, and the Result
 * conditions of the project's code. Exit 1 on an unexpected failure, a stale entry, an extension
 * error or a Result condition. The MCP server is always closed (a stdio one's process ended).
 */
export async function runCheck(run: CheckRun): Promise<number> {
	const { io, errorTheme } = run;
	let baseline: ConformanceBaseline | undefined;
	if (run.baseline !== undefined) {
		const path = resolve(io.cwd, run.baseline);
		try {
			baseline = parseConformanceBaseline(JSON.parse(await readFile(path, "utf8")), run.baseline);
		} catch (error) {
			throw new CommandError(`cannot use the baseline ${run.baseline}: ${errorMessage(error)}`);
		}
	}
	const server = run.mcp ? mcpServerOptions(run.mcp, io) : undefined;
	const loaded = run.paths.length > 0 ? await loadToolsForCommand(run.paths, io.cwd) : undefined;
	let mcpTools: McpToolSet | undefined;
	if (server && run.mcp) {
		const { loadMcpTools } = await import("../mcp/node-client.js");
		try {
			mcpTools = await loadMcpTools({
				...server,
				onDiagnostic: (d) =>
					io.stderr.write(
						`${formatDiagnostic({ severity: d.severity, message: `MCP server: ${d.message} [${d.code}]` }, io.cwd, errorTheme)}\n`,
					),
			});
		} catch (error) {
			throw new CommandError(`cannot check the MCP server ${run.mcp.spec}: ${errorMessage(error)}`);
		}
	}
	try {
		return await checkLoaded(run, baseline, loaded, mcpTools);
	} finally {
		await mcpTools?.close();
	}
}

/** How to reach the server of `--mcp`: a URL, or a command line split like a shell splits it. */
function mcpServerOptions(mcp: CheckMcpServer, io: CliIO): McpStdioServer | McpHttpServer {
	const headers: Record<string, string> = {};
	for (const header of mcp.headers) {
		const colon = header.indexOf(":");
		const name = colon === -1 ? "" : header.slice(0, colon).trim();
		if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
			throw new UsageError(`invalid --header '${header}': expected 'Name: value'`);
		}
		headers[name] = header.slice(colon + 1).trim();
	}
	if (/^https?:\/\//i.test(mcp.spec)) {
		let url: URL;
		try {
			url = new URL(mcp.spec);
		} catch {
			throw new UsageError(`invalid --mcp URL '${mcp.spec}'`);
		}
		return { url, ...(mcp.headers.length > 0 ? { headers } : {}) };
	}
	if (mcp.headers.length > 0)
		throw new UsageError("--header applies to an --mcp URL only (a stdio server has no headers)");
	let words: string[];
	try {
		words = splitCommandLine(mcp.spec);
	} catch (error) {
		throw new UsageError(`cannot split --mcp '${mcp.spec}': ${errorMessage(error)}`);
	}
	const [command, ...args] = words;
	if (command === undefined || command === "") {
		throw new UsageError("--mcp needs the command that starts the server, or its http(s) URL");
	}
	// The server starts as a shell would start it: with the whole environment, in the cwd.
	const env: Record<string, string> = {};
	for (const [key, value] of Object.entries(io.env)) if (value !== undefined) env[key] = value;
	return { command, args, cwd: io.cwd, env };
}

async function checkLoaded(
	run: CheckRun,
	baseline: ConformanceBaseline | undefined,
	loaded: LoadedTools | undefined,
	mcpTools: McpToolSet | undefined,
): Promise<number> {
	const { io, theme, errorTheme } = run;
	const checked: { readonly definition: ToolDefinition; readonly skipCalls?: string }[] = [
		...(loaded?.tools ?? []).map(({ definition }) => ({ definition })),
		...(mcpTools?.tools ?? []).map((definition) =>
			definition.annotations?.readOnlyHint === true || run.mcp?.callAll
				? { definition }
				: {
						definition,
						skipCalls:
							"not called: the MCP server does not mark the tool read-only (readOnlyHint), and its calls act on the real world (--call-all calls it anyway)",
					},
		),
	];
	// What fails the check is what concerns the tools: a load that went wrong. A session handler
	// that fails is printed, and said not to count (the tools it might register are checked as found).
	const failedLoad = loaded?.diagnostics.some((d) => d.severity === "error" && !loaded.fromEvents.includes(d)) ?? false;
	for (const diagnostic of loaded?.diagnostics ?? []) {
		io.stderr.write(`${formatDiagnostic(diagnostic, io.cwd, errorTheme)}\n`);
	}
	if (loaded?.fromEvents.some((d) => d.severity === "error")) {
		io.stderr.write(
			"note: the errors of session_start/session_shutdown handlers above do not fail the check: they do not concern the checked tools\n",
		);
	}
	if (checked.length === 0) {
		const sources = [
			...(run.paths.length > 0
				? [
						failedLoad
							? `the extensions at ${run.paths.join(", ")} did not load (the errors above say where; fix them and run check again)`
							: `the extensions at ${run.paths.join(", ")} register none`,
					]
				: []),
			...(run.mcp ? [`the MCP server ${run.mcp.spec} lists none`] : []),
		];
		io.stderr.write(`no tools to check: ${sources.join(", and ")}\n`);
		return EXIT_FAILURE;
	}
	const reports = [];
	const names = checked.map((t) => t.definition.name);
	const unknown = run.nondeterministic.filter((name) => !names.includes(name));
	if (unknown.length > 0) {
		throw new CommandError(
			`--nondeterministic names ${unknown.join(", ")}, which ${run.mcp ? "no checked tool is called" : "the extensions do not register"} (${run.mcp ? "the tools are" : "they register"} ${names.join(", ")})`,
			EXIT_USAGE,
		);
	}
	const seeds = await loadCheckSeeds({
		files: run.files,
		samples: run.samples,
		fixtures: run.fixtures,
		tools: names,
		cwd: io.cwd,
	});
	// After the usage checks: a typo in a flag should not wait for a type check.
	const conditions = checkResultConditions(run.paths, io.cwd);
	for (const { file, line, column, message } of conditions.findings) {
		const diagnostic = { severity: "error", path: file, line, column, message } as const;
		io.stderr.write(`${formatDiagnostic(diagnostic, io.cwd, errorTheme)}\n`);
	}
	const conditionLines = conditions.skipped.map((reason) =>
		theme.fg("muted", `- Result conditions and missing awaits not checked: ${reason}`),
	);
	const found = conditions.findings.filter((f) => f.kind === "result").length;
	if (found > 0) {
		conditionLines.push(
			`✗ Result conditions: ${found} condition${found === 1 ? " tests" : "s test"} a Result instead of its .ok (listed on stderr)`,
		);
	}
	const unawaited = conditions.findings.length - found;
	if (unawaited > 0) {
		conditionLines.push(
			`✗ Missing awaits: ${unawaited} Promise${unawaited === 1 ? " is" : "s are"} tested or dropped without await (listed on stderr)`,
		);
	}
	for (const { definition, skipCalls } of checked) {
		const nondeterministic = run.nondeterministic.includes(definition.name);
		const samples = seeds.samples.get(definition.name);
		reports.push(
			await checkTool(definition, {
				cwd: io.cwd,
				nondeterministic,
				files: seeds.files,
				commands: seeds.commands,
				...(samples ? { samples } : {}),
				...(skipCalls ? { skipCalls } : {}),
			}),
		);
	}
	const summary = applyConformanceBaseline(reports, baseline);
	const seeded = seeds.summary ? [theme.fg("muted", seeds.summary)] : [];
	io.stdout.write(
		`${[...seeded, formatConformanceReport(summary, { verbose: run.verbose }), ...conditionLines].join("\n")}\n`,
	);
	return summary.pass && !failedLoad && conditions.findings.length === 0 ? EXIT_OK : EXIT_FAILURE;
}
