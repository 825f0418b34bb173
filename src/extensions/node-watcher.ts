/**
 * Watching the files a set of extensions is made of, with chokidar (loaded on first use, so a host
 * that does not watch never pays for it). Node-only.
 *
 * Folders are watched rather than single files: an editor that saves by writing a temp file and
 * renaming it over the original replaces the file's inode, and a folder watch sees that as a change
 * of the name we care about. Each folder gets its own chokidar watcher (so each has a "ready" and
 * unwatching is closing it), all sharing one debounce: the folders that hold the extensions'
 * modules are watched for their direct entries, the folders given as extension paths one level
 * deep, so a new package folder and the files written into it are seen.
 * `node_modules` and dot-entries below a watched folder are never watched.
 */
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { notifyListeners } from "../shared/listeners.js";

/** What happened to a path, as the last event in a debounce window says. */
export type FileChangeKind = "add" | "change" | "unlink" | "addDir" | "unlinkDir";

/**
 * Receives the changes of one debounce window: path → the last kind seen for it. May throw or
 * reject: the error goes to `onError` and watching goes on.
 */
export type FileChangeListener = (changes: ReadonlyMap<string, FileChangeKind>) => void | Promise<void>;

export interface FileWatcherOptions {
	/** Quiet time after the last event before the batch is delivered, in milliseconds. Default 10. */
	readonly debounceMs?: number;
	/** A batch is delivered at the latest this long after its first event, even under constant churn. Default 10× `debounceMs`, at least 200. */
	readonly maxWaitMs?: number;
	readonly onChange: FileChangeListener;
	/** Watcher errors (a folder that cannot be read, too many watches) and listener failures. May throw: swallowed. */
	readonly onError?: (error: Error) => void;
}

export interface WatchTargets {
	/** Folders whose direct entries matter (the folders holding the modules that were loaded). */
	readonly dirs: Iterable<string>;
	/** Folders whose entries and whose sub-folders' entries matter (folders given as extension paths). */
	readonly roots: Iterable<string>;
}

export interface FileWatcher {
	/** Watch exactly these targets from now on (folders no longer listed are unwatched). */
	update(targets: WatchTargets): void;
	/** Resolves once chokidar has scanned every folder watched so far, so later changes are seen. */
	ready(): Promise<void>;
	/** The folders watched now, sorted. */
	watched(): string[];
	/** Stops watching; pending changes are dropped. Idempotent; never rejects. */
	close(): Promise<void>;
}

/** Milliseconds the watcher waits after the last change of a burst before it delivers the batch of changed paths. */
export const DEFAULT_DEBOUNCE_MS = 10;

type ChokidarWatcher = import("chokidar").FSWatcher;

function isIgnoredEntry(path: string): boolean {
	const name = basename(path);
	return name === "node_modules" || name.startsWith(".");
}

/**
 * Start watching. Nothing is watched until `update` names the targets. Rejects only when chokidar
 * cannot be loaded.
 */
export async function createFileWatcher(options: FileWatcherOptions): Promise<FileWatcher> {
	const { watch } = await import("chokidar");
	const debounceMs = Math.max(0, options.debounceMs ?? DEFAULT_DEBOUNCE_MS);
	const maxWaitMs = Math.max(debounceMs, options.maxWaitMs ?? Math.max(200, debounceMs * 10));
	const fail = (error: unknown): void =>
		notifyListeners([options.onError], error instanceof Error ? error : new Error(String(error)));

	let pending = new Map<string, FileChangeKind>();
	let timer: NodeJS.Timeout | undefined;
	let firstEventAt = 0;
	let closed = false;
	const flush = (): void => {
		timer = undefined;
		if (closed || pending.size === 0) return;
		const batch = pending;
		pending = new Map();
		try {
			Promise.resolve(options.onChange(batch)).catch(fail);
		} catch (error) {
			fail(error);
		}
	};
	const onEvent = (kind: FileChangeKind, path: string, weak = false): void => {
		if (closed) return;
		const now = performance.now();
		if (pending.size === 0) firstEventAt = now;
		// A raw notification only says "something happened here": it never hides what chokidar said.
		if (!weak || !pending.has(path)) pending.set(path, kind);
		if (timer) clearTimeout(timer);
		const wait = Math.max(0, Math.min(debounceMs, firstEventAt + maxWaitMs - now));
		timer = setTimeout(flush, wait);
	};

	// chokidar drops a change whose mtime equals the previous one, which happens when two saves
	// land within one tick of a coarse file-system clock; the raw notifications still arrive, so
	// they count as a change of a file that exists (whether its content changed is the listener's
	// question). A vanished file is left to chokidar, whose unlink waits for an atomic re-create.
	const onRaw = (path: string): void => onEvent("change", path, true);

	/** One chokidar watcher per watched folder: each has its own "ready", and unwatching is closing it. */
	const watchers = new Map<string, { readonly watcher: ChokidarWatcher; readonly ready: Promise<void> }>();
	const start = (dir: string, depth: number): void => {
		const watcher = watch(dir, {
			ignoreInitial: true,
			depth,
			ignored: (path: string) => path !== dir && isIgnoredEntry(path),
		});
		for (const kind of ["add", "change", "unlink", "addDir", "unlinkDir"] as const) {
			watcher.on(kind, (path: string) => onEvent(kind, path));
		}
		watcher.on("error", fail);
		watcher.on("raw", (_event, name, details) => {
			const watched = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
			if (typeof name !== "string" || name === "" || typeof watched !== "string") return;
			// A folder watcher names an entry of the folder; a file watcher names the file itself.
			const entry = join(watched, name);
			const path = existsSync(entry) ? entry : basename(watched) === name && existsSync(watched) ? watched : undefined;
			if (path !== undefined && path !== dir && !isIgnoredEntry(path)) onRaw(path);
		});
		const ready = new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
		watchers.set(`${depth}:${dir}`, { watcher, ready });
	};

	return {
		update(targets) {
			if (closed) return;
			const roots = new Set(targets.roots);
			// A folder a root already covers (itself or one of its sub-folders) needs no second watch.
			const covered = (dir: string) => roots.has(dir) || roots.has(dirname(dir));
			const wanted = new Set([
				...[...roots].map((root) => `1:${root}`),
				...[...targets.dirs].filter((dir) => !covered(dir)).map((dir) => `0:${dir}`),
			]);
			for (const [key, entry] of watchers) {
				if (wanted.has(key)) continue;
				watchers.delete(key);
				entry.watcher.close().catch(fail);
			}
			for (const key of wanted) {
				if (watchers.has(key)) continue;
				const colon = key.indexOf(":");
				start(key.slice(colon + 1), Number(key.slice(0, colon)));
			}
		},
		async ready() {
			await Promise.all([...watchers.values()].map((entry) => entry.ready));
		},
		watched() {
			return [...watchers.keys()].map((key) => key.slice(key.indexOf(":") + 1)).sort();
		},
		async close() {
			if (closed) return;
			closed = true;
			if (timer) clearTimeout(timer);
			pending.clear();
			const closing = [...watchers.values()].map((entry) => entry.watcher.close());
			watchers.clear();
			await Promise.all(closing).catch(fail);
		},
	};
}
