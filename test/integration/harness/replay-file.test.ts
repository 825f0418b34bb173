/** `loadReplayFixture` and `replayFile` with a fixture's own `extensions`, on real files in a temp dir. */
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadReplayFixture, replayFile } from "../../../src/harness/node-replay.js";

let root: string;

async function put(path: string, content: string): Promise<string> {
	const file = join(root, path);
	await mkdir(dirname(file), { recursive: true });
	await writeFile(file, content);
	return file;
}

const tool = (name: string) => `import { Type } from "toolsmith-sdk";
export default function (api: import("toolsmith-sdk").ExtensionAPI) {
	api.registerTool({
		name: ${JSON.stringify(name)},
		label: ${JSON.stringify(name)},
		description: "Answers with its own name.",
		parameters: Type.Object({}),
		async execute() {
			return { content: [{ type: "text", text: ${JSON.stringify(name)} }], details: {} };
		},
	});
}
`;

const calling = (name: string, extra: Record<string, unknown> = {}) =>
	JSON.stringify({ ...extra, steps: [{ calls: [{ tool: name, expect: { text: name } }] }] });

beforeAll(async () => {
	root = await realpath(await mkdtemp(join(tmpdir(), "toolsmith-replay-file-")));
	await put("package.json", '{ "name": "replay-file-test" }\n');
	await put("src/tools/ping.ts", tool("ping"));
	await put("src/tools/pong.ts", tool("pong"));
	await put("src/read-many/index.ts", tool("read_many"));
	await put("src/broken.ts", "export default 42;\n");
});

afterAll(async () => {
	await rm(root, { recursive: true, force: true });
});

describe("a fixture's extensions", () => {
	it("come back from loadReplayFixture resolved against the fixture's folder", async () => {
		const file = await put(
			"test/fixtures/ping.json",
			calling("ping", { extensions: ["../../src/tools/ping.ts", "/abs"] }),
		);
		const fixture = await loadReplayFixture(file);
		expect(fixture.extensions).toEqual([join(root, "src/tools/ping.ts"), "/abs"]);
	});

	it("are loaded by replayFile, next to the extensions it is given", async () => {
		const file = await put(
			"test/fixtures/both.json",
			JSON.stringify({
				extensions: ["../../src/tools/ping.ts"],
				steps: [
					{
						calls: [
							{ tool: "ping", expect: { text: "ping" } },
							{ tool: "pong", expect: { text: "pong" } },
						],
					},
				],
			}),
		);
		const report = await replayFile(file, { extensions: [join(root, "src/tools/pong.ts")] });
		expect(report.diagnostics).toEqual([]);
		expect(report.pass).toBe(true);
	});

	it("fail the fixture when one is broken, with its diagnostic in the report", async () => {
		const file = await put(
			"test/fixtures/broken.json",
			calling("ping", { extensions: ["../../src/tools/ping.ts", "../../src/broken.ts"] }),
		);
		const report = await replayFile(file);
		expect(report.steps[0]?.pass).toBe(true);
		expect(report.pass).toBe(false);
		expect(report.diagnostics.map((d) => [d.code, d.path])).toEqual([["E_NO_FACTORY", join(root, "src/broken.ts")]]);
	});
});

describe("a call to an unknown tool", () => {
	it("names the extension files and folders near the fixture that match the tool, relative to the fixture", async () => {
		const ping = await replayFile(await put("test/fixtures/ping-missing.json", calling("ping")));
		expect(ping.steps[0]?.calls[0]?.unknownTool).toEqual({
			available: ["bash", "edit", "read", "write"],
			candidates: ["../../src/tools/ping.ts"],
		});
		// read_many, read-many and readMany name one tool; a folder with an index is an extension.
		const many = await replayFile(await put("test/fixtures/many.json", calling("readMany")));
		expect(many.steps[0]?.calls[0]?.unknownTool?.candidates).toEqual(["../../src/read-many"]);
		const none = await replayFile(await put("test/fixtures/none.json", calling("weather")));
		expect(none.steps[0]?.calls[0]?.unknownTool?.candidates).toEqual([]);
	});

	it("prefers files next to the fixture and leaves out what was loaded", async () => {
		const near = await put("test/near/ping.ts", tool("not-ping"));
		const file = await put("test/near/fixture.json", calling("ping"));
		const report = await replayFile(file);
		expect(report.steps[0]?.calls[0]?.unknownTool?.candidates).toEqual(["./ping.ts", "../../src/tools/ping.ts"]);
		const loaded = await replayFile(file, { extensions: [near] });
		expect(loaded.steps[0]?.calls[0]?.unknownTool?.candidates).toEqual(["../../src/tools/ping.ts"]);
		const folder = await replayFile(file, { extensions: [join(root, "src/tools")] });
		expect(folder.steps[0]?.calls[0]?.unknownTool).toBeUndefined();
	});
});
