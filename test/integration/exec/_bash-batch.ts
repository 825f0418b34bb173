/**
 * One batch of `count` bash calls (`echo n<i>`) through `executeToolCalls` with the built-in bash
 * tool on a NodeExecutionEnv in `cwd`, and a summary of what came back. Imported by the test, and
 * run as a child process (`node jiti-cli.mjs _bash-batch.ts <cwd> <count> [maxConcurrency]`) under
 * a low file-descriptor limit, printing the summary as JSON.
 */
import type { ToolCall } from "../../../src/contract/content.js";
import { type AgentTool, type ToolContext, wrapToolDefinition } from "../../../src/contract/tool.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { executeToolCalls } from "../../../src/exec/execute.js";
import { createBashTool } from "../../../src/tools/bash.js";

export interface BatchSummary {
	readonly count: number;
	/** Results whose id, text and error flag are what call `i` should give. */
	readonly answered: number;
	readonly errors: number;
	/** The first few results that were not right, as `id: text`. */
	readonly wrong: readonly string[];
	readonly ms: number;
	/** Most calls of the batch whose bash tool was running at once. */
	readonly peak: number;
}

export function bashCalls(count: number): ToolCall[] {
	return Array.from({ length: count }, (_, i) => ({
		type: "toolCall",
		id: `call-${i}`,
		name: "bash",
		arguments: { command: `echo n${i}` },
	}));
}

/** Checks `results` against `bashCalls(count)`: in source order, each `n<i>`, none an error. */
export function summarize(
	results: readonly { toolCallId: string; isError: boolean; content: readonly { type: string; text?: string }[] }[],
	count: number,
	ms: number,
	peak: number,
): BatchSummary {
	let answered = 0;
	let errors = 0;
	const wrong: string[] = [];
	for (let i = 0; i < count; i++) {
		const result = results[i];
		const text = result?.content.map((block) => (block.type === "text" ? block.text : "")).join("") ?? "";
		if (result?.isError) errors++;
		if (result?.toolCallId === `call-${i}` && !result.isError && text === `n${i}\n`) answered++;
		else if (wrong.length < 5) wrong.push(`${result?.toolCallId ?? `missing ${i}`}: ${text.slice(0, 200)}`);
	}
	return { count: results.length, answered, errors, wrong, ms, peak };
}

const headless: ToolContext["ui"] = {
	select: async () => undefined,
	confirm: async () => false,
	input: async () => undefined,
	notify: () => undefined,
};

/** The built-in bash tool on a NodeExecutionEnv in `cwd`, counting how many of its calls run at once. */
export function countingBash(cwd: string): { tool: AgentTool; peak: () => number } {
	const env = new NodeExecutionEnv({ cwd });
	const bash: AgentTool = wrapToolDefinition(createBashTool(), () => ({ env, cwd, hasUI: false, ui: headless }));
	let inFlight = 0;
	let peak = 0;
	const tool: AgentTool = {
		...bash,
		async execute(...args) {
			inFlight++;
			peak = Math.max(peak, inFlight);
			try {
				return await bash.execute(...args);
			} finally {
				inFlight--;
			}
		},
	};
	return { tool, peak: () => peak };
}

export async function runBashBatch(cwd: string, count: number, maxConcurrency?: number): Promise<BatchSummary> {
	const { tool, peak } = countingBash(cwd);
	const started = Date.now();
	const { results } = await executeToolCalls(bashCalls(count), {
		tools: [tool],
		...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
	});
	return summarize(results, count, Date.now() - started, peak());
}

const [, script, cwdArg, countArg, limitArg] = process.argv;
if (script?.endsWith("_bash-batch.ts") && cwdArg && countArg) {
	const limit =
		limitArg === undefined ? undefined : limitArg === "Infinity" ? Number.POSITIVE_INFINITY : Number(limitArg);
	runBashBatch(cwdArg, Number(countArg), limit).then(
		(summary) => process.stdout.write(`${JSON.stringify(summary)}\n`),
		(error: unknown) => {
			process.stderr.write(`${String(error)}\n`);
			process.exitCode = 1;
		},
	);
}
