import { createTestHarness } from "toolsmith-sdk/harness";
import { describeConformance } from "toolsmith-sdk/vitest";
import { describe, expect, it } from "vitest";
import { {{toolIdent}} } from "../src/tools/{{toolFile}}.js";

describe("{{toolName}}", () => {
	it("counts the lines, words and characters of a file", async () => {
		const harness = await createTestHarness({
			tools: [{{toolIdent}}],
			files: { "notes.txt": "one two\nthree\n", "empty.txt": "" },
		});
		const result = await harness.call("{{toolName}}", { path: "notes.txt" });
		expect(result).toHaveText("notes.txt: 2 lines, 3 words, 14 characters");
		expect(result.details).toEqual({ path: "notes.txt", lines: 2, words: 3, characters: 14 });
		expect(await harness.call("{{toolName}}", { path: "empty.txt" })).toHaveText(
			"empty.txt: 0 lines, 0 words, 0 characters",
		);
	});

	it("fails with the path in the message when the file is missing", async () => {
		const harness = await createTestHarness({ tools: [{{toolIdent}}] });
		expect(await harness.call("{{toolName}}", { path: "missing.txt" })).toBeToolError("missing.txt");
	});

	it("never touches the files it counts", async () => {
		const harness = await createTestHarness({ tools: [{{toolIdent}}], files: { "a.txt": "a\n" } });
		await harness.call("{{toolName}}", { path: "a.txt" });
		expect(harness.changes()).toEqual({ created: [], modified: [], deleted: [] });
	});
});

// Static checks (name, description, schema for every provider) and behavioral ones (valid and
// near-miss arguments, abort, result shape, renderers, determinism) on an in-memory env. The
// generated samples name no file that exists, so the tool gets a file and a sample that reads it:
// without them it only fails, and the check of its results' content is skipped.
describeConformance({{toolIdent}}, { files: { "notes.txt": "one two\nthree\n" }, samples: [{ path: "notes.txt" }] });
