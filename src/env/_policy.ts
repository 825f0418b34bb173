/**
 * The path policy's rule, shared by both envs (runtime-neutral): is a canonical path under one of
 * the allowed roots, and the refusal that names them when it is not.
 */
import type { FileError } from "../contract/result.js";
import { fileError } from "./errors.js";
import { isPathInside } from "./path.js";

/** Whether a path is read or written. */
export type Access = "read" | "write";

/** A policy's roots, canonical (symlinks resolved), for each kind of access. */
export interface CanonicalRoots {
	readonly read: readonly string[];
	readonly write: readonly string[];
}

/**
 * `undefined` when `canonical` lies under an allowed root for `access`, else the
 * `permission_denied` error naming `shown` (the path as the caller gave it) and the roots.
 */
export function policyRefusal(
	canonical: string,
	access: Access,
	roots: CanonicalRoots,
	shown: string,
): FileError | undefined {
	const allowed = roots[access];
	if (allowed.some((root) => isPathInside(canonical, root))) return undefined;
	const where = canonical === shown ? "" : ` (it resolves to ${canonical})`;
	const verb = access === "read" ? "reading" : "writing";
	const rule =
		allowed.length === 0
			? `the env's path policy allows no ${verb} (it has no ${access} roots)`
			: `the env's path policy allows ${verb} only under ${allowed.join(", ")}`;
	return fileError("permission_denied", shown, `outside the allowed ${access} roots${where}: ${rule}`);
}
