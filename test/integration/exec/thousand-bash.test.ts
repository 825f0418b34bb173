/**
 * 1,000 bash calls in one batch, all answered: real `bash` processes through the built-in tool on a
 * NodeExecutionEnv, through `executeToolCalls` in a child process under a low open-file limit
 * (`ulimit -n 256`, where the same batch without the concurrency cap fails with EMFILE), and
 * through a loaded extension host. No more calls are in flight than `maxConcurrency` (default 16).
 * The tests run concurrently: a batch is bound by spawning processes, and the child and this
 * process each keep one core busy.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolCall } from "../../../src/contract/content.js";
import { DEFAULT_MAX_CONCURRENCY, executeToolCalls } from "../../../src/exec/execute.js";
import { createExtensionHost } from "../../../src/extensions/node-host.js";
import { type BatchSummary, bashCalls, countingBash, summarize } from "./_bash-batch.js";

// One batch of 1,000 took 18–26 s on a loaded 2-core machine (where a bare spawn of bash costs
// about 20 ms); give each test room.
const BATCH_TIMEOUT_MS = 180_000;

const here = dirname(fileURLToPath(import.meta.url));
const jitiCli = join(dirname(createRequire(import.meta.url).resolve("jiti/package.json")), "lib", "jiti-cli.mjs");

let dir: string;
beforeAll(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-1000-bash-")));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const perfect = (count: number): Partial<BatchSummary> => ({ count, answered: count, errors: 0, wrong: [] });

/** `_bash-batch.ts` in a child node under `ulimit -n <fds>`: its JSON summary. */
function batchUnderFdLimit(fds: number, count: number, maxConcurrency?: string): Promise<BatchSummary> {
	const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
	const command = [
		`ulimit -n ${fds} && exec`,
		...[process.execPath, jitiCli, join(here, "_bash-batch.ts"), dir].map(quote),
		String(count),
		...(maxConcurrency !== undefined ? [maxConcurrency] : []),
	].join(" ");
	return new Promise((resolve, reject) => {
		const child = spawn("bash", ["-c", command], { stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
		child.on("error", reject);
		child.on("close", (code) => {
			if (code !== 0) reject(new Error(`child exited with ${code}: ${stderr}`));
			else resolve(JSON.parse(stdout) as BatchSummary);
		});
	});
}

describe.concurrent("1,000 bash calls in one batch through executeToolCalls on a NodeExecutionEnv", () => {
	it(
		"under `ulimit -n 256`: every call answered in source order with its own output, none an error, 16 at once",
		async () => {
			const summary = await batchUnderFdLimit(256, 1000);
			expect(summary).toMatchObject(perfect(1000));
			expect(DEFAULT_MAX_CONCURRENCY).toBe(16);
			expect(summary.peak).toBe(16);
		},
		BATCH_TIMEOUT_MS,
	);

	it(
		"under `ulimit -n 256` without the cap (maxConcurrency: Infinity), calls fail with EMFILE: the limit matters",
		async () => {
			const uncapped = await batchUnderFdLimit(256, 400, "Infinity");
			expect(uncapped.count).toBe(400);
			expect(uncapped.errors).toBeGreaterThan(0);
			expect(uncapped.wrong.join("\n")).toContain("EMFILE");
		},
		BATCH_TIMEOUT_MS,
	);

	it("honors an explicit maxConcurrency with real commands", async () => {
		const { tool, peak } = countingBash(dir);
		const { results } = await executeToolCalls(bashCalls(60), { tools: [tool], maxConcurrency: 3 });
		expect(summarize(results, 60, 0, peak())).toMatchObject({ ...perfect(60), peak: 3 });
	});

	it(
		"through a loaded extension host with the built-ins: every call answered; maxConcurrency kept (default and explicit)",
		async () => {
			await throughHost();
		},
		BATCH_TIMEOUT_MS,
	);
});

type SlowProbe = { inFlight: number; peak: number; toolCalls: number };
const slowProbe = (): SlowProbe => (globalThis as { __thousandBashProbe?: SlowProbe }).__thousandBashProbe as SlowProbe;

// A tool_call handler (so the host's hooks are in the path) and a slow tool that counts how many
// of its calls run at once.
const extensionSource = `
export default function (api) {
	const probe = globalThis.__thousandBashProbe;
	api.on("tool_call", () => { probe.toolCalls++; });
	api.registerTool({
		name: "slow",
		label: "slow",
		description: "Waits a few milliseconds.",
		parameters: { type: "object", properties: {} },
		async execute(id) {
			probe.inFlight++;
			probe.peak = Math.max(probe.peak, probe.inFlight);
			await new Promise((resolve) => setTimeout(resolve, 1 + (id.length % 3)));
			probe.inFlight--;
			return { content: [{ type: "text", text: id }], details: {} };
		},
	});
}
`;

const slowCalls = (count: number): ToolCall[] =>
	Array.from({ length: count }, (_, i) => ({ type: "toolCall", id: `slow-${i}`, name: "slow", arguments: {} }));
const texts = (results: readonly { content: readonly { type: string; text?: string }[] }[]) =>
	results.map((r) => r.content.map((block) => (block.type === "text" ? block.text : "")).join(""));

async function throughHost(): Promise<void> {
	(globalThis as { __thousandBashProbe?: SlowProbe }).__thousandBashProbe = { inFlight: 0, peak: 0, toolCalls: 0 };
	const extension = join(dir, "slow.ts");
	writeFileSync(extension, extensionSource);
	const host = createExtensionHost({ paths: [extension], cwd: dir });
	try {
		const ready = await host.ready;
		expect(ready.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
		expect(host.tools().map((t) => t.name)).toEqual(["read", "bash", "edit", "write", "slow"]);

		const started = Date.now();
		const { results } = await host.execute(bashCalls(1000));
		expect(summarize(results, 1000, Date.now() - started, 0)).toMatchObject(perfect(1000));
		expect(slowProbe().toolCalls).toBe(1000);

		const byDefault = await host.execute(slowCalls(100));
		expect(texts(byDefault.results)).toEqual(slowCalls(100).map((c) => c.id));
		expect(slowProbe().peak).toBe(16);

		slowProbe().peak = 0;
		const explicit = await host.execute(slowCalls(100), { maxConcurrency: 5 });
		expect(texts(explicit.results)).toEqual(slowCalls(100).map((c) => c.id));
		expect(slowProbe().peak).toBe(5);
	} finally {
		await host.close();
	}
}
