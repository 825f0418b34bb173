/**
 * Replaying the shared recorded session: the replay (recorded env, every call through our tools and
 * the executor, classification) must take at most 5× the time of only parsing the session file,
 * both measured here on the same text in the same process.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { replaySession, type SessionReplayReport } from "../../src/harness/replay-session.js";
import { parseSession } from "../../src/harness/session.js";
import { finish, report, time } from "./_measure.js";

const here = dirname(fileURLToPath(import.meta.url));
const text = readFileSync(join(here, "..", "fixtures", "sessions", "pi-session-v1.jsonl"), "utf8");

let last: SessionReplayReport | undefined;
const parse = await time(() => parseSession(text), 21, 3);
const replayOnly = await time(
	async () => {
		last = await replaySession(parseSession(text));
	},
	21,
	3,
);

const f = last?.figures;
console.log(
	`parse: median ${parse.medianMs.toFixed(2)} ms (min ${parse.minMs.toFixed(2)}) · parse + replay: median ${replayOnly.medianMs.toFixed(2)} ms (min ${replayOnly.minMs.toFixed(2)})` +
		` · ${f?.calls} calls: ${f?.match} match, ${f?.mismatch} mismatch, ${f?.unknowable} unknowable`,
);
report("parse + replay of the shared session vs parsing it", replayOnly.medianMs / parse.medianMs, 5);
finish();
