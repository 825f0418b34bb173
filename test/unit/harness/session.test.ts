import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadSession } from "../../../src/harness/node-session.js";
import { parseSession, SessionParseError } from "../../../src/harness/session.js";

const sharedSession = fileURLToPath(new URL("../../fixtures/sessions/pi-session-v1.jsonl", import.meta.url));

function line(value: unknown): string {
	return JSON.stringify(value);
}

function assistant(calls: { id: string; name: string; arguments: unknown }[], extra: Record<string, unknown> = {}) {
	return {
		role: "assistant",
		content: [{ type: "text", text: "…" }, ...calls.map((call) => ({ type: "toolCall", ...call }))],
		stopReason: "toolUse",
		...extra,
	};
}

function toolResult(id: string, name: string, text: string, isError = false, details?: unknown) {
	return { role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError, details };
}

describe("parseSession: version 1 (linear)", () => {
	it("extracts batches, results and missing results", () => {
		const text = [
			line({ type: "session", id: "s1", cwd: "/work/p", timestamp: "t" }),
			line({ type: "message", message: { role: "user", content: "go" } }),
			line({
				type: "message",
				message: assistant([
					{ id: "a", name: "read", arguments: { path: "x" } },
					{ id: "b", name: "bash", arguments: { command: "ls" } },
				]),
			}),
			line({ type: "message", message: toolResult("a", "read", "hello") }),
			line({ type: "message", message: toolResult("b", "bash", "Command exited with code 1", true) }),
			line({ type: "thinking_level_change", thinkingLevel: "off" }),
			line({
				type: "message",
				message: assistant([{ id: "c", name: "edit", arguments: {} }], { stopReason: "error" }),
			}),
		].join("\n");
		const session = parseSession(text);
		expect(session.version).toBe(1);
		expect(session.cwd).toBe("/work/p");
		expect(session.id).toBe("s1");
		expect(session.batches.map((b) => b.calls.map((c) => c.toolCall.id))).toEqual([["a", "b"], ["c"]]);
		expect(session.batches[1]?.stopReason).toBe("error");
		expect(session.batches[0]?.turn).toBe(1);
		expect(session.calls[0]?.result?.content).toEqual([{ type: "text", text: "hello" }]);
		expect(session.calls[1]?.result?.isError).toBe(true);
		expect(session.calls[2]?.result).toBeUndefined();
		expect(session.figures).toEqual({
			batches: 2,
			calls: 3,
			callsByTool: { read: 1, bash: 1, edit: 1 },
			results: 2,
			missingResults: 1,
			errors: 1,
			errorsByTool: { bash: 1 },
		});
		expect(session.warnings).toEqual([]);
	});

	it("skips broken lines with a warning naming the line, and keeps the rest", () => {
		const text = [
			line({ type: "session", cwd: "/p" }),
			line({ type: "message", message: assistant([{ id: "a", name: "read", arguments: { path: "x" } }]) }),
			'{"type":"message","message":{"role":"toolResult"', // cut off mid-write
		].join("\n");
		const session = parseSession(text, { source: "cut.jsonl" });
		expect(session.calls).toHaveLength(1);
		expect(session.warnings).toHaveLength(1);
		expect(session.warnings[0]).toMatch(/^cut\.jsonl:3: not valid JSON/);
	});

	it("rejects text without entries, or without a working folder", () => {
		expect(() => parseSession("\n\n", { source: "empty.jsonl" })).toThrow(/empty\.jsonl: no session entries/);
		expect(() => parseSession(line({ type: "session" }))).toThrow(SessionParseError);
		expect(() => parseSession(line({ type: "session" }))).toThrow(/no "cwd"/);
		expect(parseSession(line({ type: "session" }), { cwd: "/x" }).cwd).toBe("/x");
	});

	it("records commands the user ran in the shell between batches", () => {
		const text = [
			line({ type: "session", cwd: "/p" }),
			line({ type: "message", message: { role: "bashExecution", command: "git stash", output: "", exitCode: 0 } }),
			line({ type: "message", message: assistant([{ id: "a", name: "read", arguments: { path: "x" } }]) }),
		].join("\n");
		expect(parseSession(text).batches[0]?.userCommands).toEqual(["git stash"]);
	});
});

describe("parseSession: tree versions", () => {
	// root → u1 → a1 (call r1) → t1 ─┬─ u2 → a2 (call r2, abandoned branch) → t2
	//                                └─ u3 → a3 (call r3) → t3 → label (last entry)
	const tree = [
		line({ type: "session", version: 3, id: "s", cwd: "/tree", timestamp: "t" }),
		line({ type: "message", id: "u1", parentId: null, message: { role: "user", content: "hi" } }),
		line({
			type: "message",
			id: "a1",
			parentId: "u1",
			message: assistant([{ id: "r1", name: "read", arguments: { path: "a" } }]),
		}),
		line({ type: "message", id: "t1", parentId: "a1", message: toolResult("r1", "read", "A") }),
		line({ type: "message", id: "u2", parentId: "t1", message: { role: "user", content: "x" } }),
		line({
			type: "message",
			id: "a2",
			parentId: "u2",
			message: assistant([{ id: "r2", name: "write", arguments: { path: "b", content: "" } }]),
		}),
		line({ type: "message", id: "t2", parentId: "a2", message: toolResult("r2", "write", "ok") }),
		line({ type: "branch_summary", id: "bs", parentId: "t1", fromId: "t2", summary: "tried writing" }),
		line({ type: "message", id: "u3", parentId: "bs", message: { role: "user", content: "y" } }),
		line({
			type: "message",
			id: "a3",
			parentId: "u3",
			message: assistant([{ id: "r3", name: "bash", arguments: { command: "ls" } }]),
		}),
		line({ type: "message", id: "t3", parentId: "a3", message: toolResult("r3", "bash", "a\nb\n") }),
		line({ type: "label", id: "l1", parentId: "t3", targetId: "a1", label: "start" }),
	].join("\n");

	it("follows the active branch from the last entry back to the root", () => {
		const session = parseSession(tree);
		expect(session.version).toBe(3);
		expect(session.cwd).toBe("/tree");
		expect(session.calls.map((c) => c.toolCall.id)).toEqual(["r1", "r3"]);
		expect(session.batches.map((b) => b.entryId)).toEqual(["a1", "a3"]);
		expect(session.batches.map((b) => b.turn)).toEqual([1, 2]);
		expect(session.calls.map((c) => c.result?.content[0])).toEqual([
			{ type: "text", text: "A" },
			{ type: "text", text: "a\nb\n" },
		]);
		expect(session.warnings).toEqual([]);
	});

	it("warns about a missing parent and starts the branch there", () => {
		const text = [
			line({ type: "session", version: 2, cwd: "/p" }),
			line({
				type: "message",
				id: "a",
				parentId: "gone",
				message: assistant([{ id: "c", name: "read", arguments: { path: "x" } }]),
			}),
		].join("\n");
		const session = parseSession(text, { source: "s.jsonl" });
		expect(session.calls).toHaveLength(1);
		expect(session.warnings).toEqual([`s.jsonl:2: parent "gone" is not in the file; the branch starts here`]);
	});
});

describe("loadSession: the shared recorded session", () => {
	it("parses the recorded session and reports its figures", async () => {
		const session = await loadSession(sharedSession);
		expect(session.version).toBe(1);
		expect(session.cwd).toBe("/Users/badlogic/workspaces/pi-mono");
		expect(session.warnings).toEqual([]);
		expect(session.figures).toEqual({
			batches: 369,
			calls: 391,
			callsByTool: { read: 50, bash: 192, edit: 146, write: 3 },
			results: 373,
			missingResults: 18,
			errors: 19,
			errorsByTool: { bash: 19 },
		});
		// Every call without a result belongs to an assistant message that ended in an error or was aborted.
		const unfinished = session.batches.filter((b) => b.calls.some((c) => c.result === undefined));
		expect(new Set(unfinished.map((b) => b.stopReason))).toEqual(new Set(["error", "aborted"]));
	});

	it("names the path when the file cannot be read", async () => {
		await expect(loadSession("/nonexistent/dir/s.jsonl")).rejects.toThrow(/Cannot read session file \/nonexistent/);
	});
});

describe("loadSession: a tree session written by the reference agent", () => {
	const tree = fileURLToPath(new URL("../../fixtures/sessions/tree-v3.jsonl", import.meta.url));

	it("follows the active branch past a branch summary and a label", async () => {
		const session = await loadSession(tree);
		expect(session.version).toBe(3);
		expect(session.cwd).toBe("/home/dev/demo");
		expect(session.calls.map((c) => [c.toolCall.name, c.result?.isError])).toEqual([
			["read", false],
			["edit", false],
			["bash", false],
		]);
		expect(session.batches.map((b) => b.calls.length)).toEqual([1, 2]);
		expect(session.warnings).toEqual([]);
	});

	it("replays it: the abandoned branch's write is not part of it", async () => {
		const { replaySession } = await import("../../../src/harness/replay-session.js");
		const report = await replaySession(await loadSession(tree));
		expect(report.calls.map((c) => `${c.toolName}:${c.status}`)).toEqual(["read:match", "edit:match", "bash:match"]);
	});
});
