/**
 * toolsmith-sdk/vitest: conformance suites and matchers for vitest (an optional peer dependency).
 * Importing this module registers the matchers with vitest's `expect`.
 */

import { describe, expect, it } from "vitest";
import type { ToolResultMessage } from "../contract/content.js";
import { describeValue } from "../contract/errors.js";
import type { AgentToolResult, ToolDefinition } from "../contract/tool.js";
import { loadNodeProvisionsWith } from "../extensions/node-provided.js";
import { type CheckToolOptions, checkTool } from "./conformance.js";
import { applyConformanceBaseline, type ConformanceBaseline, type ConformanceSummary } from "./conformance-baseline.js";
import { CONFORMANCE_CHECKS } from "./conformance-checks.js";
import { checkExtensions } from "./node-conformance.js";

/** Options for `describeConformance`: those of `checkTool`, a baseline of accepted failures and the describe block's name. */
export interface DescribeConformanceOptions extends CheckToolOptions {
	/** Accepted failures (a stale entry fails its own test). */
	readonly baseline?: ConformanceBaseline;
	/** The describe block's name (default: `conformance: <tool or path>`). */
	readonly name?: string;
}

/**
 * Register one vitest test per conformance check for a tool definition, a list of them, or the
 * tools of an extension (a path). Checks run once, on first use; a skipped check is a skipped test.
 */
export function describeConformance(
	target: ToolDefinition | readonly ToolDefinition[] | string,
	options: DescribeConformanceOptions = {},
): void {
	const label =
		typeof target === "string"
			? target
			: Array.isArray(target)
				? (target as readonly ToolDefinition[]).map((t) => t.name).join(", ")
				: (target as ToolDefinition).name;
	let pending: Promise<ConformanceSummary> | undefined;
	const summary = (): Promise<ConformanceSummary> => {
		pending ??= (async () => {
			if (typeof target === "string") {
				const result = await checkExtensions([target], {
					...options,
					...(options.baseline ? { baseline: options.baseline } : {}),
				});
				const broken = result.diagnostics.filter((d) => d.severity === "error");
				if (broken.length > 0) throw new Error(broken.map((d) => d.message).join("\n"));
				if (result.reports.length === 0) throw new Error(`${target} registered no tools`);
				return result;
			}
			const list: readonly ToolDefinition[] = Array.isArray(target)
				? (target as readonly ToolDefinition[])
				: [target as ToolDefinition];
			const reports = [];
			for (const tool of list) reports.push(await checkTool(tool, options));
			return applyConformanceBaseline(reports, options.baseline);
		})();
		return pending;
	};

	describe(options.name ?? `conformance: ${label}`, () => {
		for (const { id, title } of CONFORMANCE_CHECKS) {
			it(`${id}: ${title}`, async (context) => {
				const result = await summary();
				const checks = result.reports.flatMap((report) =>
					report.checks.filter((c) => c.id === id).map((c) => ({ tool: report.tool, check: c })),
				);
				const failed = checks.filter(({ check }) => check.status === "fail" && !check.expectedFailure);
				if (failed.length > 0) {
					throw new Error(
						failed
							.map(({ tool, check }) => [`${tool}: ${check.message}`, ...check.details.map((d) => `  ${d}`)].join("\n"))
							.join("\n"),
					);
				}
				if (checks.every(({ check }) => check.status === "skip")) {
					context.skip(checks.map(({ tool, check }) => `${tool}: ${check.message}`).join("; "));
				}
			});
		}
		if (options.baseline) {
			it("baseline: no stale entries", async () => {
				const result = await summary();
				if (result.stale.length > 0) {
					throw new Error(result.stale.map((entry) => `${entry.tool}: ${entry.check}: ${entry.reason}`).join("\n"));
				}
			});
		}
	});
}

/** A result message or a tool result: what the result matchers accept. */
type ResultLike = ToolResultMessage | AgentToolResult<unknown>;

function resultText(received: unknown): string | undefined {
	if (typeof received === "string") return received;
	const content = (received as { content?: unknown } | null)?.content;
	if (!Array.isArray(content)) return undefined;
	return content
		.filter(
			(block): block is { type: "text"; text: string } => block?.type === "text" && typeof block.text === "string",
		)
		.map((block) => block.text)
		.join("\n");
}

function textMatches(text: string, expected: string | RegExp): boolean {
	return typeof expected === "string" ? text === expected : expected.test(text);
}

function filesOf(received: unknown): Record<string, string> | undefined {
	if (typeof received !== "object" || received === null) return undefined;
	const withFiles = received as { files?: unknown; snapshot?: unknown };
	if (typeof withFiles.files === "function") return (withFiles.files as () => Record<string, string>)();
	if (typeof withFiles.snapshot === "function") return (withFiles.snapshot as () => Record<string, string>)();
	return received as Record<string, string>;
}

/** The matchers, for `expect.extend` in setups that import them by hand. */
export const toolsmithMatchers = {
	/** The result's text content (text blocks joined with newlines) equals a string or matches a RegExp. */
	toHaveText(received: unknown, expected: string | RegExp) {
		const text = resultText(received);
		const pass = text !== undefined && textMatches(text, expected);
		return {
			pass,
			message: () =>
				text === undefined
					? `expected a tool result (with content), got ${describeValue(received)}`
					: `expected the result text ${pass ? "not " : ""}to ${typeof expected === "string" ? "equal" : "match"} ${String(typeof expected === "string" ? JSON.stringify(expected) : expected)}, got ${JSON.stringify(text)}`,
			actual: text,
			expected,
		};
	},
	/** The result is an error result (`isError: true`), optionally with text containing a string or matching a RegExp. */
	toBeToolError(received: unknown, expected?: string | RegExp) {
		const isError = (received as { isError?: unknown } | null)?.isError === true;
		const text = resultText(received) ?? "";
		const textOk =
			expected === undefined || (typeof expected === "string" ? text.includes(expected) : expected.test(text));
		const pass = isError && textOk;
		return {
			pass,
			message: () =>
				!isError
					? `expected an error result, got isError ${describeValue((received as { isError?: unknown } | null)?.isError)} with text ${JSON.stringify(text)}`
					: pass
						? `expected not an error result${expected !== undefined ? ` matching ${String(expected)}` : ""}, got ${JSON.stringify(text)}`
						: `expected the error text to ${typeof expected === "string" ? "contain" : "match"} ${String(expected)}, got ${JSON.stringify(text)}`,
		};
	},
	/**
	 * The files (of a harness, a MemoryExecutionEnv, or a path → content record) include these:
	 * each path's content equals the string or matches the RegExp; `null` means it must not exist.
	 */
	toHaveFiles(received: unknown, expected: Readonly<Record<string, string | RegExp | null>>) {
		const files = filesOf(received);
		if (!files)
			return {
				pass: false,
				message: () => `expected a harness, an env or a file record, got ${describeValue(received)}`,
			};
		const problems: string[] = [];
		for (const [path, want] of Object.entries(expected)) {
			const have = files[path];
			if (want === null) {
				if (have !== undefined) problems.push(`${path} exists, expected it not to`);
			} else if (have === undefined) problems.push(`${path} does not exist`);
			else if (!textMatches(have, want)) {
				problems.push(
					`${path} is ${JSON.stringify(have)}, expected ${typeof want === "string" ? JSON.stringify(want) : String(want)}`,
				);
			}
		}
		return {
			pass: problems.length === 0,
			message: () => (problems.length === 0 ? "expected the files not to match" : problems.join("\n")),
		};
	},
};

expect.extend(toolsmithMatchers);

/** The matcher signatures, merged into vitest's `Assertion` below. */
export interface ToolsmithMatchers<R = unknown> {
	toHaveText(expected: string | RegExp): R;
	toBeToolError(expected?: string | RegExp): R;
	toHaveFiles(expected: Readonly<Record<string, string | RegExp | null>>): R;
}

declare module "vitest" {
	// biome-ignore lint/suspicious/noExplicitAny: the augmentation must repeat vitest's own declaration exactly.
	interface Matchers<T = any> extends ToolsmithMatchers<T> {}
}

export type { ResultLike };

// Extensions the harness loads get toolsmith's entries and the MCP client from the Node entry,
// imported the first time one of them is needed.
loadNodeProvisionsWith(() => import("../node.js"));
