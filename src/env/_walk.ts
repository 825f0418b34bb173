/**
 * The tree walker behind find and grep: the entries under a folder, through any `FileSystem`,
 * in a fixed order, skipping what ignore files and hidden-name rules exclude, the way ripgrep and
 * fd decide it.
 *
 * Rules (they match `fd` / `rg` defaults, so the Node env's fast path gives the same entries):
 * - `.gitignore` files, and `.git/info/exclude`, count only inside a git repository (a folder with
 *   a `.git` entry, at or above the one they are in) unless `requireGit` is false. Those above the
 *   search root count up to the repository's root; a nested repository stops its parents' ones.
 * - The other ignore files (`.ignore`, and whatever `ignoreFiles` adds) count everywhere, in the
 *   search root's ancestors too.
 * - Which rule wins: `ignoreFiles` (listed later wins) over `.gitignore` over `.git/info/exclude`;
 *   within one kind, the deepest folder's file; within one file, the last matching line
 *   (a `!negation` re-includes).
 * - Entries named `.git` are never yielded; other names starting with `.` only with `hidden`.
 * - Symlinks are yielded as symlinks and not followed, unless `followSymlinks`: then a link to a
 *   folder is walked once per path, and a link back into a folder being walked is skipped.
 * - A folder that cannot be listed (below the root) is skipped silently; an entry whose name is
 *   not valid UTF-8 is reported to `onUnreachable` instead of yielded.
 */
import ignore, { type Ignore } from "ignore";
import type { FileKind, FileSystem } from "../contract/env.js";

/** What `walk` yields: one entry under the root. */
export interface WalkEntry {
	/** The path relative to the walk's root, with `/` separators. */
	readonly path: string;
	/** The absolute path. */
	readonly absolutePath: string;
	/** `file`, `directory` (only with `includeDirs`), `symlink` (not followed) or a special kind. With `followSymlinks`, a link's target's kind. */
	readonly kind: FileKind;
}

/** How `walk` chooses entries. Every field is optional; the defaults are fd's and ripgrep's. */
export interface WalkOptions {
	/** Yield names starting with `.` too (`.git` never). Default false. */
	readonly hidden?: boolean;
	/** Honour `.gitignore` files and `.git/info/exclude`. Default true. */
	readonly gitignore?: boolean;
	/** Honour them only inside a git repository (`rg` / `fd` without `--no-require-git`). Default true. */
	readonly requireGit?: boolean;
	/** Other ignore file names, honoured everywhere; a later name wins over an earlier one. Default `[".ignore"]`. */
	readonly ignoreFiles?: readonly string[];
	/** Read ignore files in the root's ancestors too. Default true. */
	readonly parents?: boolean;
	/** Follow symlinks (loops are skipped). Default false. */
	readonly followSymlinks?: boolean;
	/** Yield folders too (before their contents). Default false. */
	readonly includeDirs?: boolean;
	/** Once aborted, the walk throws `Error("Operation aborted")`. */
	readonly signal?: AbortSignal | undefined;
	/**
	 * Called for each entry whose name is not valid UTF-8 (`DirEntry.notUtf8`): it is not yielded
	 * (and a folder not entered), since no string path reaches it. After the `.git` and hidden rules.
	 */
	readonly onUnreachable?: (path: string) => void;
}

/** The ignore files of one folder. */
interface Level {
	/** Absolute path of the folder. */
	readonly dir: string;
	readonly hasGit: boolean;
	readonly gitignore: Ignore | undefined;
	readonly exclude: Ignore | undefined;
	/** One per `ignoreFiles` name (undefined where the folder has none). */
	readonly custom: readonly (Ignore | undefined)[];
}

/** Compare two strings by Unicode code point (the byte order of their UTF-8), not UTF-16 unit. */
export function compareNames(a: string, b: string): number {
	const n = Math.min(a.length, b.length);
	for (let i = 0; i < n; i++) {
		let x = a.charCodeAt(i);
		let y = b.charCodeAt(i);
		if (x === y) continue;
		if (x >= 0xd800) x = x <= 0xdfff ? x + 0x2000 : x - 0x800;
		if (y >= 0xd800) y = y <= 0xdfff ? y + 0x2000 : y - 0x800;
		return x - y;
	}
	return a.length - b.length;
}

/**
 * The order `walk` yields entries in: relative paths compared segment by segment, each segment
 * by code point (a folder's contents come right after it, `a/b` before `a-c`).
 */
export function comparePaths(a: string, b: string): number {
	const x = a.split("/");
	const y = b.split("/");
	const n = Math.min(x.length, y.length);
	for (let i = 0; i < n; i++) {
		const c = compareNames(x[i] as string, y[i] as string);
		if (c !== 0) return c;
	}
	return x.length - y.length;
}

function join(dir: string, name: string): string {
	return dir === "/" ? `/${name}` : `${dir}/${name}`;
}

function parentOf(dir: string): string | undefined {
	if (dir === "/") return undefined;
	const slash = dir.lastIndexOf("/");
	return slash <= 0 ? "/" : dir.slice(0, slash);
}

function abortError(): Error {
	return new Error("Operation aborted");
}

async function readIgnore(fs: FileSystem, path: string): Promise<Ignore | undefined> {
	const text = await fs.readTextFile(path);
	if (!text.ok) return undefined;
	return ignore({ ignorecase: false, allowRelativePaths: true }).add(text.value);
}

async function levelFor(
	fs: FileSystem,
	dir: string,
	names: ReadonlySet<string> | undefined,
	options: Required<Pick<WalkOptions, "gitignore" | "ignoreFiles">>,
): Promise<Level> {
	const has = async (name: string) => (names ? names.has(name) : fs.exists(join(dir, name)));
	const hasGit = await has(".git");
	const gitignore =
		options.gitignore && (await has(".gitignore")) ? await readIgnore(fs, join(dir, ".gitignore")) : undefined;
	const exclude = options.gitignore && hasGit ? await readIgnore(fs, join(dir, ".git/info/exclude")) : undefined;
	const custom: (Ignore | undefined)[] = [];
	for (const name of options.ignoreFiles)
		custom.push((await has(name)) ? await readIgnore(fs, join(dir, name)) : undefined);
	return { dir, hasGit, gitignore, exclude, custom };
}

interface TestVerdict {
	readonly ignored: boolean;
	readonly unignored: boolean;
}

/**
 * One path against one ignore file's rules alone. `Ignore.test` also applies the verdict of each
 * parent folder under the same rules, and caches every path it saw; but a folder reached by the
 * walk was kept (perhaps re-included by a file that takes precedence), and then, as in `fd` and
 * `rg`, its entries are judged by their own matches only. The rule list does exactly that, with
 * no cache (memory stays bounded). Releases of the package differ in its arguments (`(path, mode)`
 * or `(path, checkUnignored, mode)`); anything else falls back to `test`.
 */
function testOne(ig: Ignore, path: string): TestVerdict {
	// The package's rule list behind `test` (internal, hence the checks).
	const rules = (ig as unknown as { _rules?: { test?: unknown } })._rules;
	const test = rules?.test as ((...args: unknown[]) => TestVerdict) | undefined;
	if (typeof test === "function" && test.length === 2) return test.call(rules, path, "regex");
	if (typeof test === "function" && test.length === 3) return test.call(rules, path, true, "regex");
	return ig.test(path);
}

/** Whether the entry at `absolute` is excluded by the ignore files of `levels` (deepest last). */
function isIgnored(levels: readonly Level[], absolute: string, isDir: boolean, requireGit: boolean): boolean {
	const decide = (pick: (level: Level) => Ignore | undefined, gitOnly: boolean): boolean | undefined => {
		if (gitOnly && requireGit && !levels.some((l) => l.hasGit)) return undefined;
		for (let i = levels.length - 1; i >= 0; i--) {
			const level = levels[i] as Level;
			const ig = pick(level);
			if (ig) {
				const rel = absolute.slice(level.dir === "/" ? 1 : level.dir.length + 1) + (isDir ? "/" : "");
				const result = testOne(ig, rel);
				if (result.ignored) return true;
				if (result.unignored) return false;
			}
			if (gitOnly && level.hasGit) break;
		}
		return undefined;
	};
	const customCount = levels[0]?.custom.length ?? 0;
	for (let k = customCount - 1; k >= 0; k--) {
		const verdict = decide((level) => level.custom[k], false);
		if (verdict !== undefined) return verdict;
	}
	return decide((level) => level.gitignore, true) ?? decide((level) => level.exclude, true) ?? false;
}

/**
 * The entries under `root` (an absolute folder path), depth first, each folder's entries in
 * `compareNames` order, so the whole sequence is in `comparePaths` order. Streams: memory holds
 * one listing per open folder, never the tree. Throws an Error naming `root` when it cannot be
 * listed, and `Error("Operation aborted")` once `signal` fires.
 */
export async function* walk(fs: FileSystem, root: string, options: WalkOptions = {}): AsyncGenerator<WalkEntry> {
	const settings = {
		hidden: options.hidden ?? false,
		gitignore: options.gitignore ?? true,
		requireGit: options.requireGit ?? true,
		ignoreFiles: options.ignoreFiles ?? [".ignore"],
		parents: options.parents ?? true,
		followSymlinks: options.followSymlinks ?? false,
		includeDirs: options.includeDirs ?? false,
	};
	const signal = options.signal;
	if (signal?.aborted) throw abortError();

	// Ancestors' ignore files, outermost first. `.gitignore` above a nested repository's root is
	// cut off by `isIgnored` itself (it stops at the first level with `.git`).
	const levels: Level[] = [];
	if (settings.parents) {
		const ancestors: string[] = [];
		for (let dir = parentOf(root); dir !== undefined; dir = parentOf(dir)) ancestors.unshift(dir);
		for (const dir of ancestors) levels.push(await levelFor(fs, dir, undefined, settings));
	}

	const first = await fs.listDir(root);
	if (!first.ok) throw new Error(`Could not list ${root}: ${first.error.message}`);

	const seen = new Set<string>();
	if (settings.followSymlinks) {
		const canonical = await fs.canonicalPath(root);
		if (canonical.ok) seen.add(canonical.value);
	}

	interface Frame {
		readonly dir: string;
		readonly rel: string;
		readonly entries: { readonly name: string; readonly kind: FileKind; readonly notUtf8?: true }[];
		index: number;
		readonly canonical: string | undefined;
	}
	const sortEntries = <T extends { name: string }>(entries: T[]) =>
		entries.sort((a, b) => compareNames(a.name, b.name));
	const rootNames = new Set(first.value.map((e) => e.name));
	levels.push(await levelFor(fs, root, rootNames, settings));
	const stack: Frame[] = [
		{ dir: root, rel: "", entries: sortEntries([...first.value]), index: 0, canonical: undefined },
	];

	while (stack.length > 0) {
		if (signal?.aborted) throw abortError();
		const frame = stack[stack.length - 1] as Frame;
		const entry = frame.entries[frame.index++];
		if (entry === undefined) {
			stack.pop();
			levels.pop();
			if (frame.canonical !== undefined) seen.delete(frame.canonical);
			continue;
		}
		const { name } = entry;
		if (name === ".git") continue;
		if (!settings.hidden && name.startsWith(".")) continue;
		const absolutePath = join(frame.dir, name);
		const path = frame.rel === "" ? name : `${frame.rel}/${name}`;
		if (entry.notUtf8) {
			options.onUnreachable?.(path);
			continue;
		}
		let kind = entry.kind;
		if (kind === "symlink" && settings.followSymlinks) {
			const target = await fs.fileInfo(absolutePath);
			if (target.ok) kind = target.value.kind;
		}
		const isDir = kind === "directory";
		if (isIgnored(levels, absolutePath, isDir, settings.requireGit)) continue;
		if (!isDir) {
			yield { path, absolutePath, kind };
			continue;
		}
		let canonical: string | undefined;
		if (settings.followSymlinks) {
			const resolved = await fs.canonicalPath(absolutePath);
			if (!resolved.ok || seen.has(resolved.value)) continue;
			canonical = resolved.value;
		}
		const listed = await fs.listDir(absolutePath);
		if (signal?.aborted) throw abortError();
		if (settings.includeDirs) yield { path, absolutePath, kind };
		if (!listed.ok) continue;
		if (canonical !== undefined) seen.add(canonical);
		const names = new Set(listed.value.map((e) => e.name));
		levels.push(await levelFor(fs, absolutePath, names, settings));
		stack.push({ dir: absolutePath, rel: path, entries: sortEntries([...listed.value]), index: 0, canonical });
	}
}
