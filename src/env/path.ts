/**
 * POSIX path arithmetic without `node:path`, so runtime-neutral code (the memory env, tools, the
 * harness) can resolve paths anywhere. Pure string work: nothing here touches a file system, so
 * symlinks are never resolved and `..` is applied lexically.
 */

/** Whether `path` starts at the root. */
export function isAbsolutePath(path: string): boolean {
	return path.startsWith("/");
}

/** The non-empty segments of `path` with `.` dropped and `..` applied (never above the root). */
export function pathSegments(path: string): string[] {
	const out: string[] = [];
	for (const part of path.split("/")) {
		if (part === "" || part === ".") continue;
		if (part === "..") {
			// Relative paths keep leading `..` so `normalizePath("../a")` stays meaningful.
			if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
			else if (!isAbsolutePath(path)) out.push("..");
			continue;
		}
		out.push(part);
	}
	return out;
}

/** `path` with repeated slashes, `.` and `..` removed and no trailing slash (`"."` when empty). */
export function normalizePath(path: string): string {
	// Most paths arrive already normal (resolved once, then passed around): skip the split and join.
	if (isNormalAbsolute(path)) return path;
	const joined = pathSegments(path).join("/");
	if (isAbsolutePath(path)) return `/${joined}`;
	return joined === "" ? "." : joined;
}

const SLASH = 47;
const DOT = 46;

/**
 * Whether `path` is absolute and already normal: `/`, or `/`-separated non-empty segments that
 * are neither `.` nor `..`, with no trailing slash. One pass over the characters, no allocation.
 */
function isNormalAbsolute(path: string): boolean {
	const length = path.length;
	if (length === 0 || path.charCodeAt(0) !== SLASH) return false;
	if (length === 1) return true;
	if (path.charCodeAt(length - 1) === SLASH) return false;
	// Index of the slash that opened the current segment.
	let start = 0;
	for (let i = 1; i <= length; i++) {
		if (i < length && path.charCodeAt(i) !== SLASH) continue;
		const size = i - start - 1;
		if (size === 0) return false;
		if (path.charCodeAt(start + 1) === DOT && (size === 1 || (size === 2 && path.charCodeAt(start + 2) === DOT)))
			return false;
		start = i;
	}
	return true;
}

/** `path` made absolute against `base` (itself made absolute against `/`), then normalized. */
export function resolvePath(base: string, path: string): string {
	if (isAbsolutePath(path)) return normalizePath(path);
	const from = isAbsolutePath(base) ? base : `/${base}`;
	return normalizePath(`${from}/${path}`);
}

/** The segments joined with `/` and normalized. Empty segments are skipped. */
export function joinPath(...parts: string[]): string {
	const kept = parts.filter((part) => part !== "");
	return kept.length === 0 ? "." : normalizePath(kept.join("/"));
}

/** The folder part of a normalized path: `/a/b` → `/a`, `/a` → `/`, `a` → `.`. */
export function dirname(path: string): string {
	const normal = normalizePath(path);
	const slash = normal.lastIndexOf("/");
	if (slash < 0) return ".";
	if (slash === 0) return "/";
	return normal.slice(0, slash);
}

/** The last segment of a normalized path (`""` for `/`). */
export function basename(path: string): string {
	const normal = normalizePath(path);
	if (normal === "/") return "";
	return normal.slice(normal.lastIndexOf("/") + 1);
}

/**
 * `to` relative to `from` (both absolute), e.g. for showing paths under the cwd. Returns `"."` for
 * the same path and climbs with `..` where needed.
 */
export function relativePath(from: string, to: string): string {
	const a = pathSegments(from);
	const b = pathSegments(to);
	let common = 0;
	while (common < a.length && common < b.length && a[common] === b[common]) common++;
	const parts = [...a.slice(common).map(() => ".."), ...b.slice(common)];
	return parts.length === 0 ? "." : parts.join("/");
}

/** Whether `path` is `folder` itself or lies inside it (both absolute and normalized). */
export function isPathInside(path: string, folder: string): boolean {
	if (folder === "/") return true;
	return path === folder || path.startsWith(`${folder}/`);
}
