/**
 * `runEvals` on Node: a world in a temp folder with the Node env, trials run concurrently, an
 * extension that does not load failing its scenario's trials (the run goes on), and a Node-world
 * trial recorded as a fixture that replays on the memory env.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool } from "../../../src/contract/tool.js";
import { runEvals } from "../../../src/eval/node-run.js";
import { scriptedModel } from "../../../src/eval/scripted.js";
import type { EvalScenario } from "../../../src/eval/types.js";
import { replay } from "../../../src/harness/replay.js";
import { Type } from "../../../src/index.js";

let dir: string;
beforeAll(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-run-evals-")));
	writeFileSync(join(dir, "broken.ts"), "export default function (api) { throw new Error('no way'); }\n");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const append = defineTool({
	name: "append",
	label: "Append",
	description: "Append a line to a file.",
	parameters: Type.Object({ path: Type.String(), line: Type.String() }),
	async execute(_id, { path, line }, _signal, _onUpdate, ctx) {
		const done = await ctx.env.appendFile(path, `${line}\n`);
		if (!done.ok) throw new Error(done.error.message);
		return { content: [{ type: "text", text: `appended to ${path}` }], details: {} };
	},
});

const model = scriptedModel([
	{ calls: [{ tool: "append", args: { path: "log.txt", line: "two" } }] },
	{ calls: [{ tool: "read", args: { path: "log.txt" } }] },
	{ text: "log.txt now ends with two" },
]);

describe("runEvals", () => {
	it("runs each trial in its own temp folder with the Node env, concurrently", async () => {
		const scenario: EvalScenario = {
			name: "append on disk",
			prompt: "Add two to the log.",
			world: { env: "node", files: { "log.txt": "one\n" } },
			tools: { definitions: [append], builtins: ["read"] },
			expect: {
				calls: [{ tool: "append" }, { tool: "read" }],
				order: "strict",
				files: { "log.txt": "one\ntwo\n" },
				answer: /two/,
			},
			trials: 4,
		};
		const seen: number[] = [];
		const report = await runEvals([scenario], { model, concurrency: 3, onTrial: (r) => seen.push(r.trial) });
		expect(report.ok).toBe(true);
		expect(report.scenarios[0]).toMatchObject({ trials: 4, passed: 4, passRate: 1, goal: 1, meanTurns: 3 });
		expect(seen.sort()).toEqual([1, 2, 3, 4]);
		expect(report.scenarios[0]?.invalidArguments).toEqual({
			append: { calls: 4, invalid: 0, fields: {} },
			read: { calls: 4, invalid: 0, fields: {} },
		});
	});

	it("fails every trial of a scenario whose extension does not load, and runs the others", async () => {
		const good: EvalScenario = {
			name: "good",
			prompt: "p",
			tools: { definitions: [append] },
			expect: { calls: [{ tool: "append" }] },
		};
		const broken: EvalScenario = { ...good, name: "broken", tools: { extensions: ["broken.ts"] }, trials: 2 };
		const report = await runEvals([broken, good], { model, cwd: dir });
		expect(report.ok).toBe(false);
		const [b, g] = report.scenarios;
		expect(b).toMatchObject({ scenario: "broken", trials: 2, passed: 0 });
		expect(b?.results[0]?.failures[0]?.message).toMatch(/extensions did not load: .*no way/);
		expect(g).toMatchObject({ scenario: "good", passed: 1 });
	});

	it("tells a scenario's extensions when the run ends (session_shutdown)", async () => {
		const marker = join(dir, "shutdown.txt");
		writeFileSync(
			join(dir, "lifecycle.ts"),
			`import { writeFileSync } from "node:fs";
export default function (api) {
	api.on("session_start", () => writeFileSync(${JSON.stringify(marker)}, "started"));
	api.on("session_shutdown", () => writeFileSync(${JSON.stringify(marker)}, "closed"));
}
`,
		);
		const scenario: EvalScenario = {
			name: "lifecycle",
			prompt: "p",
			tools: { extensions: ["lifecycle.ts"], definitions: [append] },
			expect: { maxTurns: 5 },
			trials: 2,
		};
		const report = await runEvals([scenario], { model, cwd: dir });
		expect(report.ok).toBe(true);
		expect(readFileSync(marker, "utf8")).toBe("closed");
	});

	it("refuses an invalid scenario and duplicate names before running anything", async () => {
		await expect(runEvals([{ name: "x", prompt: "p", expect: {} }], { model })).rejects.toThrow(/no expectation given/);
		const s: EvalScenario = { name: "same", prompt: "p", expect: { maxCalls: 1 } };
		await expect(runEvals([s, s], { model })).rejects.toThrow(/two scenarios are named "same"/);
		await expect(runEvals([s, { ...s, name: "same!" }], { model, record: join(dir, "never") })).rejects.toThrow(
			/scenarios "same" and "same!" would be recorded in the same files \(same-1.fixture.json, …\)/,
		);
	});

	it("records a Node-world trial as a fixture that replays on the memory env", async () => {
		const scenario: EvalScenario = {
			name: "append/recorded",
			prompt: "Add two to the log.",
			world: { env: "node", files: { "log.txt": "one\n" } },
			tools: { definitions: [append], builtins: ["read"] },
			expect: { files: { "log.txt": "one\ntwo\n" } },
		};
		const recorded = scriptedModel([
			{
				calls: [
					{ tool: "append", args: { path: "log.txt", line: "two" } },
					{ tool: "nope", args: {} },
				],
			},
			{ calls: [{ tool: "read", args: { path: "log.txt" } }] },
			{ text: "done" },
		]);
		const report = await runEvals([scenario], { model: recorded, record: join(dir, "rec") });
		expect(report.ok).toBe(true);
		const fixture = JSON.parse(readFileSync(join(dir, "rec", "append-recorded-1.fixture.json"), "utf8"));
		expect(fixture.files).toEqual({ "log.txt": "one\n" });
		expect(JSON.stringify(fixture)).not.toContain(tmpdir());
		// the list of available tools differs where the replay runs
		expect(fixture.steps[0].calls[1].expect).toEqual({ isError: true, text: { contains: "Tool nope not found." } });
		const replayed = await replay(fixture, { tools: [append] });
		expect(replayed.pass).toBe(true);
	});
});
