/**
 * `toolsmith eval --request-timeout` (the built CLI, as a child process) against an
 * OpenAI-compatible server on loopback that accepts every request and never ends its response:
 * each trial fails saying which option cut it, the run goes on to the next scenario, and the
 * command ends with exit code 1. Nothing here measures time: a response that never ends is cut by
 * the timeout whatever the machine's speed.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { type CliRun, runCli, startCli } from "../cli/_run.js";
import { type ScriptedServer, startScriptedServer } from "./_openai-server.js";

let dir: string;
let server: ScriptedServer;

beforeAll(async () => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-eval-timeout-")));
	writeFileSync(
		join(dir, "stall.eval.json"),
		JSON.stringify([
			{ name: "first", prompt: "Say hi.", expect: { answer: "hi" } },
			{ name: "second", prompt: "Say hello.", expect: { answer: "hello" } },
		]),
	);
	server = await startScriptedServer(() => ({ neverEnd: true }));
});

afterAll(async () => {
	await server?.close();
	rmSync(dir, { recursive: true, force: true });
});

async function evalCli(args: readonly string[]): Promise<CliRun> {
	const cli = startCli(
		["eval", "stall.eval.json", "--model", "openai-compatible/stall", "--base-url", server.baseUrl, ...args],
		{
			cwd: dir,
			env: { NO_COLOR: "1" },
		},
	);
	onTestFinished(async () => {
		await cli.kill("SIGKILL");
	});
	const code = await cli.exited;
	return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

describe("toolsmith eval --request-timeout", () => {
	it("fails each trial whose request never ends, naming the option, and goes on", async () => {
		const run = await evalCli(["--request-timeout", "0.05"]);
		expect(run.stderr).toBe("");
		const lines = run.stdout.split("\n");
		const first = lines.findIndex((line) => /^FAIL first #1 \(error/.test(line));
		const second = lines.findIndex((line) => /^FAIL second #1 \(error/.test(line));
		expect(first).toBeGreaterThanOrEqual(0);
		expect(second).toBeGreaterThan(first);
		expect(
			run.stdout.match(/the model did not answer within 50 ms \(the request timeout: --request-timeout/g),
		).toHaveLength(2);
		expect(run.stdout).toContain("2 of 2 scenarios fell under their goal");
		expect(run.code).toBe(1);
	});

	it.each([["-1"], ["ten"], ["1e3"], ["9999999"]])("refuses --request-timeout %s as a usage error", async (value) => {
		const run = await runCli(["eval", "stall.eval.json", "--model", "scripted:x.json", `--request-timeout=${value}`], {
			cwd: dir,
		});
		expect(run.code).toBe(2);
		expect(run.stderr).toContain(
			`--request-timeout takes a number of seconds up to 2147483 (0: no limit), not ${JSON.stringify(value)}`,
		);
	});
});
