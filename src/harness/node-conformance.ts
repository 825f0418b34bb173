/** Conformance of the tools extensions register, loaded by the real loader (Node only). */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { errorMessage } from "../contract/errors.js";
import type { ToolDefinition } from "../contract/tool.js";
import { MemoryExecutionEnv } from "../env/memory.js";
import type { ExtensionDiagnostic } from "../extensions/api.js";
import { loadExtensions } from "../extensions/node-loader.js";
import { type CheckToolOptions, checkTool } from "./conformance.js";
import {
	applyConformanceBaseline,
	type ConformanceBaseline,
	type ConformanceSummary,
	parseConformanceBaseline,
} from "./conformance-baseline.js";

/** Read an expected-failures baseline file; rejects with a message naming the file. */
export async function loadConformanceBaseline(path: string): Promise<ConformanceBaseline> {
	let text: string;
	try {
		text = await readFile(path, "utf8");
	} catch (error) {
		throw new Error(`Cannot read the conformance baseline ${path}: ${errorMessage(error)}`);
	}
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		throw new Error(`${path}: not valid JSON: ${errorMessage(error)}`);
	}
	return parseConformanceBaseline(value, path);
}

/** Options for `checkExtensions`: those of `checkTool`, a baseline of accepted failures, and which tools to check. */
export interface CheckExtensionsOptions extends CheckToolOptions {
	/** Accepted failures: an object, or the path of a baseline JSON file. */
	readonly baseline?: ConformanceBaseline | string;
	/** Only these tools (by name). */
	readonly tools?: readonly string[];
}

/** What `checkExtensions` found: the conformance summary of the extensions' tools and what loading them reported. */
export interface ExtensionsConformanceSummary extends ConformanceSummary {
	/** What the loader reported; an error-level diagnostic makes the summary fail. */
	readonly diagnostics: readonly ExtensionDiagnostic[];
}

/** The tools registered by the extensions at `paths` (files or folders). */
export async function loadExtensionTools(
	paths: readonly string[],
): Promise<{ tools: ToolDefinition[]; diagnostics: ExtensionDiagnostic[] }> {
	const env = new MemoryExecutionEnv({ clock: () => 0 });
	const loaded = await loadExtensions(
		paths.map((path) => resolve(path)),
		{ env, cwd: env.cwd, builtins: false },
	);
	await loaded.runtime.emit({ type: "session_start", reason: "startup" });
	const tools = loaded.registry
		.entries()
		.filter((entry) => entry.source.kind === "extension")
		.map((entry) => entry.definition);
	return { tools, diagnostics: loaded.diagnostics };
}

/** Load extensions and check every tool they register, with the baseline applied. Never rejects for a broken extension. */
export async function checkExtensions(
	paths: readonly string[],
	options: CheckExtensionsOptions = {},
): Promise<ExtensionsConformanceSummary> {
	const { baseline, tools: only, ...checkOptions } = options;
	const resolvedBaseline = typeof baseline === "string" ? await loadConformanceBaseline(baseline) : baseline;
	const { tools, diagnostics } = await loadExtensionTools(paths);
	const selected = only ? tools.filter((tool) => only.includes(tool.name)) : tools;
	const reports = [];
	for (const tool of selected) reports.push(await checkTool(tool, checkOptions));
	const summary = applyConformanceBaseline(reports, resolvedBaseline);
	const loadFailed = diagnostics.some((diagnostic) => diagnostic.severity === "error");
	return { ...summary, diagnostics, pass: summary.pass && !loadFailed };
}
