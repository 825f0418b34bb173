import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createMemoryHarness } from "../../../src/harness/harness.js";
import { describeConformance, toolsmithMatchers } from "../../../src/harness/vitest.js";
import { createBuiltinTools } from "../../../src/tools/builtins.js";
import { createWriteTool } from "../../../src/tools/write.js";

const shout = fileURLToPath(new URL("../../fixtures/replay/extensions/shout.ts", import.meta.url));

describeConformance(createWriteTool());
describeConformance(shout, { files: { sample: "quiet" } });
describeConformance(createBuiltinTools(), {
	name: "conformance of the built-ins with a baseline",
	files: { sample: "hello\n" },
	commands: [{ match: () => true, stdout: "ok\n" }],
	samples: [],
	baseline: { expectedFailures: {} },
});

describe("matchers", () => {
	it("toHaveText, toBeToolError and toHaveFiles pass and fail where they should", async () => {
		const harness = await createMemoryHarness({ files: { "a.txt": "alpha\n" } });
		const read = await harness.call("read", { path: "a.txt" });
		expect(read).toHaveText("alpha\n");
		expect(read).toHaveText(/^alp/);
		expect(read).not.toHaveText("beta");
		expect(read).not.toBeToolError();
		const missing = await harness.call("read", { path: "nope.txt" });
		expect(missing).toBeToolError();
		expect(missing).toBeToolError("nope.txt");
		expect(missing).toBeToolError(/nope/);
		await harness.call("write", { path: "b.txt", content: "bee" });
		expect(harness).toHaveFiles({ "a.txt": "alpha\n", "b.txt": /^be/, "c.txt": null });
		expect(harness.env).toHaveFiles({ "b.txt": "bee" });
		expect({ "x.txt": "1" }).not.toHaveFiles({ "x.txt": "2" });

		const failed = toolsmithMatchers.toHaveFiles(harness, { "a.txt": "beta\n", "c.txt": null, "z.txt": "z" });
		expect(failed.pass).toBe(false);
		expect(failed.message()).toBe('a.txt is "alpha\\n", expected "beta\\n"\nz.txt does not exist');
		expect(toolsmithMatchers.toHaveText(read, "beta").message()).toBe(
			'expected the result text to equal "beta", got "alpha\\n"',
		);
		expect(toolsmithMatchers.toBeToolError(read).message()).toBe(
			'expected an error result, got isError false with text "alpha\\n"',
		);
	});
});
