/** Change routing: which extensions a batch of file changes or a reload request concerns, and what the host does about each. */
import { basename as posixBasename, dirname as posixDirname } from "../env/path.js";

/** What happened to a path, as the watcher reports it. */
export type ChangeKind = "add" | "change" | "unlink" | "addDir" | "unlinkDir";

/** What the host knows of one extension entry (loaded or not). */
export interface KnownFiles {
	/** The extension's folder: its package root, or the folder of its file. */
	readonly root: string;
	/** The files it is made of: the active version's modules and those of the last attempt. */
	readonly modules: readonly string[];
	/** The folder from the host's paths it was found in; undefined when a path named it directly. */
	readonly origin: string | undefined;
	/** The last attempt to load it failed. */
	readonly failed: boolean;
}

/** Path arithmetic on the host's paths (absolute and normalized): `node:path` on a host, POSIX by default. */
export interface PathOps {
	readonly sep: string;
	dirname(path: string): string;
	basename(path: string): string;
}

/** Everything routing looks at: the host's paths and what it knows of each extension. */
export interface HostFiles {
	/** The known extensions by entry file (absolute), in load order. */
	readonly extensions: ReadonlyMap<string, KnownFiles>;
	/** Folders given as extension paths: rediscovered when an entry in them (or one level down) comes or goes. */
	readonly roots: readonly string[];
	/** Files given as extension paths: followed even while missing. */
	readonly files: readonly string[];
	readonly path?: PathOps;
}

/** One thing for the host to do. */
export type RouteAction =
	/** Rediscover the folder `root`: load what is new, unload what is gone, reload what changed kind (with `force`, reload every extension found). */
	| { readonly kind: "rediscover"; readonly root: string; readonly force: boolean }
	/**
	 * Bring the extension whose entry is `path` in line with the disk: unload it when the entry is
	 * gone, else (re)load it. `files` are the changed files that concern it; without `force` a
	 * version already imported is not imported again.
	 */
	| {
			readonly kind: "sync";
			readonly path: string;
			readonly files: readonly string[];
			readonly force: boolean;
	  };

const POSIX: PathOps = { sep: "/", dirname: posixDirname, basename: posixBasename };

/** The entries whose entry file is `file` or whose modules include it, in load order. */
export function importersOf(file: string, extensions: HostFiles["extensions"]): string[] {
	const found: string[] = [];
	for (const [path, entry] of extensions) if (path === file || entry.modules.includes(file)) found.push(path);
	return found;
}

/**
 * What one debounce window of file changes asks for: the folders to rediscover first, then the
 * extensions to bring in line with the disk, in the order the changes name them.
 *
 * - A changed file concerns every extension made of it, and a file given as a path itself.
 * - A file that appears near a failed extension (inside its folder, or next to one of its modules)
 *   may be the module its import could not find: that extension tries again (`force`).
 * - An entry that comes or goes in a given folder, or in a folder right inside it, and any change of
 *   a `package.json` there, has the folder rediscovered.
 */
export function routeChanges(changes: ReadonlyMap<string, ChangeKind>, host: HostFiles): RouteAction[] {
	const { sep, dirname, basename } = host.path ?? POSIX;
	const toSync = new Map<string, Set<string>>();
	const toScan = new Set<string>();
	const retry = new Set<string>();
	const mark = (path: string, file: string) => {
		const set = toSync.get(path) ?? new Set<string>();
		set.add(file);
		toSync.set(path, set);
	};
	for (const [file, kind] of changes) {
		for (const path of importersOf(file, host.extensions)) mark(path, file);
		if (kind === "add") {
			// A failed import does not list the module it could not find: a file appearing next to
			// the modules of a failed extension may be that one, so the extension tries again.
			for (const [path, entry] of host.extensions) {
				const near =
					file.startsWith(entry.root + sep) || entry.modules.some((module) => dirname(module) === dirname(file));
				if (entry.failed && near) {
					mark(path, file);
					retry.add(path);
				}
			}
		}
		if (host.files.includes(file)) mark(file, file);
		for (const root of host.roots) {
			const inside = dirname(file) === root || dirname(dirname(file)) === root;
			if (inside && (kind !== "change" || basename(file) === "package.json")) toScan.add(root);
		}
	}
	const actions: RouteAction[] = [];
	for (const root of toScan) actions.push({ kind: "rediscover", root, force: false });
	for (const [path, files] of toSync) actions.push({ kind: "sync", path, files: [...files], force: retry.has(path) });
	return actions;
}

/**
 * What a manual reload of `target` (absolute, real path) asks for, everything forced: the folder
 * when it is a given folder, else every extension made of it (or the given file it is); undefined
 * when it is none of those. Without `target`: every given folder, every extension a path named
 * directly, and every given file not loaded.
 */
export function routeReload(target: string | undefined, host: HostFiles): RouteAction[] | undefined {
	const sync = (path: string): RouteAction => ({ kind: "sync", path, files: [], force: true });
	if (target === undefined) {
		const actions: RouteAction[] = host.roots.map((root) => ({ kind: "rediscover", root, force: true }));
		for (const [path, entry] of host.extensions) if (entry.origin === undefined) actions.push(sync(path));
		for (const file of host.files) if (!host.extensions.has(file)) actions.push(sync(file));
		return actions;
	}
	if (host.roots.includes(target)) return [{ kind: "rediscover", root: target, force: true }];
	const importers = importersOf(target, host.extensions);
	if (importers.length === 0 && host.files.includes(target)) importers.push(target);
	if (importers.length === 0) return undefined;
	return importers.map(sync);
}
