/**
 * The sessions section of `npm run compat`: every installed reference release writes a session over
 * the scripted scenarios (generate-sessions.ts) into a fresh folder, or with
 * `TOOLSMITH_WRITE_SESSIONS=1` into test/fixtures/sessions/releases, and each is replayed through
 * our tools. One line per release; fails on any mismatch or a release that
 * could not write its session.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { replaySession } from "../../src/harness/replay-session.js";
import { parseSession } from "../../src/harness/session.js";
import { formatSessionReplayReport } from "../../src/harness/session-report.js";
import { generateSessions, sessionsDir } from "./generate-sessions.js";

export async function run(): Promise<boolean> {
	// Fresh sessions each run, so the replay is judged on material it was not tuned to; with
	// TOOLSMITH_WRITE_SESSIONS=1 they replace the committed ones (ids and times then change).
	const write = process.env.TOOLSMITH_WRITE_SESSIONS === "1";
	const outDir = write ? sessionsDir : mkdtempSync(join(tmpdir(), "toolsmith-release-sessions-"));
	console.log(`sessions written to ${write ? "test/fixtures/sessions/releases" : outDir}`);
	let ok = true;
	for (const generated of generateSessions(outDir)) {
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
