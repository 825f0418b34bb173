/**
 * Scripted models read as data: `scripted:<file>.json`, a list of turns, loaded without running any
 * code (so the inspector under a path policy can use one), each turn checked with its JSON path;
 * `within` keeping a scripted model (and a scenario file) inside a folder, symlinks resolved.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadScenarioFile, loadScriptedModel, ScenarioFileError } from "../../../src/eval/node-files.js";
import { runEvals } from "../../../src/eval/node-run.js";
import { runCli } from "../cli/_run.js";

let root: string;
let dir: string;

beforeAll(() => {
	root = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-scripted-json-")));
	dir = join(root, "project");
	mkdirSync(dir);
	mkdirSync(join(root, "outside"));
	writeFileSync(
		join(dir, "turns.json"),
		JSON.stringify([
			{ calls: [{ tool: "write", args: { path: "note.txt", content: "hi" } }], usage: { inputTokens: 5 } },
			{ text: "wrote it" },
		]),
	);
	writeFileSync(
		join(dir, "note.eval.json"),
		JSON.stringify({
			name: "note",
			prompt: "Write hi to note.txt.",
			tools: { builtins: ["write"] },
			expect: { calls: [{ tool: "write" }], files: { "note.txt": "hi" }, answer: { $regex: "^wrote" } },
		}),
	);
	writeFileSync(join(root, "outside", "turns.json"), JSON.stringify([{ text: "x" }]));
	writeFileSync(
		join(root, "outside", "s.eval.json"),
		JSON.stringify({ name: "s", prompt: "p", expect: { answer: "x" } }),
	);
	symlinkSync(join(root, "outside", "turns.json"), join(dir, "linked.json"));
	symlinkSync(join(root, "outside", "s.eval.json"), join(dir, "linked.eval.json"));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function reasonOf(error: unknown): string {
	return error instanceof ScenarioFileError ? error.reason : String(error);
}

describe("scripted models in JSON", () => {
	it("drive a trial like a list of turns given from code", async () => {
		const model = await loadScriptedModel(join(dir, "turns.json"));
		expect(model.id).toBe("scripted/turns.json");
		const report = await runEvals(await loadScenarioFile(join(dir, "note.eval.json")), { model });
		expect(report.scenarios[0]).toMatchObject({ passed: 1, usage: { inputTokens: 5 } });
	});

	it("are checked turn by turn, every problem with its JSON path", async () => {
		const file = join(dir, "bad.json");
		writeFileSync(
			file,
			JSON.stringify([
				{ text: 5 },
				{ calls: [{ args: {} }, { tool: "t", id: 3, extra: true }] },
				{ usage: { inputTokens: -1, cost: 1 } },
				"hello",
				{ txt: "typo" },
			]),
		);
		const reason = await loadScriptedModel(file).then(() => "", reasonOf);
		expect(reason.split("; ")).toEqual([
			"[0].text: must be a string",
			'[1].calls[0]: needs a tool name ({ "tool": "…", "args": {…} })',
			"[1].calls[1].extra: unknown field (a call has tool, args, id)",
			"[1].calls[1].id: must be a string",
			"[2].usage.inputTokens: must be a number ≥ 0",
			"[2].usage.cost: unknown field (usage has inputTokens, outputTokens, costUsd)",
			'[3]: a turn is an object ({ "text": "…" } or { "calls": [{ "tool": "…", "args": {…} }] })',
			"[4].txt: unknown field (a turn has text, calls, usage)",
		]);
		writeFileSync(file, JSON.stringify({ turns: [] }));
		expect(await loadScriptedModel(file).then(() => "", reasonOf)).toMatch(
			/^a scripted model in JSON is a list of turns/,
		);
	});

	it("toolsmith eval takes one with --model scripted:<file>.json", async () => {
		const run = await runCli(["eval", "note.eval.json", "--model", "scripted:turns.json"], { cwd: dir });
		expect(run.stderr).toBe("");
		expect(run.stdout).toContain("note  1/1 passed");
		expect(run.code).toBe(0);
	});
});

describe("within: reading inside one folder only", () => {
	it("refuses a scripted model or a scenario file whose real path lies outside, a symlink included", async () => {
		for (const path of [
			join(root, "outside", "turns.json"),
			join(dir, "linked.json"),
			join(dir, "../outside/turns.json"),
		]) {
			expect(await loadScriptedModel(path, { within: dir }).then(() => "", reasonOf)).toMatch(
				new RegExp(`^outside ${dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(symlinks resolved\\)`),
			);
		}
		expect(await loadScenarioFile(join(dir, "linked.eval.json"), { within: dir }).then(() => "", reasonOf)).toMatch(
			/^outside .* \(symlinks resolved\)/,
		);
		expect(await loadScriptedModel(join(dir, "turns.json"), { within: dir })).toMatchObject({
			id: "scripted/turns.json",
		});
		// without within, a symlink is the caller's own choice
		expect(await loadScenarioFile(join(dir, "linked.eval.json"))).toHaveLength(1);
	});
});
