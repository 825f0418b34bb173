/**
 * The ExecutionEnv conformance suite: every test body runs against NodeExecutionEnv (in a fresh
 * temp folder), MemoryExecutionEnv (from a seed) and SshExecutionEnv (the same temp folder over a
 * loopback sshd, where one can start), so they cannot drift apart.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { ExecutionEnv } from "../../../src/contract/env.js";
import type { FileErrorCode, Result } from "../../../src/contract/result.js";
import { allEnvs, type Fixture, type FixtureSpec, fakeBackgroundChild, isRoot, stopSharedSshd } from "./_fixtures.js";

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const encode = (text: string) => new TextEncoder().encode(text);

function expectError(result: Result<unknown, { code: string; message: string }>, code: FileErrorCode | string): string {
	expect(result.ok ? "ok" : result.error.code).toBe(code);
	return result.ok ? "" : result.error.message;
}

function value<T>(result: Result<T, { message: string }>): T {
	if (!result.ok) throw new Error(`expected success, got: ${result.error.message}`);
	return result.value;
}

const envs = await allEnvs();
afterAll(stopSharedSshd);

describe.each(envs)("ExecutionEnv conformance: %s", (_name, make) => {
	let fixture: Fixture | undefined;
	const setup = async (spec: FixtureSpec = {}) => {
		fixture = await make(spec);
		return { fx: fixture, env: fixture.env };
	};
	afterEach(async () => {
		await fixture?.cleanup();
		fixture = undefined;
	});

	describe("paths", () => {
		it("resolves and normalizes against cwd without touching symlinks", async () => {
			const { fx, env } = await setup();
			expect(env.cwd).toBe(fx.path("."));
			expect(value(env.absolutePath("a.txt"))).toBe(fx.path("a.txt"));
			expect(value(env.absolutePath("./src//b/../a.txt"))).toBe(fx.path("src/a.txt"));
			expect(value(env.absolutePath("/x/./y/"))).toBe("/x/y");
			expect(value(env.absolutePath("/.."))).toBe("/");
			expect(value(env.absolutePath("."))).toBe(env.cwd);
		});

		it("rejects empty paths and NUL bytes with invalid_path from every operation, without throwing", async () => {
			const { env } = await setup({ files: { "a.txt": "a" } });
			for (const bad of ["", "a\0b.txt"]) {
				const results: Result<unknown, { code: string; message: string }>[] = [
					env.absolutePath(bad),
					await env.canonicalPath(bad),
					await env.fileInfo(bad),
					await env.listDir(bad),
					await env.readTextFile(bad),
					await env.readBinaryFile(bad),
					await env.readRange(bad, 0, 1),
					await env.writeFile(bad, "x"),
					await env.appendFile(bad, "x"),
					await env.rename(bad, "b.txt"),
					await env.rename("a.txt", bad),
					await env.remove(bad),
					await env.createDir(bad),
				];
				for (const result of results) expectError(result, "invalid_path");
			}
			expect(value(await env.readTextFile("a.txt"))).toBe("a");
		});

		it("returns invalid_argument for values of the wrong type instead of throwing", async () => {
			const { env } = await setup({ files: { "a.txt": "abc" } });
			expectError(await env.readRange("a.txt", -1, 2), "invalid_argument");
			expectError(await env.readRange("a.txt", 0, 1.5), "invalid_argument");
			expectError(await env.writeFile("a.txt", 42 as unknown as string), "invalid_argument");
			expectError(await env.createTempFile({ prefix: "a/b" }), "invalid_argument");
			expect(value(await env.readTextFile("a.txt"))).toBe("abc");
		});
	});

	describe("reading", () => {
		it("reports existence of files, folders, missing paths and paths through a file", async () => {
			const { env } = await setup({ files: { "a.txt": "a" }, dirs: ["d"], symlinks: { dangling: "nowhere" } });
			expect(await env.exists("a.txt")).toBe(true);
			expect(await env.exists("d")).toBe(true);
			expect(await env.exists("missing")).toBe(false);
			expect(await env.exists("a.txt/inside")).toBe(false);
			expect(await env.exists("dangling")).toBe(false);
			// Unusable paths are "not there", never an error to unwrap.
			expect(await env.exists("")).toBe(false);
			expect(await env.exists("a\0b.txt")).toBe(false);
		});

		it("describes files, folders and links", async () => {
			const { env } = await setup({ files: { "a.txt": "hello" }, dirs: ["d"], symlinks: { link: "a.txt" } });
			const file = value(await env.fileInfo("a.txt"));
			expect(file).toMatchObject({ kind: "file", size: 5 });
			expect(file.mtimeMs).toBeGreaterThan(0);
			expect(value(await env.fileInfo("d")).kind).toBe("directory");
			expect(value(await env.fileInfo("link"))).toMatchObject({ kind: "file", size: 5 });
			expect(value(await env.fileInfo("link", { followSymlinks: false }))).toMatchObject({ kind: "symlink", size: 5 });
			const message = expectError(await env.fileInfo("missing.txt"), "not_found");
			expect(message).toContain("missing.txt");
		});

		it("lists a folder sorted by name with each entry's own kind", async () => {
			const { env } = await setup({
				files: { "d/b.txt": "", "d/A.txt": "", "d/sub/x": "" },
				symlinks: { "d/link": "b.txt" },
			});
			expect(value(await env.listDir("d"))).toEqual([
				{ name: "A.txt", kind: "file" },
				{ name: "b.txt", kind: "file" },
				{ name: "link", kind: "symlink" },
				{ name: "sub", kind: "directory" },
			]);
			expect(value(await env.listDir("d/sub"))).toEqual([{ name: "x", kind: "file" }]);
			expectError(await env.listDir("nope"), "not_found");
			expectError(await env.listDir("d/b.txt"), "not_directory");
		});

		it("reads text (keeping a BOM, replacing invalid bytes) and exact bytes", async () => {
			const all = new Uint8Array(256).map((_, i) => i);
			const { env } = await setup({
				files: {
					"bom.txt": "\uFEFFhi",
					"bad.bin": new Uint8Array([0x61, 0xff, 0x62]),
					"all.bin": all,
					"é ü.txt": "ünïcode",
				},
			});
			expect(value(await env.readTextFile("bom.txt"))).toBe("\uFEFFhi");
			expect(value(await env.readTextFile("bad.bin"))).toBe("a\uFFFDb");
			expect(value(await env.readTextFile("é ü.txt"))).toBe("ünïcode");
			expect(value(await env.readBinaryFile("all.bin"))).toEqual(all);
		});

		it("fails reads of missing files, folders and paths through a file with the right codes", async () => {
			const { env } = await setup({ files: { "a.txt": "a" }, dirs: ["d"] });
			for (const read of [
				(p: string) => env.readTextFile(p),
				(p: string) => env.readBinaryFile(p),
				(p: string) => env.readRange(p, 0, 10),
			]) {
				expect(expectError(await read("missing.txt"), "not_found")).toContain("missing.txt");
				expect(expectError(await read("d"), "is_directory")).toContain("/d");
				expectError(await read("a.txt/b"), "not_directory");
			}
		});

		it("reads byte ranges: inside, across the end, past the end, empty", async () => {
			const { env } = await setup({ files: { "n.txt": "0123456789" } });
			expect(decode(value(await env.readRange("n.txt", 2, 3)))).toBe("234");
			expect(decode(value(await env.readRange("n.txt", 8, 100)))).toBe("89");
			expect(value(await env.readRange("n.txt", 10, 5))).toEqual(new Uint8Array(0));
			expect(value(await env.readRange("n.txt", 50, 5))).toEqual(new Uint8Array(0));
			expect(value(await env.readRange("n.txt", 3, 0))).toEqual(new Uint8Array(0));
		});

		it("settles reads with an already aborted signal as aborted", async () => {
			const { env } = await setup({ files: { "a.txt": "a" } });
			const signal = AbortSignal.abort();
			expectError(await env.readTextFile("a.txt", { signal }), "aborted");
			expectError(await env.readBinaryFile("a.txt", { signal }), "aborted");
			expectError(await env.readRange("a.txt", 0, 1, { signal }), "aborted");
		});
	});

	describe("symlinks and canonical paths", () => {
		const links: FixtureSpec = {
			files: { "real/dir/file.txt": "target" },
			symlinks: {
				rel: "real/dir/file.txt",
				"real/up": "..",
				"real/dir/sibling": "../dir/file.txt",
				abs: "{cwd}/real/dir",
				chain: "rel",
				dangling: "real/none.txt",
				loopA: "loopB",
				loopB: "loopA",
				self: "self",
			},
		};

		it("resolves relative, absolute, chained and `..` targets", async () => {
			const { fx, env } = await setup(links);
			const target = fx.path("real/dir/file.txt");
			expect(value(await env.canonicalPath("real/dir/file.txt"))).toBe(target);
			expect(value(await env.canonicalPath("rel"))).toBe(target);
			expect(value(await env.canonicalPath("chain"))).toBe(target);
			expect(value(await env.canonicalPath("real/dir/sibling"))).toBe(target);
			expect(value(await env.canonicalPath("abs/file.txt"))).toBe(target);
			expect(value(await env.canonicalPath("real/up"))).toBe(env.cwd);
			expect(value(await env.canonicalPath("real/up/abs"))).toBe(fx.path("real/dir"));
			// `..` is applied to the spelling first (like `path.resolve`), not after following `abs`.
			expect(value(await env.readTextFile("abs/../real/dir/file.txt"))).toBe("target");
		});

		it("reports loops as symlink_loop and dangling links as missing", async () => {
			const { env } = await setup(links);
			for (const path of ["loopA", "self", "loopA/x"]) {
				expectError(await env.canonicalPath(path), "symlink_loop");
				expectError(await env.readTextFile(path), "symlink_loop");
			}
			expect(await env.exists("loopA")).toBe(false);
			expectError(await env.canonicalPath("dangling"), "not_found");
			expectError(await env.readTextFile("dangling"), "not_found");
			expect(value(await env.fileInfo("loopA", { followSymlinks: false })).kind).toBe("symlink");
			expect(value(await env.fileInfo("dangling", { followSymlinks: false })).kind).toBe("symlink");
			expectError(await env.canonicalPath("missing"), "not_found");
		});
	});

	describe("writing", () => {
		it("creates parent folders and replaces content, leaving no temp files behind", async () => {
			const { env } = await setup({ files: { "a.txt": "old" } });
			expect(value(await env.writeFile("deep/er/new.txt", "fresh"))).toBeUndefined();
			expect(value(await env.readTextFile("deep/er/new.txt"))).toBe("fresh");
			await env.writeFile("a.txt", encode("bytes ✓"));
			await env.writeFile("a.txt", "text ✓");
			expect(value(await env.readTextFile("a.txt"))).toBe("text ✓");
			expect(value(await env.listDir(".")).map((entry) => entry.name)).toEqual(["a.txt", "deep"]);
			await env.writeFile("a.txt", "");
			expect(value(await env.fileInfo("a.txt")).size).toBe(0);
		});

		it("keeps an existing file's permission bits", async () => {
			const { env } = await setup({ files: { "run.sh": { content: "#!/bin/sh\n", mode: 0o750 } } });
			await env.writeFile("run.sh", "#!/bin/sh\necho hi\n");
			expect(value(await env.fileInfo("run.sh")).mode).toBe(0o750);
			expect(value(await env.readTextFile("run.sh"))).toBe("#!/bin/sh\necho hi\n");
		});

		it("writes through a symlink to its target and keeps the link", async () => {
			const { env } = await setup({
				files: { "real/t.txt": "old" },
				symlinks: { link: "real/t.txt", dangling: "made.txt" },
			});
			await env.writeFile("link", "new");
			expect(value(await env.fileInfo("link", { followSymlinks: false })).kind).toBe("symlink");
			expect(value(await env.readTextFile("real/t.txt"))).toBe("new");
			await env.writeFile("dangling", "created");
			expect(value(await env.readTextFile("made.txt"))).toBe("created");
			expect(value(await env.fileInfo("dangling", { followSymlinks: false })).kind).toBe("symlink");
		});

		it("renames a symlink itself and appends through it to the target", async () => {
			const { env } = await setup({ files: { "real/t.txt": "old" }, symlinks: { link: "real/t.txt" } });
			value(await env.rename("link", "moved"));
			expect(value(await env.fileInfo("moved", { followSymlinks: false })).kind).toBe("symlink");
			value(await env.appendFile("moved", "+more"));
			expect(value(await env.readTextFile("real/t.txt"))).toBe("old+more");
			expect(await env.exists("link")).toBe(false);
		});

		it("refuses to write over a folder or under a file", async () => {
			const { env } = await setup({ files: { "a.txt": "a" }, dirs: ["d"] });
			expect(expectError(await env.writeFile("d", "x"), "is_directory")).toContain("/d");
			expectError(await env.writeFile("a.txt/b.txt", "x"), "not_directory");
			expectError(await env.appendFile("d", "x"), "is_directory");
			expect(value(await env.readTextFile("a.txt"))).toBe("a");
		});

		it("leaves the file alone when the signal is already aborted", async () => {
			const { env } = await setup({ files: { "a.txt": "keep" } });
			expectError(await env.writeFile("a.txt", "lost", { signal: AbortSignal.abort() }), "aborted");
			expect(value(await env.readTextFile("a.txt"))).toBe("keep");
		});

		it("appends, creating the file and its folders when needed", async () => {
			const { env } = await setup({ files: { "log.txt": "one\n" } });
			await env.appendFile("log.txt", "two\n");
			await env.appendFile("log.txt", encode("three\n"));
			await env.appendFile("new/dir/log.txt", "first\n");
			expect(value(await env.readTextFile("log.txt"))).toBe("one\ntwo\nthree\n");
			expect(value(await env.readTextFile("new/dir/log.txt"))).toBe("first\n");
		});

		// Root writes through any mode bits; the SSH env logs in as this machine's user.
		it.skipIf(_name !== "memory" && isRoot)("refuses changes to read-only paths with permission_denied", async () => {
			const { env } = await setup({
				files: { "locked/a.txt": "a", "free.txt": "f", "ro.txt": "r" },
				readOnly: ["locked", "ro.txt"],
			});
			expectError(await env.writeFile("ro.txt", "x"), "permission_denied");
			expectError(await env.appendFile("ro.txt", "x"), "permission_denied");
			expect(value(await env.readTextFile("ro.txt"))).toBe("r");
			expect(expectError(await env.writeFile("locked/a.txt", "x"), "permission_denied")).toContain("locked");
			expectError(await env.writeFile("locked/new.txt", "x"), "permission_denied");
			expectError(await env.remove("locked/a.txt"), "permission_denied");
			expectError(await env.rename("free.txt", "locked/free.txt"), "permission_denied");
			expect(value(await env.readTextFile("locked/a.txt"))).toBe("a");
		});
	});

	describe("moving, removing, creating", () => {
		it("renames files and folders, replacing a file at the destination", async () => {
			const { env } = await setup({ files: { "a.txt": "a", "b.txt": "b", "d/x.txt": "x" } });
			value(await env.rename("a.txt", "b.txt"));
			expect(await env.exists("a.txt")).toBe(false);
			expect(value(await env.readTextFile("b.txt"))).toBe("a");
			value(await env.rename("d", "e"));
			expect(value(await env.readTextFile("e/x.txt"))).toBe("x");
			expectError(await env.rename("missing.txt", "c.txt"), "not_found");
			expectError(await env.rename("b.txt", "e"), "is_directory");
			expectError(await env.rename("b.txt", "no/such/dir/b.txt"), "not_found");
			value(await env.createDir("full/inner"));
			value(await env.createDir("empty"));
			expectError(await env.rename("e", "e/inside"), "invalid_argument");
			expectError(await env.rename("e", "b.txt"), "not_directory");
			expectError(await env.rename("e", "full"), "not_empty");
			value(await env.rename("e", "empty"));
			expect(value(await env.readTextFile("empty/x.txt"))).toBe("x");
		});

		it("removes files, links (not their targets) and folders", async () => {
			const { env } = await setup({
				files: { "a.txt": "a", "full/x.txt": "x", "full/sub/y.txt": "y" },
				dirs: ["empty"],
				symlinks: { link: "a.txt", dirlink: "full" },
			});
			value(await env.remove("link"));
			expect(value(await env.readTextFile("a.txt"))).toBe("a");
			value(await env.remove("dirlink", { recursive: true }));
			expect(await env.exists("full/x.txt")).toBe(true);
			value(await env.remove("a.txt"));
			value(await env.remove("empty"));
			expectError(await env.remove("full"), "not_empty");
			value(await env.remove("full", { recursive: true }));
			expectError(await env.remove("full"), "not_found");
			expect(value(await env.listDir("."))).toEqual([]);
		});

		it("creates folders recursively by default and checks parents otherwise", async () => {
			const { env } = await setup({ files: { "a.txt": "a" }, symlinks: { dl: "d" } });
			value(await env.createDir("d/e/f"));
			value(await env.createDir("d/e/f"));
			value(await env.createDir("dl/e"));
			expect(value(await env.fileInfo("d/e/f")).kind).toBe("directory");
			value(await env.createDir("d/g", { recursive: false }));
			value(await env.createDir("d/g", { recursive: false }));
			expectError(await env.createDir("x/y", { recursive: false }), "not_found");
			expectError(await env.createDir("a.txt"), "already_exists");
			expectError(await env.createDir("a.txt", { recursive: false }), "already_exists");
			expectError(await env.createDir("a.txt/sub"), "not_directory");
		});

		it("creates unique, empty temp files and folders", async () => {
			const { env } = await setup();
			const one = value(await env.createTempFile({ prefix: "out-", suffix: ".log" }));
			const two = value(await env.createTempFile({ prefix: "out-", suffix: ".log" }));
			expect(one).not.toBe(two);
			for (const path of [one, two]) {
				expect(path.startsWith("/")).toBe(true);
				expect(path.split("/").pop()).toMatch(/^out-.+\.log$/);
				expect(value(await env.readTextFile(path))).toBe("");
			}
			const dir = value(await env.createTempDir({ prefix: "work-" }));
			expect(dir.split("/").pop()).toMatch(/^work-/);
			expect(value(await env.listDir(dir))).toEqual([]);
			value(await env.writeFile(`${dir}/x.txt`, "x"));
		});
	});

	describe("exec", () => {
		const streaming = "printf 'one\\n'; sleep 0.05; printf 'err\\n' >&2; sleep 0.05; printf 'two\\n'";
		const streamingScript = {
			match: streaming,
			chunks: [
				{ stream: "stdout", data: "one\n" },
				{ stream: "stderr", data: "err\n", delayMs: 50 },
				{ stream: "stdout", data: "two\n", delayMs: 50 },
			],
		} as const;

		it("returns exit codes and captured output", async () => {
			const { env } = await setup({
				commands: [
					{ match: "echo out; echo err >&2; exit 3", stdout: "out\n", stderr: "err\n", exitCode: 3 },
					{ match: "true", exitCode: 0 },
				],
			});
			expect(await env.exec("echo out; echo err >&2; exit 3")).toMatchObject({
				ok: true,
				value: { exitCode: 3, stdout: "out\n", stderr: "err\n" },
			});
			const done = value(await env.exec("true"));
			expect(done).toMatchObject({ exitCode: 0, stdout: "", stderr: "" });
			expect(done.durationMs).toBeGreaterThanOrEqual(0);
		});

		it("streams chunks in order and buffers only when asked", async () => {
			const { env } = await setup({ commands: [streamingScript] });
			const events: string[] = [];
			const streamed = value(
				await env.exec(streaming, {
					onStdout: (chunk) => {
						events.push(`out:${decode(chunk)}`);
					},
					onStderr: (chunk) => {
						events.push(`err:${decode(chunk)}`);
					},
				}),
			);
			expect(events).toEqual(["out:one\n", "err:err\n", "out:two\n"]);
			expect(streamed).toMatchObject({ exitCode: 0, stdout: "", stderr: "" });
			const both = value(await env.exec(streaming, { onStdout: () => undefined, captureOutput: true }));
			expect(both).toMatchObject({ stdout: "one\ntwo\n", stderr: "err\n" });
			const quiet = value(await env.exec(streaming, { captureOutput: false }));
			expect(quiet).toMatchObject({ stdout: "", stderr: "" });
		});

		it("keeps running when a listener throws", async () => {
			const { env } = await setup({ commands: [streamingScript] });
			const result = await env.exec(streaming, {
				captureOutput: true,
				onStdout: () => {
					throw new Error("listener bug");
				},
			});
			expect(result).toMatchObject({ ok: true, value: { exitCode: 0, stdout: "one\ntwo\n" } });
		});

		it("runs in the given folder with the given variables", async () => {
			const { fx, env } = await setup({
				dirs: ["sub"],
				commands: [
					{ match: "pwd", run: (_cmd, ctx) => ({ stdout: `${ctx.cwd}\n` }) },
					{ match: 'printf %s "$GREETING"', run: (_cmd, ctx) => ({ stdout: ctx.variables.GREETING ?? "" }) },
				],
			});
			expect(value(await env.exec("pwd")).stdout).toBe(`${env.cwd}\n`);
			expect(value(await env.exec("pwd", { cwd: "sub" })).stdout).toBe(`${fx.path("sub")}\n`);
			expect(value(await env.exec('printf %s "$GREETING"', { env: { GREETING: "hej" } })).stdout).toBe("hej");
			expectError(await env.exec("pwd", { cwd: "missing" }), "spawn_error");
		});

		it("reports a process killed by a signal as 128 + the signal number", async () => {
			const { env } = await setup({ commands: [{ match: "kill -KILL $$", exitCode: 137 }] });
			expect(value(await env.exec("kill -KILL $$")).exitCode).toBe(137);
		});

		it("rejects unusable options with invalid_argument", async () => {
			const { env } = await setup();
			for (const timeout of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
				const message = expectError(await env.exec("true", { timeout }), "invalid_argument");
				expect(message).toContain(`positive, finite number of seconds (leave it out for no timeout), got ${timeout}`);
			}
			expectError(await env.exec("echo a\0b"), "invalid_argument");
		});

		it("waits out timeouts past the 24.8 days one timer holds instead of killing at once", async () => {
			const command = "sleep 0.2; echo done";
			const { env } = await setup({
				commands: [{ match: command, chunks: [{ stream: "stdout", data: "done\n", delayMs: 200 }] }],
			});
			// 2^31 - 1 ms is the most one setTimeout holds; 2^31 ms and 3000000 s overflowed to 1 ms.
			for (const timeout of [(2 ** 31 - 1) / 1000, 2 ** 31 / 1000, 2 ** 31 / 1000 + 1, 3_000_000, 1e300]) {
				const result = await env.exec(command, { timeout });
				expect(result.ok ? result.value.stdout : result.error.message, `timeout ${timeout}`).toBe("done\n");
			}
		});

		it("times out, kills the whole process tree, and names the command", async () => {
			const command = "sleep 30 & echo $!; wait";
			const { fx, env } = await setup({ commands: [fakeBackgroundChild(command)] });
			let printed = "";
			const result = await env.exec(command, {
				timeout: 0.3,
				onStdout: (chunk) => {
					printed += decode(chunk);
				},
			});
			const message = expectError(result, "timeout");
			expect(message).toContain("0.3 seconds");
			expect(message).toContain("sleep 30");
			const pid = Number(printed.trim());
			expect(pid).toBeGreaterThan(0);
			expect(fx.processGone(pid)).toBe(true);
		});

		it("aborts, kills the whole process tree, and settles as aborted", async () => {
			const command = "sleep 30 & echo $!; wait";
			const { fx, env } = await setup({ commands: [fakeBackgroundChild(command)] });
			const controller = new AbortController();
			let printed = "";
			const result = await env.exec(command, {
				signal: controller.signal,
				onStdout: (chunk) => {
					printed += decode(chunk);
					controller.abort();
				},
			});
			expectError(result, "aborted");
			expect(fx.processGone(Number(printed.trim()))).toBe(true);
			expectError(await env.exec(command, { signal: controller.signal }), "aborted");
		});

		it("honors timeouts against output that is still on its way", async () => {
			const slow = "printf 'one\\n'; sleep 5; printf 'two\\n'";
			const { env } = await setup({
				commands: [
					{
						match: slow,
						chunks: [
							{ stream: "stdout", data: "one\n" },
							{ stream: "stdout", data: "two\n", delayMs: 5000 },
						],
					},
				],
			});
			const events: string[] = [];
			const result = await env.exec(slow, {
				timeout: 0.3,
				onStdout: (chunk) => {
					events.push(decode(chunk));
				},
			});
			expectError(result, "timeout");
			expect(events.join("")).toBe("one\n");
		});
	});
});

describe("ExecutionEnv conformance: env identity", () => {
	it("names its kind", async () => {
		const kinds: string[] = [];
		for (const [, make] of envs) {
			const fixture = await make();
			kinds.push((fixture.env as ExecutionEnv).kind);
			await fixture.cleanup();
		}
		expect(kinds).toEqual(envs.map(([name]) => name));
	});
});
