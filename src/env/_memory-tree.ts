/**
 * The in-memory file tree behind MemoryExecutionEnv: nodes, and path resolution with POSIX symlink
 * semantics (links in the middle of a path are always followed, the last one only when asked,
 * `..` inside a link target climbs from where the link points, a loop is an error).
 */

import type { FileErrorCode } from "../contract/result.js";
import { utf8Length } from "../contract/utf8.js";
import { pathSegments } from "./path.js";

const encoder = new TextEncoder();

/**
 * A file's content, held as bytes, as text, or both: a file written as well-formed text is encoded
 * only when someone asks for its bytes (tools often rewrite a file several times before anything
 * reads it as bytes). `data` is never changed in place; replacing it drops the text.
 */
export class MemFile {
	readonly kind = "file" as const;
	private bytes: Uint8Array | undefined;
	private decoded: string | undefined;
	/** Byte length of `decoded`, once measured (while there are no bytes). */
	private measured = -1;
	mode: number;
	mtimeMs: number;

	constructor(content: { readonly bytes: Uint8Array } | { readonly text: string }, mode: number, mtimeMs: number) {
		if ("bytes" in content) this.bytes = content.bytes;
		else this.decoded = content.text;
		this.mode = mode;
		this.mtimeMs = mtimeMs;
	}

	get data(): Uint8Array {
		// Only well-formed text is ever held without bytes, so encoding it gives back the same text.
		this.bytes ??= encoder.encode(this.decoded ?? "");
		return this.bytes;
	}

	set data(bytes: Uint8Array) {
		this.bytes = bytes;
		this.decoded = undefined;
	}

	/** Size in bytes, measured without encoding the text when there are no bytes yet. */
	get size(): number {
		if (this.bytes !== undefined) return this.bytes.byteLength;
		if (this.measured < 0) this.measured = utf8Length(this.decoded ?? "");
		return this.measured;
	}

	/** `data` decoded, once known (tools read the same file many times between writes). */
	get text(): string | undefined {
		return this.decoded;
	}

	/** Records `data` decoded; callers set it only to the exact decoding of the current bytes. */
	set text(text: string | undefined) {
		if (text === undefined && this.bytes === undefined) return;
		this.decoded = text;
	}

	/** Replaces the content with well-formed text, leaving the bytes to be encoded when asked for. */
	setText(text: string): void {
		this.decoded = text;
		this.bytes = undefined;
		this.measured = -1;
	}
}

export interface MemDir {
	readonly kind: "directory";
	readonly entries: Map<string, MemNode>;
	mode: number;
	mtimeMs: number;
}

export interface MemLink {
	readonly kind: "symlink";
	readonly target: string;
	mtimeMs: number;
}

/** A FIFO, device or socket: it has no content; reading or writing it is refused. */
export interface MemSpecial {
	readonly kind: "fifo" | "character_device" | "block_device" | "socket";
	mode: number;
	mtimeMs: number;
}

export type MemNode = MemFile | MemDir | MemLink | MemSpecial;

/** Linux gives up after 40 links; so do we, which also catches loops. */
const MAX_SYMLINK_HOPS = 40;

/** Where a path ends up: the folder holding it, its name there, and what is there (if anything). */
export interface Located {
	readonly parent: MemDir;
	/** Canonical path of the entry (no links, `.` or `..` in it). */
	readonly path: string;
	/** The entry name in `parent` (`""` for the root). */
	readonly name: string;
	readonly node: MemNode | undefined;
}

export type LocateResult =
	| { readonly ok: true; readonly value: Located }
	| { readonly ok: false; readonly code: FileErrorCode };

export function newDir(mtimeMs: number, mode = 0o755): MemDir {
	return { kind: "directory", entries: new Map(), mode, mtimeMs };
}

/** The canonical path of an entry named `name` in the folder at `parentSegments`. */
function canonical(parentSegments: readonly string[], name: string): string {
	if (name === "") return "/";
	return parentSegments.length === 0 ? `/${name}` : `/${parentSegments.join("/")}/${name}`;
}

/** The folder at canonical `segments` (no links on the way), if there is one. */
function dirAt(root: MemDir, segments: readonly string[]): MemDir | undefined {
	let dir = root;
	for (const name of segments) {
		const next = dir.entries.get(name);
		if (next?.kind !== "directory") return undefined;
		dir = next;
	}
	return dir;
}

/**
 * Resolve an absolute, lexically normalized path. A missing last segment is not an error (the
 * result has no `node`), so writers can create it; a missing folder on the way is `not_found`.
 */
export function locate(root: MemDir, absolute: string, followLast: boolean): LocateResult {
	return locatePlain(root, absolute, followLast) ?? locateWalk(root, absolute, followLast);
}

const SLASH = 47;

/**
 * The common case without allocating a segment list: a path of plain segments (no `.`, `..` or
 * empty ones) whose folders are real folders, not links. Undefined when the path is not such a
 * path; the full walk then decides.
 */
function locatePlain(root: MemDir, absolute: string, followLast: boolean): LocateResult | undefined {
	if (absolute.length < 2 || absolute.charCodeAt(0) !== SLASH) return undefined;
	let dir = root;
	let start = 1;
	for (;;) {
		const slash = absolute.indexOf("/", start);
		const name = absolute.slice(start, slash === -1 ? absolute.length : slash);
		if (name === "" || name === "." || name === "..") return undefined;
		const node = dir.entries.get(name);
		if (slash === -1) {
			if (node?.kind === "symlink" && followLast) return undefined;
			return { ok: true, value: { parent: dir, path: absolute, name, node } };
		}
		if (node === undefined) {
			// A missing folder on the way, unless the rest is only `.` or empty segments.
			return /^[/.]*$/.test(absolute.slice(slash)) ? undefined : { ok: false, code: "not_found" };
		}
		if (node.kind === "symlink") return undefined;
		if (node.kind !== "directory") return { ok: false, code: "not_directory" };
		dir = node;
		start = slash + 1;
	}
}

function locateWalk(root: MemDir, absolute: string, followLast: boolean): LocateResult {
	// A stack of segments still to walk, last one on top; link targets are pushed onto it.
	const pending = pathSegments(absolute).reverse();
	let dir = root;
	let dirSegments: string[] = [];
	let hops = 0;
	while (pending.length > 0) {
		const name = pending.pop()!;
		if (name === "" || name === ".") continue;
		if (name === "..") {
			dirSegments = dirSegments.slice(0, -1);
			dir = dirAt(root, dirSegments) ?? root;
			continue;
		}
		const node = dir.entries.get(name);
		// Only link targets push `""` or `.`: a plain path's last segment is last when nothing is left.
		const isLast = pending.length === 0 || pending.every((rest) => rest === "" || rest === ".");
		if (!node) {
			if (isLast)
				return { ok: true, value: { parent: dir, path: canonical(dirSegments, name), name, node: undefined } };
			return { ok: false, code: "not_found" };
		}
		if (node.kind === "symlink" && (!isLast || followLast)) {
			hops += 1;
			if (hops > MAX_SYMLINK_HOPS) return { ok: false, code: "symlink_loop" };
			if (node.target.startsWith("/")) {
				dir = root;
				dirSegments = [];
			}
			// Raw split (not normalized): `..` in a target must climb from the link's folder.
			const targetParts = node.target.split("/");
			for (let i = targetParts.length - 1; i >= 0; i--) pending.push(targetParts[i]!);
			continue;
		}
		if (isLast) return { ok: true, value: { parent: dir, path: canonical(dirSegments, name), name, node } };
		if (node.kind !== "directory") return { ok: false, code: "not_directory" };
		dir = node;
		// Grown in place: the array never leaves the walk (only paths built from it do).
		dirSegments.push(name);
	}
	// The walk ended on a folder itself: the root, or a link whose target ends in `.` or `..`.
	if (dirSegments.length === 0) return { ok: true, value: { parent: root, path: "/", name: "", node: root } };
	const parentSegments = dirSegments.slice(0, -1);
	const parent = dirAt(root, parentSegments) ?? root;
	const name = dirSegments[dirSegments.length - 1]!;
	return { ok: true, value: { parent, path: canonical(parentSegments, name), name, node: dir } };
}

/** Every regular file under `dir`, by canonical path (links are not followed). */
export function* walkFiles(dir: MemDir, prefix: string): Generator<[string, MemFile]> {
	for (const [name, node] of dir.entries) {
		const path = prefix === "/" ? `/${name}` : `${prefix}/${name}`;
		if (node.kind === "file") yield [path, node];
		else if (node.kind === "directory") yield* walkFiles(node, path);
	}
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
	if (a.byteLength !== b.byteLength) return false;
	for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
	return true;
}
