/** RecordedFiles: what a replay knows of a recorded session's files, and the ReplayEnv that holds them. */
import { describe, expect, it } from "vitest";
import { RecordedFiles, UNKNOWN_LINE } from "../../../src/harness/_recorded-files.js";
import { ReplayEnv } from "../../../src/harness/_replay-env.js";

const U = UNKNOWN_LINE;

describe("RecordedFiles", () => {
	it("sees a file as the env holds it: written text as it is, a lone surrogate as U+FFFD", async () => {
		const files = new RecordedFiles("/w");
		await files.setContent("a.txt", "one\ntwo");
		expect(files.content("a.txt")).toBe("one\ntwo");
		expect(files.lines("a.txt")?.line(1)).toBe("two");
		await files.setContent("b.txt", "x\uD800y");
		expect(files.content("b.txt")).toBe("x\uFFFDy");
		await files.setContent("a.txt", "changed");
		expect(files.lines("a.txt")?.line(0)).toBe("changed");
	});
});

describe("RecordedFiles: pages", () => {
	it("seeds a file from a page, with the lines around it unknown", async () => {
		const files = new RecordedFiles("/w");
		expect(await files.merge("/w/a.txt", { start: 2, text: "b\nc", count: 2, total: 4 })).toEqual({ kind: "seeded" });
		expect(files.content("/w/a.txt")).toBe(`${U}\nb\nc\n${U}`);
		expect(files.partial("/w/a.txt")).toBe(true);
		expect(files.covers("/w/a.txt", { start: 2, text: "b\nc", count: 2, total: 4 })).toBe(true);
		expect(files.covers("/w/a.txt", { start: 1, text: "a", count: 1, total: 4 })).toBe(false);
		expect(files.covers("/w/other.txt", { start: 1, text: "a", count: 1, total: 1 })).toBe(false);
	});

	it("merges pages that agree, and refuses one that contradicts a known line or the line count", async () => {
		const files = new RecordedFiles("/w");
		await files.seed("/w/a.txt", { start: 2, text: "b\nc", count: 2, total: 4 });
		expect(await files.merge("/w/a.txt", { start: 1, text: "a", count: 1, total: 4 })).toEqual({
			kind: "merged",
			filled: 1,
		});
		expect(await files.merge("/w/a.txt", { start: 1, text: "a\nb", count: 2, total: 4 })).toEqual({
			kind: "merged",
			filled: 0,
		});
		expect(await files.merge("/w/a.txt", { start: 2, text: "X", count: 1, total: 4 })).toEqual({
			kind: "conflict",
			message: 'line 2: the recorded result shows "X", the replayed file has "b"',
		});
		expect(await files.merge("/w/a.txt", { start: 1, text: "a", count: 1, total: 5 })).toEqual({
			kind: "conflict",
			message: "the recorded result shows 5 lines, the replayed file has 4",
		});
		expect(files.content("/w/a.txt")).toBe(`a\nb\nc\n${U}`);
	});

	it("takes a file that a page makes wholly known as fresh again", async () => {
		const files = new RecordedFiles("/w");
		await files.seed("/w/a.txt", { start: 1, text: "a", count: 1, total: 2 });
		files.markAllStale("outside");
		expect(files.isStale("/w/a.txt")).toBe(true);
		await files.merge("/w/a.txt", { start: 2, text: "b", count: 1, total: 2 });
		expect(files.partial("/w/a.txt")).toBe(false);
		expect(files.isStale("/w/a.txt")).toBe(false);
		expect(files.staleReason("/w/a.txt")).toBeUndefined();
	});

	it("fills unknown lines, unless a given line contradicts a known one", async () => {
		const files = new RecordedFiles("/w");
		await files.seed("/w/a.txt", { start: 2, text: "b", count: 1, total: 3 });
		expect(await files.fillLines("/w/a.txt", new Map([[2, "X"]]))).toBe(0);
		expect(
			await files.fillLines(
				"/w/a.txt",
				new Map([
					[1, "a"],
					[2, "b"],
					[3, "c"],
				]),
			),
		).toBe(2);
		expect(files.content("/w/a.txt")).toBe("a\nb\nc");
		expect(files.lines("/w/a.txt")?.line(2)).toBe("c");
	});
});

describe("RecordedFiles: changed lines of an edit", () => {
	it("applies the removed and added lines of a recorded diff", async () => {
		const files = new RecordedFiles("/w");
		await files.setContent("/w/a.txt", "a\nb\nc");
		const applied = await files.applyChangedLines("/w/a.txt", [
			{ kind: "-", line: 2, text: "b" },
			{ kind: "+", line: 2, text: "B" },
			{ kind: "+", line: 3, text: "B2" },
		]);
		expect(applied).toBe(true);
		expect(files.content("/w/a.txt")).toBe("a\nB\nB2\nc");
	});

	it("changes nothing for a diff that contradicts a known line or does not fit the file", async () => {
		const files = new RecordedFiles("/w");
		await files.setContent("/w/a.txt", "a");
		expect(await files.applyChangedLines("/w/a.txt", [{ kind: "-", line: 1, text: "zzz" }])).toBe(false);
		expect(await files.applyChangedLines("/w/a.txt", [{ kind: "+", line: 5, text: "x" }])).toBe(false);
		expect(await files.applyChangedLines("/w/a.txt", [])).toBe(false);
		expect(await files.applyChangedLines("/w/missing.txt", [{ kind: "+", line: 1, text: "x" }])).toBe(false);
		expect(files.content("/w/a.txt")).toBe("a");
	});
});

describe("RecordedFiles: staleness and paths", () => {
	it("marks files stale once, keeping the first reason", async () => {
		const files = new RecordedFiles("/w");
		await files.setContent("/w/a.txt", "a");
		expect(files.isStale("/w/a.txt")).toBe(false);
		files.markAllStale(() => "the first");
		files.markAllStale("the second");
		files.markStale("/w/a.txt", "the third");
		expect(files.isStale("/w/a.txt")).toBe(true);
		expect(files.staleReason("/w/a.txt")).toBe("the first");
		// A file not tracked stays untracked.
		files.markStale("/w/b.txt", "why");
		expect(files.has("/w/b.txt")).toBe(false);
		await files.forget("/w/a.txt");
		expect(files.has("/w/a.txt")).toBe(false);
		expect(files.content("/w/a.txt")).toBeUndefined();
	});

	it("resolves paths as our tools do: a leading @ dropped, relative to the cwd", () => {
		const files = new RecordedFiles("/w");
		expect(files.resolve("@src/a.ts")).toBe("/w/src/a.ts");
		expect(files.resolve("b")).toBe("/w/b");
		expect(files.resolve("/abs/c")).toBe("/abs/c");
	});
});

describe("ReplayEnv", () => {
	const decoder = new TextDecoder();
	async function run(env: ReplayEnv, command: string): Promise<{ output: string; exitCode: number | undefined }> {
		let output = "";
		const result = await env.exec(command, {
			onStdout: (chunk) => {
				output += decoder.decode(chunk);
			},
		});
		return { output, exitCode: result.ok ? result.value.exitCode : undefined };
	}

	it("answers the expected command once; an answer left unused answers that command later", async () => {
		const env = new ReplayEnv({ cwd: "/w", unmatched: (command) => ({ exitCode: 127, stdout: `none: ${command}` }) });
		await env.createDir("/w");
		env.expect({ command: "ls", output: "a\n", exitCode: 0 });
		expect(await run(env, "ls")).toEqual({ output: "a\n", exitCode: 0 });
		expect(await run(env, "ls")).toEqual({ output: "none: ls", exitCode: 127 });
		env.expect({ command: "pwd", output: "/w\n", exitCode: 0 });
		env.expect({ command: "false", output: "", exitCode: 1 });
		expect(await run(env, "false")).toEqual({ output: "", exitCode: 1 });
		expect(await run(env, "pwd")).toEqual({ output: "/w\n", exitCode: 0 });
		expect(await run(env, "pwd")).toEqual({ output: "none: pwd", exitCode: 127 });
	});

	it("drops a file's kept text when the file is written", async () => {
		const env = new ReplayEnv({ cwd: "/w" });
		await env.writeFile("/w/a.txt", "one");
		const key = env.textKey("a.txt")!;
		expect(key).toBe("/w/a.txt");
		env.texts.set(key, { text: "one", lines: undefined });
		await env.writeFile("a.txt", "two");
		expect(env.texts.has(key)).toBe(false);
		env.texts.set(key, { text: "two", lines: undefined });
		env.texts.set("/w/b.txt", { text: "b", lines: undefined });
		await env.remove("/w/b.txt");
		expect(env.texts.size).toBe(0);
	});
});
