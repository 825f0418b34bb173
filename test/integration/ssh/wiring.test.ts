/**
 * The SSH env where the library chooses an env: a run recorded on the remote host (`recordingEnv`
 * over an `SshExecutionEnv`) becomes a fixture that replays offline, and `toPiExtension` with
 * `env` runs a toolsmith tool under pi on the remote host. Against the loopback sshd; the remote
 * host is this machine, so a temp folder is both the remote folder and what the test reads back.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Type } from "../../../src/contract/schema.js";
import { defineTool } from "../../../src/contract/tool.js";
import { SshExecutionEnv } from "../../../src/env/node-ssh.js";
import { type PiExtensionAPI, toPiExtension } from "../../../src/extensions/node-pi-package.js";
import { parseReplayFixture } from "../../../src/harness/fixture.js";
import { recordingEnv } from "../../../src/harness/record.js";
import { replay } from "../../../src/harness/replay.js";
import { createBuiltinTools } from "../../../src/tools/builtins.js";
import { type Sshd, startSshd } from "./_sshd.js";

const started = await startSshd();
const sshd: Sshd | undefined = started.sshd;
if (!sshd) console.warn(`SSH wiring tests skipped: ${"reason" in started ? started.reason : ""}`);

const scratch = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-ssh-wiring-")));
const envs: SshExecutionEnv[] = [];

/** An SSH env on the test sshd working in a fresh folder under the scratch folder. */
function remoteEnv(name: string): SshExecutionEnv {
	if (!sshd) throw new Error("no sshd");
	const cwd = join(scratch, name);
	mkdirSync(cwd);
	const env = new SshExecutionEnv({ destination: sshd.host, configFile: sshd.configFile, cwd });
	envs.push(env);
	return env;
}

afterAll(async () => {
	for (const env of envs) await env.close();
	await sshd?.stop();
	rmSync(scratch, { recursive: true, force: true });
});

const call = (id: string, name: string, args: unknown) => ({ type: "toolCall" as const, id, name, arguments: args });

describe.skipIf(!sshd)("recording on the remote host", () => {
	it("records a run over SSH into a fixture that names no remote folder and replays offline", async () => {
		const ssh = remoteEnv("recorded");
		writeFileSync(join(ssh.cwd, "notes.md"), "# Notes\n\n- first\n- second\n");
		const env = recordingEnv(ssh);
		expect(env.kind).toBe("recording(ssh)");
		const tools = env.agentTools(createBuiltinTools());
		await env.execute([call("r1", "read", { path: "notes.md" })], { tools });
		await env.execute(
			[
				call("e1", "edit", { path: "notes.md", edits: [{ oldText: "- second", newText: "- second\n- third" }] }),
				call("b1", "bash", { command: "pwd; echo out; exit 3" }),
			],
			{ tools, toolExecution: "sequential" },
		);
		await env.execute([call("w1", "write", { path: "made/new.txt", content: "fresh" })], { tools });

		const saved = await env.fixture({ name: "remote run" });
		expect(JSON.stringify(saved)).not.toContain(ssh.cwd);
		const fixture = parseReplayFixture(saved);
		expect(fixture.files).toEqual({ "notes.md": "# Notes\n\n- first\n- second\n" });
		expect(fixture.commands).toEqual([
			{ match: "pwd; echo out; exit 3", stdout: "/project\nout\n", exitCode: 3, once: true },
		]);
		expect(fixture.steps[1]?.expect).toEqual({
			files: { "notes.md": "# Notes\n\n- first\n- second\n- third\n" },
			commands: ["pwd; echo out; exit 3"],
		});
		expect(fixture.steps[2]?.expect?.files).toEqual({ "made/new.txt": "fresh" });
		expect(env.warnings).toEqual([]);
		// The remote disk really changed.
		expect(readFileSync(join(ssh.cwd, "made/new.txt"), "utf8")).toBe("fresh");

		const report = await replay(fixture);
		expect(report.pass).toBe(true);
		expect(report.figures.calls).toBe(4);
	});
});

describe.skipIf(!sshd)("toPiExtension with an SSH env", () => {
	it("runs a toolsmith tool under pi on the remote host, ctx.cwd the remote folder", async () => {
		const ssh = remoteEnv("pi");
		writeFileSync(join(ssh.cwd, "notes.txt"), "one\ntwo\nthree\n");
		const where = defineTool({
			name: "where",
			label: "Where",
			description: "Counts the lines of a file and says where the shell runs.",
			parameters: Type.Object({ path: Type.String() }),
			async execute(_id, { path }, signal, _onUpdate, ctx) {
				const text = await ctx.env.readTextFile(path);
				if (!text.ok) throw text.error;
				const pwd = await ctx.env.exec("pwd", { captureOutput: true, ...(signal ? { signal } : {}) });
				if (!pwd.ok) throw pwd.error;
				const lines = text.value.split("\n").length - 1;
				return {
					content: [{ type: "text", text: `${lines} lines; shell in ${pwd.value.stdout.trim()}` }],
					details: { kind: ctx.env.kind, cwd: ctx.cwd },
				};
			},
		});
		const registered: Parameters<PiExtensionAPI["registerTool"]>[0][] = [];
		const pi = {
			registerTool: (tool) => void registered.push(tool),
			on: () => undefined,
			registerCommand: () => {},
			registerFlag: () => {},
			getFlag: () => undefined,
			exec: async () => ({ stdout: "", stderr: "", code: 0, killed: false }),
			getAllTools: () => [],
			getActiveTools: () => [],
			setActiveTools: () => {},
			events: { emit() {}, on: () => () => {} },
		} satisfies PiExtensionAPI;
		await toPiExtension((api) => api.registerTool(where), { env: ssh })(pi);
		// pi runs elsewhere: its cwd is not the remote folder.
		const result = await registered[0]?.execute("c1", { path: "notes.txt" }, undefined, undefined, { cwd: tmpdir() });
		expect(result).toEqual({
			content: [{ type: "text", text: `3 lines; shell in ${ssh.cwd}` }],
			details: { kind: "ssh", cwd: ssh.cwd },
		});
	});
});
