/**
 * A recorded call whose tool makes nested calls (`ctx.executeTool`), replayed: recorded over a
 * real extension host and Node env (test/fixtures/nested-relay), saved as a fixture whose call
 * expects the nested calls it made, then replayed against the memory env by `replayFile` and
 * `toolsmith test`. The replay makes the same nested calls with the same results; the report lists
 * them; a tool that stops making one fails the fixture, saying which.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolCall } from "../../../src/contract/content.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { createExtensionHost } from "../../../src/extensions/node-host.js";
import { replayFile } from "../../../src/harness/node-replay.js";
import { recordingEnv } from "../../../src/harness/record.js";
import { formatReplayReport } from "../../../src/harness/replay.js";
import { repoRoot, runCli } from "../cli/_run.js";

let dir: string;
let fixturePath: string;

beforeAll(async () => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-nested-replay-")));
	mkdirSync(join(dir, "tools"));
	copyFileSync(join(repoRoot, "test/fixtures/nested-relay/relay.ts"), join(dir, "tools", "relay.ts"));
	const recorder = recordingEnv(new NodeExecutionEnv({ cwd: dir }));
	const host = createExtensionHost({ paths: [join(dir, "tools")], cwd: dir, env: recorder, watch: false });
	try {
		await host.ready;
		const calls: ToolCall[] = [
			{ type: "toolCall", id: "call-1", name: "relay", arguments: { n: 3, intervalMs: 0 } },
			{ type: "toolCall", id: "call-2", name: "read", arguments: { path: "missing.txt" } },
		];
		const { results } = await host.execute(calls);
		await recorder.recordBatch(calls, results);
		const fixture = { ...(await recorder.fixture({ name: "nested" })), extensions: ["tools"] };
		fixturePath = join(dir, "nested.json");
		writeFileSync(fixturePath, `${JSON.stringify(fixture, null, "\t")}\n`);
	} finally {
		await host.close();
	}
}, 60_000);

afterAll(() => {
	if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("replaying nested calls", () => {
	it("records the nested calls a call made as its expectation", () => {
		const fixture = JSON.parse(readFileSync(fixturePath, "utf8"));
		expect(fixture.steps[0].calls[0].expect).toEqual({
			isError: false,
			text: "call-1/1: counted to 3; call-1/2: refused",
			nestedCalls: [
				{ id: "call-1/1", tool: "tick", status: "ok", args: { n: 3, intervalMs: 0 } },
				{ id: "call-1/2", tool: "tick", status: "error", args: { n: "many" } },
			],
		});
		// A call that made none expects none.
		expect(fixture.steps[0].calls[1].expect.nestedCalls).toBeUndefined();
	});

	it("replays them against the memory env with the same calls and results, and the report lists them", async () => {
		const report = await replayFile(fixturePath);
		expect(report.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
		expect(report.pass).toBe(true);
		const relay = report.steps[0]?.calls[0];
		expect(relay?.nestedCalls?.calls.map((c) => [c.id, c.name, c.status])).toEqual([
			["call-1/1", "tick", "ok"],
			["call-1/2", "tick", "error"],
		]);
		const text = formatReplayReport(report, { verbose: true });
		expect(text).toContain(
			'    ✓ relay (call-1)\n      ↳ call-1/1 tick ok {"n":3,"intervalMs":0}\n      ↳ call-1/2 tick error {"n":"many"}: "Invalid arguments for tool \\"tick\\":"\n',
		);
	});

	it("fails when the tool no longer makes the same nested calls, and says which", async () => {
		const changed = join(dir, "changed");
		mkdirSync(join(changed, "tools"), { recursive: true });
		const source = readFileSync(join(dir, "tools", "relay.ts"), "utf8");
		const without = source.replace('await ctx.executeTool!("tick", { n: "many" }, { signal })', "counted");
		expect(without).not.toBe(source);
		writeFileSync(join(changed, "tools", "relay.ts"), without);
		const fixture = JSON.parse(readFileSync(fixturePath, "utf8"));
		fixture.steps[0].calls[0].expect.text = { contains: "call-1/1: counted to 3" };
		writeFileSync(join(changed, "nested.json"), JSON.stringify(fixture));
		const report = await replayFile(join(changed, "nested.json"));
		expect(report.pass).toBe(false);
		const relay = report.steps[0]?.calls[0];
		expect(relay?.failures).toEqual(["the tool made 1 nested call, expected 2"]);
		const text = formatReplayReport(report);
		expect(text).toContain("✗ relay (call-1)");
		expect(text).toContain('↳ call-1/1 tick ok {"n":3,"intervalMs":0}');
		expect(text).toContain("- the tool made 1 nested call, expected 2");
		expect(text).toMatch(/actual nested calls/);
	});

	it("passes through toolsmith test", async () => {
		const run = await runCli(["test", fixturePath], { cwd: dir });
		expect(run.stderr).not.toMatch(/^(error|warning)/m);
		expect(run.stdout).toMatch(/1 fixture passed/);
		expect(run.code).toBe(0);
	}, 120_000);
});
