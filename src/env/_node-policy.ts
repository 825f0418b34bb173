/**
 * The path policy of NodeExecutionEnv (Node only): roots and paths made canonical with the real
 * disk's symlinks resolved, then checked by `_policy.ts`.
 */
import { promises as fs } from "node:fs";
import { resolve as resolveNative } from "node:path";
import type { FileError } from "../contract/result.js";
import { osCodeOf } from "./_errors.js";
import { type Access, type CanonicalRoots, policyRefusal } from "./_policy.js";
import type { PathPolicy } from "./types.js";

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

	/** Allow a temp file or folder the env just created (`createTempFile`, `createTempDir`). */
	async allowCreated(path: string): Promise<void> {
		this.created.push(await canonicalize(path));
	}

	/** `undefined` when the env may `access` the absolute path `absolute`, else the refusal. */
	async check(absolute: string, access: Access, followLast = true): Promise<FileError | undefined> {
		const policyRoots = await this.canonicalRoots();
		const roots = { read: [...policyRoots.read, ...this.created], write: [...policyRoots.write, ...this.created] };
		try {
			const slash = absolute.lastIndexOf("/");
			// The link itself (lstat, remove, rename), not where it points: only its folder is resolved.
			const canonical =
				followLast || slash <= 0 || absolute === "/"
					? await canonicalize(absolute)
					: `${(await canonicalize(absolute.slice(0, slash))).replace(/\/$/, "")}/${absolute.slice(slash + 1)}`;
			return policyRefusal(canonical, access, roots, absolute);
		} catch {
			// Unresolvable (a loop, a folder we may not search): where it leads is unknown, so refused.
			return policyRefusal("\0", access, { read: [], write: [] }, absolute);
		}
	}
}
