/**
 * The path policy of NodeExecutionEnv (Node only): roots and paths made canonical with the real
 * disk's symlinks resolved, then checked by `_policy.ts`.
 */
import { promises as fs, constants as fsConstants, readdirSync } from "node:fs";
import { resolve as resolveNative } from "node:path";
import type { PathPolicy } from "../contract/env.js";
import { errorMessage } from "../contract/errors.js";
import { err, type FileError, ok, type Result } from "../contract/result.js";
import { type Access, type CanonicalRoots, policyRefusal } from "./_policy.js";
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

/** Checks paths of one NodeExecutionEnv against its policy; roots are made canonical once. */
export class NodePathGuard {
	private roots: Promise<CanonicalRoots> | undefined;

	/** Temp files and folders the env created itself (bash spills output there): always allowed. */
	private readonly created: string[] = [];

	constructor(
		readonly policy: PathPolicy,
		private readonly cwd: string,
	) {}

	/** The policy's roots, canonical (the sandbox's write roots). */
	canonicalRoots(): Promise<CanonicalRoots> {
		this.roots ??= (async () => {
			const all = async (paths: readonly string[]) =>
				Promise.all(paths.map((path) => canonicalize(resolveNative(this.cwd, path))));
			return { read: await all(this.policy.read), write: await all(this.policy.write ?? this.policy.read) };
		})();
		return this.roots;
	}

	/** The policy's roots and the env's own temp files. */
	private async allRoots(): Promise<CanonicalRoots> {
		const policyRoots = await this.canonicalRoots();
		return { read: [...policyRoots.read, ...this.created], write: [...policyRoots.write, ...this.created] };
	}

	/** Allow a temp file or folder the env just created (`createTempFile`, `createTempDir`). */
	async allowCreated(path: string): Promise<void> {
		this.created.push(await canonicalize(path));
	}

	/** `undefined` when the env may `access` the absolute path `absolute`, else the refusal. */
	async check(absolute: string, access: Access, followLast = true): Promise<FileError | undefined> {
		const resolved = await this.resolve(absolute, access, followLast);
		return resolved.ok ? undefined : resolved.error;
	}

	/** The canonical form of `absolute` when the env may `access` it, else the refusal. */
	async resolve(absolute: string, access: Access, followLast = true): Promise<Result<string, FileError>> {
		const roots = await this.allRoots();
		let canonical: string;
		try {
			const slash = absolute.lastIndexOf("/");
			// The link itself (lstat, remove, rename), not where it points: only its folder is resolved.
			canonical =
				followLast || slash <= 0 || absolute === "/"
					? await canonicalize(absolute)
					: `${(await canonicalize(absolute.slice(0, slash))).replace(/\/$/, "")}/${absolute.slice(slash + 1)}`;
		} catch (error) {
			return err(unresolvable(error, absolute));
		}
		const refusal = policyRefusal(canonical, access, roots, absolute);
		if (refusal) return err(refusal);
		await policyTestHooks.afterCheck?.(absolute, access);
		return ok(canonical);
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
		canonical: string,
	): Promise<FileError | undefined> {
		if (usesProcFd()) return policyRefusal(await descriptorPath(handle.fd), access, await this.allRoots(), shown);
		return this.sameFile(handle, canonical, shown);
	}

	/**
	 * Open the folder `dir` (checked as `canonical`, or checked here when not given) and verify that
	 * `<folder>/<name>` lies under a root for `access`, where `<folder>` is where the opened folder
	 * actually is. With `noFollow`, a symlink as the last part of `dir` is refused by the open.
	 */
	async pinDir(
		dir: string,
		access: Access,
		shown: string,
		name: string,
		options: { readonly noFollow?: boolean } = {},
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

	/** `undefined` when `canonical` (a path just resolved) lies under a root for `access`, else the refusal. */
	async refuseOutside(canonical: string, access: Access, shown: string): Promise<FileError | undefined> {
		return policyRefusal(canonical, access, await this.allRoots(), shown);
	}

	/**
	 * Metadata read by path where no descriptor can be named (the fallback): `undefined` when it
	 * is the metadata of the file checked as `canonical` (same device and inode, and `canonical`
	 * still resolves to itself), else the refusal.
	 */
	async verifyStats(
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
