/** The file watcher under the host: debounce, coalescing, what it never reports, and close. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileWatcher, type FileChangeKind, type FileWatcher } from "../../../src/extensions/node-watcher.js";
import { tempDir, write } from "./_helpers.js";

let dir: string;
let cleanup: () => void;
let watcher: FileWatcher | undefined;
let batches: Map<string, FileChangeKind>[];
let waiters: { match: (batch: Map<string, FileChangeKind>) => boolean; resolve: () => void }[];

beforeEach(() => {
	({ dir, cleanup } = tempDir("watcher"));
	batches = [];
	waiters = [];
});

afterEach(async () => {
	await watcher?.close();
	watcher = undefined;
	cleanup();
});

async function start(targets: { dirs?: string[]; roots?: string[] }, debounceMs = 10): Promise<FileWatcher> {
	watcher = await createFileWatcher({
		debounceMs,
		onChange: (changes) => {
			const batch = new Map(changes);
			batches.push(batch);
			for (const waiter of [...waiters]) {
				if (waiter.match(batch)) {
					waiters.splice(waiters.indexOf(waiter), 1);
					waiter.resolve();
				}
			}
		},
	});
	watcher.update({ dirs: targets.dirs ?? [], roots: targets.roots ?? [] });
	await watcher.ready();
	return watcher;
}

/** Resolves when a batch naming `path` arrives (or already did). */
function batchWith(path: string): Promise<void> {
	if (batches.some((batch) => batch.has(path))) return Promise.resolve();
	return new Promise((resolve, reject) => {
		const timer = setTimeout(
			() => reject(new Error(`no batch with ${path}; got ${JSON.stringify(batches.map((b) => [...b]))}`)),
			15_000,
		);
		waiters.push({
			match: (batch) => batch.has(path),
			resolve: () => {
				clearTimeout(timer);
				resolve();
			},
		});
	});
}

describe("createFileWatcher", () => {
	it("delivers a burst of writes as one batch", async () => {
		const file = join(dir, "a.ts");
		write(file, "0");
		await start({ dirs: [dir] });
		const seen = batchWith(file);
		for (let i = 1; i <= 20; i++) writeFileSync(file, String(i));
		await seen;
		expect(batches).toEqual([new Map([[file, "change"]])]);
	});

	it("never reports node_modules or dot-entries of a watched folder", async () => {
		write(join(dir, "node_modules", "pkg", "index.js"), "0");
		write(join(dir, "a.ts"), "0");
		await start({ roots: [dir] });
		writeFileSync(join(dir, "node_modules", "pkg", "index.js"), "1");
		write(join(dir, "node_modules", "new.js"), "1");
		write(join(dir, ".hidden.ts"), "1");
		writeFileSync(join(dir, "a.ts"), "1");
		await batchWith(join(dir, "a.ts"));
		const reported = batches.flatMap((batch) => [...batch.keys()]);
		expect(reported).toEqual([join(dir, "a.ts")]);
	});

	it("sees files written into a new sub-folder of a root", async () => {
		await start({ roots: [dir] });
		mkdirSync(join(dir, "pkg"));
		const index = join(dir, "pkg", "index.ts");
		const seen = batchWith(index);
		writeFileSync(index, "export default () => {};\n");
		await seen;
		expect(batches.some((batch) => batch.get(join(dir, "pkg")) === "addDir")).toBe(true);
	});

	it("stops watching folders it no longer names, and everything on close", async () => {
		const a = join(dir, "a");
		const b = join(dir, "b");
		write(join(a, "x.ts"), "0");
		write(join(b, "y.ts"), "0");
		const w = await start({ dirs: [a, b] });
		expect(w.watched()).toEqual([a, b]);
		w.update({ dirs: [b], roots: [] });
		expect(w.watched()).toEqual([b]);
		writeFileSync(join(a, "x.ts"), "1");
		writeFileSync(join(b, "y.ts"), "1");
		await batchWith(join(b, "y.ts"));
		expect(batches.flatMap((batch) => [...batch.keys()])).toEqual([join(b, "y.ts")]);
		await w.close();
		await w.close();
		expect(w.watched()).toEqual([]);
	});
});
