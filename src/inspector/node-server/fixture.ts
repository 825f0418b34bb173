/** Save as fixture: the session's recorded calls written as a replay fixture under the fixtures folder (Node only). */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { displayPath } from "../../extensions/node-event-lines.js";
import { RequestError } from "../../mcp/node-request.js";
import type { FixtureResponse } from "../protocol.js";
import type { ServerState } from "./state.js";

/** A file name from what the user typed: letters, digits, `.`, `_`, `-`. */
function safeFileName(name: string): string {
	const cleaned = name
		.trim()
		.replace(/\.json$/i, "")
		.replace(/[^A-Za-z0-9._-]+/g, "-")
		.replace(/^[.-]+|-+$/g, "");
	return cleaned === "" ? "inspector" : cleaned.slice(0, 100);
}

function timestampName(date: Date): string {
	const pad = (n: number) => String(n).padStart(2, "0");
	return `inspector-${date.getFullYear()}${pad(date.getMonth() + 1)}${pad(date.getDate())}-${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`;
}

function quoteArg(arg: string): string {
	return /^[\w./:@=+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Writes the recorded calls as `<name>.json` (or a free `<name>-<n>.json`) and says how to replay it. */
export async function saveFixture(state: ServerState, name: string | undefined): Promise<FixtureResponse> {
	const { session, cwd, options } = state;
	if (!session.recorder) throw new RequestError(409, "This inspector does not record its calls.");
	if (session.recordedCalls() === 0) {
		throw new RequestError(409, "Nothing to save yet: make a call first (aborted calls are left out).");
	}
	const fixturesDir = resolve(cwd, options.fixturesDir ?? "test/fixtures");
	const base = safeFileName(name && name.trim() !== "" ? name : timestampName(new Date()));
	let path = join(fixturesDir, `${base}.json`);
	for (let n = 2; existsSync(path); n++) path = join(fixturesDir, `${base}-${n}.json`);
	const folder = dirname(path);
	const extensions = options.extensionPaths.map((p) => {
		const rel = relative(folder, p).split(sep).join("/");
		return rel === "" ? "." : rel;
	});
	const { fixture, calls: count, warnings } = await session.fixture({ name: name?.trim() || base, extensions });
	await mkdir(folder, { recursive: true });
	await writeFile(path, `${JSON.stringify(fixture, null, "\t")}\n`, { flag: "wx" });
	const shown = displayPath(path, cwd);
	return { path, displayPath: shown, calls: count, warnings, command: `npx toolsmith test ${quoteArg(shown)}` };
}
