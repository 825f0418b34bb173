/**
 * Names that are not valid UTF-8 (the env's string paths cannot reach them) are left out and
 * counted, the same by the rg/fd fast path and the walker; and a path policy says why a path
 * cannot be resolved (a loop, a name too long) instead of calling it outside the roots.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { createFindTool } from "../../../src/tools/find.js";
import { createGrepTool } from "../../../src/tools/grep.js";
import { contextFor, textOf } from "../../unit/tools/_env.js";

describe("names that are not valid UTF-8", () => {
	let root: string;
	beforeAll(() => {
		root = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-names-")));
		const bad = Buffer.concat([Buffer.from(`${root}/bad`), Buffer.from([0xff])]);
		mkdirSync(bad);
		writeFileSync(Buffer.concat([bad, Buffer.from("/f.txt")]), "needle\n");
		writeFileSync(Buffer.concat([Buffer.from(`${root}/file`), Buffer.from([0xfe]), Buffer.from(".txt")]), "needle\n");
		writeFileSync(join(root, "ok.txt"), "needle\n");
	});
	afterAll(() => rmSync(root, { recursive: true, force: true }));

	it("are left out and counted, with the same output through the fast path and the walker", async () => {
		const outputs = [];
		for (const searchBinaries of [true, false]) {
			const ctx = contextFor(new NodeExecutionEnv({ cwd: root, searchBinaries }));
			const found = await createFindTool().execute("id", { pattern: "*.txt" }, undefined, undefined, ctx);
			const grepped = await createGrepTool().execute("id", { pattern: "needle" }, undefined, undefined, ctx);
			outputs.push({ found: textOf(found), grepped: textOf(grepped), details: [found.details, grepped.details] });
		}
		expect(outputs[0]).toEqual({
			found: "ok.txt\n\n[2 files or folders were not listed: their names are not valid UTF-8]",
			grepped: "ok.txt:1: needle\n\n[2 files or folders were not searched: their names are not valid UTF-8]",
			details: [{ skippedNames: 2 }, { skippedNames: 2 }],
		});
		expect(outputs[1]).toEqual(outputs[0]);
	});
});

describe("a path policy names the real reason a path cannot be resolved", () => {
	let root: string;
	beforeAll(() => {
		root = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-policy-reason-")));
		symlinkSync("loop", join(root, "loop"));
	});
	afterAll(() => rmSync(root, { recursive: true, force: true }));

	it("a symlink loop is symlink_loop and an over-long name invalid_path, on disk and in memory", async () => {
		const env = new NodeExecutionEnv({ cwd: root, policy: { read: [root] } });
		const loop = await env.fileInfo(join(root, "loop"));
		expect(loop.ok ? undefined : loop.error.code).toBe("symlink_loop");
		const long = await env.fileInfo(join(root, "x".repeat(300)));
		expect(long.ok ? undefined : long.error.code).toBe("invalid_path");
		expect(long.ok ? "" : long.error.message).toMatch(/longer than the system allows/);
		const memory = new MemoryExecutionEnv({ cwd: "/w", symlinks: { "/w/loop": "/w/loop" }, policy: { read: ["/w"] } });
		const inMemory = await memory.fileInfo("/w/loop");
		expect(inMemory.ok ? undefined : inMemory.error.code).toBe("symlink_loop");
	});

	it("a policy without roots says it allows nothing, not 'under no folder'", async () => {
		const env = new NodeExecutionEnv({ cwd: root, policy: { read: [root], write: [] } });
		const written = await env.writeFile(join(root, "a.txt"), "x");
		expect(written.ok ? "" : written.error.message).toMatch(/allows no writing \(it has no write roots\)/);
		expect(written.ok ? "" : written.error.message).not.toMatch(/no folder/);
	});
});
