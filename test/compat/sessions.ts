/**
 * The sessions section of `npm run compat`: every installed reference release writes a session over
 * the scripted scenarios (generate-sessions.ts, refreshing test/fixtures/sessions/releases), and
 * each is replayed through our tools. One line per release; fails on any mismatch or a release that
 * could not write its session.
 */
import { readFileSync } from "node:fs";
import { replaySession } from "../../src/harness/replay-session.js";
import { parseSession } from "../../src/harness/session.js";
import { formatSessionReplayReport } from "../../src/harness/session-report.js";
import { generateSessions } from "./generate-sessions.js";

export async function run(): Promise<boolean> {
	let ok = true;
	for (const generated of generateSessions()) {
		const { release } = generated;
		if (!generated.file) {
			ok = false;
			console.log(`✗ ${release.spec}: ${generated.error}`);
			continue;
		}
		const report = await replaySession(parseSession(readFileSync(generated.file, "utf8")));
		const f = report.figures;
		console.log(
			`${report.ok ? "✓" : "✗"} ${release.spec} (${generated.how}): ${f.calls} calls, ${f.stateVerified} state-verified, ${f.formatOnly} format-only, ${f.mismatch} mismatch, ${f.unknowable} unknowable`,
		);
		if (!report.ok) {
			ok = false;
			console.log(formatSessionReplayReport(report, { source: generated.file }));
		}
	}
	return ok;
}
