import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { AgentToolResult } from "../../../src/contract/tool.js";
import type { ScriptedCommand } from "../../../src/env/memory.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { type BashToolDetails, createBashTool } from "../../../src/tools/bash.js";
import { allToolEnvs, nodeFixture, stopToolEnvs, type ToolFixture, textOf } from "./_env.js";

const envs = await allToolEnvs();
afterAll(stopToolEnvs);

const bash = createBashTool();

/** Gone, or a zombie nobody reaps (some containers' init never does). */
function processGone(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "ESRCH";
	}
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
	} catch {
		return false;
	}
}

const seq5000 = `${Array.from({ length: 5000 }, (_, i) => String(i + 1)).join("\n")}\n`;

/** The memory env's answers to the commands the tests run for real on Node. */
const scripted: ScriptedCommand[] = [
	{ match: "printf 'a\\nb\\n'", stdout: "a\nb\n" },
	{ match: "true", stdout: "" },
	{ match: "echo oops >&2; exit 3", stderr: "oops\n", exitCode: 3 },
	{ match: "exit 1", exitCode: 1 },
	{
		match: "for i in 1 2 3; do echo $i; sleep 0.3; done",
		chunks: [
			{ stream: "stdout", data: "1\n" },
			{ stream: "stdout", data: "2\n", delayMs: 300 },
			{ stream: "stdout", data: "3\n", delayMs: 300 },
		],
	},
	{
		match: "printf '\\303'; sleep 0.3; printf '\\251\\n'",
		chunks: [
			{ stream: "stdout", data: new Uint8Array([0xc3]) },
			{ stream: "stdout", data: new Uint8Array([0xa9, 0x0a]), delayMs: 300 },
		],
	},
	{
		match: "echo started; sleep 30",
		chunks: [
			{ stream: "stdout", data: "started\n" },
			{ stream: "stdout", data: "", delayMs: 30_000 },
		],
	},
	{ match: "seq 1 5000", stdout: seq5000 },
	{
		match: "echo waiting; sleep 20",
		chunks: [
			{ stream: "stdout", data: "waiting\n" },
			{ stream: "stdout", data: "", delayMs: 20_000 },
		],
	},
	{ match: "head -c 60000 /dev/zero | tr '\\0' x", stdout: "x".repeat(60_000) },
	{ match: /^pwd$/, stdout: "/home/user/project\n" },
	{
		match: "printf 'a\\0b\\ac\\033[31mred\\033[0m\\177d\\te\\r\\n'",
		stdout: "a\0b\x07c\x1b[31mred\x1b[0m\x7fd\te\r\n",
	},
	{ match: "printf '\\033]0;title\\007\\0x\\n1\\n2\\n'", stdout: "\x1b]0;title\x07\0x\n1\n2\n" },
	{ match: "sleep 0.2; echo done", chunks: [{ stream: "stdout", data: "done\n", delayMs: 200 }] },
];

describe.each(envs)("bash on %s", (_name, make) => {
	let fx: ToolFixture;
	afterEach(async () => fx?.cleanup());
	const run = async (
		command: string,
		options: { timeout?: number; signal?: AbortSignal; updates?: AgentToolResult<BashToolDetails>[] } = {},
	) => {
		const args = options.timeout !== undefined ? { command, timeout: options.timeout } : { command };
		const onUpdate = options.updates ? (u: AgentToolResult<BashToolDetails>) => options.updates?.push(u) : undefined;
		return bash.execute("id", args, options.signal, onUpdate, fx.ctx);
	};
	const failure = (promise: Promise<unknown>) =>
		promise.then(
			() => {
				throw new Error("expected the command to fail");
			},
			(e: Error) => e.message,
		);

	it("returns stdout and stderr, and (no output) for silence", async () => {
		fx = await make({ commands: scripted });
		const result = await run("printf 'a\\nb\\n'");
		expect(textOf(result)).toBe("a\nb\n");
		expect(result.details).toMatchObject({ exitCode: 0 });
		expect(typeof (result.details as BashToolDetails).durationMs).toBe("number");
		expect(textOf(await run("true"))).toBe("(no output)");
		expect(textOf(await run("pwd"))).toBe(`${fx.env.cwd}\n`);
	});

	it("throws on a non-zero exit with the output and the code", async () => {
		fx = await make({ commands: scripted });
		expect(await failure(run("echo oops >&2; exit 3"))).toBe("oops\n\n\nCommand exited with code 3");
		expect(await failure(run("exit 1"))).toBe("(no output)\n\nCommand exited with code 1");
	});

	it("streams partial output while the command runs", async () => {
		fx = await make({ commands: scripted });
		const updates: AgentToolResult<BashToolDetails>[] = [];
		const result = await run("for i in 1 2 3; do echo $i; sleep 0.3; done", { updates });
		expect(textOf(result)).toBe("1\n2\n3\n");
		const texts = updates.map((u) => textOf(u));
		expect(texts.length).toBeGreaterThanOrEqual(2);
		expect(texts[0]?.startsWith("1\n")).toBe(true);
		// Every update is the output so far: a prefix of the final text.
		for (const text of texts) expect("1\n2\n3\n".startsWith(text)).toBe(true);
		expect(updates.every((u) => u.details.exitCode === undefined)).toBe(true);
	});

	it("never splits a UTF-8 character across chunks", async () => {
		fx = await make({ commands: scripted });
		const updates: AgentToolResult<BashToolDetails>[] = [];
		const result = await run("printf '\\303'; sleep 0.3; printf '\\251\\n'", { updates });
		expect(textOf(result)).toBe("é\n");
		for (const update of updates) expect(textOf(update)).not.toContain("\uFFFD");
	});

	it("keeps the tail and spills the whole output to a temp file", async () => {
		fx = await make({ commands: scripted });
		const result = await run("seq 1 5000");
		const text = textOf(result);
		const details = result.details as BashToolDetails;
		expect(details.fullOutputPath).toBeDefined();
		expect(text.startsWith("3002\n3003\n")).toBe(true);
		expect(text.endsWith(`5000\n\n\n[Showing lines 3002-5001 of 5001. Full output: ${details.fullOutputPath}]`)).toBe(
			true,
		);
		expect(details.truncation).toMatchObject({
			truncated: true,
			truncatedBy: "lines",
			totalLines: 5001,
			outputLines: 2000,
		});
		const full = await fx.env.readTextFile(details.fullOutputPath as string);
		expect(full.ok && full.value).toBe(seq5000);
	});

	it("shows the end of a single line longer than the byte budget", async () => {
		fx = await make({ commands: scripted });
		const result = await run("head -c 60000 /dev/zero | tr '\\0' x");
		const details = result.details as BashToolDetails;
		expect(textOf(result)).toBe(
			`${"x".repeat(51_200)}\n\n[Showing last 50.0KB of line 1 (line is 58.6KB). Full output: ${details.fullOutputPath}]`,
		);
	});

	// On SSH the remote wrapper's shell still adds "Terminated" to the output of a killed command.
	it("stops a command at its timeout, with the output so far", async () => {
		fx = await make({ commands: scripted });
		expect(await failure(run("echo waiting; sleep 20", { timeout: 0.5 }))).toBe(
			"waiting\n\n\nCommand timed out after 0.5 seconds",
		);
	});

	it("rejects negative and NaN timeouts without running, and never kills at once for large ones", async () => {
		fx = await make({ commands: scripted });
		for (const timeout of [-1, -0.5, Number.NaN, Number.NEGATIVE_INFINITY]) {
			expect(await failure(run("sleep 0.2; echo done", { timeout }))).toBe(
				`Invalid timeout ${timeout}: give a positive number of seconds, or leave timeout out for no timeout. The command was not run.`,
			);
		}
		// 0 and Infinity mean no timeout; the rest lie past the 24.8 days one timer holds (or at it).
		for (const timeout of [0, Number.POSITIVE_INFINITY, (2 ** 31 - 1) / 1000, 2 ** 31 / 1000, 3_000_000]) {
			const result = await run("sleep 0.2; echo done", { timeout }).catch((e: Error) => e.message);
			expect(typeof result === "string" ? result : textOf(result), `timeout ${timeout}`).toBe("done\n");
		}
	});

	it("removes control bytes and escape sequences from the text, counts them, and spills the raw bytes", async () => {
		fx = await make({ commands: scripted });
		const result = await run("printf 'a\\0b\\ac\\033[31mred\\033[0m\\177d\\te\\r\\n'");
		expect(textOf(result)).toBe("abcredd\te\r\n");
		expect(result.details).toMatchObject({ exitCode: 0, stripped: { escapeSequences: 2, controlCharacters: 3 } });
		expect((await run("printf 'a\\nb\\n'")).details).not.toHaveProperty("stripped");

		const short = createBashTool({ maxLines: 2 });
		const cut = await short.execute(
			"id",
			{ command: "printf '\\033]0;title\\007\\0x\\n1\\n2\\n'" },
			undefined,
			undefined,
			fx.ctx,
		);
		const details = cut.details as BashToolDetails;
		// Only what was removed from the kept tail is counted: the title and NUL were on a dropped line.
		expect(textOf(cut)).toBe(`2\n\n\n[Showing lines 3-4 of 4. Full output: ${details.fullOutputPath}]`);
		expect(details).not.toHaveProperty("stripped");
		expect(await fx.text(details.fullOutputPath as string)).toBe("\x1b]0;title\x07\0x\n1\n2\n");
	});

	it("aborts the command and reports the output so far", async () => {
		fx = await make({ commands: scripted });
		const controller = new AbortController();
		const updates: AgentToolResult<BashToolDetails>[] = [];
		const pending = failure(run("echo started; sleep 30", { signal: controller.signal, updates }));
		const deadline = Date.now() + 10_000;
		while (!updates.some((u) => textOf(u).includes("started")) && Date.now() < deadline)
			await new Promise((r) => setTimeout(r, 20));
		controller.abort();
		expect(await pending).toBe("started\n\n\nCommand aborted");
	});
});

describe("bash on node only", () => {
	let fx: ToolFixture;
	afterEach(async () => fx?.cleanup());

	it("a timeout kills the whole process tree", async () => {
		fx = await nodeFixture();
		const message = await bash
			.execute("id", { command: "sleep 30 & echo $!; wait", timeout: 1 }, undefined, undefined, fx.ctx)
			.then(
				() => "finished",
				(e: Error) => e.message,
			);
		const match = /^(\d+)\n\n\nCommand timed out after 1 seconds$/.exec(message);
		expect(match, message).not.toBeNull();
		const pid = Number(match?.[1]);
		const deadline = Date.now() + 5000;
		while (!processGone(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
		expect(processGone(pid)).toBe(true);
	});

	it("handles 120 MB of output: the text stays within budget and the spill file stops at the 100 MB cap", async () => {
		fx = await nodeFixture();
		const result = await bash.execute(
			"id",
			{ command: "head -c 120000000 /dev/zero | tr '\\0' 'a' | fold -w 100" },
			undefined,
			undefined,
			fx.ctx,
		);
		const details = result.details as BashToolDetails;
		const text = textOf(result);
		const notice = text.slice(text.lastIndexOf("\n\n[") + 2);
		expect(notice).toMatch(
			/^\[Showing lines 1199\d{3}-1200000 of 1200000 \(50\.0KB limit\)\. Full output: .+ \(full output truncated at 100\.0MB\)\]$/,
		);
		expect(details.fullOutputIncomplete).toBe("full output truncated at 100.0MB");
		expect(Buffer.byteLength(text.slice(0, text.lastIndexOf("\n\n["))) <= 50 * 1024).toBe(true);
		expect(details.truncation?.totalBytes).toBe(120_000_000 + 1_199_999);
		expect(statSync(details.fullOutputPath as string).size).toBe(100 * 1024 * 1024);
	});

	it("runs the command prefix first", async () => {
		fx = await nodeFixture();
		const prefixed = createBashTool({ commandPrefix: "GREETING=hi" });
		const result = await prefixed.execute("id", { command: 'echo "$GREETING"' }, undefined, undefined, fx.ctx);
		expect(textOf(result)).toBe("hi\n");
	});
});

describe.each(envs)("bash spill files on %s", (_name, make) => {
	let fx: ToolFixture;
	afterEach(async () => fx?.cleanup());
	const command = "seq 1 5000";

	it("reports a failed write of the spill file and appends nothing after it", async () => {
		fx = await make({ commands: scripted });
		const env = fx.env;
		let appends = 0;
		const failing = new Proxy(env, {
			get(target, key) {
				if (key === "appendFile")
					return async (path: string, data: Uint8Array) => {
						// Like a full disk: the first append writes part of its bytes and fails.
						appends++;
						if (appends === 1) await target.appendFile(path, data.subarray(0, 1000));
						return { ok: false, error: { message: "no space left on device" } };
					};
				const member = Reflect.get(target, key);
				return typeof member === "function" ? member.bind(target) : member;
			},
		});
		const tool = createBashTool({ maxLines: 10 });
		const result = await tool.execute("id", { command }, undefined, undefined, { ...fx.ctx, env: failing });
		const details = result.details as BashToolDetails;
		expect(textOf(result)).toContain(
			`Full output: ${details.fullOutputPath} (full output incomplete: the file holds the first 1000B of 23.3KB, writing it failed: no space left on device)]`,
		);
		expect(details.fullOutputIncomplete).toMatch(/^full output incomplete: /);
		expect(appends).toBe(1);
	});

	it("stops the spill file at its cap and says so", async () => {
		fx = await make({ commands: scripted });
		const tool = createBashTool({ maxLines: 10, maxSpillBytes: 2048 });
		const result = await tool.execute("id", { command }, undefined, undefined, fx.ctx);
		const details = result.details as BashToolDetails;
		expect(textOf(result)).toContain(`Full output: ${details.fullOutputPath} (full output truncated at 2.0KB)]`);
		expect((await fx.bytes(details.fullOutputPath as string)).length).toBe(2048);
		expect(await fx.text(details.fullOutputPath as string)).toBe(seq5000.slice(0, 2048));
	});

	it("removes the tool's old spill files when a command spills, and keeps recent ones", async () => {
		fx = await make({ commands: scripted });
		const tool = createBashTool({ maxLines: 10, spillMaxAgeMs: 60_000 });
		const first = (await tool.execute("id", { command }, undefined, undefined, fx.ctx)).details as BashToolDetails;
		const second = (await tool.execute("id", { command }, undefined, undefined, fx.ctx)).details as BashToolDetails;
		// Both recent: the second spill keeps the first.
		expect(await fx.env.exists(first.fullOutputPath as string)).toBe(true);
		const aged = createBashTool({ maxLines: 10, spillMaxAgeMs: -1 });
		const third = (await aged.execute("id", { command }, undefined, undefined, fx.ctx)).details as BashToolDetails;
		expect(await fx.env.exists(first.fullOutputPath as string)).toBe(false);
		expect(await fx.env.exists(second.fullOutputPath as string)).toBe(false);
		expect(await fx.env.exists(third.fullOutputPath as string)).toBe(true);
	});

	it("keeps the older spill files within maxSpillTotalBytes all together, newest first", async () => {
		fx = await make({ commands: scripted });
		const spill = async (tool: ReturnType<typeof createBashTool>) =>
			((await tool.execute("id", { command }, undefined, undefined, fx.ctx)).details as BashToolDetails)
				.fullOutputPath as string;
		const keepAll = createBashTool({ maxLines: 10, spillMaxAgeMs: 60_000, maxSpillTotalBytes: Infinity });
		const paths = [await spill(keepAll), await spill(keepAll), await spill(keepAll)];
		const size = (await fx.bytes(paths[0] as string)).length;
		expect(size).toBeGreaterThan(0);
		for (const path of paths) expect(await fx.env.exists(path)).toBe(true);
		// Room for one older file and a half: the newest spill keeps exactly one of the three.
		const capped = createBashTool({ maxLines: 10, spillMaxAgeMs: 60_000, maxSpillTotalBytes: Math.floor(size * 1.5) });
		const newest = await spill(capped);
		expect(await fx.env.exists(newest)).toBe(true);
		const left = [];
		for (const path of paths) if (await fx.env.exists(path)) left.push(path);
		expect(left).toHaveLength(1);
		// A cap of 0 keeps only the file just made.
		const latest = await spill(createBashTool({ maxLines: 10, maxSpillTotalBytes: 0 }));
		for (const path of [...paths, newest]) expect(await fx.env.exists(path)).toBe(false);
		expect(await fx.env.exists(latest)).toBe(true);
	});
});

describe("bash spill file on a real full disk", () => {
	it("reports the spill file as incomplete when a 256 KB tmpfs fills up (root only: mounts a tmpfs)", async (context) => {
		if (process.getuid?.() !== 0) return context.skip("mounting a tmpfs needs root");
		const root = mkdtempSync(join(tmpdir(), "toolsmith-full-"));
		const disk = join(root, "disk");
		mkdirSync(disk);
		try {
			try {
				execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", disk], { stdio: "ignore" });
			} catch {
				return context.skip("mount -t tmpfs failed here (no CAP_SYS_ADMIN in this container)");
			}
			try {
				const env = new NodeExecutionEnv({ cwd: root, tempDir: disk });
				const ctx = { env, cwd: root, hasUI: false, ui: fxUi };
				const result = await bash.execute(
					"id",
					{ command: "head -c 1000000 /dev/zero | tr '\\0' a | fold -w 100" },
					undefined,
					undefined,
					ctx,
				);
				const details = result.details as BashToolDetails;
				expect(details.fullOutputIncomplete).toMatch(/^full output incomplete: the file holds the first \d/);
				const size = statSync(details.fullOutputPath as string).size;
				expect(size).toBeLessThan(1_010_000);
				expect(textOf(result)).toContain("(full output incomplete: ");
			} finally {
				execFileSync("umount", [disk], { stdio: "ignore" });
			}
		} finally {
			rmSync(root, { recursive: true, force: true });
		}
	});
});

const fxUi = {
	select: async () => undefined,
	confirm: async () => false,
	input: async () => undefined,
	notify: () => undefined,
};
