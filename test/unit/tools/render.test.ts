import { describe, expect, it } from "vitest";
import type { RenderOutput } from "../../../src/contract/render.js";
import type { AgentToolResult, ToolDefinition } from "../../../src/contract/tool.js";
import { plainTheme } from "../../../src/render/theme.js";
import { createBuiltinTools } from "../../../src/tools/builtins.js";

const tools = createBuiltinTools();
const allTools = createBuiltinTools({ set: "all" });
const asText = (output: RenderOutput) =>
	typeof output === "string"
		? output
		: Array.isArray(output)
			? output.join("\n")
			: (output as { render(w: number): string[] }).render(80).join("\n");

const odd: unknown[] = [undefined, null, {}, { path: 42 }, { path: "" }, { command: ["x"] }, "text", { edits: "nope" }];
const results: unknown[] = [
	undefined,
	{ content: [] },
	{ content: [{ type: "text", text: "a\nb" }], details: undefined },
	{ content: [{ type: "image", data: "", mimeType: "image/png" }], details: { diff: 3 } },
	{ content: "not an array" },
];

describe("built-in renderers", () => {
	it("lists read, bash, edit, write with prompt snippets and guidelines", () => {
		expect(tools.map((t) => t.name)).toEqual(["read", "bash", "edit", "write"]);
		for (const tool of tools) {
			expect(tool.promptSnippet).toBeTruthy();
			expect(tool.promptGuidelines?.length).toBeGreaterThan(0);
		}
		expect(tools.find((t) => t.name === "bash")?.description).toContain("no timeout");
		expect(tools.find((t) => t.name === "edit")?.description).toContain("must not overlap");
	});

	it.each(allTools.map((t) => [t.name, t] as const))(
		"%s never throws on partial or invalid input",
		(_name, tool: ToolDefinition) => {
			for (const args of odd) expect(() => asText(tool.renderCall?.(args as never, plainTheme) ?? "")).not.toThrow();
			for (const result of results) {
				for (const isError of [false, true]) {
					for (const expanded of [false, true]) {
						expect(() =>
							asText(
								tool.renderResult?.(result as AgentToolResult<never>, { expanded, isPartial: !expanded }, plainTheme, {
									isError,
								}) ?? "",
							),
						).not.toThrow();
					}
				}
			}
		},
	);

	it("shows the path or command in the title line", () => {
		const [read, bash, edit, write] = tools as [ToolDefinition, ToolDefinition, ToolDefinition, ToolDefinition];
		expect(asText(read.renderCall?.({ path: "src/a.ts", offset: 10, limit: 5 } as never, plainTheme) ?? "")).toBe(
			"read src/a.ts:10-14",
		);
		expect(asText(bash.renderCall?.({ command: "ls -la", timeout: 5 } as never, plainTheme) ?? "")).toBe(
			"$ ls -la (timeout 5s)",
		);
		expect(asText(edit.renderCall?.({ path: "a.ts", edits: [{}, {}] } as never, plainTheme) ?? "")).toBe(
			"edit a.ts (2 edits)",
		);
		expect(asText(write.renderCall?.({ path: "b.ts", content: "x\ny" } as never, plainTheme) ?? "")).toBe(
			"write b.ts (2 lines)",
		);
		const preview = asText(
			bash.renderResult?.(
				{
					content: [{ type: "text", text: "1\n2\n3\n4\n5\n6\n7\n" }],
					details: { exitCode: 0, durationMs: 1500 },
				} as never,
				{ expanded: false, isPartial: false },
				plainTheme,
			) ?? "",
		);
		expect(preview).toBe("... (2 earlier lines)\n3\n4\n5\n6\n7\nTook 1.5s");
	});
});
