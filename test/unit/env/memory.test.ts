import { describe, expect, it } from "vitest";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("MemoryExecutionEnv seed, snapshot and changes", () => {
	it("seeds files, folders and symlinks relative to cwd", async () => {
		const env = new MemoryExecutionEnv({
			cwd: "/repo",
			files: { "src/a.ts": "export const a = 1;\n", "/etc/conf": new Uint8Array([104, 105]) },
			dirs: ["empty"],
			symlinks: { "link.ts": "src/a.ts" },
		});
		expect(env.cwd).toBe("/repo");
		expect(await env.readTextFile("link.ts")).toEqual({ ok: true, value: "export const a = 1;\n" });
		expect(await env.readTextFile("/etc/conf")).toEqual({ ok: true, value: "hi" });
		expect(await env.listDir(".")).toEqual({
			ok: true,
			value: [
				{ name: "empty", kind: "directory" },
				{ name: "link.ts", kind: "symlink" },
				{ name: "src", kind: "directory" },
			],
		});
		expect(env.snapshot()).toEqual({ "/etc/conf": "hi", "src/a.ts": "export const a = 1;\n" });
		expect(env.snapshot({ under: "." })).toEqual({ "src/a.ts": "export const a = 1;\n" });
	});

	it("reports created, modified and deleted files against the seed", async () => {
		const env = new MemoryExecutionEnv({
			files: { "keep.txt": "k", "edit.txt": "old", "gone.txt": "g", "same.txt": "s" },
		});
		await env.writeFile("edit.txt", "new");
		await env.writeFile("same.txt", "s");
		await env.remove("gone.txt");
		await env.writeFile("dir/new.txt", "n");
		expect(env.changes()).toEqual({ created: ["dir/new.txt"], modified: ["edit.txt"], deleted: ["gone.txt"] });
		expect(env.snapshotBytes()["dir/new.txt"]).toEqual(new Uint8Array([110]));
	});

	it("takes mtimes from the injected clock and keeps seeded modes", async () => {
		let now = 1_000;
		const env = new MemoryExecutionEnv({
			clock: () => now,
			files: { "run.sh": { content: "#!/bin/sh\n", mode: 0o755 } },
		});
		expect(await env.fileInfo("run.sh")).toEqual({
			ok: true,
			value: { kind: "file", size: 10, mtimeMs: 1_000, mode: 0o755 },
		});
		now = 5_000;
		await env.writeFile("run.sh", "#!/bin/sh\necho hi\n");
		const info = await env.fileInfo("run.sh");
		expect(info.ok && info.value.mtimeMs).toBe(5_000);
		expect(info.ok && info.value.mode).toBe(0o755);
	});

	it("reports the UTF-8 size of text it holds without bytes, pairs split across its measuring steps included", async () => {
		const env = new MemoryExecutionEnv();
		// 16 Ki characters per measuring step: put a surrogate pair right across the first boundary.
		const texts = ["", "plain", "é—😀", `${"a".repeat(16 * 1024 - 1)}😀${"ü".repeat(40_000)}`];
		for (const content of texts) {
			await env.writeFile("t.txt", content);
			const info = await env.fileInfo("t.txt");
			expect(info.ok && info.value.size).toBe(new TextEncoder().encode(content).byteLength);
		}
	});

	it("refuses changes under read-only paths but still reads them", async () => {
		const env = new MemoryExecutionEnv({
			files: { "vendor/lib.js": "x", "src/a.ts": "a" },
			symlinks: { v: "vendor" },
			readOnly: ["vendor"],
		});
		expect(await env.readTextFile("vendor/lib.js")).toEqual({ ok: true, value: "x" });
		for (const result of [
			await env.writeFile("vendor/lib.js", "y"),
			await env.writeFile("v/new.js", "y"),
			await env.appendFile("vendor/lib.js", "y"),
			await env.remove("vendor/lib.js"),
			await env.remove(".", { recursive: true }),
			await env.rename("src/a.ts", "vendor/a.ts"),
			await env.createDir("vendor/sub"),
		]) {
			expect(result && !result.ok && result.error.code).toBe("permission_denied");
		}
		expect(await env.writeFile("src/a.ts", "b")).toEqual({ ok: true, value: undefined });
		expect(env.changes().modified).toEqual(["src/a.ts"]);
	});

	it("throws a clear error for an unusable seed", () => {
		expect(() => new MemoryExecutionEnv({ files: { "a.txt": "x", "a.txt/b.txt": "y" } })).toThrow(/a\.txt\/b\.txt/);
		expect(() => new MemoryExecutionEnv({ files: { "bad\0name": "x" } })).toThrow(/NUL/);
	});

	it("resolves relative and absolute symlink targets, including .. and chains", async () => {
		const env = new MemoryExecutionEnv({
			cwd: "/p",
			files: { "a/b/file.txt": "deep" },
			symlinks: { "a/up": "..", "a/b/rel": "../b/file.txt", abs: "/p/a/b", chain: "a/b/rel" },
		});
		expect(await env.canonicalPath("chain")).toEqual({ ok: true, value: "/p/a/b/file.txt" });
		expect(await env.canonicalPath("abs/file.txt")).toEqual({ ok: true, value: "/p/a/b/file.txt" });
		expect(await env.canonicalPath("a/up")).toEqual({ ok: true, value: "/p" });
		expect(await env.canonicalPath("a/up/a/up/abs/rel")).toEqual({ ok: true, value: "/p/a/b/file.txt" });
	});
});

describe("MemoryExecutionEnv scripted shell", () => {
	it("matches strings exactly (trimmed), RegExps and functions, in order", async () => {
		const env = new MemoryExecutionEnv({
			commands: [
				{ match: "git status", stdout: "clean\n" },
				{ match: /^npm (test|run test)/, stdout: "ok\n", exitCode: 0 },
				{ match: (cmd) => cmd.startsWith("ls"), stdout: "a b\n", exitCode: 2 },
			],
		});
		expect(await env.exec("  git status ")).toMatchObject({ ok: true, value: { exitCode: 0, stdout: "clean\n" } });
		expect(await env.exec("npm run test -- -w")).toMatchObject({ ok: true, value: { stdout: "ok\n" } });
		expect(await env.exec("ls -la")).toMatchObject({ ok: true, value: { exitCode: 2, stdout: "a b\n" } });
		const miss = await env.exec("git status --short");
		expect(miss).toMatchObject({ ok: true, value: { exitCode: 127, stdout: "" } });
		expect(miss.ok && miss.value.stderr).toContain('"git status --short"');
	});

	it("uses a once entry a single time and falls through to later ones", async () => {
		const env = new MemoryExecutionEnv({
			commands: [
				{ match: "date", stdout: "first\n", once: true },
				{ match: "date", stdout: "later\n" },
			],
		});
		const outs = [];
		for (let i = 0; i < 3; i++) {
			const result = await env.exec("date");
			outs.push(result.ok ? result.value.stdout : "error");
		}
		expect(outs).toEqual(["first\n", "later\n", "later\n"]);
	});

	it("lets the unmatched answer be configured", async () => {
		const env = new MemoryExecutionEnv({ unmatched: (cmd) => ({ stdout: `ran ${cmd}\n` }) });
		expect(await env.exec("anything")).toMatchObject({ ok: true, value: { exitCode: 0, stdout: "ran anything\n" } });
		const fixed = new MemoryExecutionEnv({ unmatched: { exitCode: 3 } });
		expect(await fixed.exec("x")).toMatchObject({ ok: true, value: { exitCode: 3, stderr: "" } });
	});

	it("runs functions that can change files and stream output", async () => {
		const env = new MemoryExecutionEnv({
			files: { "in.txt": "data" },
			commands: [
				{
					match: /^cp /,
					run: async (cmd, ctx) => {
						const [, from, to] = cmd.split(" ");
						const read = await ctx.env.readTextFile(from!);
						if (!read.ok) return { stderr: `${read.error.message}\n`, exitCode: 1 };
						ctx.stdout(`copying in ${ctx.cwd} with ${ctx.variables.MODE}\n`);
						await ctx.env.writeFile(to!, read.value);
						return { exitCode: 0 };
					},
				},
				{
					match: "boom",
					run: () => {
						throw new Error("kaput");
					},
				},
			],
		});
		const chunks: string[] = [];
		const result = await env.exec("cp in.txt out.txt", {
			env: { MODE: "fast" },
			onStdout: (c) => {
				chunks.push(text(c));
			},
		});
		expect(result).toMatchObject({ ok: true, value: { exitCode: 0, stdout: "" } });
		expect(chunks).toEqual(["copying in /project with fast\n"]);
		expect(env.changes().created).toEqual(["out.txt"]);
		expect(await env.exec("cp nope.txt x")).toMatchObject({ ok: true, value: { exitCode: 1 } });
		const boom = await env.exec("boom");
		expect(boom).toMatchObject({ ok: true, value: { exitCode: 1 } });
		expect(boom.ok && boom.value.stderr).toContain("kaput");
	});

	it("records every exec in the command log", async () => {
		const env = new MemoryExecutionEnv({ files: { "sub/x": "" }, commands: [{ match: "true" }] });
		await env.exec("true", { cwd: "sub", timeout: 5 });
		await env.exec("missing-tool --flag");
		await env.exec("true", { signal: AbortSignal.abort() });
		expect(env.commandLog).toEqual([
			{
				command: "true",
				cwd: "/project/sub",
				env: undefined,
				timeout: 5,
				matched: true,
				exitCode: 0,
				error: undefined,
				stdout: "",
				stderr: "",
				running: false,
			},
			expect.objectContaining({ command: "missing-tool --flag", matched: false, exitCode: 127 }),
			expect.objectContaining({ command: "true", error: "aborted", exitCode: undefined }),
		]);
	});
});

describe("MemoryExecutionEnv isolation and cancellation", () => {
	it("copies bytes in and out, so callers cannot change stored files by accident", async () => {
		const env = new MemoryExecutionEnv();
		const data = new Uint8Array([1, 2, 3]);
		await env.writeFile("a.bin", data);
		data[0] = 9;
		const read = await env.readBinaryFile("a.bin");
		if (!read.ok) throw read.error;
		read.value[1] = 9;
		expect(await env.readBinaryFile("a.bin")).toEqual({ ok: true, value: new Uint8Array([1, 2, 3]) });
	});

	it("reads the current text after every kind of write, however often it was read before", async () => {
		const env = new MemoryExecutionEnv({ cwd: "/repo", files: { "a.txt": "seed\n" } });
		const read = async () => {
			const result = await env.readTextFile("a.txt");
			return result.ok ? result.value : result.error.code;
		};
		expect(await read()).toBe("seed\n");
		expect(await read()).toBe("seed\n");
		await env.writeFile("a.txt", "one\n");
		expect(await read()).toBe("one\n");
		await env.appendFile("a.txt", "two\n");
		expect(await read()).toBe("one\ntwo\n");
		await env.writeFile("a.txt", new Uint8Array([104, 105]));
		expect(await read()).toBe("hi");
		// A lone surrogate cannot be stored as UTF-8: the text read back holds U+FFFD instead.
		await env.writeFile("a.txt", "x\uD800y");
		expect(await read()).toBe("x\uFFFDy");
		await env.writeFile("a.txt", "\uFEFFbom \u{1F600}");
		expect(await read()).toBe("\uFEFFbom \u{1F600}");
		await env.rename("a.txt", "b.txt");
		expect(await env.readTextFile("b.txt")).toEqual({ ok: true, value: "\uFEFFbom \u{1F600}" });
	});

	it("settles a hanging run on timeout and tells it through its signal", async () => {
		let sawAbort = false;
		const env = new MemoryExecutionEnv({
			commands: [
				{
					match: "serve",
					run: (_cmd, ctx) =>
						new Promise(() => {
							ctx.signal.addEventListener("abort", () => {
								sawAbort = true;
							});
							ctx.stdout("listening\n");
						}),
				},
			],
		});
		const result = await env.exec("serve", { timeout: 0.05 });
		expect(result.ok ? "ok" : result.error.code).toBe("timeout");
		expect(sawAbort).toBe(true);
		expect(env.commandLog[0]).toMatchObject({
			command: "serve",
			error: "timeout",
			stdout: "listening\n",
			running: false,
		});
	});

	it("ignores output a run writes after the exec settled", async () => {
		let late: ((data: string) => void) | undefined;
		const env = new MemoryExecutionEnv({
			commands: [
				{
					match: "x",
					run: (_cmd, ctx) => {
						late = (data) => ctx.stdout(data);
						return new Promise(() => undefined);
					},
				},
			],
		});
		const controller = new AbortController();
		const chunks: string[] = [];
		const pending = env.exec("x", {
			signal: controller.signal,
			onStdout: (c) => {
				chunks.push(text(c));
			},
		});
		await Promise.resolve();
		controller.abort();
		expect((await pending).ok).toBe(false);
		late?.("too late");
		expect(chunks).toEqual([]);
	});

	it("marks a command as running in the log until it settles", async () => {
		let release!: () => void;
		const env = new MemoryExecutionEnv({
			commands: [{ match: "wait", run: () => new Promise((resolve) => (release = () => resolve({ exitCode: 4 }))) }],
		});
		const pending = env.exec("wait");
		await Promise.resolve();
		expect(env.commandLog).toMatchObject([{ command: "wait", running: true, exitCode: undefined }]);
		release();
		await pending;
		expect(env.commandLog).toMatchObject([{ command: "wait", running: false, exitCode: 4 }]);
	});
});
