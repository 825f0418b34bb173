/**
 * Sessions written by sixteen releases of the reference agent, from 0.7.6 to 1.6.0, over the same
 * scripted scenarios (test/compat: `npm run compat:setup`, then
 * `TOOLSMITH_WRITE_SESSIONS=1 npm run compat -- sessions` writes them anew). Releases with the scripted model ran their own agent and wrote the session
 * themselves; older ones had their tools called directly and the session written with their own
 * session manager or in the line format they used. Every one replays with no mismatch; the figures
 * are in docs/internals/replay-figures.md.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { replaySession } from "../../../src/harness/replay-session.js";
import { parseSession } from "../../../src/harness/session.js";

const dir = fileURLToPath(new URL("../../fixtures/sessions/releases/", import.meta.url));

/** Per release: calls, state-verified matches, format-only matches, unknowable calls. Change docs/internals/replay-figures.md with it. */
const FIGURES: Record<string, readonly [number, number, number, number]> = {
	"0.7.6": [56, 20, 29, 7],
	"0.13.2": [56, 18, 30, 8],
	"0.27.9": [61, 20, 30, 11],
	"0.37.8": [61, 20, 30, 11],
	"0.45.7": [61, 20, 30, 11],
	"0.52.12": [61, 20, 30, 11],
	"0.58.4": [61, 20, 30, 11],
	"0.63.2": [66, 25, 30, 11],
	"0.67.68": [66, 25, 30, 11],
	"0.70.6": [66, 25, 30, 11],
	"0.73.1": [66, 25, 30, 11],
	"0.75.5": [66, 25, 30, 11],
	"0.80.10": [66, 25, 30, 11],
	"0.87.1": [66, 25, 30, 11],
	"1.0.3": [66, 25, 30, 11],
	"1.6.0": [66, 25, 30, 11],
};

/** Why a call may be unknowable here: each names something the session does not hold. */
const EXPECTED_REASONS = new Set(["unseen-region", "unseen-file", "unseen-folder", "image", "timing"]);

describe("sessions written by the reference's releases", () => {
	const files = readdirSync(dir).filter((name) => name.endsWith(".jsonl"));

	it("are all here, one per release", () => {
		expect(files.map((name) => name.replace(/\.jsonl$/, "")).sort()).toEqual(Object.keys(FIGURES).sort());
	});

	for (const [version, [calls, stateVerified, formatOnly, unknowable]] of Object.entries(FIGURES)) {
		it(`${version}: replays with no mismatch, ${stateVerified} of ${calls} calls verified against state`, async () => {
			const session = parseSession(readFileSync(`${dir}${version}.jsonl`, "utf8"));
			expect(session.warnings).toEqual([]);
			const report = await replaySession(session);
			const mismatches = report.calls.filter((call) => call.status === "mismatch");
			expect(mismatches.map((call) => `#${call.index} ${call.toolName}: ${call.message}\n${call.diff ?? ""}`)).toEqual(
				[],
			);
			const f = report.figures;
			expect([f.calls, f.stateVerified, f.formatOnly, f.unknowable]).toEqual([
				calls,
				stateVerified,
				formatOnly,
				unknowable,
			]);
			expect(f.stateVerified + f.formatOnly).toBe(f.match);
			for (const call of report.calls) {
				if (call.status === "unknowable") expect(EXPECTED_REASONS, call.message).toContain(call.reason);
			}
		});
	}
});
