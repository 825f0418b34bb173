import { describe, expect, it } from "vitest";
import { Type } from "../../../src/contract/schema.js";
import { defineTool, type ToolDefinition } from "../../../src/contract/tool.js";
import { replaySession } from "../../../src/harness/replay-session.js";
import { parseSession, type RecordedSession } from "../../../src/harness/session.js";
import type { SessionCallOutcome } from "../../../src/harness/session-report.js";
import { createEditTool } from "../../../src/tools/edit.js";
import { createReadTool } from "../../../src/tools/read.js";

interface Step {
	readonly name: string;
	readonly args: Record<string, unknown>;
	/** Omitted: the call has no recorded result. */
	readonly result?: { readonly text: string; readonly isError?: boolean; readonly details?: unknown };
}

interface Batch {
	/** A user message before this batch (a new turn). */
	readonly user?: string;
	readonly stopReason?: string;
	readonly calls: readonly Step[];
}

/** A version 1 session in the recorded agent's shape. */
function session(batches: readonly Batch[], cwd = "/repo"): RecordedSession {
	const lines: string[] = [JSON.stringify({ type: "session", id: "t", cwd, timestamp: "2025-01-01T00:00:00Z" })];
	let id = 0;
	for (const batch of batches) {
		if (batch.user !== undefined) {
			lines.push(JSON.stringify({ type: "message", message: { role: "user", content: batch.user } }));
		}
		const calls = batch.calls.map((call) => ({ ...call, id: `c${id++}` }));
		lines.push(
			JSON.stringify({
				type: "message",
				message: {
					role: "assistant",
					content: calls.map((call) => ({ type: "toolCall", id: call.id, name: call.name, arguments: call.args })),
					stopReason: batch.stopReason ?? "toolUse",
				},
			}),
		);
		for (const call of calls) {
			if (!call.result) continue;
			lines.push(
				JSON.stringify({
					type: "message",
					message: {
						role: "toolResult",
						toolCallId: call.id,
						toolName: call.name,
						content: [{ type: "text", text: call.result.text }],
						isError: call.result.isError ?? false,
						details: call.result.details,
					},
				}),
			);
		}
	}
	return parseSession(lines.join("\n"));
}

const FILE = "one\ntwo\nthree\nfour\nfive\n";
const fullRead: Step = { name: "read", args: { path: "a.txt" }, result: { text: FILE } };
const editOk = (path: string, oldText: string, newText: string, details?: unknown): Step => ({
	name: "edit",
	args: { path, oldText, newText },
	result: {
		text: `Successfully replaced text in ${path}. Changed ${oldText.length} characters to ${newText.length} characters.`,
		details,
	},
});

function statuses(outcomes: readonly SessionCallOutcome[]): string[] {
	return outcomes.map((o) => (o.status === "unknowable" ? `unknowable:${o.reason}` : o.status));
}

describe("replaySession: reads", () => {
	it("seeds a file from a read, then checks later pages against it", async () => {
		const report = await replaySession(
			session([
				{ calls: [fullRead] },
				{
					calls: [
						{
							name: "read",
							args: { path: "a.txt", offset: 2, limit: 2 },
							result: { text: "two\nthree\n\n... (3 more lines not shown. Use offset=4 to continue reading)" },
						},
					],
				},
			]),
		);
		expect(statuses(report.calls)).toEqual(["match", "match"]);
		expect(report.calls.map((c) => c.seeded)).toEqual([true, false]);
		expect(report.calls[1]?.rules).toEqual(["read-continuation"]);
		expect(report.figures.seededReads).toBe(1);
		expect(report.ok).toBe(true);
	});

	it("a failed read of an unseen file: unknowable unless it says the file does not exist", async () => {
		const report = await replaySession(
			session([
				{
					calls: [
						{
							name: "read",
							args: { path: "seen-nowhere.ts", offset: 40 },
							result: { text: "Offset 40 is beyond end of file (31 lines total)", isError: true },
						},
						{
							name: "read",
							args: { path: "gone.ts" },
							result: { text: "ENOENT: no such file or directory, access '/repo/gone.ts'", isError: true },
						},
					],
				},
			]),
		);
		expect(statuses(report.calls)).toEqual(["unknowable:unseen-file", "match"]);
		expect(report.calls[0]?.message).toContain("Offset 40 is beyond end of file");
		// The reference's ENOENT and our wording name the same failure of the same path.
		expect(report.calls[1]?.rules).toEqual(["read-not-found"]);
	});

	it("learns only the page a partial read showed", async () => {
		const report = await replaySession(
			session([
				{
					calls: [
						{
							name: "read",
							args: { path: "a.txt", offset: 4, limit: 1 },
							result: { text: "four\n\n... (2 more lines not shown. Use offset=5 to continue reading)" },
						},
						// The old text sits in lines 1-2, which no result showed.
						editOk("a.txt", "one\ntwo", "ONE\ntwo"),
						// The real edit changed lines the replay never saw, so the known lines may have
						// moved: the file is forgotten until a result shows it again.
						editOk("a.txt", "four", "FOUR"),
					],
				},
			]),
		);
		expect(statuses(report.calls)).toEqual(["match", "unknowable:unseen-region", "unknowable:unseen-file"]);
	});

	it("needs the edited region, not the whole file", async () => {
		const report = await replaySession(
			session([
				{
					calls: [
						{
							name: "read",
							args: { path: "a.txt", offset: 4, limit: 1 },
							result: { text: "four\n\n... (2 more lines not shown. Use offset=5 to continue reading)" },
						},
						editOk("a.txt", "four", "FOUR"),
						editOk("a.txt", "one\ntwo", "ONE\ntwo"),
					],
				},
			]),
		);
		expect(statuses(report.calls)).toEqual(["match", "match", "unknowable:unseen-region"]);
	});
});

describe("replaySession: edits the replay cannot run", () => {
	it("follows them through the recorded diff, so known lines keep their places", async () => {
		const report = await replaySession(
			session([
				{
					calls: [
						{
							name: "read",
							args: { path: "a.txt", offset: 4, limit: 2 },
							result: { text: "four\nfive\n\n... (1 more lines not shown. Use offset=6 to continue reading)" },
						},
						// Lines 1-2 were never shown (the diff shows line 2 only): our edit cannot find its old
						// text, the recorded one worked.
						editOk("a.txt", "one\ntwo", "one\n2a\n2b", { diff: "- 2 two\n+ 2 2a\n+ 3 2b" }),
						// Lines 4-5 are now lines 5-6, and known.
						{
							name: "read",
							args: { path: "a.txt", offset: 5, limit: 2 },
							result: { text: "four\nfive\n\n... (1 more lines not shown. Use offset=7 to continue reading)" },
						},
						editOk("a.txt", "five", "FIVE", { diff: "- 6 five\n+ 6 FIVE" }),
					],
				},
			]),
		);
		expect(statuses(report.calls)).toEqual(["match", "unknowable:unseen-region", "match", "match"]);
		expect(report.calls[2]?.seeded).toBe(false);
	});

	it("takes the lines a recorded diff shows, so the edit itself can run", async () => {
		const report = await replaySession(
			session([
				{
					calls: [
						{
							name: "read",
							args: { path: "a.txt", offset: 4, limit: 2 },
							result: { text: "four\nfive\n\n... (1 more lines not shown. Use offset=6 to continue reading)" },
						},
						// Context lines 1 and 3 and the removed line 2 are numbered consistently: they fill the
						// unknown lines 1-3, and the edit runs.
						editOk("a.txt", "one\ntwo", "one\n2a", { diff: "  1 one\n- 2 two\n+ 2 2a\n  3 three" }),
						// Leading context numbered out of place (as the recorded agent sometimes did) is ignored.
						editOk("a.txt", "three", "3", { diff: "  7 one\n  8 2a\n- 3 three\n+ 3 3" }),
					],
				},
			]),
		);
		expect(statuses(report.calls)).toEqual(["match", "match", "match"]);
		expect(report.calls.map((c) => c.seeded)).toEqual([true, true, false]);
		expect(report.figures.byTool.edit?.seeded).toBe(1);
	});

	it("forgets the file when the recorded diff does not fit what is known", async () => {
		const report = await replaySession(
			session([
				{
					calls: [
						{
							name: "read",
							args: { path: "a.txt", offset: 4, limit: 2 },
							result: { text: "four\nfive\n\n... (1 more lines not shown. Use offset=6 to continue reading)" },
						},
						editOk("a.txt", "two", "2a", { diff: "- 4 two\n+ 4 2a" }),
						editOk("a.txt", "five", "FIVE"),
					],
				},
			]),
		);
		expect(statuses(report.calls)).toEqual(["match", "unknowable:unseen-region", "unknowable:unseen-file"]);
	});
});

describe("replaySession: edits and writes", () => {
	it("carries our edits forward: a later read sees what our edit left", async () => {
		const report = await replaySession(
			session([
				{ calls: [fullRead, editOk("a.txt", "three", "THREE")] },
				{ calls: [{ name: "read", args: { path: "a.txt" }, result: { text: FILE.replace("three", "THREE") } }] },
			]),
		);
		expect(statuses(report.calls)).toEqual(["match", "match", "match"]);
		expect(report.calls[2]?.seeded).toBe(false);
	});

	it("reports a mismatch when our edit leaves the file otherwise than the recording shows", async () => {
		// An edit tool that also appends a line: the result text is right, the file is not.
		const real = createEditTool();
		const sloppy: ToolDefinition = {
			...(real as ToolDefinition),
			async execute(id, params, signal, onUpdate, ctx) {
				const result = await real.execute(id, params as never, signal, onUpdate as never, ctx);
				await ctx.env.appendFile(`${ctx.cwd}/a.txt`, "extra\n");
				return result;
			},
		};
		const report = await replaySession(
			session([
				{ calls: [fullRead, editOk("a.txt", "three", "THREE")] },
				{ calls: [{ name: "read", args: { path: "a.txt" }, result: { text: FILE.replace("three", "THREE") } }] },
			]),
			{ tools: [sloppy], userTurnsMayChangeFiles: false },
		);
		expect(statuses(report.calls)).toEqual(["match", "match", "mismatch"]);
		expect(report.ok).toBe(false);
		expect(report.calls[2]?.diff).toContain("+ extra");
	});

	it("checks the file after an edit against the recorded diff", async () => {
		const real = createEditTool();
		const wrong: ToolDefinition = {
			...(real as ToolDefinition),
			async execute(id, params, signal, onUpdate, ctx) {
				const result = await real.execute(id, params as never, signal, onUpdate as never, ctx);
				await ctx.env.writeFile(`${ctx.cwd}/a.txt`, "one\ntwo\nTHREE!\nfour\nfive\n");
				return result;
			},
		};
		const diff = "  2 two\n- 3 three\n+ 3 THREE\n  4 four";
		const report = await replaySession(session([{ calls: [fullRead, editOk("a.txt", "three", "THREE", { diff })] }]), {
			tools: [wrong],
		});
		expect(statuses(report.calls)).toEqual(["match", "mismatch"]);
		expect(report.calls[1]?.message).toMatch(/recorded diff line \+3 is "THREE"/);
	});

	it("follows the recorded agent's expansion of $ patterns in newText", async () => {
		const diff = "- 1 price\n+ 1 $5";
		const report = await replaySession(
			session([
				{
					calls: [
						{ name: "read", args: { path: "p.txt" }, result: { text: "price\n" } },
						editOk("p.txt", "price", "$$5", { diff }),
						{ name: "read", args: { path: "p.txt" }, result: { text: "$5\n" } },
					],
				},
			]),
		);
		expect(statuses(report.calls)).toEqual(["match", "match", "match"]);
		expect(report.calls[1]?.rules).toContain("edit-dollar-patterns");
	});

	it("knows a written file completely", async () => {
		const report = await replaySession(
			session([
				{
					calls: [
						{
							name: "write",
							args: { path: "n/b.txt", content: "x\ny" },
							result: { text: "Successfully wrote 3 bytes to n/b.txt" },
						},
						editOk("n/b.txt", "y", "z"),
						{ name: "read", args: { path: "n/b.txt" }, result: { text: "x\nz" } },
					],
				},
			]),
		);
		expect(statuses(report.calls)).toEqual(["match", "match", "match"]);
		expect(report.calls[2]?.seeded).toBe(false);
	});
});

describe("replaySession: outside changes", () => {
	const changedRead: Step = { name: "read", args: { path: "a.txt" }, result: { text: "changed\n" } };
	// An edit of text only the changed file holds.
	const changedEdit = editOk("a.txt", "changed", "CHANGED");
	const sed: Step = {
		name: "bash",
		args: { command: "sed -i 's/.*/changed/' a.txt" },
		result: { text: "(no output)" },
	};
	const grep: Step = { name: "bash", args: { command: "grep -n two a.txt" }, result: { text: "2:two\n" } };

	it("a shell command that may write makes a disagreement unknowable", async () => {
		const report = await replaySession(session([{ calls: [fullRead, sed, changedEdit] }]));
		expect(statuses(report.calls)).toEqual(["match", "match", "unknowable:outside-change"]);
		expect(report.calls[2]?.message).toMatch(/sed -i/);
	});

	it("a read-only command does not: the same disagreement is a mismatch", async () => {
		const report = await replaySession(session([{ calls: [fullRead, grep, changedEdit] }]));
		expect(statuses(report.calls)).toEqual(["match", "match", "mismatch"]);
	});

	it("a read after an outside change is checked against its own page", async () => {
		const changed = await replaySession(session([{ calls: [fullRead, sed, changedRead, changedEdit] }]));
		expect(statuses(changed.calls)).toEqual(["match", "match", "match", "match"]);
		expect(changed.calls[2]?.seeded).toBe(true);
		expect(changed.calls[2]?.message).toMatch(/the file had changed \(the command "sed -i/);
		// Without a possible outside change, the same read is a mismatch.
		const report = await replaySession(session([{ calls: [fullRead, grep, changedRead] }]));
		expect(statuses(report.calls)).toEqual(["match", "match", "mismatch"]);
	});

	it("the user's turn counts as a possible change unless told otherwise", async () => {
		const batches: Batch[] = [{ calls: [fullRead] }, { user: "I changed it by hand", calls: [changedEdit] }];
		expect(statuses((await replaySession(session(batches))).calls)).toEqual(["match", "unknowable:outside-change"]);
		expect(statuses((await replaySession(session(batches), { userTurnsMayChangeFiles: false })).calls)).toEqual([
			"match",
			"mismatch",
		]);
	});
});

describe("replaySession: bash and the rest", () => {
	it("answers commands from the recording, exit codes and aborts included", async () => {
		const report = await replaySession(
			session([
				{
					calls: [
						{ name: "bash", args: { command: "ls" }, result: { text: "a\nb\n" } },
						{
							name: "bash",
							args: { command: "grep x a" },
							result: { text: "Command exited with code 1", isError: true },
						},
						{
							name: "bash",
							args: { command: "cat missing" },
							result: { text: "cat: missing: No such file\n\n\nCommand exited with code 1", isError: true },
						},
						{
							name: "bash",
							args: { command: "sleep 9" },
							result: { text: "started\n\n\nCommand aborted", isError: true },
						},
						{ name: "bash", args: { command: "true" }, result: { text: "(no output)" } },
					],
				},
			]),
		);
		expect(statuses(report.calls)).toEqual(["match", "match", "match", "match", "match"]);
		expect(report.calls[1]?.rules).toEqual(["bash-empty-output-status"]);
	});

	it("sees a tool that frames bash output differently", async () => {
		const loud: ToolDefinition = defineTool({
			name: "bash",
			label: "bash",
			description: "runs",
			parameters: Type.Object({ command: Type.String() }),
			async execute(_id, { command }, _signal, _onUpdate, ctx) {
				const run = await ctx.env.exec(command);
				if (!run.ok) throw run.error;
				return { content: [{ type: "text", text: `$ ${command}\n${run.value.stdout}` }], details: {} };
			},
		}) as ToolDefinition;
		const report = await replaySession(
			session([{ calls: [{ name: "bash", args: { command: "ls" }, result: { text: "a\n" } }] }]),
			{ tools: [loud] },
		);
		expect(statuses(report.calls)).toEqual(["mismatch"]);
		expect(report.calls[0]?.diff).toContain("+ $ ls");
	});

	it("does not guess: calls without results and unknown tools are unknowable", async () => {
		const report = await replaySession(
			session([
				{ stopReason: "error", calls: [{ name: "edit", args: { path: "a.txt", oldText: "a", newText: "b" } }] },
				{ calls: [{ name: "web_search", args: { query: "x" }, result: { text: "a.txt:1:x" } }] },
			]),
		);
		expect(statuses(report.calls)).toEqual(["unknowable:no-result", "unknowable:no-tool"]);
		expect(report.figures.unknowableReasons).toEqual({ "no-result": 1, "no-tool": 1 });
	});

	it("replays with a custom read tool passed in options", async () => {
		const read = createReadTool();
		const report = await replaySession(session([{ calls: [fullRead] }]), {
			builtins: false,
			tools: [read as ToolDefinition],
		});
		expect(statuses(report.calls)).toEqual(["match"]);
	});
});

describe("replaySession: grep, find and ls", () => {
	const grep = (args: Record<string, unknown>, text: string, isError = false): Step => ({
		name: "grep",
		args,
		result: { text, isError },
	});

	it("replays a search of one fully known file and compares it with the recording", async () => {
		const report = await replaySession(
			session([
				{
					calls: [
						fullRead,
						grep({ pattern: "t", path: "a.txt" }, "a.txt:2: two\na.txt:3: three"),
						grep(
							{ pattern: "o", path: "a.txt", context: 1, limit: 1 },
							"a.txt:1: one\na.txt-2- two\n\n[1 matches limit reached. Use limit=2 for more, or refine pattern]",
						),
						grep({ pattern: "zzz", path: "a.txt" }, "No matches found"),
						{ name: "ls", args: { path: "a.txt" }, result: { text: "Not a directory: /repo/a.txt", isError: true } },
					],
				},
			]),
		);
		expect(report.calls.map((c) => `${c.toolName} ${c.status}`)).toEqual([
			"read match",
			"grep match",
			"grep match",
			"grep match",
			"ls match",
		]);
		expect(report.figures.byTool.grep).toEqual({
			calls: 3,
			match: 3,
			mismatch: 0,
			unknowable: 0,
			seeded: 0,
			stateVerified: 3,
			formatOnly: 0,
		});
	});

	it("reports a search result that the known file contradicts as a mismatch, with a diff", async () => {
		const report = await replaySession(
			session([
				{
					calls: [
						fullRead,
						// The recording claims a match on a line the file does not hold.
						grep({ pattern: "t", path: "a.txt" }, "a.txt:2: two\na.txt:3: three\na.txt:5: ten"),
						// After our edit the file holds "six", which the recording says grep did not find.
						editOk("a.txt", "five", "six"),
						grep({ pattern: "six", path: "a.txt" }, "No matches found"),
					],
				},
			]),
		);
		expect(statuses(report.calls)).toEqual(["match", "mismatch", "match", "mismatch"]);
		expect(report.calls[1]?.diff).toContain("a.txt:5: ten");
		expect(report.calls[3]?.actual?.text).toBe("a.txt:5: six");
		expect(report.ok).toBe(false);
	});

	it("does not judge searches of folders, unseen paths or partly known files, and says why", async () => {
		const report = await replaySession(
			session([
				{
					calls: [
						grep({ pattern: "x" }, "a.txt:1: x"),
						{ name: "find", args: { pattern: "*.ts", path: "src" }, result: { text: "a.ts" } },
						{ name: "ls", args: {}, result: { text: "a.txt\nsrc/" } },
						grep({ pattern: "x", path: "b.txt" }, "b.txt:1: x"),
						{
							name: "read",
							args: { path: "c.txt", limit: 1 },
							result: { text: "one\n\n[4 more lines in file. Use offset=2 to continue.]" },
						},
						grep({ pattern: "five", path: "c.txt" }, "No matches found"),
					],
				},
			]),
		);
		expect(statuses(report.calls)).toEqual([
			"unknowable:unseen-folder",
			"unknowable:unseen-folder",
			"unknowable:unseen-folder",
			"unknowable:unseen-folder",
			"match",
			"unknowable:unseen-region",
		]);
		expect(report.calls[0]?.message).toBe(
			'grep looks at everything under ".", and no recorded result showed its full contents',
		);
		expect(report.calls[1]?.message).toContain('"src"');
		expect(report.calls[5]?.message).toBe(
			'grep searches every line of "c.txt", and no recorded result showed all of them',
		);
		expect(report.figures.unknowableReasons).toEqual({ "unseen-folder": 4, "unseen-region": 1 });
		expect(report.ok).toBe(true);
	});

	it("leaves files fresh, and calls a difference on a file changed outside the recording unknowable", async () => {
		const report = await replaySession(
			session([
				{
					calls: [
						fullRead,
						grep({ pattern: "two", path: "a.txt" }, "a.txt:2: two"),
						// The search changed nothing, so a read that contradicts the file is still a mismatch.
						{ name: "read", args: { path: "a.txt" }, result: { text: "one\nTWO\nthree\nfour\nfive\n" } },
					],
				},
				// The replay now holds the recorded view (TWO); the user may have changed it since.
				{ user: "I changed it by hand", calls: [grep({ pattern: "TWO", path: "a.txt" }, "No matches found")] },
			]),
		);
		expect(statuses(report.calls)).toEqual(["match", "match", "mismatch", "unknowable:outside-change"]);
		expect(report.calls[3]?.message).toBe("the file may have changed (the user's turn before batch 1)");
	});
});
