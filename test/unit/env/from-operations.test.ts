/** createOperationsEnv: env methods map onto the operations, and every failure is a clear Result. */
import { describe, expect, it } from "vitest";
import { createOperationsEnv } from "../../../src/env/from-operations.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";

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
