/** The parsers of the recorded agent's result formats: read pages, bash results, edit diffs. */
import { describe, expect, it } from "vitest";
import { UNKNOWN_LINE } from "../../../src/harness/_recorded-files.js";
import {
	changedLinesFromDiff,
	commandFromBash,
	linesBeforeFromDiff,
	pageFromRead,
	tooLongLineFromRead,
} from "../../../src/harness/_recorded-formats.js";

describe("reading recorded results", () => {
	it("takes a page and its line count from each notice form", () => {
		expect(pageFromRead("a\nb\n\n... (3 more lines not shown. Use offset=4 to continue reading)", 2)).toEqual({
			start: 2,
			text: "a\nb",
			count: 2,
			total: 6,
		});
		expect(pageFromRead("a\nb\n\n[3 more lines in file. Use offset=4 to continue.]", 2)).toEqual({
			start: 2,
			text: "a\nb",
			count: 2,
			total: 6,
		});
		expect(pageFromRead("a\nb\n\n[Showing lines 2-3 of 9 (50.0KB limit). Use offset=4 to continue.]", 2)).toEqual({
			start: 2,
			text: "a\nb",
			count: 2,
			total: 9,
		});
		// Releases that end the bracketed notices without a period.
		expect(pageFromRead("a\nb\n\n[3 more lines in file. Use offset=4 to continue]", 2)).toEqual({
			start: 2,
			text: "a\nb",
			count: 2,
			total: 6,
		});
		expect(pageFromRead("a\nb\n\n[Showing lines 2-3 of 9 (50.0KB limit). Use offset=4 to continue]", 2)).toEqual({
			start: 2,
			text: "a\nb",
			count: 2,
			total: 9,
		});
		// A notice-like last paragraph of a wording not known here is not taken as file content.
		for (const unknown of [
			"a\nb\n\n[3 more lines remain; continue with offset=4]",
			"a\nb\n\n[Showing lines 2-3 of 9. Next: offset=4]",
			"a\nb\n\n... (truncated at the 50KB limit)",
			"a\nb\n\n[Output cut at the line limit]",
		]) {
			expect(pageFromRead(unknown, 2), unknown).toBeUndefined();
		}
		// A file that just ends with a bracketed line stays content.
		expect(pageFromRead("list:\n\n[x] done", undefined)).toEqual({
			start: 1,
			text: "list:\n\n[x] done",
			count: 3,
			total: 3,
		});
		// No notice: the page reached the end of the file.
		expect(pageFromRead("x\ny\n", undefined)).toEqual({ start: 1, text: "x\ny\n", count: 3, total: 3 });
		// A notice that does not add up is not guessed at.
		expect(pageFromRead("a\nb\n\n... (3 more lines not shown. Use offset=9 to continue reading)", 2)).toBeUndefined();
		expect(
			pageFromRead("[Line 1 is 60.0KB, exceeds 50.0KB limit. Use bash: sed -n '1p' f | head -c 51200]", 1),
		).toBeUndefined();
	});

	it("reads the changed lines of a recorded diff, not its context", () => {
		expect(changedLinesFromDiff({ diff: "   1 same\n- 12  old\n+ 12 new\n+ 13 \n     ..." })).toEqual([
			{ kind: "-", line: 12, text: " old" },
			{ kind: "+", line: 12, text: "new" },
			{ kind: "+", line: 13, text: "" },
		]);
		expect(changedLinesFromDiff({})).toBeUndefined();
		expect(changedLinesFromDiff(undefined)).toBeUndefined();
	});
});

describe("the page a recorded read shows", () => {
	it("starts at line 1 without an offset, and at the offset's whole part with one", () => {
		expect(pageFromRead("a", undefined)).toEqual({ start: 1, text: "a", count: 1, total: 1 });
		expect(pageFromRead("a", 0)).toEqual({ start: 1, text: "a", count: 1, total: 1 });
		expect(pageFromRead("a\nb", 3.7)).toEqual({ start: 3, text: "a\nb", count: 2, total: 4 });
	});

	it("finds the notice after the last blank line, whatever blank lines the page holds", () => {
		expect(pageFromRead("a\n\nb\n\n[2 more lines in file. Use offset=4 to continue.]", undefined)).toEqual({
			start: 1,
			text: "a\n\nb",
			count: 3,
			total: 5,
		});
		// A notice that is not at the end is part of the page.
		const inside = "[2 more lines in file. Use offset=4 to continue.]\n\nmore";
		expect(pageFromRead(`x\n\n${inside}`, undefined)).toEqual({
			start: 1,
			text: `x\n\n${inside}`,
			count: 5,
			total: 5,
		});
	});

	it("keeps the lines the earliest releases cut at 2000 characters unknown, and drops their notice", () => {
		const cut = "x".repeat(2000);
		expect(
			pageFromRead(`${cut}\nshort\n\n\n... (Some lines were truncated to 2000 characters for display)`, undefined),
		).toEqual({
			start: 1,
			text: `${UNKNOWN_LINE}\nshort\n`,
			count: 3,
			total: 3,
			cut: 1,
			cutTo: 2000,
		});
		// With the continuation in the same notice; a next offset that does not follow is refused.
		const both = ". 7 more lines not shown. Use offset=4 to continue reading)";
		expect(
			pageFromRead(`a\n${cut}\nb\n\n... (Some lines were truncated to 2000 characters for display${both}`, 1),
		).toMatchObject({
			count: 3,
			total: 10,
			cut: 1,
		});
		expect(
			pageFromRead(`a\n${cut}\n\n... (Some lines were truncated to 2000 characters for display${both}`, 1),
		).toBeUndefined();
		// A notice-like last paragraph in a wording not known here is never taken as content.
		expect(pageFromRead("a\n\n... (Some lines were truncated for display)", undefined)).toBeUndefined();
	});

	it("reads the notice of a line too long to show, and only that", () => {
		expect(
			tooLongLineFromRead("[Line 11 is 70.0KB, exceeds 50.0KB limit. Use bash: sed -n '11p' f | head -c 51200]"),
		).toBe(11);
		expect(
			tooLongLineFromRead("[Line 1 is 60.0KB, exceeds 50.0KB limit. Use bash: sed -n '1p' f | head -c 51200]\nmore"),
		).toBeUndefined();
		expect(tooLongLineFromRead("text [Line 1 is 60.0KB, exceeds 50.0KB limit.]")).toBeUndefined();
	});

	it("refuses a showing notice whose numbers do not fit the page", () => {
		// The page starts at 2, the notice says 3.
		expect(pageFromRead("a\nb\n\n[Showing lines 3-4 of 9. Use offset=5 to continue.]", 2)).toBeUndefined();
		// Two lines shown, the notice counts three.
		expect(pageFromRead("a\nb\n\n[Showing lines 2-4 of 9. Use offset=5 to continue.]", 2)).toBeUndefined();
		// The next offset is not the line after the last.
		expect(pageFromRead("a\nb\n\n[Showing lines 2-3 of 9. Use offset=5 to continue.]", 2)).toBeUndefined();
	});
});

describe("the command a recorded bash result shows", () => {
	it("takes the output and the exit status", () => {
		expect(commandFromBash("hello\nworld", false)).toEqual({ output: "hello\nworld", exitCode: 0, aborted: false });
		expect(commandFromBash("out\n\nCommand exited with code 2", true)).toEqual({
			output: "out",
			exitCode: 2,
			aborted: false,
		});
		expect(commandFromBash("out\n\n\nCommand exited with code 1", true)).toEqual({
			output: "out\n",
			exitCode: 1,
			aborted: false,
		});
		expect(commandFromBash("Command exited with code 1", true)).toEqual({ output: "", exitCode: 1, aborted: false });
		// A status line that does not end the result is output.
		expect(commandFromBash("Command exited with code 1\n\nmore", false)).toEqual({
			output: "Command exited with code 1\n\nmore",
			exitCode: 0,
			aborted: false,
		});
	});

	it("reads `(no output)` as empty output", () => {
		expect(commandFromBash("(no output)", false)).toEqual({ output: "", exitCode: 0, aborted: false });
		expect(commandFromBash("(no output)\n\nCommand exited with code 3", true)).toEqual({
			output: "",
			exitCode: 3,
			aborted: false,
		});
	});

	it("sees an aborted command, with what it printed before", () => {
		expect(commandFromBash("partial\n\nCommand aborted", true)).toEqual({
			output: "partial",
			exitCode: 0,
			aborted: true,
		});
	});

	it("says why a result cannot be replayed: a timeout, no exit status on an error, a truncated output", () => {
		expect(commandFromBash("x\n\nCommand timed out after 5 seconds", true)).toEqual({
			unknowable: "timing",
			why: "the command timed out (wall-clock time)",
		});
		expect(commandFromBash("some error", true)).toEqual({
			unknowable: "unreadable-result",
			why: "an error result without an exit status",
		});
		const truncated = { unknowable: "unseen-region", why: "the recording holds only the tail of the output" };
		// A notice that does not end at the last line, or shows no line before the tail, or the
		// tail of one long line: no output can stand for it.
		expect(commandFromBash("a\nb\n\n[Showing lines 3-4 of 9. Full output: /tmp/x.log]", false)).toEqual(truncated);
		expect(
			commandFromBash("a\n\n[Showing lines 1-1 of 1. Full output: /tmp/y.log]\n\nCommand exited with code 1", true),
		).toEqual(truncated);
		expect(
			commandFromBash("xyz\n\n[Showing last 3B of line 1 (line is 60.0KB). Full output: /tmp/y.log]", false),
		).toEqual(truncated);
	});

	it("stands in for the lines before a truncated tail, one of them longer than any limit", () => {
		const answer = commandFromBash(
			"a\nb\n\n[Showing lines 3-4 of 4. Full output: /tmp/x.log]\n\nCommand exited with code 2",
			true,
		);
		expect("output" in answer).toBe(true);
		if (!("output" in answer)) return;
		const lines = answer.output.split("\n");
		expect(lines).toHaveLength(4);
		expect(lines.slice(2)).toEqual(["a", "b"]);
		expect(lines[0]).toBe("");
		expect(lines[1]!.length).toBeGreaterThan(50 * 1024);
		expect(answer.exitCode).toBe(2);
	});
});

describe("lines a recorded diff shows", () => {
	it("keeps removed lines and context numbered consistently with them", () => {
		const shown = linesBeforeFromDiff({ diff: "     ...\n  9 a\n 10 b\n- 11 c\n+ 11 C\n+ 12 D\n 12 d\n     ..." });
		expect([...shown]).toEqual([
			[10, "b"],
			[9, "a"],
			[11, "c"],
			[12, "d"],
		]);
		// Leading context numbered from 1 before a change at 281 is dropped; trailing context is kept.
		const buggy = linesBeforeFromDiff({ diff: "  1 x\n  2 y\n+281 new\n 281 }" });
		expect([...buggy]).toEqual([[281, "}"]]);
	});
});

describe("the changed lines of a recorded diff", () => {
	it("needs a non-empty string diff", () => {
		expect(changedLinesFromDiff({ diff: "" })).toBeUndefined();
		expect(changedLinesFromDiff({ diff: 3 })).toBeUndefined();
		expect(changedLinesFromDiff(null)).toBeUndefined();
		expect(changedLinesFromDiff({ diff: "   1 same" })).toEqual([]);
	});

	it("skips rows not of the numbered form", () => {
		expect(changedLinesFromDiff({ diff: "+x\n+12\n-\t5 tab\n- 7 seven" })).toEqual([
			{ kind: "+", line: 12, text: "" },
			{ kind: "-", line: 7, text: "seven" },
		]);
	});
});

describe("the lines before an edit that a recorded diff shows", () => {
	it("is empty without a diff or without a change", () => {
		expect([...linesBeforeFromDiff(undefined)]).toEqual([]);
		expect([...linesBeforeFromDiff({ diff: "  1 a\n  2 b" })]).toEqual([]);
	});

	it("stops at a gap or at a line numbered out of step", () => {
		expect([...linesBeforeFromDiff({ diff: "- 3 a\n     ...\n- 9 b" })]).toEqual([[3, "a"]]);
		expect([...linesBeforeFromDiff({ diff: "- 3 a\n+ 3 A\n  5 x" })]).toEqual([[3, "a"]]);
		expect([...linesBeforeFromDiff({ diff: "- 3 a\n+ 3 A\n+ 4 B\n  4 b" })]).toEqual([
			[3, "a"],
			[4, "b"],
		]);
	});
});
