import { describe, expect, it } from "vitest";
import { normaliseResultText } from "../../../src/harness/_normalize.js";
import { changedLinesFromDiff, pageFromRead } from "../../../src/harness/_recorded-env.js";
import { commandMayWrite } from "../../../src/harness/_shell-effects.js";

describe("commandMayWrite", () => {
	it.each([
		'grep -n "chalk\\." src/a.ts | head -30',
		'find packages -name "*.ts" -type f',
		"cd packages/x && grep -A 5 'foo > bar' a.ts 2>&1 | tail -3",
		"ls -la ~/.pi/agent/themes/",
		"sed -n '1,20p' a.ts",
		"git status && git diff --stat",
		"cat a.txt > /dev/null",
		"awk '/x/{print NR\": \"$0}' a.ts | head -40",
		"echo $(date +%Y)",
	])("read-only: %s", (command) => {
		expect(commandMayWrite(command)).toBe(false);
	});

	it.each([
		"sed -i '' 's/a/b/g' a.ts",
		"npm run build 2>&1 | tail -3",
		"cat > /tmp/x.py << 'EOF'\nprint(1)\nEOF",
		"echo hi > out.txt",
		"echo hi &> out.txt",
		"git commit -m x",
		"cp a b",
		"find . -name '*.tmp' -delete",
		"python3 script.py",
		"rm -rf dist",
		"grep x a | tee out.txt",
		'echo "unterminated',
		"ls $(touch x)",
	])("may write: %s", (command) => {
		expect(commandMayWrite(command)).toBe(true);
	});
});

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

describe("normalisation rules", () => {
	const context = (toolName: string) => ({ toolName, args: undefined, isError: false });

	it("maps the read continuation notices onto one form", () => {
		const old = normaliseResultText(
			"x\n\n... (5 more lines not shown. Use offset=3 to continue reading)",
			context("read"),
		);
		const ours = normaliseResultText("x\n\n[Showing lines 2-2 of 7. Use offset=3 to continue.]", context("read"));
		expect(old).toEqual({ text: "x\n\n[more: 5 lines, next offset 3]", rules: ["read-continuation"] });
		expect(ours.text).toBe(old.text);
		// A different remaining count stays different.
		expect(
			normaliseResultText("x\n\n[4 more lines in file. Use offset=3 to continue.]", context("read")).text,
		).not.toBe(old.text);
	});

	it("maps the older edit and bash wording, and leaves other tools alone", () => {
		expect(
			normaliseResultText("Successfully replaced text in a.ts. Changed 3 characters to 5 characters.", context("edit"))
				.text,
		).toBe("Successfully replaced 1 block(s) in a.ts.");
		expect(normaliseResultText("(no output)\n\nCommand exited with code 2", context("bash"))).toEqual({
			text: "Command exited with code 2",
			rules: ["bash-empty-output-status"],
		});
		expect(normaliseResultText("(no output)\n\nCommand exited with code 2", context("read")).rules).toEqual([]);
	});
});

describe("lines a recorded diff shows", () => {
	it("keeps removed lines and context numbered consistently with them", async () => {
		const { linesBeforeFromDiff } = await import("../../../src/harness/_recorded-env.js");
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
