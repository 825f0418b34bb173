import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { parseReplayFixture } from "../../../src/harness/fixture.js";
import { recordingEnv } from "../../../src/harness/record.js";
import { replay } from "../../../src/harness/replay.js";
import { createBuiltinTools } from "../../../src/tools/builtins.js";

let dir: string;

beforeEach(async () => {
	dir = await mkdtemp(join(tmpdir(), "toolsmith-record-"));
	await writeFile(join(dir, "notes.md"), "# Notes\n\n- first\n- second\n");
	await writeFile(join(dir, "untouched.txt"), "never read\n");
});

afterEach(async () => {
	await rm(dir, { recursive: true, force: true });
});

describe("recordingEnv", () => {
	it("records a run on the real disk into a fixture that replays offline", async () => {
		const env = recordingEnv(new NodeExecutionEnv({ cwd: dir }));
		const tools = env.agentTools(createBuiltinTools());
		const call = (id: string, name: string, args: unknown) => ({
			type: "toolCall" as const,
			id,
			name,
			arguments: args,
		});

		await env.execute([call("r1", "read", { path: "notes.md" })], { tools });
		await env.execute(
			[
				call("e1", "edit", { path: "notes.md", edits: [{ oldText: "- second", newText: "- second\n- third" }] }),
				call("b1", "bash", { command: "echo out; echo err >&2; echo more; exit 3" }),
			],
			{ tools, toolExecution: "sequential" },
		);
		await env.execute([call("w1", "write", { path: "made/new.txt", content: "fresh" })], { tools });
		// A later change to a file does not leak into an earlier step's expectations.
		await env.execute([call("e2", "edit", { path: "notes.md", oldText: "- first", newText: "- 1st" })], { tools });

		const fixture = parseReplayFixture(await env.fixture({ name: "recorded run" }));
		// Only what the run touched, as it was before the run.
		expect(fixture.files).toEqual({ "notes.md": "# Notes\n\n- first\n- second\n" });
		expect(fixture.commands).toEqual([
			{
				match: "echo out; echo err >&2; echo more; exit 3",
				chunks: expect.arrayContaining([{ stream: "stderr", data: "err\n" }]),
				exitCode: 3,
				once: true,
			},
		]);
		expect(fixture.steps.map((step) => step.calls.map((c) => c.tool))).toEqual([
			["read"],
			["edit", "bash"],
			["write"],
			["edit"],
		]);
		expect(fixture.steps[1]?.expect).toEqual({
			files: { "notes.md": "# Notes\n\n- first\n- second\n- third\n" },
			commands: ["echo out; echo err >&2; echo more; exit 3"],
		});
		expect(fixture.steps[1]?.calls[1]?.expect?.isError).toBe(true);
		expect(env.io.some((entry) => entry.op === "exec")).toBe(true);
		// The disk really changed.
		expect(await readFile(join(dir, "made/new.txt"), "utf8")).toBe("fresh");

		const report = await replay(fixture);
		expect(report.pass).toBe(true);
		expect(report.figures.calls).toBe(5);
		expect(fixture.steps[3]?.expect?.files).toEqual({ "notes.md": "# Notes\n\n- 1st\n- second\n- third\n" });
	});

	it("names no machine's folder: the recorded one becomes the replay's, so the fixture replays anywhere", async () => {
		const env = recordingEnv(new NodeExecutionEnv({ cwd: dir }));
		const tools = env.agentTools(createBuiltinTools());
		const call = (id: string, name: string, args: unknown) => ({
			type: "toolCall" as const,
			id,
			name,
			arguments: args,
		});
		// An absolute path in the arguments, the folder in a command and in its output, a sibling
		// folder whose name starts like this one (left alone).
		await env.execute([call("r1", "read", { path: join(dir, "notes.md") })], { tools });
		await env.execute([call("b1", "bash", { command: `cd ${dir} && pwd && echo ${dir}-other` })], { tools });

		const saved = await env.fixture({ name: "portable" });
		const json = JSON.stringify(saved);
		expect(json).not.toContain(`${dir}/`);
		expect(json).not.toContain(`${dir}"`);
		expect(saved.cwd).toBeUndefined();
		expect(saved.steps[0]?.calls[0]?.args).toEqual({ path: "/project/notes.md" });
		expect(saved.commands).toEqual([
			{
				match: `cd /project && pwd && echo ${dir}-other`,
				stdout: `/project\n${dir}-other\n`,
				once: true,
			},
		]);
		expect(saved.steps[1]?.calls[0]?.expect?.text).toBe(`/project\n${dir}-other\n`);
		const report = await replay(parseReplayFixture(saved));
		expect(report.pass).toBe(true);

		// Asked to, it keeps the recorded folder.
		const kept = await env.fixture({ cwd: dir });
		expect(kept.cwd).toBe(dir);
		expect(kept.steps[0]?.calls[0]?.args).toEqual({ path: join(dir, "notes.md") });
		expect((await replay(parseReplayFixture(kept))).pass).toBe(true);
	});

	it("warns about what a fixture cannot hold", async () => {
		await writeFile(join(dir, "big.bin"), new Uint8Array([0xff, 0xfe, 0x00, 0x01]));
		const env = recordingEnv(new NodeExecutionEnv({ cwd: dir }), { maxFileBytes: 10 });
		await env.readBinaryFile("big.bin");
		await env.readTextFile("notes.md");
		expect(env.warnings).toEqual([
			`${join(dir, "big.bin")}: not UTF-8 text; fixtures hold text files only, so it was not captured`,
			`${join(dir, "notes.md")}: 26 bytes, over the 10-byte limit; not captured`,
		]);
	});
});
