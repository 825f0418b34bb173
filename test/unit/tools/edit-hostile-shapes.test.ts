/**
 * Edit calls shaped to make matching or diffing super-linear: each must give the same answer a
 * small call of the same kind gets. How their time grows with their size is measured by
 * `npm run bench tools` (test/bench/tools.bench.ts), not here: a shared machine makes wall-clock
 * bounds in a unit test either flaky or meaningless.
 */
import { describe, expect, it } from "vitest";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { createEditTool } from "../../../src/tools/edit.js";
import { contextFor } from "./_env.js";

const edit = createEditTool();
type Edits = { oldText: string; newText: string }[];

const lines = (count: number, line: (i: number) => string = (i) => `line ${i} of the file with some text`) =>
	`${Array.from({ length: count }, (_, i) => line(i)).join("\n")}\n`;

/** Runs the edit and says what it answered. */
async function answer(file: string, edits: Edits) {
	const env = new MemoryExecutionEnv({ files: { "/w/f.txt": file }, cwd: "/w" });
	let outcome: string;
	try {
		const result = await edit.execute("id", { path: "f.txt", edits }, undefined, undefined, contextFor(env));
		const first = result.content[0];
		outcome = first?.type === "text" ? first.text : "";
	} catch (error) {
		outcome = (error as Error).message;
	}
	return { outcome };
}

const many = (count: number, edit: (i: number) => Edits[number]): Edits =>
	Array.from({ length: count }, (_, i) => edit(i));

describe("edit with hostile shapes", () => {
	it("20,000 copies of one oldText found once: the overlap error, at once", async () => {
		const file = lines(20_000);
		for (const oldText of ["line 1000 of the file with some text", "line 1000 of the file with some text   "]) {
			const { outcome } = await answer(
				file,
				many(20_000, () => ({ oldText, newText: "x" })),
			);
			expect(outcome).toBe(
				"edits[0] and edits[1] overlap in f.txt. Every oldText must cover a separate part of the original file: merge the two into one edit.",
			);
		}
	});

	it("20,000 copies of an oldText found 20,000 times: the full count, at once", async () => {
		const { outcome } = await answer(
			lines(20_000, () => "same same same same"),
			many(20_000, () => ({ oldText: "same same same same", newText: "y" })),
		);
		expect(outcome).toBe(
			"edits[0].oldText occurs 20000 times in f.txt (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …). It must occur exactly once: add surrounding lines to make it unique.",
		);
	});

	it("a huge oldText that occurs at every offset is counted in linear time", async () => {
		const { outcome } = await answer("a".repeat(400_000), [{ oldText: "a".repeat(200_000), newText: "b" }]);
		expect(outcome).toMatch(/^edits\[0\]\.oldText occurs 200001 times in f\.txt \(lines 1, 1, /);
	});

	it("20,000 distinct edits, each found only by tolerant matching, apply in one pass", async () => {
		const { outcome } = await answer(
			lines(20_000),
			many(20_000, (i) => ({ oldText: `line ${i} of the file with some text  `, newText: `L${i}` })),
		);
		expect(outcome).toMatch(/^Successfully replaced 20000 block\(s\) in f\.txt\. Note: edits\[0\], /);
	});

	it("a diff of 100,000 changed lines is made, not a stack overflow after the file was written", async () => {
		const before = lines(100_000, (i) => `line ${i}`);
		const after = lines(100_000, (i) => (i % 2 ? `changed ${i}` : `line ${i}`));
		const env = new MemoryExecutionEnv({ files: { "/w/f.txt": before }, cwd: "/w" });
		const result = await edit.execute(
			"id",
			{ path: "f.txt", edits: [{ oldText: before.slice(0, -1), newText: after.slice(0, -1) }] },
			undefined,
			undefined,
			contextFor(env),
		);
		expect(result.content[0]).toEqual({ type: "text", text: "Successfully replaced 1 block(s) in f.txt." });
		expect(result.details.patch.startsWith("--- f.txt\n+++ f.txt\n@@ -1,100000 +1,100000 @@\n")).toBe(true);
		const read = await env.readTextFile("/w/f.txt");
		expect(read.ok && read.value).toBe(after);
	});
});
