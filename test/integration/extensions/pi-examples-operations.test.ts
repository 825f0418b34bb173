/**
 * The reference package's own examples that move where tools act, loaded unmodified from the
 * benchmark peers (`npm run bench:setup`): `ssh.ts` sends read/write/edit/bash to a remote host (a
 * fake `ssh` on PATH whose "remote host" is a second folder), `sandbox/index.ts` runs bash through
 * `@anthropic-ai/sandbox-runtime` (a fake package next to a copy of the example made at test time,
 * running commands under bubblewrap when it works here), and `bash-spawn-hook.ts` rewrites every
 * command. Part of `npm run compat:pi`, which requires the peers; elsewhere it is skipped when they
 * are not installed.
 */
import { spawnSync } from "node:child_process";
import {
	copyFileSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	realpathSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import type { ExtensionDiagnostic } from "../../../src/extensions/api.js";
import { type LoadExtensionsResult, loadExtensions } from "../../../src/extensions/node-loader.js";
import { peersDir } from "../../bench/_peer.js";
import { runTool } from "./_run-tool.js";

const examples = join(peersDir, "node_modules", "@mariozechner", "pi-coding-agent", "examples", "extensions");
const peersInstalled = ["ssh.ts", "sandbox/index.ts", "bash-spawn-hook.ts"].every((file) =>
	existsSync(join(examples, file)),
);
const required = process.env.TOOLSMITH_REQUIRE_PEERS === "1";

it.runIf(required && !peersInstalled)("needs the benchmark peers: run npm run bench:setup first", () => {
	expect.fail("the reference package's examples are not installed in test/bench/peers; run `npm run bench:setup`");
});

/** A world for one example: a temp root, a local folder the process works in, restored afterwards. */
function world(prefix: string) {
	const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
	const local = join(root, "local");
	mkdirSync(local);
	return { root, local };
}

/** Run one tool call through the executor. */
const run = runTool;

/** Diagnostics as `[severity, code, message fragment]`, for exact comparison. */
function summary(diagnostics: readonly ExtensionDiagnostic[]) {
	return diagnostics.map((d) => [d.severity, d.code, d.message]);
}

/** Every file under `dir`, relative, with its content. */
function snapshot(dir: string): Record<string, string> {
	const files: Record<string, string> = {};
	for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
		if (!entry.isFile()) continue;
		const path = join(entry.parentPath, entry.name);
		files[path.slice(dir.length + 1)] = readFileSync(path, "utf8");
	}
	return files;
}

describe.runIf(peersInstalled)("the reference's ssh.ts, unmodified, against a fake ssh", () => {
	const extension = join(examples, "ssh.ts");
	let root: string;
	let local: string;
	let remote: string;
	let sshLog: string;
	let loaded: LoadExtensionsResult;
	const notes: string[] = [];
	const saved = { cwd: process.cwd(), path: process.env.PATH };

	beforeAll(async () => {
		({ root, local } = world("toolsmith-pi-ssh-"));
		remote = join(root, "remote");
		mkdirSync(remote);
		writeFileSync(join(local, "notes.txt"), "local one\n");
		writeFileSync(join(remote, "notes.txt"), "remote one\nremote two\n");
		// `ssh <host> <command>`: log the call, then run the command with bash in the "remote host".
		sshLog = join(root, "ssh.log");
		const bin = join(root, "bin");
		mkdirSync(bin);
		writeFileSync(
			join(bin, "ssh"),
			`#!/bin/bash\nprintf '%s\\t%s\\n' "$1" "$2" >> ${JSON.stringify(sshLog)}\ncd ${JSON.stringify(remote)} || exit 255\nexec bash -c "$2"\n`,
			{ mode: 0o755 },
		);
		process.env.PATH = `${bin}:${process.env.PATH}`;
		// The example takes the local folder from process.cwd() when it loads.
		process.chdir(local);
		loaded = await loadExtensions([extension], {
			cwd: local,
			env: new NodeExecutionEnv({ cwd: local }),
			flags: { ssh: `fakehost:${remote}` },
			log: (entry) => notes.push(`${entry.level}: ${entry.message}`),
		});
	});

	afterAll(() => {
		process.chdir(saved.cwd);
		process.env.PATH = saved.path;
		rmSync(root, { recursive: true, force: true });
	});

	it("loads with only the notes about the events toolsmith never emits", () => {
		expect(loaded.extensions.map((e) => [e.path, e.tools, e.flags.map((f) => [f.name, f.type])])).toEqual([
			[extension, ["read", "write", "edit", "bash"], [["ssh", "string"]]],
		]);
		// toolsmith has no user `!` commands and builds no system prompt with the cwd in it, so the
		// example's `user_bash` and `before_agent_start` handlers have nothing to act on.
		expect(summary(loaded.diagnostics)).toEqual([
			[
				"info",
				"I_EVENT_NOT_EMITTED",
				`${extension} listens to "user_bash", which toolsmith never emits; the handler will not run.`,
			],
			[
				"info",
				"I_EVENT_NOT_EMITTED",
				`${extension} listens to "before_agent_start", which toolsmith never emits; the handler will not run.`,
			],
			...["read", "write", "edit", "bash"].map((name) => [
				"info",
				"I_BUILTIN_OVERRIDDEN",
				expect.stringContaining(`"${name}"`),
			]),
		]);
	});

	it("reads the --ssh flag on session_start and says so through ctx.ui", async () => {
		expect(await loaded.runtime.emit({ type: "session_start", reason: "startup" })).toEqual([]);
		expect(notes).toContain(`info: SSH mode: fakehost:${remote}`);
	});

	it("read, write, edit and bash act on the remote folder through ssh, never on the local one", async () => {
		const before = snapshot(local);

		const read = await run(loaded, "read", { path: "notes.txt" });
		expect(read).toMatchObject({ isError: false, text: expect.stringContaining("remote two") });
		expect(read.text).not.toContain("local one");

		const wrote = await run(loaded, "write", { path: "sub/new.txt", content: "written there\n" });
		expect(wrote).toMatchObject({
			isError: false,
		});
		expect(readFileSync(join(remote, "sub", "new.txt"), "utf8")).toBe("written there\n");

		const edited = await run(loaded, "edit", {
			path: "notes.txt",
			edits: [{ oldText: "remote two", newText: "edited there" }],
		});
		expect(edited.isError).toBe(false);
		expect(readFileSync(join(remote, "notes.txt"), "utf8")).toBe("remote one\nedited there\n");

		const bash = await run(loaded, "bash", { command: "pwd; ls sub" });
		expect(bash).toEqual({ isError: false, text: `${remote}\nnew.txt\n` });

		expect(snapshot(local)).toEqual(before);
		const log = readFileSync(sshLog, "utf8").trim().split("\n");
		expect(log.every((line) => line.startsWith("fakehost\t"))).toBe(true);
		expect(log.some((line) => line.includes(`cat ${JSON.stringify(join(remote, "notes.txt"))}`))).toBe(true);
		expect(log.some((line) => line.includes(`mkdir -p ${JSON.stringify(join(remote, "sub"))}`))).toBe(true);
		expect(log.some((line) => line.includes("base64 -d"))).toBe(true);
		expect(log).toContain(`fakehost\tcd ${JSON.stringify(remote)} && pwd; ls sub`);
	});

	it("a file only the local folder holds is not found: a failing remote command is an error, not a local fallback", async () => {
		writeFileSync(join(local, "local-only.txt"), "only here\n");
		const read = await run(loaded, "read", { path: "local-only.txt" });
		expect(read.isError).toBe(true);
		expect(read.text).not.toContain("only here");
		const bash = await run(loaded, "bash", { command: "cat local-only.txt" });
		expect(bash.isError).toBe(true);
		expect(bash.text).toContain("local-only.txt: No such file or directory");
		expect(existsSync(join(remote, "local-only.txt"))).toBe(false);
	});
});

/** bubblewrap's arguments of the fake sandbox, besides a `--bind` per writable folder. */
const BWRAP_ARGS = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net"];

/** Whether bubblewrap is installed and can make a sandbox on this machine (containers often forbid it). */
function bwrapWorks(): boolean {
	const probe = spawnSync("bwrap", [...BWRAP_ARGS, "true"]);
	if (probe.status === 0) return true;
	console.warn(
		`bubblewrap is not usable here (${probe.error?.message ?? String(probe.stderr).trim()}); the fake sandbox only records`,
	);
	return false;
}

/**
 * The fake `@anthropic-ai/sandbox-runtime`: the members the example uses. `initialize` and `reset`
 * are logged; `wrapWithSandbox` returns a command that logs the original command and runs it under
 * bubblewrap with the configured `allowWrite` folders (relative to the process's folder) writable
 * and the rest of the disk read-only, or runs it as is when bubblewrap is not usable.
 */
function fakeSandboxRuntime(log: string, useBwrap: boolean): string {
	return `import { appendFileSync } from "node:fs";
import { resolve } from "node:path";
const log = ${JSON.stringify(log)};
const quote = (s) => "'" + String(s).replace(/'/g, "'\\\\''") + "'";
let config;
export const SandboxManager = {
	async initialize(given) {
		config = given;
		appendFileSync(log, "initialize " + JSON.stringify(given) + "\\n");
	},
	async wrapWithSandbox(command) {
		appendFileSync(log, "wrap " + JSON.stringify(command) + "\\n");
		if (!${useBwrap}) return command;
		const binds = (config?.filesystem?.allowWrite ?? []).flatMap((p) => ["--bind", resolve(p), resolve(p)]);
		return ["bwrap", ...${JSON.stringify(BWRAP_ARGS)}, ...binds, "--chdir", process.cwd(), "bash", "-c", command].map(quote).join(" ");
	},
	async reset() {
		appendFileSync(log, "reset\\n");
	},
};
`;
}

describe.runIf(peersInstalled)("the reference's sandbox/index.ts, unmodified, against a fake sandbox-runtime", () => {
	const useBwrap = peersInstalled && bwrapWorks();
	let root: string;
	let local: string;
	let extension: string;
	let sandboxLog: string;
	let loaded: LoadExtensionsResult;
	const notes: string[] = [];
	const saved = { cwd: process.cwd(), agentDir: process.env.PI_CODING_AGENT_DIR };

	beforeAll(async () => {
		({ root, local } = world("toolsmith-pi-sandbox-"));
		// The example as published, next to a node_modules holding the fake package.
		const folder = join(root, "sandbox");
		const fake = join(folder, "node_modules", "@anthropic-ai", "sandbox-runtime");
		mkdirSync(fake, { recursive: true });
		extension = join(folder, "index.ts");
		copyFileSync(join(examples, "sandbox", "index.ts"), extension);
		sandboxLog = join(root, "sandbox.log");
		writeFileSync(
			join(fake, "package.json"),
			JSON.stringify({ name: "@anthropic-ai/sandbox-runtime", type: "module", main: "index.js" }),
		);
		writeFileSync(join(fake, "index.js"), fakeSandboxRuntime(sandboxLog, useBwrap));
		// Project config: only the working folder is writable (the default also allows /tmp, where this test works).
		mkdirSync(join(local, ".pi"));
		writeFileSync(join(local, ".pi", "sandbox.json"), JSON.stringify({ filesystem: { allowWrite: ["."] } }));
		process.env.PI_CODING_AGENT_DIR = join(root, "agent");
		process.chdir(local);
		loaded = await loadExtensions([extension], {
			cwd: local,
			env: new NodeExecutionEnv({ cwd: local }),
			log: (entry) => notes.push(`${entry.level}: ${entry.message}`),
		});
	});

	afterAll(() => {
		process.chdir(saved.cwd);
		if (saved.agentDir === undefined) delete process.env.PI_CODING_AGENT_DIR;
		else process.env.PI_CODING_AGENT_DIR = saved.agentDir;
		rmSync(root, { recursive: true, force: true });
	});

	const sandboxLines = () => (existsSync(sandboxLog) ? readFileSync(sandboxLog, "utf8").trim().split("\n") : []);

	it("loads with only the notes about the bash override and user_bash", () => {
		expect(loaded.extensions.map((e) => [e.tools, e.commands.map((c) => c.name), e.flags.map((f) => f.name)])).toEqual([
			[["bash"], ["sandbox"], ["no-sandbox"]],
		]);
		expect(summary(loaded.diagnostics)).toEqual([
			[
				"info",
				"I_EVENT_NOT_EMITTED",
				`${extension} listens to "user_bash", which toolsmith never emits; the handler will not run.`,
			],
			["info", "I_BUILTIN_OVERRIDDEN", expect.stringContaining('"bash"')],
		]);
	});

	it("initializes the sandbox on session_start with the merged config", async () => {
		expect(await loaded.runtime.emit({ type: "session_start", reason: "startup" })).toEqual([]);
		expect(notes).toContain("info: Sandbox initialized");
		const init = sandboxLines().find((line) => line.startsWith("initialize "));
		const config = JSON.parse(init?.slice("initialize ".length) ?? "null");
		expect(config.filesystem.allowWrite).toEqual(["."]);
		expect(config.network.allowedDomains).toContain("github.com");
	});

	it("every bash command goes through wrapWithSandbox", async () => {
		const result = await run(loaded, "bash", { command: "echo inside; pwd" });
		expect(result).toEqual({ isError: false, text: `inside\n${local}\n` });
		expect(sandboxLines()).toContain(`wrap ${JSON.stringify("echo inside; pwd")}`);
	});

	it.runIf(useBwrap)(
		"under bubblewrap, writing inside the folder works and writing outside fails, leaving nothing",
		async () => {
			const outside = join(root, "escaped.txt");
			const denied = await run(loaded, "bash", { command: `echo x > ${JSON.stringify(outside)}` });
			expect(denied.isError).toBe(true);
			expect(denied.text).toMatch(/Read-only file system/);
			expect(existsSync(outside)).toBe(false);

			const allowed = await run(loaded, "bash", { command: "echo y > inside.txt && cat inside.txt" });
			expect(allowed).toEqual({ isError: false, text: "y\n" });
			expect(readFileSync(join(local, "inside.txt"), "utf8")).toBe("y\n");
		},
	);

	it("resets the sandbox on session_shutdown", async () => {
		expect(await loaded.runtime.emit({ type: "session_shutdown", reason: "exit" })).toEqual([]);
		expect(sandboxLines().at(-1)).toBe("reset");
	});
});

describe.runIf(peersInstalled)("the reference's bash-spawn-hook.ts, unmodified", () => {
	const extension = join(examples, "bash-spawn-hook.ts");
	let root: string;
	let local: string;
	let loaded: LoadExtensionsResult;
	const saved = { cwd: process.cwd(), home: process.env.HOME };

	beforeAll(async () => {
		({ root, local } = world("toolsmith-pi-hook-"));
		// The hook sources ~/.profile before every command: a home of our own says it did.
		const home = join(root, "home");
		mkdirSync(home);
		writeFileSync(join(home, ".profile"), "export FROM_PROFILE=profile-ran\n");
		process.env.HOME = home;
		process.chdir(local);
		loaded = await loadExtensions([extension], { cwd: local, env: new NodeExecutionEnv({ cwd: local }) });
	});

	afterAll(() => {
		process.chdir(saved.cwd);
		process.env.HOME = saved.home;
		rmSync(root, { recursive: true, force: true });
	});

	it("loads with only the note about the bash override", () => {
		expect(summary(loaded.diagnostics)).toEqual([["info", "I_BUILTIN_OVERRIDDEN", expect.stringContaining('"bash"')]]);
	});

	it("bash runs what the spawnHook returned: ~/.profile sourced first, PI_SPAWN_HOOK set", async () => {
		const result = await run(loaded, "bash", { command: 'echo "$PI_SPAWN_HOOK $FROM_PROFILE"; pwd' });
		expect(result).toEqual({ isError: false, text: `1 profile-ran\n${local}\n` });
	});
});
