/**
 * Replaying a recorded pi 1.x session whose tool made nested calls (`ctx.executeTool`): pi 1.6.0
 * writes them as `nestedCalls` on the calling call's result message. The replay runs our tool,
 * compares the nested calls it makes (tool, id, status, arguments) with the recorded ones, and the
 * report lists them.
 */
import { describe, expect, it } from "vitest";
import { Type } from "../../../src/contract/schema.js";
import { defineTool } from "../../../src/contract/tool.js";
import { replaySession } from "../../../src/harness/replay-session.js";
import { parseSession } from "../../../src/harness/session.js";
import { formatSessionReplayReport } from "../../../src/harness/session-report.js";

const text = (t: string) => [{ type: "text" as const, text: t }];

const tick = defineTool({
	name: "tick",
	label: "Tick",
	description: "Counts to n.",
	parameters: Type.Object({ n: Type.Integer() }),
	exposure: "codemode",
	async execute(_id, { n }) {
		return { content: text(`counted to ${n}`), details: {} };
	},
});

const relay = defineTool({
	name: "relay",
	label: "Relay",
	description: "Counts through tick.",
	parameters: Type.Object({ n: Type.Integer() }),
	async execute(_id, { n }, signal, _onUpdate, ctx) {
		const counted = await ctx.executeTool!("tick", { n }, { signal });
		const refused = await ctx.executeTool!("tick", { n: "many" }, { signal });
		const first = counted.result.content[0];
		return {
			content: text(
				`${counted.toolCall.id}: ${first?.type === "text" ? first.text : ""}; ${refused.toolCall.id}: ${refused.isError ? "refused" : "ran"}`,
			),
			details: {},
		};
	},
});

/** A session as pi 1.6.0 writes one: a relay call whose result records its nested calls. */
function session(nested: unknown): string {
	const entries = [
		{ type: "session", version: 3, id: "s", timestamp: "2026-12-04T22:51:13.237Z", cwd: "/project" },
		{
			type: "message",
			id: "u1",
			parentId: null,
			message: { role: "user", content: [{ type: "text", text: "count" }], timestamp: 1 },
		},
		{
			type: "message",
			id: "a1",
			parentId: "u1",
			message: {
				role: "assistant",
				content: [{ type: "toolCall", id: "call_1", name: "relay", arguments: { n: 2 } }],
				stopReason: "toolUse",
				timestamp: 2,
			},
		},
		{
			type: "message",
			id: "r1",
			parentId: "a1",
			message: {
				role: "toolResult",
				toolCallId: "call_1",
				toolName: "relay",
				content: [{ type: "text", text: "call_1/1: counted to 2; call_1/2: refused" }],
				isError: false,
				nestedCalls: nested,
				timestamp: 3,
			},
		},
	];
	return `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`;
}

const RECORDED = {
	calls: [
		{ id: "call_1/1", name: "tick", status: "ok", arguments: { n: 2 }, durationMs: 1 },
		{
			id: "call_1/2",
			name: "tick",
			status: "error",
			arguments: { n: "many" },
			durationMs: 0,
			error: 'Validation failed for tool "tick":\n  - n: must be integer',
		},
	],
	complete: true,
};

describe("replaying a session whose tool made nested calls", () => {
	it("reads the recorded nested calls, makes the same ones, and the report lists them", async () => {
		const parsed = parseSession(session(RECORDED));
		expect(parsed.batches[0]?.calls[0]?.result?.nestedCalls?.calls.map((c) => c.id)).toEqual(["call_1/1", "call_1/2"]);
		const report = await replaySession(parsed, { tools: [tick, relay] });
		const [call] = report.calls;
		expect(call?.status).toBe("match");
		expect(call?.nestedCalls?.ours?.calls.map((c) => [c.id, c.name, c.status, c.arguments])).toEqual([
			["call_1/1", "tick", "ok", { n: 2 }],
			["call_1/2", "tick", "error", { n: "many" }],
		]);
		const shown = formatSessionReplayReport(report, { verbose: true });
		expect(shown).toContain("  ✓ #0 relay (batch 0, call_1): matched\n");
		expect(shown).toContain('      ↳ call_1/1 tick ok {"n":2}\n');
		expect(shown).toMatch(/ {6}↳ call_1\/2 tick error \{"n":"many"\}: "Invalid arguments for tool \\"tick\\":"/);
		// Without --verbose a match is not listed.
		expect(formatSessionReplayReport(report)).not.toContain("#0 relay");
	});

	it("is a mismatch when our tool makes other nested calls than the recorded one, with the difference", async () => {
		const other = { ...RECORDED, calls: [{ ...RECORDED.calls[0], arguments: { n: 3 } }, RECORDED.calls[1]] };
		const report = await replaySession(parseSession(session(other)), { tools: [tick, relay] });
		const [call] = report.calls;
		expect(call?.status).toBe("mismatch");
		expect(call?.message).toBe("our tool made other nested calls (ctx.executeTool) than the recorded one");
		expect(call?.diff).toContain('call_1/1 tick ok {"n":3}');
		expect(call?.diff).toContain('call_1/1 tick ok {"n":2}');
		expect(report.ok).toBe(false);
		expect(formatSessionReplayReport(report)).toContain("✗ #0 relay (batch 0, call_1)");
	});

	it("is a mismatch when the recorded call made nested calls and ours made none", async () => {
		const quiet = defineTool({
			...relay,
			async execute() {
				return { content: text("call_1/1: counted to 2; call_1/2: refused"), details: {} };
			},
		});
		const report = await replaySession(parseSession(session(RECORDED)), { tools: [tick, quiet] });
		expect(report.calls[0]?.status).toBe("mismatch");
	});
});
