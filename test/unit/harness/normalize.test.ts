/** The normalization rules: known wording differences between the recorded agent's tools and ours. */
import { describe, expect, it } from "vitest";
import { normalizeResultText } from "../../../src/harness/_normalize.js";
import { NORMALIZATION_RULES } from "../../../src/harness/replay-session.js";

describe("normalization rules", () => {
	const context = (toolName: string) => ({ toolName, args: undefined, isError: false });

	it("maps the read continuation notices onto one form", () => {
		const old = normalizeResultText(
			"x\n\n... (5 more lines not shown. Use offset=3 to continue reading)",
			context("read"),
		);
		const ours = normalizeResultText("x\n\n[Showing lines 2-2 of 7. Use offset=3 to continue.]", context("read"));
		expect(old).toEqual({ text: "x\n\n[more: 5 lines, next offset 3]", rules: ["read-continuation"] });
		expect(ours.text).toBe(old.text);
		// Releases that end the bracketed notices without a period read the same.
		for (const bare of [
			"x\n\n[5 more lines in file. Use offset=3 to continue]",
			"x\n\n[Showing lines 2-2 of 7 (50.0KB limit). Use offset=3 to continue]",
		]) {
			expect(normalizeResultText(bare, context("read")).text, bare).toBe(old.text);
		}
		// A different remaining count stays different.
		expect(
			normalizeResultText("x\n\n[4 more lines in file. Use offset=3 to continue.]", context("read")).text,
		).not.toBe(old.text);
	});

	it("reads write's byte count in UTF-16 units (the reference) and UTF-8 bytes (ours) as the same, nothing else", () => {
		const content = "héllo wörld ✓\n";
		const args = { path: "a.txt", content };
		const write = { toolName: "write", args, isError: false };
		const reference = normalizeResultText(`Successfully wrote ${content.length} bytes to a.txt`, write);
		const ours = normalizeResultText(
			`Successfully wrote ${new TextEncoder().encode(content).length} bytes to a.txt`,
			write,
		);
		expect(content.length).not.toBe(new TextEncoder().encode(content).length);
		expect(reference).toEqual({ text: "Successfully wrote the call's content to a.txt", rules: ["write-byte-count"] });
		expect(ours.text).toBe(reference.text);
		// Any other count is a real difference and stays.
		expect(normalizeResultText("Successfully wrote 3 bytes to a.txt", write).text).toBe(
			"Successfully wrote 3 bytes to a.txt",
		);
	});

	it("reads the reference's ENOENT and our wording of a missing file as the same, for the call's path only", () => {
		const read = (path: string) => ({ toolName: "read", args: { path }, isError: true });
		const reference = normalizeResultText(
			"ENOENT: no such file or directory, access '/repo/src/a.ts'",
			read("src/a.ts"),
		);
		const ours = normalizeResultText("Could not read src/a.ts: the file does not exist.", read("src/a.ts"));
		expect(reference).toEqual({ text: "[not found: the call's path]", rules: ["read-not-found"] });
		expect(ours.text).toBe(reference.text);
		// Another path, or a result that is not an error, stays as it is.
		expect(
			normalizeResultText("ENOENT: no such file or directory, access '/repo/b.ts'", read("src/a.ts")).rules,
		).toEqual([]);
		expect(
			normalizeResultText("Could not read src/a.ts: the file does not exist.", { ...read("src/a.ts"), isError: false })
				.rules,
		).toEqual([]);
	});

	it("maps the older edit and bash wording, and leaves other tools alone", () => {
		expect(
			normalizeResultText("Successfully replaced text in a.ts. Changed 3 characters to 5 characters.", context("edit"))
				.text,
		).toBe("Successfully replaced 1 block(s) in a.ts.");
		expect(normalizeResultText("(no output)\n\nCommand exited with code 2", context("bash"))).toEqual({
			text: "Command exited with code 2",
			rules: ["bash-empty-output-status"],
		});
		expect(normalizeResultText("(no output)\n\nCommand exited with code 2", context("read")).rules).toEqual([]);
	});
});

describe("NORMALIZATION_RULES", () => {
	it("describes, in one line each, every rule the normalization applies", () => {
		const context = (toolName: string) => ({ toolName, args: undefined, isError: false });
		const applied = [
			normalizeResultText("\u001b[1mx\u001b[0m", context("bash")),
			normalizeResultText("x\n\n[4 more lines in file. Use offset=3 to continue.]", context("read")),
			normalizeResultText("(no output)\n\nCommand exited with code 2", context("bash")),
			normalizeResultText("ENOENT: no such file or directory, access '/w/a.txt'", {
				toolName: "read",
				args: { path: "a.txt" },
				isError: true,
			}),
			normalizeResultText("Successfully wrote 2 bytes to a.txt", {
				toolName: "write",
				args: { path: "a.txt", content: "é" },
				isError: false,
			}),
			normalizeResultText("Successfully replaced text in a.ts. Changed 3 characters to 5 characters.", context("edit")),
		].flatMap((result) => result.rules);
		expect(NORMALIZATION_RULES.map((rule) => rule.id)).toEqual(applied);
		for (const rule of NORMALIZATION_RULES) expect(rule.summary).toMatch(/^[^\n]+$/);
	});
});
