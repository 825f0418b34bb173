/**
 * How the Node env reads the files of a search: a regular file whole, anything else (a FIFO
 * swapped in, a symlink, a folder, a missing file) as unreadable at once, never waited on.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LARGE_SEARCH_FILE, readSearchFile } from "../../../src/env/_node-search-read.js";
import type { LargeSearchFile } from "../../../src/env/grep.js";

describe("readSearchFile", () => {
	let root: string;
	beforeAll(() => {
		root = mkdtempSync(join(tmpdir(), "toolsmith-search-read-"));
	});
	afterAll(() => rmSync(root, { recursive: true, force: true }));

	it("reads a regular file whole, of any size", async () => {
		for (const size of [0, 1, 65_535, 65_536, LARGE_SEARCH_FILE, LARGE_SEARCH_FILE + 1, 700_001]) {
			const bytes = Buffer.alloc(size, 0x61);
			if (size > 0) bytes[size - 1] = 0x0a;
			const path = join(root, `f${size}`);
			writeFileSync(path, bytes);
			const read = await readSearchFile(path);
			if (size > LARGE_SEARCH_FILE) {
				// A large file comes as pieces of at most LARGE_SEARCH_FILE bytes, read on demand.
				expect(read).not.toBeInstanceOf(Uint8Array);
				const pieces: Buffer[] = [];
				for await (const piece of (read as LargeSearchFile).chunks()) pieces.push(Buffer.from(piece));
				expect(pieces.length).toBeGreaterThan(1);
				expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(LARGE_SEARCH_FILE);
				expect(Buffer.concat(pieces)).toEqual(bytes);
			} else expect(Buffer.from(read as Uint8Array)).toEqual(bytes);
		}
	});

	it("gives undefined at once for a FIFO, a symlink, a folder and a missing path", async () => {
		const fifo = join(root, "fifo");
		execFileSync("mkfifo", [fifo]);
		writeFileSync(join(root, "target.txt"), "x\n");
		symlinkSync("target.txt", join(root, "link.txt"));
		mkdirSync(join(root, "dir"));
		const started = Date.now();
		for (const name of ["fifo", "link.txt", "dir", "missing"]) {
			expect(await readSearchFile(join(root, name)), name).toBeUndefined();
		}
		expect(Date.now() - started).toBeLessThan(1000);
	});
});
