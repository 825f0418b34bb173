import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Type } from "../../../src/contract/schema.js";
import { defineTool } from "../../../src/contract/tool.js";
import {
	jsonPointerToPath,
	parseReplayFixture,
	ReplayFixtureError,
	replayFixtureJsonSchema,
} from "../../../src/harness/fixture.js";
import { loadReplayFixture, replayFile } from "../../../src/harness/node-replay.js";
import { formatReplayReport, replay, subsetProblems } from "../../../src/harness/replay.js";

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/replay/${name}`, import.meta.url));

describe("replay fixtures", () => {
	it("passes a fixture whose expectations hold", async () => {
		const report = await replayFile(fixture("edit-and-test.json"));
		expect(formatReplayReport(report)).toContain("PASS rename a function");
		expect(report.pass).toBe(true);
		expect(report.figures).toEqual({ calls: 5, passedCalls: 5, failedCalls: 0, steps: 4, failedSteps: 0 });
	});

	it("fails a fixture with wrong expectations, with a readable diff", async () => {
		const report = await replayFile(fixture("wrong-expectation.json"));
		expect(report.pass).toBe(false);
		const [step] = report.steps;
		expect(step?.calls[0]?.failures).toEqual(["text differs from the expected text"]);
		expect(step?.calls[0]?.diffs[0]).toBe(
			["--- expected", "+++ actual", "@@ line 1 @@", "  alpha", "- BETA", "+ beta", "  gamma", "  "].join("\n"),
		);
		// `ls` is not scripted: the memory shell exits 127.
		expect(step?.calls[1]?.failures[0]).toMatch(/^isError is true, expected false; the error: .*ls/);
		expect(step?.calls[1]?.failures[1]).toBe("details.exitCode is missing");
		expect(step?.failures).toEqual([
			"file a.txt differs from the expected text",
			"the commands run differ from the expected ones",
		]);
		const text = formatReplayReport(report);
		expect(text).toContain("FAIL a fixture whose expectations are wrong");
		expect(text).toContain("- ls -la");
		expect(text).toContain("+ ls");
		expect(text).toContain("0/2 calls passed, 0/1 steps passed");
	});

	it("names the JSON path of an invalid fixture", async () => {
		await expect(loadReplayFixture(fixture("invalid.json"))).rejects.toThrow(ReplayFixtureError);
		const error = (await loadReplayFixture(fixture("invalid.json")).then(
			() => undefined,
			(e: unknown) => e,
		)) as ReplayFixtureError;
		expect(error.path).toBe("steps[1].calls[0].expect.text");
		expect(error.message).toMatch(
			/invalid\.json: steps\[1\]\.calls\[0\]\.expect\.text: expected a string or an object/,
		);
	});

	it("reports every problem, including ones the schema cannot express", () => {
		const bad = {
			steps: [
				{ calls: [] },
				{
					calls: [
						{ tool: "read", id: "x" },
						{ tool: "read", id: "x", expect: { text: { matches: "(" } } },
					],
				},
			],
			extra: true,
		};
		expect(() => parseReplayFixture(bad)).toThrow(/extra: Unexpected property/);
		const semantic = {
			steps: [
				{
					calls: [
						{ tool: "read", id: "x" },
						{ tool: "read", id: "x", expect: { text: { matches: "(" } } },
					],
				},
			],
		};
		try {
			parseReplayFixture(semantic);
			expect.unreachable();
		} catch (error) {
			expect((error as ReplayFixtureError).issues.map((issue) => issue.path)).toEqual([
				"steps[0].calls[1].id",
				"steps[0].calls[1].expect.text.matches",
			]);
		}
		expect(() => parseReplayFixture({ cwd: "project", steps: [{ calls: [{ tool: "read" }] }] })).toThrow(
			/cwd: must be an absolute path/,
		);
		expect(jsonPointerToPath("/steps/2/expect/files/src~1a.ts")).toBe('steps[2].expect.files["src/a.ts"]');
		expect(jsonPointerToPath("")).toBe("(root)");
	});

	it("rejects malformed JSON at the root", async () => {
		const { parseReplayFixtureText } = await import("../../../src/harness/fixture.js");
		expect(() => parseReplayFixtureText("{", "f.json")).toThrow(
			/^Invalid replay fixture f\.json: \(root\): not valid JSON/,
		);
	});

	it("replays with custom tools and sequential steps", async () => {
		const counter = defineTool({
			name: "count",
			label: "Count",
			description: "Counts calls.",
			parameters: Type.Object({ by: Type.Number() }),
			async execute(_id, { by }) {
				return { content: [{ type: "text", text: `+${by}` }], details: { by } };
			},
		});
		const report = await replay(
			{
				steps: [
					{
						toolExecution: "sequential",
						calls: [
							{ tool: "count", args: { by: "2" }, expect: { text: "+2", details: { by: 2 } } },
							{ tool: "nope", expect: { isError: true, text: { contains: ["nope", "count"] } } },
						],
					},
				],
			},
			{ tools: [counter], builtins: false },
		);
		expect(report.pass).toBe(true);
	});

	it("draws each call with the extensions' tool renderers, and shows it under a failed call", async () => {
		const report = await replay(
			{
				steps: [
					{
						calls: [
							{ tool: "read", args: { path: "a.txt" }, expect: { text: "nothing" } },
							{ tool: "mcp__srv__gone", args: { q: 1 }, expect: { isError: true } },
						],
					},
				],
				files: { "a.txt": "hello\n" },
			},
			{
				extensions: [
					(api) =>
						api.registerToolRenderer((name, next) =>
							name.startsWith("mcp__") ? { renderCall: (args) => `MCP ${name} ${JSON.stringify(args)}` } : next(),
						),
				],
			},
		);
		const [read, mcp] = report.steps[0]?.calls ?? [];
		expect(mcp?.drawn).toEqual(['MCP mcp__srv__gone {"q":1}']);
		expect(read?.drawn).toEqual(["read a.txt"]);
		expect(formatReplayReport(report)).toContain("    ✗ read (s0c0)\n      call: read a.txt\n");
	});

	it("ships a JSON Schema equal to the one it validates with", () => {
		const shipped = JSON.parse(
			readFileSync(fileURLToPath(new URL("../../../schema/replay-fixture.schema.json", import.meta.url)), "utf8"),
		);
		expect(shipped).toEqual(replayFixtureJsonSchema());
	});

	it("compares details as a subset", () => {
		expect(subsetProblems({ a: 1, b: { c: [1, 2] } }, { a: 1, b: { c: [1, 2], d: 3 }, e: 4 })).toEqual([]);
		expect(subsetProblems({ a: 1, b: { c: [1, 3] } }, { a: 2, b: { c: [1, 2] } })).toEqual([
			"details.a is 2, expected 1",
			"details.b.c[1] is 2, expected 3",
		]);
		expect(subsetProblems({ list: [1] }, { list: [1, 2] })).toEqual(["details.list has 2 elements, expected 1"]);
		expect(subsetProblems({ a: 1 }, undefined)).toEqual(["details is undefined, expected an object"]);
	});
});
