import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { splitCommandLine } from "../../../src/cli/_split-command.js";

/** How a real POSIX shell splits `line` (each word printed NUL-terminated), for comparison. */
function shellSplit(line: string): string[] {
	const run = spawnSync("sh", ["-c", `set -f; for w in ${line}; do printf '%s\\0' "$w"; done`], { encoding: "utf8" });
	return run.stdout.split("\0").slice(0, -1);
}

describe("splitCommandLine", () => {
	it("splits on blanks and keeps quoted blanks, as a shell does", () => {
		const lines = [
			"node server.mjs",
			"  npx   -y  @scope/server  ",
			`node "./my server/index.js" --root '.'`,
			`echo 'it'"'"'s' "a \\"b\\" c" back\\ slash`,
			`a"b"'c'd e`,
			`"" ''`,
			`x "\\$HOME" '$HOME' "\\n" \\n`,
			"tab\tseparated\nand lines",
		];
		for (const line of lines) {
			// A line break is a blank to the splitter; in the `for` list the shell needs a space there.
			expect(splitCommandLine(line), line).toEqual(shellSplit(line.replaceAll("\n", " ")));
		}
	});

	it("expands nothing and knows no operators", () => {
		expect(splitCommandLine("ls ~ * $HOME $(id) `id` a|b && c > d")).toEqual([
			"ls",
			"~",
			"*",
			"$HOME",
			"$(id)",
			"`id`",
			"a|b",
			"&&",
			"c",
			">",
			"d",
		]);
	});

	it("refuses unterminated quotes and a trailing backslash, saying where", () => {
		expect(() => splitCommandLine("node 'server.mjs")).toThrow("unterminated single quote at column 6");
		expect(() => splitCommandLine('node "a b')).toThrow("unterminated double quote at column 6");
		expect(() => splitCommandLine("node a\\")).toThrow("a backslash ends the command");
	});

	it("gives no words for a blank line", () => {
		expect(splitCommandLine("")).toEqual([]);
		expect(splitCommandLine(" \t ")).toEqual([]);
	});
});
