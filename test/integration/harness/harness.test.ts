import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Type } from "../../../src/contract/schema.js";
import { defineTool } from "../../../src/contract/tool.js";
import { createMemoryHarness } from "../../../src/harness/harness.js";
import { createTestHarness } from "../../../src/harness/node-harness.js";

const shout = fileURLToPath(new URL("../../fixtures/replay/extensions/shout.ts", import.meta.url));

describe("createTestHarness", () => {
	it("runs the built-ins on a memory env and reports files, changes and events", async () => {
		const harness = await createTestHarness({
			files: { "a.txt": "one\ntwo\n" },
			commands: [{ match: "make", stdout: "built\n" }],
		});
		expect(harness.env.cwd).toBe("/project");
		const read = await harness.call("read", { path: "a.txt" });
		expect(read).toMatchObject({ isError: false, toolName: "read", content: [{ type: "text", text: "one\ntwo\n" }] });
		const { results } = await harness.batch([
			{ name: "edit", arguments: { path: "a.txt", oldText: "two", newText: "three" } },
			{ name: "write", args: { path: "b/c.txt", content: "new" } },
			{ name: "bash", arguments: { command: "make" } },
		]);
		expect(results.map((r) => r.isError)).toEqual([false, false, false]);
		expect(harness.files()).toMatchObject({ "a.txt": "one\nthree\n", "b/c.txt": "new" });
		expect(harness.changes()).toEqual({ created: ["b/c.txt"], modified: ["a.txt"], deleted: [] });
		expect(harness.commands()).toEqual(["make"]);
		// Each call's end event goes out as the call completes, so within the batch their order is the tools' own.
		const ends = harness.events.filter((e) => e.type === "tool_execution_end").map((e) => e.toolName);
		expect(ends[0]).toBe("read");
		expect(ends.slice(1).sort()).toEqual(["bash", "edit", "write"]);
	});

	it("loads extension files through the real loader, hooks included", async () => {
		const harness = await createTestHarness({ extensions: [shout], files: { "q.txt": "quiet" } });
		expect(harness.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
		expect((await harness.call("shout", { path: "q.txt" })).content).toEqual([{ type: "text", text: "QUIET" }]);
		const blocked = await harness.call("bash", { command: "rm -rf /" });
		expect(blocked.isError).toBe(true);
		expect(JSON.stringify(blocked.content)).toContain("no rm -rf in tests");
		expect(harness.commands()).toEqual([]);
	});

	it("reports a broken extension as a diagnostic and keeps the rest", async () => {
		const harness = await createTestHarness({ extensions: ["test/fixtures/replay/extensions/missing.ts", shout] });
		expect(harness.diagnostics.some((d) => d.severity === "error" && d.message.includes("missing.ts"))).toBe(true);
		expect(harness.registry.get("shout")).toBeDefined();
	});

	it("lets your tools replace built-ins, and turns the built-ins off", async () => {
		const fakeRead = defineTool({
			name: "read",
			label: "Read",
			description: "A stand-in read.",
			parameters: Type.Object({ path: Type.String() }),
			async execute(_id, { path }) {
				return { content: [{ type: "text", text: `fake ${path}` }], details: {} };
			},
		});
		const harness = await createMemoryHarness({ tools: [fakeRead] });
		expect((await harness.call("read", { path: "x" })).content).toEqual([{ type: "text", text: "fake x" }]);
		const bare = await createMemoryHarness({ builtins: false });
		const missing = await bare.call("bash", { command: "ls" });
		expect(missing.isError).toBe(true);
		expect(JSON.stringify(missing.content)).toMatch(/Tool bash not found/);
	});

	it("runs inline extensions and emits session_start to them", async () => {
		const harness = await createMemoryHarness({
			extensions: [
				(api) => {
					api.on("session_start", () => {
						api.registerTool(
							defineTool({
								name: "late",
								label: "Late",
								description: "Registered when the session starts.",
								parameters: Type.Object({}),
								async execute() {
									return { content: [{ type: "text", text: "here" }], details: {} };
								},
							}),
						);
					});
				},
			],
		});
		expect((await harness.call("late", {})).content).toEqual([{ type: "text", text: "here" }]);
	});
});
