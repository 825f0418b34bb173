/**
 * Recorded bash output holding terminal escapes and control bytes. The reference agent's bash tool
 * (0.73.1) hands them to the model as they came; ours strips them (keeping tab, newline and CR).
 * Replaying such a call must still match, through the `bash-control-bytes` rule, while a real
 * difference in the output around them still shows.
 */
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { wrapToolDefinition } from "../../../src/contract/tool.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { executeToolCalls } from "../../../src/exec/execute.js";
import { normalizeResultText } from "../../../src/harness/_normalize.js";
import { replaySession } from "../../../src/harness/replay-session.js";
import { parseSession, type RecordedSession } from "../../../src/harness/session.js";
import { createBashTool } from "../../../src/tools/bash.js";
import { contextFor } from "../tools/_env.js";

interface RecordedBash {
	readonly command: string;
	readonly text: string;
	readonly isError?: boolean;
}

/** A version 1 session with one batch of bash calls and their recorded results. */
function bashSession(calls: readonly RecordedBash[]): RecordedSession {
	const lines = [
		JSON.stringify({ type: "session", id: "t", cwd: "/repo", timestamp: "2025-01-01T00:00:00Z" }),
		JSON.stringify({
			type: "message",
			message: {
				role: "assistant",
				content: calls.map((call, i) => ({
					type: "toolCall",
					id: `c${i}`,
					name: "bash",
					arguments: { command: call.command },
				})),
				stopReason: "toolUse",
			},
		}),
		...calls.map((call, i) =>
			JSON.stringify({
				type: "message",
				message: {
					role: "toolResult",
					toolCallId: `c${i}`,
					toolName: "bash",
					content: [{ type: "text", text: call.text }],
					isError: call.isError ?? false,
				},
			}),
		),
	];
	return parseSession(lines.join("\n"));
}

// What the reference agent's bash tool returned for these commands (checked against
// @mariozechner/pi-coding-agent 0.73.1): the bytes exactly as the command printed them.
const COLORED = "\u001b[31mred\u001b[0m \u0000nul \u0001soh \u0007 bel\r\n";
const COLORED_COMMAND = String.raw`printf '\033[31mred\033[0m \000nul \001soh \a bel\r\n'`;

describe("replaying bash output with control bytes", () => {
	it("matches a recorded output with ESC, NUL and other control bytes, naming the rule", async () => {
		const report = await replaySession(
			bashSession([
				{ command: COLORED_COMMAND, text: COLORED },
				{ command: "npm test", text: "\u001b[1mbold\u001b[0m\n\nCommand exited with code 3", isError: true },
				{ command: "tput sgr0", text: "\u001b(B\u001b[m" },
				{ command: "tput sgr0; false", text: "\u001b(B\u001b[m\n\nCommand exited with code 1", isError: true },
			]),
		);
		expect(report.calls.map((call) => call.status)).toEqual(["match", "match", "match", "match"]);
		expect(report.calls[0]?.rules).toEqual(["bash-control-bytes"]);
		expect(report.calls[0]?.actual?.text).toBe("red nul soh  bel\r\n");
		expect(report.calls[2]?.rules).toEqual(["bash-control-bytes"]);
		expect(report.calls[3]?.rules).toEqual(["bash-control-bytes", "bash-empty-output-status"]);
		expect(report.figures.mismatch).toBe(0);
	});

	it("still reports a difference in the text around the control bytes", async () => {
		const bash = createBashTool();
		const report = await replaySession(bashSession([{ command: COLORED_COMMAND, text: COLORED }]), {
			tools: [
				{
					...bash,
					// Our bash with one word changed after the stripping.
					async execute(id, args: Parameters<typeof bash.execute>[1], signal, onUpdate, ctx) {
						const result = await bash.execute(id, args, signal, onUpdate, ctx);
						const block = result.content[0];
						return block?.type === "text"
							? { ...result, content: [{ ...block, text: block.text.replace("red", "blue") }] }
							: result;
					},
				},
			],
		});
		expect(report.calls[0]?.status).toBe("mismatch");
		expect(report.calls[0]?.diff).toContain("blue");
	});

	it("leaves a recorded output without control bytes alone", () => {
		const context = { toolName: "bash", args: undefined, isError: false };
		expect(normalizeResultText("plain\ttext\r\n", context)).toEqual({
			text: "plain\ttext\r\n",
			isError: false,
			rules: [],
		});
		// Only bash output is rewritten.
		expect(normalizeResultText(COLORED, { ...context, toolName: "read" }).rules).toEqual([]);
	});

	it("gives the recorded text the form our bash tool gives the same bytes on a real NodeExecutionEnv", async () => {
		const dir = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-control-")));
		try {
			const env = new NodeExecutionEnv({ cwd: dir });
			const bash = wrapToolDefinition(createBashTool(), () => contextFor(env));
			const { results } = await executeToolCalls(
				[{ type: "toolCall", id: "1", name: "bash", arguments: { command: COLORED_COMMAND } }],
				{ tools: [bash] },
			);
			const block = results[0]?.content[0];
			const ours = block?.type === "text" ? block.text : "";
			expect(results[0]?.details).toMatchObject({ stripped: { escapeSequences: 2, controlCharacters: 3 } });
			const context = { toolName: "bash", args: { command: COLORED_COMMAND }, isError: false };
			expect(normalizeResultText(COLORED, context).text).toBe(ours);
			expect(normalizeResultText(ours, context)).toEqual({ text: ours, isError: false, rules: [] });
		} finally {
			await fs.rm(dir, { recursive: true, force: true });
		}
	});
});
