/**
 * The path policy of NodeExecutionEnv (Node only), the one thing its file operations consult about
 * where they may go: `unconfinedAccess` without a policy (every check passes, folders are reached
 * by path), else a `NodePathGuard` (roots and paths made canonical with the real disk's symlinks
 * resolved and checked by `_path-policy.ts`, opened files and held folders checked again where
 * they actually are). `withOpened` is the one open → verify → close skeleton.
 */
import { promises as fs, constants as fsConstants, readdirSync, type Stats } from "node:fs";
import { resolve as resolveNative } from "node:path";
import type { PathPolicy } from "../contract/env.js";
import { errorMessage } from "../contract/errors.js";
import { err, type FileError, ok, type Result } from "../contract/result.js";
import { mapFsError, writeTarget } from "./_node-fs.js";
import {
	type Access,
	type CanonicalRoots,
	checkAccess,
	policyRefusal,
	policyRootsLater,
	withCreated,
} from "./_path-policy.js";
import { fileError, osCodeOf } from "./errors.js";

/**
 * The canonical form of `absolute`, whether it exists or not: the real path of its longest
 * existing ancestor (every symlink resolved, a dangling last link followed to where it points)
 * with the missing rest appended.
 */
export async function canonicalize(absolute: string, hops = 0): Promise<string> {
	try {
		return await fs.realpath(absolute);
	} catch (error) {
		if (hops < 40) {
			// A dangling symlink: what a write through it would create is its target.
			try {
				const target = await fs.readlink(absolute);
				return canonicalize(resolveNative(absolute, "..", target), hops + 1);
			} catch {
				// Not a link: fall through to the parent.
			}
		}
		if (osCodeOf(error) !== "ENOENT" && osCodeOf(error) !== "ENOTDIR") throw error;
	}
	const slash = absolute.lastIndexOf("/");
	if (slash <= 0) return absolute;
	const parent = await canonicalize(absolute.slice(0, slash), hops);
	return `${parent === "/" ? "" : parent}/${absolute.slice(slash + 1)}`;
}

/**
 * Internal test hooks (not exported from the package): `afterCheck` runs after a path passed the
 * check and before the operation uses it, so a test can swap a symlink in exactly that window.
 */
export const policyTestHooks: {
	afterCheck?: (absolute: string, access: Access) => Promise<void> | void;
	/** Act as if `/proc/self/fd` were missing (the fallback other systems take). */
	withoutProcFd?: boolean;
} = {};

/**
 * `O_PATH` (Linux): a descriptor that names a file without opening it for reading or writing, so
 * taking one has no effect on a FIFO or a device. Its value on the architectures Node ships for.
 */
export const O_PATH = 0o10000000;

/**
 * Whether this process can name an open descriptor's file through `/proc/self/fd` (Linux with
 * `/proc` mounted): then the checks below are made on the file actually opened, and operations go
 * through the opened folder's descriptor instead of its path. Elsewhere they fall back to comparing
 * device and inode numbers, which narrows the window between check and use but does not close it.
 */
const PROC_FD: boolean = (() => {
	if (process.platform !== "linux" || !["x64", "arm64", "ia32", "arm"].includes(process.arch)) return false;
	try {
		// Once, when the module loads: every later call knows the answer without asking.
		return readdirSync("/proc/self/fd").length > 0;
	} catch {
		return false;
	}
})();

/** Whether descriptors can be named through `/proc/self/fd` here (see `PROC_FD`). */
export function usesProcFd(): boolean {
	return PROC_FD && policyTestHooks.withoutProcFd !== true;
}

/** The path of the file an open descriptor refers to (from `/proc/self/fd`). */
async function descriptorPath(fd: number): Promise<string> {
	const path = await fs.readlink(`/proc/self/fd/${fd}`);
	// A file removed since it was opened keeps its last name with this suffix.
	return path.endsWith(" (deleted)") ? path.slice(0, -" (deleted)".length) : path;
}

/**
 * A folder checked against the policy and held open: the operations that follow reach the names in
 * it through the descriptor (`/proc/self/fd/<fd>/<name>` on Linux), so swapping the folder or any
 * folder above it for a symlink after the check changes nothing about where they land.
 */
export interface PinnedDir {
	/** A path to the folder itself, for `readdir`. */
	readonly self: string;
	/** A path to `name` (one part, or several joined with `/`) inside the folder. */
	at(name: string): string;
	/**
	 * Just before a mutation: the refusal when the folder is no longer the one checked. Always
	 * `undefined` where the descriptor names the folder (Linux); elsewhere a fresh comparison.
	 */
	recheck(): Promise<FileError | undefined>;
	close(): Promise<void>;
}

/** What a check hands the operation: the canonical path under a policy, nothing without one. */
export type Checked = string | undefined;

/**
 * Where the file operations of one NodeExecutionEnv may go, and how they reach what they touch.
 * Methods return the policy's refusals as errors; `realPath`, `stat` and the open in `withOpened`
 * throw Node's own errors, which the operation maps to the path it was given.
 */
export interface NodePathAccess {
	/** The policy when the env is confined, else `undefined`. */
	readonly policy: PathPolicy | undefined;
	/** The flag a name in a pinned folder is opened with: `O_NOFOLLOW` where it was resolved already. */
	readonly noFollow: number;
	/** Whether the env may `access` `absolute`: what the check hands on (`Checked`), or the refusal. */
	resolve(absolute: string, access: Access, followLast?: boolean): Promise<Result<Checked, FileError>>;
	/** `resolve` for operations that need only the verdict. */
	check(absolute: string, access: Access, followLast?: boolean): Promise<FileError | undefined>;
	/** After opening what was checked as `checked`: the refusal when it lies outside the roots. */
	verifyOpened(handle: fs.FileHandle, access: Access, shown: string, checked: Checked): Promise<FileError | undefined>;
	/**
	 * The folder `dir`, checked for `access` to `name` in it and held (see `PinnedDir`); fs errors
	 * come back mapped to `shown`. With `noFollow`, a symlink as the last part of `dir` is refused.
	 */
	pinDir(
		dir: string,
		access: Access,
		shown: string,
		name: string,
		options?: { readonly noFollow?: boolean },
	): Promise<Result<PinnedDir, FileError>>;
	/** Where `absolute` (checked as `checked`) leads, every symlink resolved. */
	realPath(absolute: string, checked: Checked): Promise<Result<string, FileError>>;
	/** The metadata of `absolute` (checked as `checked`), of the link itself without `followLast`. */
	stat(absolute: string, checked: Checked, followLast: boolean): Promise<Result<Stats, FileError>>;
	/** Where an append to `absolute` opens: where its symlinks lead under a policy, else itself. */
	appendTarget(absolute: string): Promise<Result<string, FileError>>;
	/** Allow a temp file or folder the env just created (`createTempFile`, `createTempDir`). */
	allowCreated(path: string): Promise<void>;
}

/**
 * Open with `open`, verify what was opened against the policy, hand it to `use`, and close it
 * whatever happens. `open` may refuse with an error result; thrown errors pass through.
 */
export async function withOpened<T>(
	access: NodePathAccess,
	open: () => Promise<fs.FileHandle | Result<fs.FileHandle, FileError>>,
	kind: Access,
	shown: string,
	checked: Checked,
	use: (handle: fs.FileHandle) => Promise<Result<T, FileError>>,
): Promise<Result<T, FileError>> {
	const opened = await open();
	if ("ok" in opened && !opened.ok) return opened;
	const handle = "ok" in opened ? opened.value : opened;
	try {
		const moved = await access.verifyOpened(handle, kind, shown, checked);
		if (moved) return err(moved);
		return await use(handle);
	} finally {
		await handle.close().catch(() => undefined);
	}
}

/** A folder reached by its path (no policy): nothing to check again, nothing held. */
function plainPin(dir: string): PinnedDir {
	return {
		self: dir,
		at: (part) => `${dir === "/" ? "" : dir}/${part}`,
		recheck: async () => undefined,
		close: async () => undefined,
	};
}

/** The access of an env without a policy: every check passes; paths are used as they are. */
export const unconfinedAccess: NodePathAccess = {
	policy: undefined,
	noFollow: 0,
	resolve: async () => ok(undefined),
	check: async () => undefined,
	verifyOpened: async () => undefined,
	pinDir: async (dir) => ok(plainPin(dir)),
	realPath: async (absolute) => ok(await fs.realpath(absolute)),
	stat: async (absolute, _checked, followLast) => ok(followLast ? await fs.stat(absolute) : await fs.lstat(absolute)),
	appendTarget: async (absolute) => ok(absolute),
	allowCreated: async () => undefined,
};

/** Checks paths of one NodeExecutionEnv against its policy; roots are made canonical once. */
export class NodePathGuard implements NodePathAccess {
	/** A name in a pinned folder was resolved already: a symlink put there since is refused. */
	readonly noFollow = fsConstants.O_NOFOLLOW;
	private roots: Promise<CanonicalRoots> | undefined;

	/** Temp files and folders the env created itself (bash spills output there): always allowed. */
	private readonly created: string[] = [];

	constructor(
		readonly policy: PathPolicy,
		private readonly cwd: string,
	) {}

	/** The policy's roots, canonical (the sandbox's write roots). */
	canonicalRoots(): Promise<CanonicalRoots> {
		this.roots ??= policyRootsLater(this.policy, this.cwd, (absolute) => canonicalize(resolveNative(absolute)));
		return this.roots;
	}

	/** The policy's roots and the env's own temp files. */
	private async allRoots(): Promise<CanonicalRoots> {
		return withCreated(await this.canonicalRoots(), this.created);
	}

	async allowCreated(path: string): Promise<void> {
		this.created.push(await canonicalize(path));
	}

	async check(absolute: string, access: Access, followLast = true): Promise<FileError | undefined> {
		const resolved = await this.resolve(absolute, access, followLast);
		return resolved.ok ? undefined : resolved.error;
	}

	/** The canonical form of `absolute` when the env may `access` it, else the refusal. */
	async resolve(absolute: string, access: Access, followLast = true): Promise<Result<string, FileError>> {
		const roots = await this.allRoots();
		const checked = await checkAccess(absolute, access, followLast, roots, async (path) => {
			try {
				return ok(await canonicalize(path));
			} catch (error) {
				return err(unresolvable(error, absolute));
			}
		});
		if (!checked.ok) return checked;
		await policyTestHooks.afterCheck?.(absolute, access);
		return checked;
	}

	/**
	 * After opening `absolute` (checked as `canonical`): `undefined` when the opened file lies under
	 * a root for `access`, else the refusal. On Linux the descriptor names the file it opened; elsewhere
	 * the path must still resolve to `canonical` and to the same device and inode as the descriptor.
	 */
	async verifyOpened(
		handle: fs.FileHandle,
		access: Access,
		shown: string,
		canonical: Checked,
	): Promise<FileError | undefined> {
		if (usesProcFd()) return policyRefusal(await descriptorPath(handle.fd), access, await this.allRoots(), shown);
		return this.sameFile(handle, canonical as string, shown);
	}

	async realPath(absolute: string, canonical: Checked): Promise<Result<string, FileError>> {
		if (usesProcFd()) {
			// Where the checked path leads now, from a descriptor: no swap after the check can hide it.
			return withOpened(
				this,
				() => fs.open(absolute, O_PATH),
				"read",
				absolute,
				canonical,
				async (handle) => ok(await fs.readlink(`/proc/self/fd/${handle.fd}`)),
			);
		}
		const real = await fs.realpath(absolute);
		// Where it led just now: still inside, or refused.
		const outside = policyRefusal(real, "read", await this.allRoots(), absolute);
		return outside ? err(outside) : ok(real);
	}

	async stat(absolute: string, canonical: Checked, followLast: boolean): Promise<Result<Stats, FileError>> {
		if (usesProcFd()) {
			// The metadata of what a descriptor names, once that is known to lie inside a root.
			const flags = O_PATH | (followLast ? 0 : fsConstants.O_NOFOLLOW);
			return withOpened(
				this,
				() => fs.open(absolute, flags),
				"read",
				absolute,
				canonical,
				async (handle) => ok(await handle.stat()),
			);
		}
		const stats = followLast ? await fs.stat(absolute) : await fs.lstat(absolute);
		const moved = await this.verifyStats(stats, canonical as string, followLast, absolute);
		return moved ? err(moved) : ok(stats);
	}

	appendTarget(absolute: string): Promise<Result<string, FileError>> {
		return writeTarget(absolute);
	}

	async pinDir(
		dir: string,
		access: Access,
		shown: string,
		name: string,
		options: { readonly noFollow?: boolean } = {},
	): Promise<Result<PinnedDir, FileError>> {
		try {
			return await this.openPin(dir, access, shown, name, options);
		} catch (error) {
			return err(mapFsError(error, shown, { EEXIST: "not_directory" }));
		}
	}

	/**
	 * Open the folder `dir` and verify that `<folder>/<name>` lies under a root for `access`, where
	 * `<folder>` is where the opened folder actually is.
	 */
	private async openPin(
		dir: string,
		access: Access,
		shown: string,
		name: string,
		options: { readonly noFollow?: boolean },
	): Promise<Result<PinnedDir, FileError>> {
		const inside = (folder: string) => (name === "" ? folder : `${folder === "/" ? "" : folder}/${name}`);
		if (usesProcFd()) {
			const flags = O_PATH | fsConstants.O_DIRECTORY | (options.noFollow ? fsConstants.O_NOFOLLOW : 0);
			const handle = await fs.open(dir, flags);
			let refusal: FileError | undefined;
			try {
				refusal = policyRefusal(inside(await descriptorPath(handle.fd)), access, await this.allRoots(), shown);
			} catch (error) {
				await handle.close().catch(() => undefined);
				throw error;
			}
			if (refusal) {
				await handle.close().catch(() => undefined);
				return err(refusal);
			}
			const self = `/proc/self/fd/${handle.fd}`;
			return ok({
				self,
				at: (part) => `${self}/${part}`,
				recheck: async () => undefined,
				close: () => handle.close().catch(() => undefined),
			});
		}
		// No descriptor-relative paths: the folder's canonical path, compared again before each use.
		const canonical = await fs.realpath(dir);
		const refusal = policyRefusal(inside(canonical), access, await this.allRoots(), shown);
		if (refusal) return err(refusal);
		const first = await fs.stat(canonical);
		if (!first.isDirectory()) throw Object.assign(new Error(`ENOTDIR: ${dir}`), { code: "ENOTDIR" });
		const recheck = async (): Promise<FileError | undefined> => {
			const now = await fs.realpath(dir).catch(() => undefined);
			const stats = now === canonical ? await fs.stat(canonical).catch(() => undefined) : undefined;
			return stats && stats.dev === first.dev && stats.ino === first.ino ? undefined : moved(shown);
		};
		return ok({
			self: canonical,
			at: (part) => `${canonical === "/" ? "" : canonical}/${part}`,
			recheck,
			close: async () => undefined,
		});
	}

	/**
	 * Metadata read by path where no descriptor can be named (the fallback): `undefined` when it
	 * is the metadata of the file checked as `canonical` (same device and inode, and `canonical`
	 * still resolves to itself), else the refusal.
	 */
	private async verifyStats(
		stats: { readonly dev: number; readonly ino: number },
		canonical: string,
		followLast: boolean,
		shown: string,
	): Promise<FileError | undefined> {
		const slash = canonical.lastIndexOf("/");
		const folder = slash <= 0 ? "/" : canonical.slice(0, slash);
		const again = followLast
			? await fs.realpath(canonical).catch(() => undefined)
			: `${(await fs.realpath(folder).catch(() => "\0")).replace(/\/$/, "")}/${canonical.slice(slash + 1)}`;
		if (again !== canonical) return moved(shown);
		const current = await (followLast ? fs.stat(canonical) : fs.lstat(canonical)).catch(() => undefined);
		return current && current.dev === stats.dev && current.ino === stats.ino ? undefined : moved(shown);
	}

	/**
	 * Where the OS cannot name a descriptor's file: the descriptor and a fresh resolution of the
	 * path must agree (same canonical path, same device and inode), else it moved in between.
	 */
	private async sameFile(handle: fs.FileHandle, canonical: string, shown: string): Promise<FileError | undefined> {
		const [opened, now] = await Promise.all([handle.stat(), fs.realpath(canonical).catch(() => undefined)]);
		if (now !== canonical) return moved(shown);
		const current = await fs.stat(canonical).catch(() => undefined);
		return current && current.dev === opened.dev && current.ino === opened.ino ? undefined : moved(shown);
	}
}

/**
 * Why a path could not be made canonical: a symlink loop or a name too long is said as such;
 * anything else (a folder we may not search) leaves where it leads unknown, so it is refused.
 */
function unresolvable(error: unknown, shown: string): FileError {
	const code = osCodeOf(error);
	if (code === "ELOOP") return fileError("symlink_loop", shown, undefined, code);
	if (code === "ENAMETOOLONG")
		return fileError("invalid_path", shown, "a name in it is longer than the system allows", code);
	return fileError(
		"permission_denied",
		shown,
		`it cannot be resolved (${code ?? errorMessage(error)}), so the path policy cannot tell where it leads: refused`,
		code,
	);
}

/** The refusal for a path whose file changed between the policy's check and its use. */
function moved(shown: string): FileError {
	return fileError(
		"permission_denied",
		shown,
		"it changed between the path policy's check and its use (a symlink or folder swapped in between): refused so that nothing outside the allowed roots is touched; try again",
	);
}
