/**
 * `toolsmith dev`, `mcp` and `inspect` with `--ssh`, as real child processes against the loopback
 * sshd: the built-in tools and a custom tool give what they give locally, the MCP server runs its
 * calls on the remote host, `--confine` checks paths remotely and refuses commands, and a bad
 * target, an unreachable host, an unknown host key or a missing folder end the command at once
 * with the exit code and a line saying what to do. The remote host is this machine, so a temp
 * folder is both the remote folder and what the test reads back.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FixtureResponse } from "../../../src/inspector/protocol.js";
import { type CliRun, runCli } from "../cli/_run.js";
import { startInspectCli } from "../inspector/_cli.js";
import { mcpCommand } from "../mcp/_cli-server.js";
import { type Sshd, startSshd } from "./_sshd.js";

const started = await startSshd();
const sshd: Sshd | undefined = started.sshd;
if (!sshd) console.warn(`SSH CLI tests skipped: ${"reason" in started ? started.reason : ""}`);

const scratch = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-ssh-cli-")));
const extensionDir = join(scratch, "extension");
const extension = join(extensionDir, "tools.ts");
mkdirSync(extensionDir);
// ls, find and grep (not active by default) and a custom tool that reaches the env twice.
writeFileSync(
	extension,
	`import { createFindTool, createGrepTool, createLsTool, defineTool, type ExtensionAPI, Type } from "toolsmith-sdk";

export default function (api: ExtensionAPI) {
	api.registerTool(createLsTool());
	api.registerTool(createFindTool());
	api.registerTool(createGrepTool());
	api.registerTool(
		defineTool({
			name: "count_lines",
			label: "Count lines",
			description: "Counts the lines of a file and gives its size.",
			parameters: Type.Object({ path: Type.String() }),
			async execute(_id, { path }, _signal, _onUpdate, ctx) {
				const text = await ctx.env.readTextFile(path);
				if (!text.ok) throw text.error;
				const info = await ctx.env.fileInfo(path);
				const size = info.ok ? info.value.size : -1;
				return { content: [{ type: "text", text: \`\${path}: \${text.value.split("\\n").length - 1} lines, \${size} bytes\` }], details: {} };
			},
		}),
	);
}
`,
);

/** A project folder with the same files each time: the local run's and the remote run's start equal. */
function project(name: string): string {
	const dir = join(scratch, name);
	mkdirSync(join(dir, "src"), { recursive: true });
	writeFileSync(join(dir, "notes.txt"), "one\ntwo\nthree\n");
	writeFileSync(join(dir, "src", "main.ts"), 'export const greeting = "two words";\n');
	writeFileSync(join(dir, "src", "util.ts"), "export function two() {\n\treturn 2;\n}\n");
	return dir;
}

afterAll(async () => {
	await sshd?.stop();
	rmSync(scratch, { recursive: true, force: true });
});

/** Each `call` of a dev session's output, its folder shown as `<dir>` and timings left out. */
function calls(stdout: string, dir: string): string[] {
	return stdout
		.split(/^> /m)
		.slice(1)
		.map((call) =>
			call
				.split(dir)
				.join("<dir>")
				.split("\n")
				.filter((line) => !/Elapsed \d/.test(line))
				.join("\n")
				.replace(/ · [\d.]+ m?s$/gm, ""),
		);
}

/** The `--ssh` options naming `dir` on the test sshd. */
function ssh(dir: string): string[] {
	if (!sshd) throw new Error("no sshd");
	return ["--ssh", `${sshd.host}:${dir}`, "--ssh-config", sshd.configFile];
}

/** An ssh config whose alias `bad` reaches the test sshd (or a closed port) with the given host-key file. */
function badConfig(name: string, lines: readonly string[]): string {
	const file = join(scratch, name);
	writeFileSync(
		file,
		["Host bad", "  HostName 127.0.0.1", "  BatchMode yes", "  ConnectTimeout 5", ...lines, ""].join("\n"),
	);
	return file;
}

/** The one line a failed start writes on stderr. */
function problem(run: CliRun): string {
	return run.stderr.trim();
}

describe.skipIf(!sshd)("toolsmith dev --ssh (child process, loopback sshd)", () => {
	it("runs the built-in tools and a custom tool as they run locally, and leaves the same files", async () => {
		const script = [
			'call read {"path":"notes.txt"}',
			'call write {"path":"made/new.txt","content":"hello\\nthere\\n"}',
			'call edit {"path":"notes.txt","edits":[{"oldText":"two","newText":"TWO"}]}',
			'call bash {"command":"cat made/new.txt notes.txt | wc -l; pwd; exit 3"}',
			'call ls {"path":"."}',
			'call find {"pattern":"*.ts"}',
			'call grep {"pattern":"two","path":"src"}',
			'call count_lines {"path":"notes.txt"}',
			'call read {"path":"missing.txt"}',
		];
		const input = `${script.join("\n")}\n`;
		const localDir = project("local");
		const remoteDir = project("remote");
		const [local, remote] = await Promise.all([
			runCli(["dev", "--no-watch", "--cwd", localDir, extension], { input }),
			runCli(["dev", "--no-watch", ...ssh(remoteDir), extension], { input }),
		]);
		expect(remote.stderr).toBe("");
		expect(remote.code).toBe(0);
		expect(remote.stdout).toContain(`· ssh env · tools run on ${sshd?.host}:${remoteDir}\n`);
		expect(remote.stdout).toContain("8 tools (4 from extensions)");
		const remoteCalls = calls(remote.stdout, remoteDir);
		expect(remoteCalls).toEqual(calls(local.stdout, localDir));
		expect(remoteCalls).toHaveLength(script.length);
		// The bash call ran in the remote folder, and failed as the command did.
		expect(remoteCalls[3]).toMatch(/5\n\s*<dir>\n[\s\S]*exited with code 3/);
		expect(remoteCalls[7]).toContain("notes.txt: 3 lines, 14 bytes");
		for (const file of ["notes.txt", "made/new.txt"]) {
			expect(readFileSync(join(remoteDir, file), "utf8")).toBe(readFileSync(join(localDir, file), "utf8"));
		}
		expect(readFileSync(join(remoteDir, "notes.txt"), "utf8")).toBe("one\nTWO\nthree\n");
	}, 60_000);

	it("--confine checks paths on the remote host and refuses commands, saying so in the header", async () => {
		const dir = project("confined");
		const script = [
			'call write {"path":"../outside.txt","content":"x"}',
			'call write {"path":"inside.txt","content":"inside"}',
			'call bash {"command":"echo hi"}',
		].join("\n");
		const run = await runCli(["dev", "--no-watch", "--confine", ...ssh(dir)], { input: `${script}\n` });
		expect(run.stdout).toContain("ssh env (confined: commands refused, no remote sandbox)");
		const [outside, inside, bash] = calls(run.stdout, dir);
		expect(outside).toContain("✗ error");
		expect(outside).toMatch(/permission denied/i);
		expect(inside).toContain("✓ ok");
		expect(bash).toContain("✗ error");
		expect(readFileSync(join(dir, "inside.txt"), "utf8")).toBe("inside");
		expect(() => readFileSync(join(scratch, "outside.txt"))).toThrow();
	}, 60_000);

	it("refuses a malformed target or option, and --ssh with --env or --cwd, with exit code 2", async () => {
		const runs = await Promise.all([
			runCli(["dev", "--ssh=-oProxyCommand=sh:/tmp"]),
			runCli(["dev", "--ssh", "ssh://host:99999/x"]),
			runCli(["dev", "--ssh", "host:/x", "--ssh-option", "NoValue"]),
			runCli(["dev", "--ssh-config", "x"]),
			runCli(["dev", "--ssh", "host:/x", "--env", "memory"]),
			runCli(["dev", "--ssh", "host:/x", "--cwd", "."]),
			runCli(["mcp", "--builtins", "--ssh", "host:/x", "--cwd", "."]),
			runCli(["inspect", "--ssh", "user@:/x"]),
		]);
		for (const run of runs) expect(run.code, run.stderr).toBe(2);
		expect(runs[0]?.stderr).toContain('may not start with "-"');
		expect(runs[2]?.stderr).toContain("--ssh-option takes Key=Value");
		expect(runs[3]?.stderr).toContain("--ssh-config applies to --ssh only");
		expect(runs[4]?.stderr).toContain("--ssh cannot go with --env");
		expect(runs[5]?.stderr).toContain("--ssh cannot go with --cwd");
		expect(runs[6]?.stderr).toContain("toolsmith mcp: --ssh cannot go with --cwd");
		expect(runs[7]?.stderr).toContain("toolsmith inspect: --ssh: The SSH target names no host");
	});

	it("ends with exit code 1 and one line on an unreachable host, an unknown host key or a missing folder", async () => {
		if (!sshd) return;
		const closedPort = badConfig("closed.config", [`  Port 1`, "  StrictHostKeyChecking yes"]);
		const emptyKnownHosts = join(scratch, "empty_known_hosts");
		writeFileSync(emptyKnownHosts, "");
		const unknownKey = badConfig("unknown-key.config", [
			`  Port ${sshd.port}`,
			`  IdentityFile ${sshd.identityFile}`,
			`  UserKnownHostsFile ${emptyKnownHosts}`,
			"  GlobalKnownHostsFile /dev/null",
			"  StrictHostKeyChecking yes",
		]);
		const [unreachable, hostKey, noFolder, noConfig] = await Promise.all([
			runCli(["dev", "--ssh", "bad:/tmp", "--ssh-config", closedPort]),
			runCli(["dev", "--ssh", "bad:/tmp", "--ssh-config", unknownKey]),
			runCli(["dev", ...ssh(join(scratch, "no-such-folder"))]),
			runCli(["dev", "--ssh", "bad:/tmp", "--ssh-config", join(scratch, "no-such.config")]),
		]);
		for (const run of [unreachable, hostKey, noFolder, noConfig]) {
			expect(run.code, run.stderr).toBe(1);
			expect(problem(run).split("\n"), run.stderr).toHaveLength(1);
			expect(run.stdout).toBe("");
		}
		expect(problem(unreachable)).toMatch(/^toolsmith dev: could not run tools on bad:\/tmp: /);
		expect(problem(hostKey)).toMatch(/host key/i);
		expect(problem(noFolder)).toContain("no-such-folder");
		expect(problem(noConfig)).toContain("no such file");
	}, 60_000);
});

describe.skipIf(!sshd)("toolsmith mcp --ssh (child process, loopback sshd)", () => {
	let client: Client;
	let stderr = "";
	const dir = project("mcp");

	beforeAll(async () => {
		const transport = new StdioClientTransport({
			...mcpCommand(["--builtins", "--no-confine", ...ssh(dir), extension]),
			cwd: scratch,
			stderr: "pipe",
		});
		transport.stderr?.on("data", (chunk: Buffer) => {
			stderr += chunk.toString("utf8");
		});
		client = new Client({ name: "ssh-cli-test", version: "0.0.0" });
		await client.connect(transport);
	}, 60_000);

	afterAll(async () => {
		await client?.close();
	});

	it("serves calls that run on the remote host", async () => {
		expect(stderr).toContain(`· stdio · tools run on ${sshd?.host}:${dir}`);
		const wrote = await client.callTool({ name: "write", arguments: { path: "from-mcp.txt", content: "mcp\n" } });
		expect(wrote.isError).toBeFalsy();
		expect(readFileSync(join(dir, "from-mcp.txt"), "utf8")).toBe("mcp\n");
		const bash = await client.callTool({ name: "bash", arguments: { command: "pwd; cat from-mcp.txt" } });
		expect(bash.isError).toBeFalsy();
		expect(JSON.stringify(bash.content)).toContain(`${dir}\\nmcp`);
		const count = await client.callTool({ name: "count_lines", arguments: { path: "notes.txt" } });
		expect(count.content).toEqual([{ type: "text", text: "notes.txt: 3 lines, 14 bytes" }]);
	});
});

describe.skipIf(!sshd)("toolsmith inspect --ssh (child process, loopback sshd)", () => {
	it("serves the page over the remote env, the header saying where tools run", async () => {
		const dir = project("inspect");
		const page = await startInspectCli(["inspect", "--no-watch", ...ssh(dir)], { cwd: scratch });
		try {
			expect(page.stdout()).toContain(`toolsmith inspect · 4 tools · ssh env · tools run on ${sshd?.host}:${dir}\n`);
			const state = (await (await fetch(`http://127.0.0.1:${page.port}/api/state?token=${page.token}`)).json()) as {
				env: string;
			};
			expect(state.env).toBe(`ssh ${sshd?.host}:${dir}`);
		} finally {
			await page.kill();
		}
	}, 60_000);
});

describe.skipIf(!sshd)("toolsmith dev --ui --ssh: recording on the remote host (child process, loopback sshd)", () => {
	it("records the calls run on the remote host and saves them as a fixture here that replays offline", async () => {
		const dir = project("recorded");
		const here = join(scratch, "recorder");
		mkdirSync(here);
		cpSync(extension, join(here, "tools.ts"));
		const dev = await startInspectCli(
			["dev", "--ui", "--no-watch", "--fixtures", "fixtures", ...ssh(dir), "tools.ts"],
			{
				cwd: here,
			},
		);
		try {
			expect(dev.stdout()).toContain(`· ssh env · tools run on ${sshd?.host}:${dir}`);
			dev.send('call edit {"path":"notes.txt","edits":[{"oldText":"one","newText":"ONE"}]}');
			dev.send('call count_lines {"path":"notes.txt"}');
			await dev.waitFor(/notes\.txt: 3 lines, 14 bytes/);
			const response = await fetch(`http://127.0.0.1:${dev.port}/api/fixture?token=${dev.token}`, {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: JSON.stringify({ name: "remote" }),
			});
			const saved = (await response.json()) as FixtureResponse;
			expect(response.status).toBe(200);
			expect(saved.path).toBe(join(here, "fixtures", "remote.json"));
			const fixture = readFileSync(saved.path, "utf8");
			expect(fixture).not.toContain(dir);
			expect(JSON.parse(fixture).files).toEqual({ "notes.txt": "one\ntwo\nthree\n" });
			expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("ONE\ntwo\nthree\n");
			const replay = await runCli(["test", saved.path], { cwd: here });
			expect(replay.code, replay.stdout + replay.stderr).toBe(0);
			dev.send("exit");
			expect(await dev.exited).toBe(0);
		} finally {
			await dev.kill();
		}
	}, 60_000);
});
