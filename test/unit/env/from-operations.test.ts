/** createOperationsEnv: env methods map onto the operations, and every failure is a clear Result. */
import { describe, expect, it } from "vitest";
import type { ExecutionEnv } from "../../../src/contract/env.js";
import { createOperationsEnv } from "../../../src/env/from-operations.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { withFileMutationQueue } from "../../../src/env/mutation-queue.js";
import { createEditTool } from "../../../src/tools/edit.js";
import { createWriteTool } from "../../../src/tools/write.js";
import { contextFor } from "../tools/_env.js";

const edit = createEditTool();

const enoent = (path: string) => Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });

describe("createOperationsEnv", () => {
	it("reads through readFile with absolute paths, and maps ENOENT to not_found", async () => {
		const seen: string[] = [];
		const env = createOperationsEnv(
			{
				readFile: async (p) => {
					seen.push(p);
					if (p !== "/w/a.txt") throw enoent(p);
					return new TextEncoder().encode("hello");
				},
			},
			{ cwd: "/w" },
		);
		expect(await env.readTextFile("a.txt")).toEqual({ ok: true, value: "hello" });
		const range = await env.readRange("a.txt", 1, 3);
		expect(range.ok && new TextDecoder().decode(range.value)).toBe("ell");
		const missing = await env.readTextFile("b.txt");
		expect(!missing.ok && missing.error.code).toBe("not_found");
		expect(seen).toEqual(["/w/a.txt", "/w/a.txt", "/w/b.txt"]);
	});

	it("refuses bytes that are not UTF-8 instead of changing them, and creates the parent first", async () => {
		const calls: string[] = [];
		const env = createOperationsEnv(
			{
				writeFile: async (p, c) => void calls.push(`write ${p} ${c}`),
				mkdir: async (d) => void calls.push(`mkdir ${d}`),
			},
			{ cwd: "/w" },
		);
		const bad = await env.writeFile("x.bin", new Uint8Array([0xff, 0xfe]));
		expect(!bad.ok && bad.error.code).toBe("invalid_argument");
		expect(calls).toEqual([]);
		expect((await env.writeFile("sub/x.txt", "hi")).ok).toBe(true);
		expect(calls).toEqual(["mkdir /w/sub", "write /w/sub/x.txt hi"]);
	});

	it("fails a method the operations do not cover, naming it, unless a fallback is given", async () => {
		const bare = createOperationsEnv({}, { cwd: "/w" });
		const listed = await bare.listDir(".");
		expect(!listed.ok && listed.error.message).toContain("listDir");
		const ran = await bare.exec("echo hi");
		expect(!ran.ok && ran.error.code).toBe("spawn_error");
		const fallback = new MemoryExecutionEnv({ cwd: "/w", files: { "/w/f.txt": "x" } });
		const withFallback = createOperationsEnv({}, { cwd: "/w", fallback });
		const entries = await withFallback.listDir(".");
		expect(entries.ok && entries.value.map((e) => e.name)).toEqual(["f.txt"]);
	});

	it("runs exec through the operations, streaming onData, mapping the reference's timeout and abort", async () => {
		const env = createOperationsEnv(
			{
				exec: async (command, cwd, { onData }) => {
					if (command === "slow") throw new Error("timeout:2");
					if (command === "stop") throw new Error("aborted");
					onData(new TextEncoder().encode(`${command} in ${cwd}`));
					return { exitCode: null };
				},
			},
			{ cwd: "/w" },
		);
		const ran = await env.exec("go", { cwd: "sub" });
		expect(ran.ok && ran.value).toMatchObject({ exitCode: 137, stdout: "go in /w/sub" });
		const slow = await env.exec("slow", { timeout: 2 });
		expect(!slow.ok && slow.error.code).toBe("timeout");
		const stop = await env.exec("stop");
		expect(!stop.ok && stop.error.code).toBe("aborted");
	});
});

/** A fake remote: files in a Map, every callback a few macrotasks late (so unqueued edits race). */
function fakeRemote(files: Map<string, string>) {
	const later = () => new Promise<void>((resolve) => setTimeout(resolve, Math.floor(Math.random() * 3)));
	return {
		readFile: async (p: string) => {
			await later();
			const text = files.get(p);
			if (text === undefined) throw enoent(p);
			return new TextEncoder().encode(text);
		},
		access: async (p: string) => {
			await later();
			if (!files.has(p)) throw enoent(p);
		},
		writeFile: async (p: string, content: string) => {
			await later();
			files.set(p, content);
		},
	};
}

describe("createOperationsEnv and the mutation queue", () => {
	const lines = Array.from({ length: 50 }, (_, i) => `line ${i} old`);
	const edited = `${lines.map((_, i) => `line ${i} new`).join("\n")}\n`;

	async function editAll(envs: readonly ExecutionEnv[]): Promise<void> {
		const results = await Promise.all(
			lines.map((line, i) =>
				edit.execute(
					`c${i}`,
					{ path: "a.txt", edits: [{ oldText: line, newText: `line ${i} new` }] },
					undefined,
					undefined,
					contextFor(envs[i % envs.length] as ExecutionEnv),
				),
			),
		);
		expect(results).toHaveLength(50);
	}

	it("loses no edit of 50 concurrent ones through two envs built from one operations object", async () => {
		const files = new Map([["/w/a.txt", `${lines.join("\n")}\n`]]);
		const operations = fakeRemote(files);
		await editAll([createOperationsEnv(operations, { cwd: "/w" }), createOperationsEnv(operations, { cwd: "/w" })]);
		expect(files.get("/w/a.txt")).toBe(edited);
	});

	it("keeps envs built from different operations objects out of each other's queue", async () => {
		const files = new Map([["/w/a.txt", "x\n"]]);
		const one = createOperationsEnv(fakeRemote(files), { cwd: "/w" });
		const two = createOperationsEnv(fakeRemote(files), { cwd: "/w" });
		let started!: () => void;
		const running = new Promise<void>((resolve) => (started = resolve));
		let release!: () => void;
		const held = withFileMutationQueue(
			one,
			"a.txt",
			() =>
				new Promise<void>((resolve) => {
					release = resolve;
					started();
				}),
		);
		await running;
		// The second runs although the first still holds a.txt: different scopes.
		let ran = false;
		await withFileMutationQueue(two, "a.txt", async () => {
			ran = true;
		});
		expect(ran).toBe(true);
		release();
		await held;
	});

	it("queues even when the fallback env throws from canonicalPath (write-only operations)", async () => {
		const files = new Map<string, string>();
		const throwing = new Proxy(new MemoryExecutionEnv({ cwd: "/w" }), {
			get(target, key, receiver) {
				if (key === "canonicalPath") {
					return () => {
						throw new Error("no canonicalPath here");
					};
				}
				const value = Reflect.get(target, key, receiver);
				return typeof value === "function" ? value.bind(target) : value;
			},
		});
		const env = createOperationsEnv(
			{ writeFile: fakeRemote(files).writeFile, mkdir: async () => undefined },
			{ cwd: "/w", fallback: throwing },
		);
		const result = await createWriteTool().execute(
			"w",
			{ path: "a.txt", content: "hi" },
			undefined,
			undefined,
			contextFor(env),
		);
		expect(result.content).toEqual([{ type: "text", text: expect.stringContaining("a.txt") }]);
		expect(files.get("/w/a.txt")).toBe("hi");
	});
});

describe("createOperationsEnv from ls, find and grep operations", () => {
	const folders = new Set(["/w", "/w/sub"]);
	const files = new Map([
		["/w/a.txt", "alpha"],
		["/w/sub/b.txt", "beta"],
	]);
	const isDirectory = (p: string) => {
		if (folders.has(p)) return true;
		if (files.has(p)) return false;
		throw enoent(p);
	};

	it("tells folders from files with stat or isDirectory, and missing paths apart", async () => {
		for (const env of [
			createOperationsEnv({ stat: (p) => ({ isDirectory: () => isDirectory(p) }) }, { cwd: "/w" }),
			createOperationsEnv({ isDirectory }, { cwd: "/w" }),
		]) {
			expect(await env.fileInfo("sub")).toEqual({ ok: true, value: { kind: "directory", size: 0, mtimeMs: 0 } });
			expect((await env.fileInfo("a.txt")).ok && "file").toBe("file");
			const missing = await env.fileInfo("nope");
			expect(!missing.ok && missing.error.code).toBe("not_found");
			expect(await env.exists("a.txt")).toBe(true);
			expect(await env.exists("nope")).toBe(false);
		}
	});

	it("a file's size comes from readFile when there is one; exists() false is not_found", async () => {
		const env = createOperationsEnv(
			{ exists: (p) => p !== "/w/gone", isDirectory, readFile: async (p) => files.get(p) ?? "" },
			{ cwd: "/w" },
		);
		expect(await env.fileInfo("a.txt")).toEqual({ ok: true, value: { kind: "file", size: 5, mtimeMs: 0 } });
		const gone = await env.fileInfo("gone");
		expect(!gone.ok && gone.error.code).toBe("not_found");
	});

	it("lists with readdir, kinds from stat; entries that cannot be stat'ed are left out", async () => {
		const env = createOperationsEnv(
			{
				readdir: (p) => (p === "/w" ? ["a.txt", "sub", "vanished"] : []),
				stat: (p) => ({ isDirectory: () => isDirectory(p) }),
			},
			{ cwd: "/w" },
		);
		expect(await env.listDir(".")).toEqual({
			ok: true,
			value: [
				{ name: "a.txt", kind: "file" },
				{ name: "sub", kind: "directory" },
			],
		});
	});

	it("a readdir that returns something else than entry names is an io_error naming it", async () => {
		for (const bad of [["ok", "a/b"], [".."], [42], "a.txt"] as unknown[]) {
			const env = createOperationsEnv({ readdir: () => bad as string[] }, { cwd: "/w" });
			const listed = await env.listDir(".");
			expect(!listed.ok && listed.error.code).toBe("io_error");
			expect(!listed.ok && listed.error.message).toContain("readdir returned");
		}
		const throwing = createOperationsEnv({ readdir: () => Promise.reject(enoent("/w")) }, { cwd: "/w" });
		const listed = await throwing.listDir(".");
		expect(!listed.ok && listed.error.code).toBe("not_found");
	});

	it("findFiles asks glob with the reference's ignore list, relativizes, sorts and reports the limit", async () => {
		const asked: unknown[] = [];
		const env = createOperationsEnv(
			{
				exists: (p) => folders.has(p),
				glob: (pattern, cwd, options) => {
					asked.push([pattern, cwd, options]);
					return ["/w/sub/b.txt", "a.txt", "./c.txt", "C:\\w\\x"].slice(0, options.limit);
				},
			},
			{ cwd: "/w" },
		);
		expect(env.findFiles).toBeTypeOf("function");
		const found = await env.findFiles?.({ path: ".", pattern: "*.txt", limit: 3 });
		expect(found).toEqual({ ok: true, value: { paths: ["a.txt", "c.txt", "sub/b.txt"], limitReached: true } });
		expect(asked).toEqual([["*.txt", "/w", { ignore: ["**/node_modules/**", "**/.git/**"], limit: 3 }]]);
		const missing = await env.findFiles?.({ path: "nope", pattern: "*", limit: 3 });
		expect(!missing?.ok && missing?.error.code).toBe("not_found");
		const badLimit = await env.findFiles?.({ path: ".", pattern: "*", limit: 0 });
		expect(!badLimit?.ok && badLimit?.error.code).toBe("invalid_argument");
	});

	it("a glob that throws or returns no list of paths is an error result, never a throw", async () => {
		for (const glob of [
			() => {
				throw new Error("remote down");
			},
			() => [1, 2] as unknown as string[],
			() => null as unknown as string[],
		]) {
			const env = createOperationsEnv({ glob }, { cwd: "/w" });
			const found = await env.findFiles?.({ path: ".", pattern: "*", limit: 5 });
			expect(found?.ok).toBe(false);
		}
		expect(createOperationsEnv({ readFile: async () => "" }, { cwd: "/w" }).findFiles).toBeUndefined();
	});
});
