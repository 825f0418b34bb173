import { describe, expect, it } from "vitest";
import { Type } from "../../../src/contract/schema.js";
import { defineTool, type ToolDefinition } from "../../../src/contract/tool.js";
import { checkTool } from "../../../src/harness/conformance.js";
import { applyConformanceBaseline, parseConformanceBaseline } from "../../../src/harness/conformance-baseline.js";
import {
	CONFORMANCE_CHECKS,
	type ConformanceCheckId,
	type ToolConformanceReport,
} from "../../../src/harness/conformance-checks.js";
import { formatConformanceReport } from "../../../src/harness/conformance-report.js";
import { createBuiltinTools } from "../../../src/tools/builtins.js";

function statusOf(report: ToolConformanceReport): Record<string, string> {
	return Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
}

function failing(report: ToolConformanceReport): ConformanceCheckId[] {
	return report.checks.filter((c) => c.status === "fail").map((c) => c.id);
}

describe("checkTool", () => {
	it("passes the built-in tools", async () => {
		for (const tool of createBuiltinTools()) {
			const report = await checkTool(tool, {
				files: { sample: "hello\nworld\n", "sample text": "more\n" },
				commands: [{ match: () => true, stdout: "ok\n" }],
				samples: tool.name === "edit" ? [{ path: "sample", edits: [{ oldText: "hello", newText: "bye" }] }] : [],
			});
			expect({ tool: tool.name, failing: failing(report) }).toEqual({ tool: tool.name, failing: [] });
			expect(report.pass).toBe(true);
			expect(report.checks.map((c) => c.id)).toEqual(CONFORMANCE_CHECKS.map((c) => c.id));
		}
	});

	it("fails a tool with bad static fields on each of those checks", async () => {
		const bad = {
			name: "bad tool!",
			label: "",
			description: "",
			parameters: Type.Object({ when: Type.Optional(Type.Date()) }),
			promptSnippet: "two\nlines",
			promptGuidelines: [42],
			async execute() {
				return { content: [{ type: "text", text: "fine" }], details: {} };
			},
		} as unknown as ToolDefinition;
		const report = await checkTool(bad);
		expect(failing(report)).toEqual([
			"name-valid",
			"description",
			"label",
			"schema-openai",
			"schema-anthropic",
			"schema-google",
			"prompt-snippet",
			"prompt-guidelines",
		]);
		expect(report.checks.find((c) => c.id === "name-valid")?.message).toMatch(/rejected by openai, anthropic, google/);
	});

	it("reports hostile name, label and samples instead of throwing", async () => {
		const hostile = {
			name: 12n,
			label: { toJSON: () => 1n },
			description: "A tool whose fields are not what they claim.",
			parameters: Type.Object({}),
			async execute() {
				return { content: [{ type: "text", text: "fine" }], details: {} };
			},
		} as unknown as ToolDefinition;
		const report = await checkTool(hostile, { samples: [{ big: 1n }, { big: 1n }] });
		expect(report.checks.find((c) => c.id === "name-valid")).toMatchObject({ status: "fail" });
		expect(report.checks.find((c) => c.id === "name-valid")?.message).toMatch(/^12 is rejected/);
		expect(statusOf(report).label).toBe("fail");
		const labelled = { ...hostile, name: "ok_name", label: "A\u0000label" } as unknown as ToolDefinition;
		expect((await checkTool(labelled)).checks.find((c) => c.id === "label")?.message).toBe('"A\\u0000label"');
	});

	it("fails a tool that misbehaves at run time on each of those checks", async () => {
		const misbehaving = defineTool({
			name: "misbehaving",
			label: "Misbehaving",
			description: "Does everything a tool should not do.",
			parameters: Type.Object({ n: Type.Number() }, { additionalProperties: false }),
			// Turns anything into valid arguments, so near misses get through.
			prepareArguments: () => ({ n: 1 }),
			async execute(_id, _params, _signal, onUpdate) {
				onUpdate?.({ content: "partial" as never, details: {} });
				const text = `${Math.random()}\n${"x".repeat(60_000)}`;
				return { content: [{ type: "text", text }], details: {}, isError: "yes" } as never;
			},
			renderCall() {
				throw new Error("cannot draw");
			},
		});
		const report = await checkTool(misbehaving as ToolDefinition);
		expect(failing(report)).toEqual(["invalid-samples", "content", "throws", "updates", "render", "deterministic"]);
		expect(statusOf(report)["valid-samples"]).toBe("pass");
	});

	it("accepts a failure returned with isError: true (pi 1.x) as a reported one", async () => {
		const returning = defineTool({
			name: "returning",
			label: "Returning",
			description: "Reports every failure by returning isError: true.",
			parameters: Type.Object({ n: Type.Number() }),
			async execute() {
				return { content: [{ type: "text", text: "cannot do that" }], details: { why: "x" }, isError: true };
			},
		});
		const report = await checkTool(returning as ToolDefinition);
		expect(statusOf(report).throws).toBe("pass");
	});

	it("fails a tool whose results are malformed", async () => {
		const broken = defineTool({
			name: "broken_result",
			label: "Broken",
			description: "Returns something that is not a result.",
			parameters: Type.Object({}),
			async execute() {
				return { content: "not an array" } as never;
			},
		});
		const report = await checkTool(broken as ToolDefinition);
		expect(failing(report)).toEqual(["valid-samples", "content"]);
	});

	it("fails a tool that ignores its abort signal", async () => {
		const slow = defineTool({
			name: "slow",
			label: "Slow",
			description: "Waits and ignores its signal.",
			parameters: Type.Object({}),
			async execute() {
				await new Promise((resolve) => setTimeout(resolve, 300));
				return { content: [{ type: "text", text: "done" }], details: {} };
			},
		});
		const report = await checkTool(slow as ToolDefinition, { abortWithinMs: 50, generatedSamples: 1 });
		expect(failing(report)).toEqual(["abort"]);
		expect(statusOf(report).deterministic).toBe("pass");
	});

	it("says the same about a tool that throws undefined in content, throws and valid-samples", async () => {
		const silent = defineTool({
			name: "silent",
			label: "Silent",
			description: "Fails without saying why.",
			parameters: Type.Object({ path: Type.String() }),
			async execute(): Promise<{ content: []; details: undefined }> {
				throw undefined;
			},
		});
		const report = await checkTool(silent as ToolDefinition, { generatedSamples: 2 });
		const byId = Object.fromEntries(report.checks.map((c) => [c.id, c]));
		expect(byId["valid-samples"]?.message).toBe("2 sample(s), 2 reached execute");
		expect(byId.content).toMatchObject({
			status: "skip",
			message: expect.stringMatching(/^no sample returned a result \(2 threw\); give the tool files and samples/),
		});
		expect(byId.throws).toMatchObject({ status: "pass", message: "4 reported failure(s) became error results" });
	});

	it("says which samples never reached execute when content is skipped, and why", async () => {
		const picky = defineTool({
			name: "picky",
			label: "Picky",
			description: "Wants arguments no sample has.",
			parameters: Type.Object({ n: Type.Number() }),
			prepareArguments: () => {
				throw new Error("no thanks");
			},
			async execute() {
				return { content: [], details: {} };
			},
		});
		const content = (await checkTool(picky as ToolDefinition, { generatedSamples: 1 })).checks.find(
			(c) => c.id === "content",
		);
		expect(content).toMatchObject({
			status: "skip",
			message: expect.stringMatching(/^no sample returned a result \(1 was rejected before execute\)/),
			details: [expect.stringMatching(/^\{"n":1\}: .*no thanks/)],
		});
	});

	it("checks content once the tool gets the files and samples it needs", async () => {
		const size = defineTool({
			name: "size",
			label: "Size",
			description: "Says how long a file is.",
			parameters: Type.Object({ path: Type.String() }),
			async execute(_id, { path }, _signal, _onUpdate, ctx) {
				const file = await ctx.env.readTextFile(path);
				if (!file.ok) throw file.error;
				return { content: [{ type: "text", text: `${file.value.length}` }], details: {} };
			},
		});
		const bare = await checkTool(size as ToolDefinition);
		expect(statusOf(bare).content).toBe("skip");
		const seeded = await checkTool(size as ToolDefinition, { files: { "a.txt": "abc" }, samples: [{ path: "a.txt" }] });
		expect(seeded.checks.find((c) => c.id === "content")).toMatchObject({
			status: "pass",
			message: "1 result(s) checked",
		});
	});

	it("fails, and does not crash on, a result that is not an object", async () => {
		const odd = defineTool({
			name: "odd",
			label: "Odd",
			description: "Returns a string instead of a result.",
			parameters: Type.Object({}),
			async execute() {
				return "just text" as never;
			},
		});
		const report = await checkTool(odd as ToolDefinition, { generatedSamples: 1 });
		expect(report.checks.find((c) => c.id === "content")).toMatchObject({
			status: "fail",
			details: ["{}: the result is not an object"],
		});
		expect(statusOf(report).throws).not.toBe("fail");
	});

	it("skips the determinism check for declared nondeterministic tools", async () => {
		const dice = defineTool({
			name: "dice",
			label: "Dice",
			description: "Rolls a die.",
			parameters: Type.Object({}),
			async execute() {
				return { content: [{ type: "text", text: String(Math.random()) }], details: {} };
			},
		});
		const report = await checkTool(dice as ToolDefinition, { nondeterministic: true, generatedSamples: 1 });
		expect(statusOf(report).deterministic).toBe("skip");
		expect(report.pass).toBe(true);
	});
});

describe("conformance baseline", () => {
	const report: ToolConformanceReport = {
		tool: "t",
		pass: false,
		checks: [
			{ id: "label", title: "", status: "fail", message: "no label", details: [] },
			{ id: "description", title: "", status: "pass", message: "ok", details: [] },
			{ id: "render", title: "", status: "fail", message: "threw", details: [] },
		],
	};

	it("accepts listed failures and fails on the rest", () => {
		const summary = applyConformanceBaseline(
			[report],
			parseConformanceBaseline({ expectedFailures: { t: ["label"] } }),
		);
		expect(summary.pass).toBe(false);
		expect(summary.counts).toEqual({ pass: 1, fail: 1, skip: 0, expected: 1 });
		const all = applyConformanceBaseline([report], { expectedFailures: { t: ["label", "render"] } });
		expect(all.pass).toBe(true);
		expect(formatConformanceReport(all)).toContain("x label: no label (expected failure)");
	});

	it("fails on stale entries: a check that now passes, an unknown check, a tool not checked", () => {
		const summary = applyConformanceBaseline([report], {
			expectedFailures: { t: ["label", "render", "description", "no-such-check"], gone: ["label"] },
		});
		expect(summary.pass).toBe(false);
		expect(summary.stale).toEqual([
			{ tool: "t", check: "description", reason: "it now passes; remove the entry" },
			{ tool: "t", check: "no-such-check", reason: "no check has this id" },
			{ tool: "gone", check: "label", reason: "no tool of this name was checked" },
		]);
		expect(formatConformanceReport(summary)).toMatch(/3 stale baseline entries$/);
	});

	it("rejects a malformed baseline with a clear message", () => {
		expect(() => parseConformanceBaseline({ failures: {} }, "b.json")).toThrow(
			/b\.json: expected \{ "expectedFailures"/,
		);
		expect(() => parseConformanceBaseline({ expectedFailures: { t: "label" } })).toThrow(
			/expectedFailures\.t must be an array/,
		);
	});
});
