/**
 * The path policy's rules, shared by both envs (runtime-neutral): the policy's roots as absolute
 * paths, the form of a path that is checked (the link itself when the last link is not followed),
 * whether a canonical path lies under an allowed root, and the refusal that names them when not.
 * How a path is made canonical is the env's part: the memory env resolves it in its tree
 * (synchronously), the Node env on the disk (`_node-path-policy.ts`).
 */

import type { PathPolicy } from "../contract/env.js";
import type { FileError } from "../contract/result.js";
import { err, ok, type Result } from "../contract/result.js";
import { fileError } from "./errors.js";
import { isPathInside, resolvePath } from "./path.js";

/** Whether a path is read or written. */
export type Access = "read" | "write";

/** A policy's roots, canonical (symlinks resolved), for each kind of access. */
export interface CanonicalRoots {
	readonly read: readonly string[];
	readonly write: readonly string[];
}

/** A value now (the memory env) or later (the Node env). */
type MaybePromise<T> = T | Promise<T>;

function then<T, U>(value: MaybePromise<T>, next: (value: T) => U): MaybePromise<U> {
	return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * The policy's roots made canonical by `canonical` (relative roots count from `cwd`; the write
 * roots are the read roots when the policy names none).
 */
export function policyRoots(policy: PathPolicy, cwd: string, canonical: (absolute: string) => string): CanonicalRoots {
	const all = (paths: readonly string[]) => paths.map((root) => canonical(resolvePath(cwd, root)));
	return { read: all(policy.read), write: all(policy.write ?? policy.read) };
}

/** `policyRoots` where making a path canonical takes the disk's time. */
export async function policyRootsLater(
	policy: PathPolicy,
	cwd: string,
	canonical: (absolute: string) => Promise<string>,
): Promise<CanonicalRoots> {
	const roots = policyRoots(policy, cwd, (absolute) => absolute);
	const all = (paths: readonly string[]) => Promise.all(paths.map(canonical));
	return { read: await all(roots.read), write: await all(roots.write) };
}

/** A policy's roots with the env's own temp files and folders added to both kinds of access. */
export function withCreated(roots: CanonicalRoots, created: readonly string[]): CanonicalRoots {
	return { read: [...roots.read, ...created], write: [...roots.write, ...created] };
}

/**
 * The canonical form a check looks at: all of `absolute` resolved, or with `followLast` false the
 * link itself (lstat, remove, rename), so only its folder is resolved and its name appended.
 * `canonical` resolves an absolute path, existing or not, or says why it cannot.
 */
function checkedForm(
	absolute: string,
	followLast: boolean,
	canonical: Canonical | CanonicalLater,
): MaybePromise<Result<string, FileError>> {
	const slash = absolute.lastIndexOf("/");
	if (followLast || slash <= 0) return canonical(absolute);
	return then(canonical(absolute.slice(0, slash)), (parent) =>
		parent.ok ? ok(`${parent.value === "/" ? "" : parent.value}/${absolute.slice(slash + 1)}`) : parent,
	);
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

type Canonical = (absolute: string) => Result<string, FileError>;
type CanonicalLater = (absolute: string) => Promise<Result<string, FileError>>;

/** `access` to `absolute` checked: its canonical form when allowed, else the refusal. */
export function checkAccess(
	absolute: string,
	access: Access,
	followLast: boolean,
	roots: CanonicalRoots,
	canonical: Canonical,
): Result<string, FileError>;
export function checkAccess(
	absolute: string,
	access: Access,
	followLast: boolean,
	roots: CanonicalRoots,
	canonical: CanonicalLater,
): Promise<Result<string, FileError>>;
export function checkAccess(
	absolute: string,
	access: Access,
	followLast: boolean,
	roots: CanonicalRoots,
	canonical: Canonical | CanonicalLater,
): MaybePromise<Result<string, FileError>> {
	return then(checkedForm(absolute, followLast, canonical), (form) => {
		if (!form.ok) return form;
		const refusal = policyRefusal(form.value, access, roots, absolute);
		return refusal ? err(refusal) : form;
	});
}
