/**
 * Running a replay fixture: each step's calls go through the harness as one batch, then every
 * expectation is checked. The report says, per call and per step, what passed and, for what
 * failed, shows expected against actual. Runtime-neutral.
 */
import type { NestedCalls, ToolResultMessage } from "../contract/content.js";
import type { ScriptedCommand } from "../env/memory.js";
import type { ExtensionDiagnostic } from "../extensions/api.js";
import { DEFAULT_OUTPUT_PAD, renderToolCall, toolRenderersFor } from "../render/renderer.js";
import { plainTheme } from "../render/theme.js";
import { nestedCallLine } from "./_nested-lines.js";
import { textDiff } from "./_text-diff.js";
import {
	type FileExpectation,
	type FixtureCall,
	parseReplayFixture,
	type ReplayFixture,
	type TextExpectation,
} from "./fixture.js";
import { createMemoryHarness, type MemoryHarnessOptions, type TestHarness } from "./harness.js";
import { compileLinearPattern } from "./linear-regex.js";

/** The outcome of one fixture call: whether it met its expectations, what it returned, and what did not hold. */
export interface ReplayCallReport {
	/** Step and call positions, from 0. */
	readonly step: number;
	readonly call: number;
	readonly id: string;
	readonly tool: string;
	readonly pass: boolean;
	/** One line per failed expectation. */
	readonly failures: readonly string[];
	/** Expected vs actual, for the failures that have one. */
	readonly diffs: readonly string[];
	readonly result: { readonly text: string; readonly isError: boolean; readonly details: unknown };
	/** The calls the tool made through `ctx.executeTool` (the result's bounded record), when it made any. */
	readonly nestedCalls?: NestedCalls;
	/** Set when the call named a tool that is not registered (the executor's `E_TOOL_NOT_FOUND`). */
	readonly unknownTool?: UnknownToolReport;
	/**
	 * The call as a person sees it: the lines of its `renderCall`, or of the tool renderer an
	 * extension registered for it (`registerToolRenderer`), else the tool name and arguments; plain
	 * theme, 100 columns.
	 */
	readonly drawn: readonly string[];
}

/** What a report can say about a call to a tool that is not registered. */
export interface UnknownToolReport {
	/** The tools calls could reach. */
	readonly available: readonly string[];
	/**
	 * Extension files or folders near the fixture whose name matches the tool, relative to the
	 * fixture's folder (ready for its `extensions` field). Only `replayFile` looks; empty otherwise.
	 */
	readonly candidates: readonly string[];
}

/** The outcome of one fixture step: its calls and the step expectations (files, commands) that did not hold. */
export interface ReplayStepReport {
	readonly index: number;
	readonly name: string | undefined;
	readonly pass: boolean;
	readonly calls: readonly ReplayCallReport[];
	/** Failed step expectations (files, commands). */
	readonly failures: readonly string[];
	readonly diffs: readonly string[];
}

/** The outcome of replaying one fixture: pass or fail, step by step, with what loading its extensions reported. */
export interface ReplayReport {
	readonly name: string | undefined;
	/** Every expectation held and no extension diagnostic is an error. */
	readonly pass: boolean;
	/**
	 * What loading the extensions (and running their handlers) reported: errors, warnings and
	 * infos. Any error fails the fixture, since its tools are not the ones it was written for.
	 */
	readonly diagnostics: readonly ExtensionDiagnostic[];
	readonly steps: readonly ReplayStepReport[];
	/** Counts of checked calls and steps. */
	readonly figures: {
		readonly calls: number;
		readonly passedCalls: number;
		readonly failedCalls: number;
		readonly steps: number;
		readonly failedSteps: number;
	};
}

/** Options for `replay`: tools and built-ins to replay with, extensions, a clock, and how the harness is built. */
export interface ReplayOptions extends Pick<MemoryHarnessOptions, "tools" | "builtins" | "extensions" | "clock"> {
	/**
	 * Builds the harness for the fixture (default `createMemoryHarness`). The Node entry passes one
	 * that also loads extension files, the fixture's `extensions` among them: a factory given here
	 * is responsible for those. May reject: `replay` rejects with that error.
	 */
	readonly createHarness?: (options: MemoryHarnessOptions, fixture: ReplayFixture) => Promise<TestHarness>;
	/** Names the fixture in error messages. */
	readonly source?: string;
	readonly signal?: AbortSignal;
}

function textOf(result: ToolResultMessage): string {
	return result.content
		.filter((block) => block.type === "text")
		.map((block) => (block as { text: string }).text)
		.join("\n");
}

function list(value: string | readonly string[] | undefined): readonly string[] {
	return value === undefined ? [] : typeof value === "string" ? [value] : value;
}

function excerpt(text: string, max = 400): string {
	return text.length <= max ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, max))}… (${text.length} chars)`;
}

/** Failures of `text` against a text expectation, with diffs where a whole text was expected. */
function checkText(
	what: string,
	text: string,
	expectation: TextExpectation | Exclude<FileExpectation, null>,
	failures: string[],
	diffs: string[],
): void {
	const match = typeof expectation === "string" ? { equals: expectation } : expectation;
	if (match.equals !== undefined && match.equals !== text) {
		failures.push(`${what} differs from the expected text`);
		diffs.push(textDiff(match.equals, text));
	}
	for (const piece of list(match.contains)) {
		if (!text.includes(piece))
			failures.push(`${what} does not contain ${JSON.stringify(piece)}; it is ${excerpt(text)}`);
	}
	for (const piece of list(match.notContains)) {
		if (text.includes(piece)) failures.push(`${what} contains ${JSON.stringify(piece)}, which it must not`);
	}
	// The fixture was validated, so the pattern compiles; RE2 keeps the test linear in the text.
	if (match.matches !== undefined && !compileLinearPattern(match.matches, match.flags).test(text)) {
		failures.push(`${what} does not match /${match.matches}/${match.flags ?? ""}; it is ${excerpt(text)}`);
	}
}

/** Where `actual` fails to contain `expected` (objects key by key, arrays element by element). */
export function subsetProblems(expected: unknown, actual: unknown, path = "details"): string[] {
	if (expected === null || typeof expected !== "object") {
		return Object.is(expected, actual)
			? []
			: [`${path} is ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`];
	}
	if (Array.isArray(expected)) {
		if (!Array.isArray(actual)) return [`${path} is ${JSON.stringify(actual)}, expected an array`];
		if (actual.length !== expected.length) {
			return [`${path} has ${actual.length} elements, expected ${expected.length}`];
		}
		return expected.flatMap((item, i) => subsetProblems(item, actual[i], `${path}[${i}]`));
	}
	if (actual === null || typeof actual !== "object" || Array.isArray(actual)) {
		return [`${path} is ${JSON.stringify(actual)}, expected an object`];
	}
	const record = actual as Record<string, unknown>;
	return Object.entries(expected as Record<string, unknown>).flatMap(([key, value]) =>
		key in record ? subsetProblems(value, record[key], `${path}.${key}`) : [`${path}.${key} is missing`],
	);
}

/** The tools an `E_TOOL_NOT_FOUND` result lists, or undefined for any other result. */
function unknownToolOf(result: ToolResultMessage): UnknownToolReport | undefined {
	if (!result.isError) return undefined;
	const details = result.details as { code?: unknown; availableTools?: unknown } | null | undefined;
	if (details?.code !== "E_TOOL_NOT_FOUND") return undefined;
	const available = Array.isArray(details.availableTools)
		? details.availableTools.filter((name): name is string => typeof name === "string")
		: [];
	return { available: [...available].sort(), candidates: [] };
}

/** Columns the calls of a report are drawn in. */
const DRAW_WIDTH = 100;

/** The call drawn as `toolsmith dev` would (plain theme): the extensions' tool renderers, then the tool's own. */
function drawCall(harness: TestHarness, call: FixtureCall): string[] {
	const definition = harness.registry.get(call.tool)?.definition;
	const renderers = toolRenderersFor(harness.runtime, call.tool, definition);
	return renderToolCall(renderers, call.args ?? {}, plainTheme, DRAW_WIDTH, {
		name: call.tool,
		outputPad: DEFAULT_OUTPUT_PAD,
	}).lines;
}

/** Failures of the nested calls a result records against the fixture's `nestedCalls`. */
function checkNested(
	expected: NonNullable<FixtureCall["expect"]>["nestedCalls"],
	actual: NestedCalls | undefined,
	failures: string[],
	diffs: string[],
): void {
	if (expected === undefined) return;
	const calls = actual?.calls ?? [];
	const problems: string[] = [];
	if (calls.length !== expected.length) {
		problems.push(
			`the tool made ${calls.length} nested call${calls.length === 1 ? "" : "s"}, expected ${expected.length}`,
		);
	}
	expected.forEach((want, i) => {
		const got = calls[i];
		const at = `nested call ${i + 1}`;
		if (!got) return;
		if (want.tool !== got.name) problems.push(`${at} called ${got.name}, expected ${want.tool}`);
		if (want.id !== undefined && want.id !== got.id) problems.push(`${at} has id ${got.id}, expected ${want.id}`);
		if (want.status !== undefined && want.status !== got.status) {
			problems.push(
				`${at} (${got.name}) ended ${got.status}, expected ${want.status}${got.error !== undefined ? `; the error: ${excerpt(got.error)}` : ""}`,
			);
		}
		if (want.args !== undefined) {
			if (got.arguments === undefined) problems.push(`${at} (${got.name}) has no recorded arguments to compare`);
			else problems.push(...subsetProblems(want.args, got.arguments, `${at} arguments`));
		}
	});
	if (problems.length === 0) return;
	failures.push(...problems);
	diffs.push(
		textDiff(
			expected
				.map(
					(c, i) =>
						`${c.id ?? `#${i + 1}`} ${c.tool}${c.status ? ` ${c.status}` : ""}${c.args !== undefined ? ` ${JSON.stringify(c.args)}` : ""}`,
				)
				.join("\n"),
			calls.map(nestedCallLine).join("\n"),
			{ expected: "expected nested calls", actual: "actual nested calls" },
		),
	);
}

function checkCall(
	step: number,
	index: number,
	call: FixtureCall,
	result: ToolResultMessage,
	drawn: readonly string[],
): ReplayCallReport {
	const failures: string[] = [];
	const diffs: string[] = [];
	const text = textOf(result);
	const expect = call.expect ?? {};
	const unknownTool = unknownToolOf(result);
	// A fixture may test the not-found answer itself (it then expects an error); any other call to a
	// missing tool is a fixture written for tools that are not there, even when it expects nothing.
	if (unknownTool && expect.isError !== true) failures.push(`no tool named ${JSON.stringify(call.tool)} is registered`);
	if (expect.isError !== undefined && expect.isError !== result.isError) {
		failures.push(
			`isError is ${result.isError}, expected ${expect.isError}${result.isError ? `; the error: ${excerpt(text)}` : ""}`,
		);
	}
	if (expect.text !== undefined) checkText("text", text, expect.text, failures, diffs);
	checkNested(expect.nestedCalls, result.nestedCalls, failures, diffs);
	if (expect.details !== undefined) {
		const problems = subsetProblems(expect.details, result.details);
		if (problems.length > 0) {
			failures.push(...problems);
			diffs.push(
				textDiff(JSON.stringify(expect.details, null, 2), JSON.stringify(result.details ?? null, null, 2), {
					expected: "expected details (subset)",
					actual: "actual details",
				}),
			);
		}
	}
	return {
		step,
		call: index,
		id: result.toolCallId,
		tool: call.tool,
		pass: failures.length === 0,
		failures,
		diffs,
		result: { text, isError: result.isError, details: result.details },
		...(result.nestedCalls !== undefined ? { nestedCalls: result.nestedCalls } : {}),
		...(unknownTool ? { unknownTool } : {}),
		drawn,
	};
}

function linearMatcher(source: string): (command: string) => boolean {
	const pattern = compileLinearPattern(source);
	return (command) => pattern.test(command);
}

/** A fixture's scripted shell as a MemoryExecutionEnv takes it (a `regex` match compiled, linear-time). */
export function fixtureCommands(fixture: ReplayFixture): ScriptedCommand[] {
	return (fixture.commands ?? []).map((command) => ({
		match: command.regex ? linearMatcher(command.match) : command.match,
		...(command.stdout !== undefined ? { stdout: command.stdout } : {}),
		...(command.stderr !== undefined ? { stderr: command.stderr } : {}),
		...(command.chunks ? { chunks: command.chunks } : {}),
		...(command.exitCode !== undefined ? { exitCode: command.exitCode } : {}),
		...(command.once !== undefined ? { once: command.once } : {}),
	}));
}

/**
 * Run a replay fixture (an object, validated first) and check every expectation. Rejects with a
 * `ReplayFixtureError` naming the JSON path when the fixture is invalid; a failed expectation is
 * never a rejection, it is in the report.
 */
export async function replay(fixture: unknown, options: ReplayOptions = {}): Promise<ReplayReport> {
	const parsed = parseReplayFixture(fixture, options.source);
	const create = options.createHarness ?? createMemoryHarness;
	const harnessOptions: MemoryHarnessOptions = {
		...(parsed.cwd ? { cwd: parsed.cwd } : {}),
		files: parsed.files ?? {},
		commands: fixtureCommands(parsed),
		...(options.tools ? { tools: options.tools } : {}),
		...(options.builtins !== undefined ? { builtins: options.builtins } : {}),
		...(options.extensions ? { extensions: options.extensions } : {}),
		...(options.clock ? { clock: options.clock } : {}),
		...(parsed.toolExecution ? { toolExecution: parsed.toolExecution } : {}),
	};
	const harness = await create(harnessOptions, parsed);
	// The memory harness cannot read files: a fixture that names extension files replayed without a
	// loader would run without their tools and fail for a reason its report would not show.
	const unloadable: ExtensionDiagnostic[] = options.createHarness
		? []
		: (parsed.extensions ?? []).map((path) => ({
				severity: "error",
				code: "E_EXTENSION_LOAD",
				message: `The fixture names the extension ${JSON.stringify(path)}, which replay() cannot load (it runs in memory): replay the fixture file with replayFile(path) or toolsmith test, or pass a createHarness that loads it.`,
				path,
			}));
	const steps: ReplayStepReport[] = [];
	for (let s = 0; s < parsed.steps.length; s++) {
		const step = parsed.steps[s]!;
		const commandsBefore = harness.commands().length;
		const { results } = await harness.batch(
			step.calls.map((call, c) => ({
				id: call.id ?? `s${s}c${c}`,
				name: call.tool,
				arguments: call.args ?? {},
			})),
			{
				...(step.toolExecution ? { toolExecution: step.toolExecution } : {}),
				...(options.signal ? { signal: options.signal } : {}),
			},
		);
		const calls = step.calls.map((call, c) => checkCall(s, c, call, results[c]!, drawCall(harness, call)));
		const failures: string[] = [];
		const diffs: string[] = [];
		const files = harness.files();
		for (const [path, expectation] of Object.entries(step.expect?.files ?? {})) {
			const key = harness.env.absolutePath(path);
			const shown = key.ok ? displayKey(key.value, harness.env.cwd) : path;
			const content = files[shown];
			if (expectation === null) {
				if (content !== undefined) failures.push(`file ${path} exists, expected it not to`);
			} else if (content === undefined) {
				failures.push(`file ${path} does not exist`);
			} else {
				checkText(`file ${path}`, content, expectation, failures, diffs);
			}
		}
		if (step.expect?.commands) {
			const ran = harness.commands().slice(commandsBefore);
			if (JSON.stringify(ran) !== JSON.stringify(step.expect.commands)) {
				failures.push("the commands run differ from the expected ones");
				diffs.push(
					textDiff(step.expect.commands.join("\n"), ran.join("\n"), {
						expected: "expected commands",
						actual: "commands run",
					}),
				);
			}
		}
		steps.push({
			index: s,
			name: step.name,
			pass: failures.length === 0 && calls.every((call) => call.pass),
			calls,
			failures,
			diffs,
		});
	}
	const allCalls = steps.flatMap((step) => step.calls);
	const passedCalls = allCalls.filter((call) => call.pass).length;
	const diagnostics = [...unloadable, ...harness.diagnostics];
	return {
		name: parsed.name,
		pass: steps.every((step) => step.pass) && !diagnostics.some((d) => d.severity === "error"),
		diagnostics,
		steps,
		figures: {
			calls: allCalls.length,
			passedCalls,
			failedCalls: allCalls.length - passedCalls,
			steps: steps.length,
			failedSteps: steps.filter((step) => !step.pass).length,
		},
	};
}

/** The key `MemoryExecutionEnv.snapshot` uses for an absolute path: relative inside cwd. */
function displayKey(absolute: string, cwd: string): string {
	if (absolute === cwd) return ".";
	const prefix = cwd.endsWith("/") ? cwd : `${cwd}/`;
	return absolute.startsWith(prefix) ? absolute.slice(prefix.length) : absolute;
}

function indent(text: string, by = "      "): string {
	return text
		.split("\n")
		.map((line) => `${by}${line}`)
		.join("\n");
}

/** `error ext.ts:3:7 The default export of ext.ts threw: boom. [E_FACTORY_FAILED]`. */
function plainDiagnostic(diagnostic: ExtensionDiagnostic): string {
	const where = `${diagnostic.path}${diagnostic.line !== undefined ? `:${diagnostic.line}${diagnostic.column !== undefined ? `:${diagnostic.column}` : ""}` : ""}`;
	return `${diagnostic.severity} ${where} ${diagnostic.message} [${diagnostic.code}]`;
}

/** Why a tool may be missing and where it may be: the names that exist, the two ways to load one, a likely file. */
function unknownToolHint(tool: string, unknown: UnknownToolReport): string[] {
	const lines = [
		`hint: ${unknown.available.length > 0 ? `the tools are ${unknown.available.join(", ")}` : "no tools are registered"}; ${JSON.stringify(tool)} may come from an extension that was not loaded`,
		`hint: name it in the fixture's "extensions": [...] (paths relative to the fixture) or pass it with --extensions <paths>`,
	];
	if (unknown.candidates.length > 0) {
		lines.push(
			`hint: near the fixture: "extensions": [${unknown.candidates.map((c) => JSON.stringify(c)).join(", ")}]`,
		);
	}
	return lines;
}

/** The drawn call under a failed one, when its drawing says more than the tool name: at most 3 lines. */
function shownCall(call: ReplayCallReport): string[] {
	const drawn = (call.drawn ?? []).filter((line) => line.trim() !== "");
	if (drawn.length === 0 || (drawn.length === 1 && drawn[0] === call.tool)) return [];
	const shown = drawn.slice(0, 3).map((line, i) => `${i === 0 ? "call:" : "     "} ${line}`);
	if (drawn.length > 3) shown.push(`      … ${drawn.length - 3} more lines`);
	return shown;
}

/** Options for `formatReplayReport`. */
export interface FormatReplayReportOptions {
	/** Also the calls that passed, and the warnings and infos of loading. */
	readonly verbose?: boolean;
	/** How a diagnostic is shown (default: `severity path:line:col message [CODE]`). */
	readonly formatDiagnostic?: (diagnostic: ExtensionDiagnostic) => string;
}

/** A readable text report: extension errors, one line per call and step, failures with their diffs below. */
export function formatReplayReport(report: ReplayReport, options: FormatReplayReportOptions = {}): string {
	const lines: string[] = [];
	const showDiagnostic = options.formatDiagnostic ?? plainDiagnostic;
	lines.push(`${report.pass ? "PASS" : "FAIL"} ${report.name ?? "replay fixture"}`);
	const diagnostics = report.diagnostics.filter((d) => options.verbose || d.severity === "error");
	if (diagnostics.length > 0) {
		const counts = (["error", "warning", "info"] as const).flatMap((severity) => {
			const n = diagnostics.filter((d) => d.severity === severity).length;
			return n === 0 ? [] : [`${n} ${severity}${n === 1 ? "" : "s"}`];
		});
		const failed = diagnostics.some((d) => d.severity === "error");
		lines.push(`  ${failed ? "✗" : "✓"} extensions: ${counts.join(", ")}`);
		for (const diagnostic of diagnostics) lines.push(`    ${showDiagnostic(diagnostic)}`);
	}
	for (const step of report.steps) {
		lines.push(`  ${step.pass ? "✓" : "✗"} step ${step.index + 1}${step.name ? `: ${step.name}` : ""}`);
		for (const call of step.calls) {
			if (call.pass && !options.verbose) continue;
			lines.push(`    ${call.pass ? "✓" : "✗"} ${call.tool} (${call.id})`);
			if (!call.pass) for (const line of shownCall(call)) lines.push(`      ${line}`);
			for (const nested of call.nestedCalls?.calls ?? []) {
				const depth = nested.id.split("/").length - call.id.split("/").length;
				lines.push(`${"  ".repeat(2 + depth)}↳ ${nestedCallLine(nested)}`);
			}
			if (call.nestedCalls && !call.nestedCalls.complete)
				lines.push("        ↳ … (the record left calls or arguments out)");
			for (const failure of call.failures) lines.push(`      - ${failure}`);
			for (const diff of call.diffs) lines.push(indent(diff));
			if (!call.pass && call.unknownTool)
				lines.push(...unknownToolHint(call.tool, call.unknownTool).map((l) => `      ${l}`));
		}
		for (const failure of step.failures) lines.push(`    - ${failure}`);
		for (const diff of step.diffs) lines.push(indent(diff, "    "));
	}
	const f = report.figures;
	lines.push(`  ${f.passedCalls}/${f.calls} calls passed, ${f.steps - f.failedSteps}/${f.steps} steps passed`);
	return lines.join("\n");
}
