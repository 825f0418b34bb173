import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../../src/contract/tool.js";
import { loadSession } from "../../../src/harness/node-session.js";
import { replaySession } from "../../../src/harness/replay-session.js";
import { formatSessionReplayReport } from "../../../src/harness/session-report.js";
import { createReadTool } from "../../../src/tools/read.js";

const file = fileURLToPath(new URL("../../fixtures/sessions/pi-session-v1.jsonl", import.meta.url));

describe("the shared recorded session", () => {
	it("replays with every read, edit and write whose inputs are known matching", async () => {
		const report = await replaySession(await loadSession(file));
		// These figures are reported in docs/internals/replay-figures.md; change both together.
		expect(report.figures).toEqual({
			calls: 391,
			match: 342,
			mismatch: 0,
			unknowable: 49,
			seeded: 41,
			stateVerified: 106,
			formatOnly: 236,
			byTool: {
				read: { calls: 50, match: 50, mismatch: 0, unknowable: 0, seeded: 37, stateVerified: 13, formatOnly: 37 },
				bash: { calls: 192, match: 192, mismatch: 0, unknowable: 0, seeded: 0, stateVerified: 0, formatOnly: 192 },
				edit: { calls: 146, match: 97, mismatch: 0, unknowable: 49, seeded: 4, stateVerified: 93, formatOnly: 4 },
				write: { calls: 3, match: 3, mismatch: 0, unknowable: 0, seeded: 0, stateVerified: 0, formatOnly: 3 },
			},
			seededReads: 37,
			unknowableReasons: { "no-result": 18, "unseen-region": 16, "outside-change": 2, "unseen-file": 13 },
			rules: {
				"edit-success": 115,
				"read-continuation": 25,
				"bash-empty-output-status": 11,
				"edit-failure": 16,
				"edit-dollar-patterns": 1,
			},
		});
		expect(report.ok).toBe(true);
		expect(formatSessionReplayReport(report, { source: "pi-session-v1.jsonl" }).split("\n").slice(0, 9)).toEqual([
			"PASS session replay of pi-session-v1.jsonl (cwd /Users/badlogic/workspaces/pi-mono)",
			"  106 of 391 calls verified against replayed state; 236 more match in format only; 0 mismatch; 49 unknowable",
			"  tool   calls  state-verified  format-only  mismatch  unknowable",
			"  read      50              13           37         0           0",
			"  bash     192               0          192         0           0",
			"  edit     146              93            4         0          49",
			"  write      3               0            3         0           0",
			"  total    391             106          236         0          49",
			"  matches that learned what they needed from their own result: 41 (read 37, edit 4)",
		]);
		// A match proves state only where it agrees with files built from other calls: every bash
		// call is answered from its own recording, every write's report depends only on the call.
		for (const call of report.calls) {
			if (call.status !== "match") expect(call.verifies).toBeUndefined();
			else if (call.toolName === "bash" || call.toolName === "write" || call.seeded)
				expect(call.verifies).toBe("format");
			else expect(call.verifies).toBe("state");
		}
		// No read, edit or write is unknowable for a reason that hides a failure of ours.
		for (const call of report.calls) {
			if (call.status !== "unknowable") continue;
			expect(["no-result", "unseen-file", "unseen-region", "outside-change"]).toContain(call.reason);
		}
	});

	it("without the user's turns as possible changes, finds exactly the files the user changed by hand", async () => {
		const report = await replaySession(await loadSession(file), { userTurnsMayChangeFiles: false });
		const mismatches = report.calls.filter((call) => call.status === "mismatch");
		// Before call 8 the user says "i undid your changes"; before call 31 "i manually removed almost
		// all chalk uses"; call 38 reads theme.ts after those turns.
		expect(mismatches.map((call) => `${call.index} ${call.toolName}`)).toEqual(["8 read", "31 read", "38 read"]);
	});

	it("catches a read tool that drops the last line of every page", async () => {
		const real = createReadTool();
		const lossy: ToolDefinition = {
			...(real as ToolDefinition),
			async execute(id, params, signal, onUpdate, ctx) {
				const result = await real.execute(id, params as never, signal, onUpdate as never, ctx);
				const content = result.content.map((block) =>
					block.type === "text" ? { ...block, text: block.text.split("\n").slice(0, -1).join("\n") } : block,
				);
				return { ...result, content };
			},
		};
		const report = await replaySession(await loadSession(file), { tools: [lossy] });
		expect(report.ok).toBe(false);
		const read = report.figures.byTool.read ?? { calls: 0, mismatch: 0, unknowable: 0 };
		// Every read that is not unknowable now differs, seeded or not.
		expect(read.mismatch).toBe(read.calls - read.unknowable);
		expect(read.mismatch).toBeGreaterThan(30);
	});
});
