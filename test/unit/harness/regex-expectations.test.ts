import { describe, expect, it } from "vitest";
import { Type } from "../../../src/contract/schema.js";
import { defineTool } from "../../../src/contract/tool.js";
import { parseReplayFixture, type ReplayFixtureError } from "../../../src/harness/fixture.js";
import { replay } from "../../../src/harness/replay.js";

// A tool that answers with the text it is given, so an expectation can be checked against any text.
const echo = defineTool({
	name: "echo",
	label: "Echo",
	description: "Answers with its text.",
	parameters: Type.Object({ text: Type.String() }),
	async execute(_id, { text }) {
		return { content: [{ type: "text", text }], details: {} };
	},
});

function issuesOf(fixture: unknown): readonly { path: string; message: string }[] {
	try {
		parseReplayFixture(fixture);
	} catch (error) {
		return (error as ReplayFixtureError).issues;
	}
	return [];
}

describe("regular expressions in replay fixtures", () => {
	it("runs a catastrophic-backtracking pattern in linear time", async () => {
		// (a+)+$ against "aaa…ab" takes exponential time in a backtracking engine: 30 a's already
		// take seconds there, 20,000 would never finish.
		const text = `${"a".repeat(20_000)}b`;
		const started = performance.now();
		const report = await replay(
			{
				steps: [
					{ calls: [{ tool: "echo", args: { text }, expect: { text: { matches: "(a+)+$" } } }] },
					{ calls: [{ tool: "echo", args: { text: "aaaa" }, expect: { text: { matches: "(a+)+$" } } }] },
				],
			},
			{ tools: [echo], builtins: false },
		);
		expect(performance.now() - started).toBeLessThan(1000);
		expect(report.steps[0]?.calls[0]?.pass).toBe(false);
		expect(report.steps[0]?.calls[0]?.failures.join("\n")).toMatch(/does not match \/\(a\+\)\+\$\//);
		expect(report.steps[1]?.calls[0]?.pass).toBe(true);
	});

	it("keeps JavaScript escapes and the i, m, s flags", async () => {
		const report = await replay(
			{
				steps: [
					{
						calls: [
							{
								tool: "echo",
								args: { text: "Line one\nLINE two" },
								expect: { text: { matches: "^line two$", flags: "im" } },
							},
							{ tool: "echo", args: { text: "a\nb" }, expect: { text: { matches: "a.b", flags: "s" } } },
							{ tool: "echo", args: { text: "a\nb" }, expect: { text: { matches: "a.b" } } },
							{
								tool: "echo",
								args: { text: "A\u{1F600}/1" },
								expect: { text: { matches: "\\u0041\\u{1F600}\\/\\d" } },
							},
							{ tool: "echo", args: { text: "id-42" }, expect: { text: { matches: "(?<n>\\d+)$" } } },
						],
					},
				],
			},
			{ tools: [echo], builtins: false },
		);
		expect(report.steps[0]?.calls.map((call) => call.pass)).toEqual([true, true, false, true, true]);
	});

	it("refuses what a linear-time engine cannot run, naming the JSON path and the reason", () => {
		const issues = issuesOf({
			commands: [{ match: "(echo) \\1", regex: true }],
			steps: [
				{
					calls: [
						{ tool: "echo", expect: { text: { matches: "a(?=b)" } } },
						{ tool: "echo", expect: { text: { matches: "a", flags: "x" } } },
					],
					expect: { files: { "/a.txt": { matches: "(.)\\1" } } },
				},
			],
		});
		expect(issues.map((issue) => issue.path)).toEqual([
			"commands[0].match",
			"steps[0].calls[0].expect.text.matches",
			"steps[0].calls[1].expect.text.matches",
			'steps[0].expect.files["/a.txt"].matches',
		]);
		expect(issues[0]?.message).toMatch(/invalid escape sequence.*linear-time engine.*no backreferences/);
		expect(issues[1]?.message).toMatch(/unsupported Perl syntax: `\(\?=`/);
		expect(issues[2]?.message).toMatch(/unsupported flag "x"/);
	});

	it("matches scripted commands with the linear-time engine", async () => {
		const report = await replay({
			commands: [{ match: "^(a+)+$", regex: true, stdout: "matched\n" }],
			steps: [
				{
					calls: [
						{ tool: "bash", args: { command: `${"a".repeat(20_000)}b` }, expect: { isError: true } },
						{ tool: "bash", args: { command: "aaaa" }, expect: { text: { contains: "matched" } } },
					],
				},
			],
		});
		expect(report.pass).toBe(true);
	});
});
