/**
 * Replaying the shared recorded session: the replay (recorded env, every call through our tools and
 * the executor, classification) must take at most 5× the time of only parsing the session file,
 * both measured here on the same text in the same process.
 *
 * The two sides alternate (parse first in one round, replay first in the next), so a slow spell of
 * the machine falls on both alike. Before every sample a minor collection empties the young
 * generation: each sample then pays for the garbage it makes itself (every collection it triggers
 * is timed), not for what the sample before it left behind — without it, the parse rounds' garbage
 * is mostly collected, and charged, during replay rounds. The replay side parses too: it times
 * everything from the file's text to the report.
 *
 * The replay runs much more code than the parse, and the engine takes about fifteen replays to
 * finish compiling it (the first timed replays after five warm-up rounds took two to four times
 * as long as the later ones). Thirty warm-up rounds let both sides reach their steady speed first.
 *
 * Both sides come from the built package (`toolsmith-sdk/harness`, that is `dist/harness.js`), loaded
 * by Node as a user's process loads it.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseSession, replaySession, type SessionReplayReport } from "toolsmith-sdk/harness";
import { finish, percentile, report } from "./_measure.js";

const here = dirname(fileURLToPath(import.meta.url));
const text = readFileSync(join(here, "..", "fixtures", "sessions", "pi-session-v1.jsonl"), "utf8");

const WARMUP = 30;
const ROUNDS = 31;

const gc = (globalThis as { gc?: (options?: { type: "minor" | "major" }) => void }).gc;
if (!gc) throw new Error("run with --expose-gc (npm run bench does)");
/** Empty the young generation, keeping its size (a full collection would shrink it). */
const emptyNursery = () => gc({ type: "minor" });

let last: SessionReplayReport | undefined;
const parseOnly = async (): Promise<number> => {
	emptyNursery();
	const start = performance.now();
	parseSession(text);
	return performance.now() - start;
};
const parseAndReplay = async (): Promise<number> => {
	emptyNursery();
	const start = performance.now();
	last = await replaySession(parseSession(text));
	return performance.now() - start;
};

for (let i = 0; i < WARMUP; i++) {
	await parseOnly();
	await parseAndReplay();
}
const parse: number[] = [];
const replay: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
	if (round % 2 === 0) {
		parse.push(await parseOnly());
		replay.push(await parseAndReplay());
	} else {
		replay.push(await parseAndReplay());
		parse.push(await parseOnly());
	}
}

const ms = (values: number[], p: number) => percentile(values, p).toFixed(2);
const f = last?.figures;
console.log(
	`${ROUNDS} alternating rounds · parse: median ${ms(parse, 50)} ms (p25 ${ms(parse, 25)}, p75 ${ms(parse, 75)}, min ${ms(parse, 0)})` +
		` · parse + replay: median ${ms(replay, 50)} ms (p25 ${ms(replay, 25)}, p75 ${ms(replay, 75)}, min ${ms(replay, 0)})` +
		` · ${f?.calls} calls: ${f?.match} match, ${f?.mismatch} mismatch, ${f?.unknowable} unknowable`,
);
report(
	"parse + replay of the shared session vs parsing it",
	percentile(replay, 50) / percentile(parse, 50),
	5,
	`min vs min ${(percentile(replay, 0) / percentile(parse, 0)).toFixed(2)}×`,
);
finish();
