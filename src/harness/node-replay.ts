/** Replay fixtures from files, with extension files loaded by the real loader (Node only). */
import { readFile } from "node:fs/promises";
import { errorMessage } from "../contract/errors.js";
import { parseReplayFixtureText, type ReplayFixture, ReplayFixtureError } from "./fixture.js";
import type { InlineExtension } from "./harness.js";
import { createTestHarness } from "./node-harness.js";
import { type ReplayOptions, type ReplayReport, replay } from "./replay.js";

/** Read and validate a fixture file. Rejects with a `ReplayFixtureError` naming the file and the JSON path. */
export async function loadReplayFixture(path: string): Promise<ReplayFixture> {
	let text: string;
	try {
		text = await readFile(path, "utf8");
	} catch (error) {
		const reason = errorMessage(error);
		throw new ReplayFixtureError([{ path: "(root)", message: `cannot read the file: ${reason}` }], path);
	}
	return parseReplayFixtureText(text, path);
}

export interface ReplayFileOptions extends Omit<ReplayOptions, "createHarness" | "extensions" | "source"> {
	/** Extension files or folders (relative to `process.cwd()`) and/or factories. */
	readonly extensions?: readonly (string | InlineExtension)[];
}

/** Load a fixture file and replay it; the report carries the file's path. */
export async function replayFile(
	path: string,
	options: ReplayFileOptions = {},
): Promise<ReplayReport & { file: string }> {
	const fixture = await loadReplayFixture(path);
	const { extensions, ...rest } = options;
	const report = await replay(fixture, {
		...rest,
		source: path,
		createHarness: (harnessOptions) => createTestHarness({ ...harnessOptions, ...(extensions ? { extensions } : {}) }),
	});
	return { ...report, file: path };
}
