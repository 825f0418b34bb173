import { fileURLToPath } from "node:url";
import { createTestHarness } from "toolsmith-sdk/harness";
import { describeConformance } from "toolsmith-sdk/vitest";
import { describe, expect, it } from "vitest";

// The whole package, as pi would load it: its `pi.extensions` manifest names src/index.ts.
const project = fileURLToPath(new URL("..", import.meta.url));

describe("the extension", () => {
	it("loads without problems", async () => {
		const harness = await createTestHarness({ extensions: [project] });
		expect(harness.diagnostics.filter((d) => d.severity !== "info")).toEqual([]);
		expect(harness.registry.infos().map((tool) => tool.name)).toContain("slugify");
	});

	it("slugifies titles", async () => {
		const harness = await createTestHarness({ extensions: [project] });
		expect(await harness.call("slugify", { text: "Héllo, Wörld: 2 Ways!" })).toHaveText("hello-world-2-ways");
		expect(await harness.call("slugify", { text: "a b", separator: "_" })).toHaveText("a_b");
		expect(await harness.call("slugify", { text: "!!!" })).toBeToolError("no letters or digits");
	});

	it("blocks reads of .env files and lets other reads through", async () => {
		const harness = await createTestHarness({
			extensions: [project],
			files: { ".env": "TOKEN=secret\n", "config/.env.local": "TOKEN=x\n", "notes.txt": "hello\n" },
		});
		expect(await harness.call("read", { path: ".env" })).toBeToolError("holds secrets");
		expect(await harness.call("read", { path: "config/.env.local" })).toBeToolError("holds secrets");
		expect(await harness.call("read", { path: "notes.txt" })).toHaveText("hello\n");
	});
});

describeConformance(project);
