/** Replays every fixture in test/fixtures/: each names the extensions it needs in its `extensions` field. */
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { formatReplayReport, replayFile } from "toolsmith-sdk/harness";
import { expect, it } from "vitest";

const folder = fileURLToPath(new URL("./fixtures/", import.meta.url));
const fixtures = readdirSync(folder).filter((name) => name.endsWith(".json"));

it("has fixtures", () => expect(fixtures.length).toBeGreaterThan(0));

for (const name of fixtures) {
	it(`replays ${name}`, async () => {
		const report = await replayFile(`${folder}${name}`);
		expect(report.pass, formatReplayReport(report)).toBe(true);
	});
}
