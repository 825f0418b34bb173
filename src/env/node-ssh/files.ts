/**
 * The file operations of SshExecutionEnv (Node only): each checks its arguments here, sends one
 * request to a remote helper (`agent.ts`) and turns the reply into the `Result` the local
 * envs give for the same case. The helper's errors are errno names or the utilities' messages in
 * the C locale; both map to the codes `NodeExecutionEnv` uses.
 */
import type { DirEntry, FileInfo, FileKind, PathPolicy, SignalOptions } from "../../contract/env.js";
import { describeValue } from "../../contract/errors.js";
import { err, type FileError, ok, type Result } from "../../contract/result.js";
import { byName, mapFsError } from "../_node-fs.js";
import { type CanonicalRoots, checkAccess, policyRootsLater, withCreated } from "../_path-policy.js";
import { affixProblem, fileError, notRegularFileError, pathProblem, rangeProblem } from "../errors.js";
import { resolvePath } from "../path.js";
import { type AgentPool, type AgentReply, request } from "./agent.js";
import type { SshConnection } from "./connection.js";

/** What the file operations take from their SshExecutionEnv. */
export interface SshFilesState {
	readonly cwd: string;
	readonly tempDir: string;
	readonly connection: SshConnection;
	readonly pool: AgentPool;
	readonly policy: PathPolicy | undefined;
	/** The policy's roots made canonical on the remote host, once. */
	roots: Promise<CanonicalRoots> | undefined;
	/** Temp files and folders the env made: readable and writable under any policy. */
	readonly created: string[];
}

/** Utility messages (C locale) and the errno they stand for. */
const MESSAGES: readonly (readonly [RegExp, string])[] = [
	[/No such file or directory/, "ENOENT"],
	[/Not a directory|cannot overwrite non-directory .* with directory/, "ENOTDIR"],
	[/Is a directory|cannot overwrite directory .* with non-directory/, "EISDIR"],
	[/Permission denied/, "EACCES"],
	[/Operation not permitted/, "EPERM"],
	[/Read-only file system/, "EROFS"],
	[/File exists/, "EEXIST"],
	[/Directory not empty/, "ENOTEMPTY"],
	[/Too many levels of symbolic links/, "ELOOP"],
	[/File name too long/, "ENAMETOOLONG"],
	[/Invalid argument|cannot move .* to a subdirectory of itself/, "EINVAL"],
	[/No space left on device/, "ENOSPC"],
	[/Invalid cross-device link/, "EXDEV"],
];

/** The kind a `stat` mode (`st_mode`, with its type bits) stands for. */
function kindOfMode(mode: number): FileKind {
	switch (mode & 0o170000) {
		case 0o040000:
			return "directory";
		case 0o120000:
			return "symlink";
		case 0o010000:
			return "fifo";
		case 0o020000:
			return "character_device";
		case 0o060000:
			return "block_device";
		case 0o140000:
			return "socket";
		default:
			return "file";
	}
}

const LETTERS: Readonly<Record<string, FileKind>> = {
	f: "file",
	d: "directory",
	l: "symlink",
	p: "fifo",
	c: "character_device",
	b: "block_device",
	s: "socket",
};

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenientUtf8 = new TextDecoder("utf-8", { ignoreBOM: true });

/** `path` made absolute against the env's cwd, or `invalid_path`. */
export function absoluteIn(state: { readonly cwd: string }, path: string): Result<string, FileError> {
	const problem = pathProblem(path);
	if (problem) return err(fileError("invalid_path", describeValue(path), problem));
	return ok(resolvePath(state.cwd, path));
}

/** A failed reply as the FileError of `path`. */
export function replyError(reply: Exclude<AgentReply, { ok: true }> | "aborted", path: string): FileError {
	if (reply === "aborted") return fileError("aborted", path);
	if (reply.ok === "lost") return fileError("io_error", path, reply.error.message, "ECONNRESET");
	const message = reply.message.trim();
	const special = /^ESPECIAL ([0-9a-f]+)/.exec(message);
	if (special) {
		const kind = kindOfMode(Number.parseInt(special[1] as string, 16));
		return notRegularFileError(path, kind === "file" || kind === "directory" || kind === "symlink" ? undefined : kind);
	}
	const named = /^(E[A-Z]+)\b/.exec(message)?.[1];
	const osCode = named ?? MESSAGES.find(([pattern]) => pattern.test(message))?.[1];
	const error = Object.assign(new Error(message || "the remote command failed"), osCode ? { code: osCode } : {});
	return mapFsError(error, path);
}

async function call(
	state: SshFilesState,
	path: string,
	fn: string,
	args: readonly string[],
	payload?: Uint8Array,
	signal?: AbortSignal,
): Promise<Result<Buffer, FileError>> {
	const reply = await request(state.pool, fn, args, payload, signal);
	if (reply !== "aborted" && reply.ok === true) return ok(reply.data);
	return err(replyError(reply, path));
}

/**
 * `path` absolute and, under a policy, allowed for `access` (checked on its canonical path: that
 * of the deepest existing folder above it for a path that does not exist yet).
 */
async function allowed(
	state: SshFilesState,
	path: string,
	access: "read" | "write",
	followLast = true,
): Promise<Result<string, FileError>> {
	const abs = absoluteIn(state, path);
	if (!abs.ok || !state.policy) return abs;
	const roots = withCreated(await policyRoots(state, state.policy), state.created);
	const checked = await checkAccess(abs.value, access, followLast, roots, (absolute) =>
		canonicalForPolicy(state, absolute),
	);
	return checked.ok ? abs : checked;
}

function policyRoots(state: SshFilesState, policy: PathPolicy): Promise<CanonicalRoots> {
	state.roots ??= policyRootsLater(policy, state.cwd, async (absolute) => {
		const real = await canonicalForPolicy(state, absolute);
		return real.ok ? real.value : absolute;
	});
	return state.roots;
}

/**
 * The canonical form of `absolute`, whether it exists or not, as the Node env's policy sees it:
 * every symlink resolved (a dangling one followed to where it points, so a write through it is
 * checked where it lands) and the missing rest appended (`realpath -m`, one request).
 */
async function canonicalForPolicy(state: SshFilesState, absolute: string): Promise<Result<string, FileError>> {
	const real = await call(state, absolute, "_pm", [absolute]);
	return real.ok ? ok(lineOf(real.value)) : real;
}

function lineOf(data: Buffer): string {
	const text = data.toString("utf8");
	return text.endsWith("\n") ? text.slice(0, -1) : text;
}

export async function canonicalPath(state: SshFilesState, path: string): Promise<Result<string, FileError>> {
	const abs = await allowed(state, path, "read");
	if (!abs.ok) return abs;
	const real = await call(state, abs.value, "_p", [abs.value]);
	return real.ok ? ok(lineOf(real.value)) : real;
}

export async function exists(state: SshFilesState, path: string): Promise<boolean> {
	const abs = await allowed(state, path, "read");
	if (!abs.ok) return false;
	return (await call(state, abs.value, "_x", [abs.value])).ok;
}

export async function fileInfo(
	state: SshFilesState,
	path: string,
	options: { readonly followSymlinks?: boolean } = {},
): Promise<Result<FileInfo, FileError>> {
	const follow = options?.followSymlinks !== false;
	const abs = await allowed(state, path, "read", follow);
	if (!abs.ok) return abs;
	const reply = await call(state, abs.value, "_s", [follow ? "1" : "0", abs.value]);
	if (!reply.ok) return reply;
	const [mode, size, mtime] = reply.value.toString("utf8").trim().split(" ");
	const bits = Number.parseInt(mode ?? "", 16);
	return ok({
		kind: kindOfMode(bits),
		size: Number(size),
		mtimeMs: millis(mtime ?? ""),
		mode: bits & 0o7777,
	});
}

/**
 * `stat`'s `<seconds>.<nanoseconds>` as milliseconds, computed as Node computes `mtimeMs`
 * (seconds × 1000 + nanoseconds / 10⁶), so a file reads the same here as through a local stat.
 */
function millis(stamp: string): number {
	const [seconds = "0", fraction = ""] = stamp.split(".");
	return Number(seconds) * 1000 + Number(fraction.padEnd(9, "0").slice(0, 9)) / 1e6;
}

export async function listDir(state: SshFilesState, path: string): Promise<Result<DirEntry[], FileError>> {
	const abs = await allowed(state, path, "read");
	if (!abs.ok) return abs;
	const reply = await call(state, abs.value, "_l", [abs.value]);
	if (!reply.ok) return reply;
	const entries: DirEntry[] = [];
	const data = reply.value;
	for (let start = 0; start < data.length; ) {
		let end = data.indexOf(0, start);
		if (end < 0) end = data.length;
		const record = data.subarray(start, end);
		start = end + 1;
		if (record.length < 3) continue;
		const kind = LETTERS[String.fromCharCode(record[0] as number)] ?? "file";
		const nameBytes = record.subarray(2);
		let name: string;
		let notUtf8 = false;
		try {
			name = strictUtf8.decode(nameBytes);
		} catch {
			name = lenientUtf8.decode(nameBytes);
			notUtf8 = true;
		}
		entries.push(notUtf8 ? { name, kind, notUtf8: true } : { name, kind });
	}
	return ok(entries.sort((a, b) => byName(a.name, b.name)));
}

export async function readBinaryFile(
	state: SshFilesState,
	path: string,
	options: SignalOptions = {},
): Promise<Result<Uint8Array, FileError>> {
	const abs = await allowed(state, path, "read");
	if (!abs.ok) return abs;
	const reply = await call(state, abs.value, "_c", [abs.value], undefined, options?.signal ?? undefined);
	return reply.ok ? ok(new Uint8Array(reply.value.buffer, reply.value.byteOffset, reply.value.byteLength)) : reply;
}

export async function readTextFile(
	state: SshFilesState,
	path: string,
	options: SignalOptions = {},
): Promise<Result<string, FileError>> {
	const bytes = await readBinaryFile(state, path, options);
	return bytes.ok ? ok(lenientUtf8.decode(bytes.value)) : bytes;
}

export async function readRange(
	state: SshFilesState,
	path: string,
	offset: number,
	length: number,
	options: SignalOptions = {},
): Promise<Result<Uint8Array, FileError>> {
	const abs = await allowed(state, path, "read");
	if (!abs.ok) return abs;
	const problem = rangeProblem(offset, length);
	if (problem) return err(fileError("invalid_argument", abs.value, problem));
	const reply = await call(
		state,
		abs.value,
		"_g",
		[abs.value, String(offset), String(length)],
		undefined,
		options?.signal ?? undefined,
	);
	return reply.ok ? ok(new Uint8Array(reply.value.buffer, reply.value.byteOffset, reply.value.byteLength)) : reply;
}

function payloadOf(data: unknown, path: string): Result<Uint8Array, FileError> {
	if (typeof data === "string") return ok(new TextEncoder().encode(data));
	if (data instanceof Uint8Array) return ok(data);
	return err(fileError("invalid_argument", path, `data must be a string or a Uint8Array, got ${describeValue(data)}`));
}

export async function writeFile(
	state: SshFilesState,
	path: string,
	data: string | Uint8Array,
	options: SignalOptions = {},
): Promise<Result<void, FileError>> {
	const abs = await allowed(state, path, "write");
	if (!abs.ok) return abs;
	const payload = payloadOf(data, abs.value);
	if (!payload.ok) return payload;
	if (options?.signal?.aborted) return err(fileError("aborted", abs.value));
	// Not abortable once sent: the helper renames the whole file in place or leaves the old one.
	const reply = await call(state, abs.value, "_w", [abs.value, String(payload.value.length)], payload.value);
	return reply.ok ? ok(undefined) : reply;
}

export async function appendFile(
	state: SshFilesState,
	path: string,
	data: string | Uint8Array,
): Promise<Result<void, FileError>> {
	const abs = await allowed(state, path, "write");
	if (!abs.ok) return abs;
	const payload = payloadOf(data, abs.value);
	if (!payload.ok) return payload;
	const reply = await call(state, abs.value, "_a", [abs.value, String(payload.value.length)], payload.value);
	return reply.ok ? ok(undefined) : reply;
}

export async function rename(state: SshFilesState, from: string, to: string): Promise<Result<void, FileError>> {
	const source = await allowed(state, from, "write", false);
	if (!source.ok) return source;
	const target = await allowed(state, to, "write", false);
	if (!target.ok) return target;
	const reply = await call(state, source.value, "_m", [source.value, target.value]);
	return reply.ok ? ok(undefined) : reply;
}

export async function remove(
	state: SshFilesState,
	path: string,
	options: { readonly recursive?: boolean } = {},
): Promise<Result<void, FileError>> {
	const abs = await allowed(state, path, "write", false);
	if (!abs.ok) return abs;
	const reply = await call(state, abs.value, "_d", [abs.value, options?.recursive ? "1" : "0"]);
	return reply.ok ? ok(undefined) : reply;
}

export async function createDir(
	state: SshFilesState,
	path: string,
	options: { readonly recursive?: boolean } = {},
): Promise<Result<void, FileError>> {
	const abs = await allowed(state, path, "write");
	if (!abs.ok) return abs;
	const reply = await call(state, abs.value, "_k", [abs.value, options?.recursive === false ? "0" : "1"]);
	return reply.ok ? ok(undefined) : reply;
}

export async function createTempFile(
	state: SshFilesState,
	options: { readonly prefix?: string; readonly suffix?: string } = {},
): Promise<Result<string, FileError>> {
	const problem = affixProblem(options?.prefix, "prefix") ?? affixProblem(options?.suffix, "suffix");
	if (problem) return err(fileError("invalid_argument", state.tempDir, problem));
	const reply = await call(state, state.tempDir, "_tf", [
		state.tempDir,
		options?.prefix ?? "toolsmith-",
		options?.suffix ?? "",
	]);
	if (!reply.ok) return reply;
	const created = lineOf(reply.value);
	if (state.policy) state.created.push(created);
	return ok(created);
}

export async function createTempDir(
	state: SshFilesState,
	options: { readonly prefix?: string } = {},
): Promise<Result<string, FileError>> {
	const problem = affixProblem(options?.prefix, "prefix");
	if (problem) return err(fileError("invalid_argument", state.tempDir, problem));
	const reply = await call(state, state.tempDir, "_td", [state.tempDir, options?.prefix ?? "toolsmith-"]);
	if (!reply.ok) return reply;
	const created = lineOf(reply.value);
	if (state.policy) state.created.push(created);
	return ok(created);
}
