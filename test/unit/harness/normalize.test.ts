/** The normalization rules: known wording differences between the recorded agent's tools and ours. */
import { describe, expect, it } from "vitest";
import { normalizeResultText, olderLimitsRule } from "../../../src/harness/_normalize.js";
import { NORMALIZATION_RULES } from "../../../src/harness/replay-session.js";

describe("normalization rules", () => {
	const context = (toolName: string) => ({ toolName, args: undefined, isError: false });

	it("maps the read continuation notices onto one form", () => {
		const old = normalizeResultText(
			"x\n\n... (5 more lines not shown. Use offset=3 to continue reading)",
			context("read"),
		);
		const ours = normalizeResultText("x\n\n[Showing lines 2-2 of 7. Use offset=3 to continue.]", context("read"));
		expect(old).toEqual({ text: "x\n\n[more: 5 lines, next offset 3]", isError: false, rules: ["read-continuation"] });
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
		expect(reference).toEqual({
			text: "Successfully wrote the call's content to a.txt",
			isError: false,
			rules: ["write-byte-count"],
		});
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
		expect(reference).toEqual({ text: "[not found: the call's path]", isError: true, rules: ["read-not-found"] });
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
		expect(
			normalizeResultText("(no output)\n\nCommand exited with code 2", { ...context("bash"), isError: true }),
		).toEqual({
			text: "Command exited with code 2",
			isError: true,
			rules: ["bash-empty-output-status"],
		});
		// The earliest releases returned a failed command without the error flag.
		expect(normalizeResultText("(no output)\n\nCommand exited with code 2", context("bash"))).toEqual({
			text: "Command exited with code 2",
			isError: true,
			rules: ["error-flag", "bash-empty-output-status"],
		});
		expect(normalizeResultText("(no output)\n\nCommand exited with code 2", context("read")).rules).toEqual([]);
	});
});

describe("the rules for older releases", () => {
	const edit = (args: Record<string, unknown>, isError = true) => ({ toolName: "edit", args, isError });
	const one = { path: "a.ts", oldText: "x", newText: "y" };
	const two = {
		path: "a.ts",
		edits: [
			{ oldText: "x", newText: "y" },
			{ oldText: "z", newText: "w" },
		],
	};

	it("maps every wording of a failed edit onto one form, naming the same edit", () => {
		const notFound = [
			"Could not find the exact text in a.ts. The old text must match exactly including all whitespace and newlines.",
			"Could not find edits[0] in a.ts. The oldText must match exactly including all whitespace and newlines.",
			'Could not find edits[0].oldText in a.ts. It must match the file exactly, including whitespace and line breaks. Closest lines: line 1: "q".',
		];
		for (const text of notFound) {
			expect(normalizeResultText(text, edit(one)).text, text).toBe("[edit failed: edits[0].oldText not found in a.ts]");
		}
		// The one-edit wording names no edit: with two edits it could be either, so it stays.
		expect(normalizeResultText(notFound[0]!, edit(two)).text).toBe(notFound[0]);
		// A different index or path stays different.
		expect(normalizeResultText(notFound[1]!.replace("edits[0]", "edits[1]"), edit(two)).text).toBe(
			"[edit failed: edits[1].oldText not found in a.ts]",
		);
		expect(
			normalizeResultText(
				"Found 3 occurrences of the text in a.ts. The text must be unique. Please provide more context to make it unique.",
				edit(one),
			).text,
		).toBe("[edit failed: edits[0].oldText occurs 3 times in a.ts]");
		expect(
			normalizeResultText(
				"edits[0].oldText occurs 2 times in a.ts (lines 1, 3). It must occur exactly once: add surrounding lines to make it unique.",
				edit(one),
			).text,
		).toBe("[edit failed: edits[0].oldText occurs 2 times in a.ts]");
		// Found N times for an empty oldText is the earliest releases' way of saying it is empty.
		const empty = { path: "a.ts", oldText: "", newText: "x" };
		expect(
			normalizeResultText(
				"Found 80 occurrences of the text in a.ts. The text must be unique. Please provide more context to make it unique.",
				edit(empty),
			).text,
		).toBe("[edit failed: edits[0].oldText is empty in a.ts]");
		expect(normalizeResultText("oldText must not be empty in a.ts.", edit(empty)).text).toBe(
			"[edit failed: edits[0].oldText is empty in a.ts]",
		);
		// Not an error: left alone.
		expect(normalizeResultText(notFound[0]!, edit(one, false)).rules).toEqual([]);
	});

	it("reads an edit that changes nothing as one failure, also where the earliest release said it worked", () => {
		const same = { path: "a.ts", oldText: "x", newText: "x" };
		expect(
			normalizeResultText(
				"Successfully replaced text in a.ts. Changed 1 characters to 1 characters.",
				edit(same, false),
			),
		).toEqual({
			text: "[edit failed: no change to a.ts]",
			isError: true,
			rules: ["edit-success", "edit-no-change"],
		});
		expect(
			normalizeResultText(
				"No changes made to a.ts: the replacements leave the file exactly as it was. Check that newText differs from oldText.",
				edit(same),
			).text,
		).toBe("[edit failed: no change to a.ts]");
		// A real change reported as a success stays a success.
		expect(normalizeResultText("Successfully replaced text in a.ts.", edit(one, false))).toEqual({
			text: "Successfully replaced 1 block(s) in a.ts.",
			isError: false,
			rules: ["edit-success"],
		});
	});

	it("flags the earliest releases' failures only in the forms they wrote", () => {
		const read = { toolName: "read", args: { path: "a.txt" }, isError: false };
		expect(normalizeResultText("Error: Offset 40 is beyond end of file (31 lines total)", read)).toEqual({
			text: "Offset 40 is beyond end of file (31 lines total)",
			isError: true,
			rules: ["error-flag"],
		});
		// A file whose only line starts with "Error: " is content.
		expect(normalizeResultText("Error: something the program logged", read).rules).toEqual([]);
		const bash = { toolName: "bash", args: { command: "x" }, isError: false };
		expect(normalizeResultText("out\n\nCommand exited with code 0", bash).rules).toEqual([]);
		expect(normalizeResultText("out\n\nCommand exited with code 3", bash).isError).toBe(true);
	});

	it("compares a page cut by limits the earliest releases lacked only where ours cuts it exactly at the limit", () => {
		const line = "w".repeat(200);
		const lines = Array.from({ length: 400 }, () => line);
		const recorded = `${lines.join("\n")}\n`;
		// 50 KB hold 254 lines of 201 bytes (with their line breaks) and part of a 255th.
		const ours = `${lines.slice(0, 254).join("\n")}\n\n[Showing lines 1-254 of 401 (50.0KB limit). Use offset=255 to continue.]`;
		expect(olderLimitsRule("read", recorded, ours)).toBe("read-older-limits");
		// Cut one line early: not where the limit falls.
		const early = `${lines.slice(0, 253).join("\n")}\n\n[Showing lines 1-253 of 401 (50.0KB limit). Use offset=254 to continue.]`;
		expect(olderLimitsRule("read", recorded, early)).toBeUndefined();
		// Other lines than the recorded ones.
		expect(olderLimitsRule("read", recorded.replace("w", "v"), ours)).toBeUndefined();
		// A bash tail must be the end of the recorded output and count all of its lines.
		expect(olderLimitsRule("bash", "1\n2\n3\n", "3\n\n\n[Showing lines 3-4 of 4. Full output: /tmp/x]")).toBe(
			"bash-older-limits",
		);
		expect(
			olderLimitsRule("bash", "1\n2\n3\n", "3\n\n\n[Showing lines 3-4 of 5. Full output: /tmp/x]"),
		).toBeUndefined();
		expect(
			olderLimitsRule("bash", "1\n2\n4\n", "3\n\n\n[Showing lines 3-4 of 4. Full output: /tmp/x]"),
		).toBeUndefined();
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
		// One example per rule, in the order the rules run.
		const more = [
			normalizeResultText("Error: File not found: a.txt", context("read")).rules,
			normalizeResultText("x\n\n[Showing lines 2-2 of 2. Full output: /tmp/pi-bash-1.log]", context("bash")).rules,
			normalizeResultText("Successfully wrote to a.txt", { toolName: "write", args: { content: "" }, isError: false })
				.rules,
			normalizeResultText("No changes made to a.ts. The replacements produced identical content.", {
				...context("edit"),
				isError: true,
			}).rules,
			normalizeResultText("oldText must not be empty in a.ts.", {
				toolName: "edit",
				args: { oldText: "" },
				isError: true,
			}).rules,
		].flat();
		const limits = [
			olderLimitsRule(
				"read",
				`${"a".repeat(30_000)}\n${"b".repeat(30_000)}\n`,
				`${"a".repeat(30_000)}\n\n[Showing lines 1-1 of 3 (50.0KB limit). Use offset=2 to continue.]`,
			),
			olderLimitsRule("bash", "1\n2\n3", "3\n\n[Showing lines 3-3 of 3. Full output: /tmp/x.log]"),
		];
		const order = NORMALIZATION_RULES.map((rule) => rule.id);
		expect([...new Set([...applied, ...more, ...limits])].sort()).toEqual([...order].sort());
		expect(order.slice(-2)).toEqual(["read-older-limits", "bash-older-limits"]);
		for (const rule of NORMALIZATION_RULES) expect(rule.summary).toMatch(/^[^\n]+$/);
	});
});
