/**
 * The Node env's search reader on worker threads (Node only). A search reads thousands of small
 * files; on the main thread each one costs an open, a stat, a read and a close through libuv,
 * which is most of a search's time. Here a few workers (one per core, at most two) read the
 * files with plain system calls, skip the binary ones (a NUL byte anywhere) and run the file
 * filter (`fileFilter`) over each text; only a file that may hold a match comes back, its bytes
 * moved, not copied. The main thread walks the tree meanwhile and matches what comes back.
 *
 * The pool is made on first use and kept for the process (an idle worker never keeps the process
 * alive). A worker that fails is replaced on the next search; the files it held are read on the
 * main thread instead.
 */
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { LARGE_SEARCH_FILE, largeSearchFile, readSearchFile } from "./_node-search-read.js";
import type { FileFilter, LargeSearchFile, SearchReader } from "./grep.js";

/**
 * The workers' code (CommonJS, run with `eval`, so the bundle needs no file of its own). A file is
 * opened without following a symlink and without blocking, checked to be a regular file, and read
 * whole; what comes back for each path: its bytes (a match may be in it), null, or the size limit
 * itself for a file larger than it (the main thread reads that one in pieces).
 */
const workerSource = (re2: string) => `
const { parentPort } = require("node:worker_threads");
const { RE2JS } = require(${JSON.stringify(re2)});
const fs = require("node:fs");
const FLAGS = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | (fs.constants.O_NOFOLLOW || 0);
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const LARGE = ${LARGE_SEARCH_FILE};
let compiled = { key: "", test: undefined };
function readWhole(path) {
	let fd;
	try {
		fd = fs.openSync(path, FLAGS);
	} catch {
		return null;
	}
	try {
		const stats = fs.fstatSync(fd);
		if (!stats.isFile()) return null;
		if (stats.size > LARGE) return LARGE;
		let buffer = Buffer.allocUnsafeSlow(stats.size + 1);
		let filled = 0;
		for (;;) {
			if (filled === buffer.length) {
				const grown = Buffer.allocUnsafeSlow(buffer.length * 2);
				buffer.copy(grown, 0, 0, filled);
				buffer = grown;
			}
			const count = fs.readSync(fd, buffer, filled, buffer.length - filled, filled);
			if (count === 0) break;
			filled += count;
		}
		return buffer.subarray(0, filled);
	} catch {
		return null;
	} finally {
		fs.closeSync(fd);
	}
}
// The file filter of grep.ts (fileFilter): the pattern in multiline mode on RE2, and a text
// holding a carriage return never skipped when the pattern has a dollar sign.
function filterOf(source, flags) {
	if (source === null) return undefined;
	const regex = RE2JS.compile(source, flags | RE2JS.MULTILINE);
	const dollar = source.includes("$");
	return (text) => (dollar && text.includes("\\r")) || regex.test(text);
}
parentPort.on("message", ({ id, paths, source, flags }) => {
	const key = source === null ? "" : flags + "/" + source;
	if (compiled.key !== key) compiled = { key, test: filterOf(source, flags) };
	const results = [];
	const transfer = [];
	for (const path of paths) {
		const bytes = readWhole(path);
		if (bytes === LARGE) {
			results.push(LARGE);
			continue;
		}
		if (bytes === null || bytes.indexOf(0) !== -1 || (compiled.test && !compiled.test(decoder.decode(bytes)))) {
			results.push(null);
			continue;
		}
		const own = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
		results.push(own);
		transfer.push(own.buffer);
	}
	parentPort.postMessage({ id, results }, transfer);
});
`;

/** Paths sent to a worker in one message. */
const BATCH = 64;

interface Pending {
	readonly paths: string[];
	readonly resolve: ((bytes: Uint8Array | LargeSearchFile | undefined) => void)[];
}

class SearchWorker {
	private readonly worker: Worker;
	private readonly waiting = new Map<number, Pending>();
	private nextId = 0;
	broken = false;

	constructor(onBroken: () => void) {
		this.worker = new Worker(workerSource(createRequire(import.meta.url).resolve("re2js")), { eval: true });
		this.worker.on("message", (message: { id: number; results: (Uint8Array | number | null)[] }) => {
			const pending = this.waiting.get(message.id);
			if (!pending) return;
			this.waiting.delete(message.id);
			if (this.waiting.size === 0) this.worker.unref();
			pending.resolve.forEach((resolve, i) => {
				const result = message.results[i];
				if (typeof result === "number") resolve(largeSearchFile(pending.paths[i] as string));
				else resolve(result ?? undefined);
			});
		});
		const fail = () => {
			if (this.broken) return;
			this.broken = true;
			onBroken();
			// What it held is read here instead, so no search loses a file.
			for (const pending of this.waiting.values()) {
				pending.paths.forEach((path, i) => {
					readSearchFile(path).then(pending.resolve[i]);
				});
			}
			this.waiting.clear();
		};
		this.worker.on("error", fail);
		this.worker.on("exit", fail);
		// Idle until it is sent work (after the listeners: adding one refs the worker's port again).
		this.worker.unref();
	}

	get load(): number {
		return this.waiting.size;
	}

	stop(): Promise<number> {
		return this.worker.terminate();
	}

	send(batch: Pending, source: string | null, flags: number): void {
		const id = this.nextId++;
		// Held while it has work, so a search that waits on it keeps the process alive; idle, it does not.
		if (this.waiting.size === 0) this.worker.ref();
		this.waiting.set(id, batch);
		this.worker.postMessage({ id, paths: batch.paths, source, flags });
	}
}

let pool: SearchWorker[] | undefined;

function workers(): SearchWorker[] {
	if (!pool || pool.some((worker) => worker.broken)) {
		// Each worker costs about 7 MB; two keep a search's memory well inside its 64 MB budget (four
		// measured 57 MB) and already read faster than one main thread can match.
		const size = Math.max(1, Math.min(2, availableParallelism()));
		const made: SearchWorker[] = [];
		for (let i = 0; i < size; i++) {
			made.push(
				new SearchWorker(() => {
					if (pool === made) pool = undefined;
				}),
			);
		}
		pool = made;
	}
	return pool;
}

/**
 * Stop the workers (the next search starts new ones). For tests of a failing worker: the files it
 * held are read on the main thread.
 */
export async function stopSearchWorkers(): Promise<void> {
	const stopping = pool;
	pool = undefined;
	if (stopping) await Promise.all(stopping.map((worker) => worker.stop()));
}

/**
 * A reader for one search whose `read` gives a file's bytes only when `filter` (null: none) may
 * match its text, and undefined for every other file (binary, unreadable, not a regular file, or
 * without a match): for the search they are all files without matches. Reads are sent to the
 * workers in batches, the least busy first.
 */
export function workerSearchReader(
	pattern: { readonly source: string; readonly flags: number },
	filter: FileFilter | undefined,
): SearchReader {
	const source = filter ? pattern.source : null;
	const flags = pattern.flags;
	let queued: Pending | undefined;
	const flush = () => {
		const batch = queued;
		queued = undefined;
		if (!batch) return;
		const all = workers();
		let target = all[0] as SearchWorker;
		for (const worker of all) if (worker.load < target.load) target = worker;
		target.send(batch, source, flags);
	};
	return {
		// At most this many files' bytes wait for the main thread: 32 MB at worst (files up to
		// LARGE_SEARCH_FILE each, every one a candidate).
		parallel: BATCH * 2,
		read(absolutePath) {
			return new Promise((resolve) => {
				if (!queued) {
					queued = { paths: [], resolve: [] };
					setImmediate(flush);
				}
				queued.paths.push(absolutePath);
				queued.resolve.push(resolve);
				if (queued.paths.length >= BATCH) flush();
			});
		},
	};
}
