/**
 * Edit calls shaped to make matching or diffing super-linear: each must answer quickly, with the
 * same error text a small call of the same kind gets. The bounds are generous: before, these took
 * from 1.5 s to over a minute, holding the event loop all along.
 */
import { describe, expect, it } from "vitest";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { createEditTool } from "../../../src/tools/edit.js";
import { contextFor } from "./_env.js";

const edit = createEditTool();
type Edits = { oldText: string; newText: string }[];

const lines = (count: number, line: (i: number) => string = (i) => `line ${i} of the file with some text`) =>
	`${Array.from({ length: count }, (_, i) => line(i)).join("\n")}\n`;

/** Runs the edit and says how long it took and what it answered. */
async function timed(file: string, edits: Edits) {
	const env = new MemoryExecutionEnv({ files: { "/w/f.txt": file }, cwd: "/w" });
	const start = performance.now();
	let outcome: string;
	try {
		const result = await edit.execute("id", { path: "f.txt", edits }, undefined, undefined, contextFor(env));
		const first = result.content[0];
		outcome = first?.type === "text" ? first.text : "";
	} catch (error) {
		outcome = (error as Error).message;
	}
	return { took: performance.now() - start, outcome };
}

const many = (count: number, edit: (i: number) => Edits[number]): Edits =>
	Array.from({ length: count }, (_, i) => edit(i));

describe("edit with hostile shapes", () => {
	it("20,000 copies of one oldText found once: the overlap error, at once", async () => {
		const file = lines(20_000);
		for (const oldText of ["line 1000 of the file with some text", "line 1000 of the file with some text   "]) {
			const { took, outcome } = await timed(
				file,
				many(20_000, () => ({ oldText, newText: "x" })),
			);
			expect(outcome).toBe(
				"edits[0] and edits[1] overlap in f.txt. Every oldText must cover a separate part of the original file: merge the two into one edit.",
			);
			expect(took).toBeLessThan(2_000);
		}
	});

	it("20,000 copies of an oldText found 20,000 times: the full count, at once", async () => {
		const { took, outcome } = await timed(
			lines(20_000, () => "same same same same"),
			many(20_000, () => ({ oldText: "same same same same", newText: "y" })),
		);
		expect(outcome).toBe(
			"edits[0].oldText occurs 20000 times in f.txt (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …). It must occur exactly once: add surrounding lines to make it unique.",
		);
		expect(took).toBeLessThan(2_000);
	});

	it("a huge oldText that occurs at every offset is counted in linear time", async () => {
		const { took, outcome } = await timed("a".repeat(400_000), [{ oldText: "a".repeat(200_000), newText: "b" }]);
		expect(outcome).toMatch(/^edits\[0\]\.oldText occurs 200001 times in f\.txt \(lines 1, 1, /);
		expect(took).toBeLessThan(2_000);
	});

	it("20,000 distinct edits, each found only by tolerant matching, apply in one pass", async () => {
		const { took, outcome } = await timed(
			lines(20_000),
			many(20_000, (i) => ({ oldText: `line ${i} of the file with some text  `, newText: `L${i}` })),
		);
		expect(outcome).toMatch(/^Successfully replaced 20000 block\(s\) in f\.txt\. Note: edits\[0\], /);
		expect(took).toBeLessThan(4_000);
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
