import { describe, expect, it } from "vitest";
import { Type } from "../../../src/contract/schema.js";
import { defineTool } from "../../../src/contract/tool.js";
import type { ExtensionAPI } from "../../../src/extensions/api.js";
import { parseReplayFixture } from "../../../src/harness/fixture.js";
import { createMemoryHarness } from "../../../src/harness/harness.js";
import { formatReplayReport, replay } from "../../../src/harness/replay.js";

const readFixture = {
	files: { "a.txt": "alpha" },
	steps: [{ calls: [{ tool: "read", args: { path: "a.txt" }, expect: { text: "alpha" } }] }],
};

const hello = defineTool({
	name: "hello",
	label: "Hello",
	description: "Says hello.",
	parameters: Type.Object({}),
	async execute() {
		return { content: [{ type: "text", text: "hello" }], details: {} };
	},
});

describe("replay and extension diagnostics", () => {
	it("fails a fixture whose extension is broken although every expectation holds, and shows why", async () => {
		const report = await replay(readFixture, {
			extensions: [
				{
					path: "/ext/broken.ts",
					factory: () => {
						throw new Error("no config");
					},
				},
			],
		});
		expect(report.steps.every((step) => step.pass)).toBe(true);
		expect(report.pass).toBe(false);
		expect(report.diagnostics.map((d) => [d.severity, d.code, d.path])).toEqual([
			["error", "E_FACTORY_FAILED", "/ext/broken.ts"],
		]);
		const text = formatReplayReport(report);
		expect(text).toMatch(
			/^FAIL replay fixture\n {2}✗ extensions: 1 error\n {4}error \/ext\/broken\.ts(:\d+:\d+)? .*no config.* \[E_FACTORY_FAILED\]\n {2}✓ step 1\n/,
		);
		expect(formatReplayReport(report, { formatDiagnostic: (d) => `<${d.code}>` })).toContain(
			"    <E_FACTORY_FAILED>\n",
		);
	});

	it("passes with warnings and infos, which only a verbose report shows", async () => {
		const override = (api: ExtensionAPI) => api.registerTool({ ...hello, name: "read" });
		const report = await replay(
			{ steps: [{ calls: [{ tool: "read", expect: { text: "hello" } }] }] },
			{ extensions: [{ path: "/ext/override.ts", factory: override }] },
		);
		expect(report.diagnostics.map((d) => d.code)).toEqual(["I_BUILTIN_OVERRIDDEN"]);
		expect(report.pass).toBe(true);
		expect(formatReplayReport(report)).not.toContain("extensions:");
		expect(formatReplayReport(report, { verbose: true })).toContain(
			"  ✓ extensions: 1 info\n    info /ext/override.ts Tool",
		);
	});

	it("reports a fixture's extensions as not loaded when replayed in memory, unless a harness factory takes them", async () => {
		const fixture = { ...readFixture, extensions: ["./tools/hello.ts"] };
		const report = await replay(fixture);
		expect(report.pass).toBe(false);
		expect(report.diagnostics).toEqual([
			expect.objectContaining({ severity: "error", code: "E_EXTENSION_LOAD", path: "./tools/hello.ts" }),
		]);
		expect(report.diagnostics[0]?.message).toContain("replayFile");
		const seen: unknown[] = [];
		const custom = await replay(fixture, {
			createHarness: (options, parsed) => {
				seen.push(parsed.extensions);
				return createMemoryHarness(options);
			},
		});
		expect(seen).toEqual([["./tools/hello.ts"]]);
		expect(custom.pass).toBe(true);
		expect(custom.diagnostics).toEqual([]);
	});

	it("accepts extensions as a list of non-empty strings", () => {
		expect(parseReplayFixture({ ...readFixture, extensions: ["a.ts", "../tools"] }).extensions).toEqual([
			"a.ts",
			"../tools",
		]);
		expect(() => parseReplayFixture({ ...readFixture, extensions: [""] })).toThrow(/extensions\[0\]:/);
		expect(() => parseReplayFixture({ ...readFixture, extensions: "a.ts" })).toThrow(/extensions: Expected array/);
	});
});

describe("replay and calls to unknown tools", () => {
	it("fails such a call even without expectations, keeping the executor's text, and lists the tools", async () => {
		const report = await replay({ steps: [{ calls: [{ tool: "shout" }] }] }, { tools: [hello], builtins: false });
		expect(report.pass).toBe(false);
		const call = report.steps[0]?.calls[0];
		expect(call?.failures).toEqual(['no tool named "shout" is registered']);
		expect(call?.result.text).toBe("Tool shout not found. Available tools: hello.");
		expect(call?.unknownTool).toEqual({ available: ["hello"], candidates: [] });
		const text = formatReplayReport(report);
		expect(text).toContain('      hint: the tools are hello; "shout" may come from an extension that was not loaded\n');
		expect(text).toContain(
			`"extensions": [...] (paths relative to the fixture) or pass it with --extensions <paths>\n`,
		);
		expect(text).not.toContain("near the fixture");
	});

	it("passes a call that expects the not-found error, and marks no known tool", async () => {
		const report = await replay(
			{
				steps: [
					{
						calls: [
							{ tool: "shout", expect: { isError: true } },
							{ tool: "hello", expect: { text: "hello" } },
						],
					},
				],
			},
			{ tools: [hello] },
		);
		expect(report.pass).toBe(true);
		expect(report.steps[0]?.calls[0]?.unknownTool?.available).toEqual(["bash", "edit", "hello", "read", "write"]);
		expect(report.steps[0]?.calls[1]?.unknownTool).toBeUndefined();
		// A tool that fails on its own is not an unknown tool.
		const failing = defineTool({
			...hello,
			name: "fails",
			async execute(): Promise<never> {
				throw new Error("Tool fails not found");
			},
		});
		const own = await replay(
			{ steps: [{ calls: [{ tool: "fails", expect: { isError: true } }] }] },
			{ tools: [failing] },
		);
		expect(own.steps[0]?.calls[0]?.unknownTool).toBeUndefined();
	});
});
