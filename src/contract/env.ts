/**
 * ExecutionEnv: the only door built-in and extension tools have to the world.
 *
 * Two implementations ship: `NodeExecutionEnv` (`toolsmith-sdk/node`, the real disk and real
 * processes) and `MemoryExecutionEnv` (`toolsmith-sdk`, an in-memory file tree and a scripted
 * shell). Tools written against this interface behave the same on both, so they can be
 * tested without a disk.
 *
 * Contract shared by every method below: it never throws and never rejects. Failures come back
 * as `{ ok: false, error }` with a `FileError` / `ExecutionError` whose message names the path
 * or command (`exists` alone answers a plain boolean). Relative paths are resolved against `cwd`.
 */
import type { ExecutionError, FileError, Result } from "./result.js";

/**
 * What a path points at. Besides regular files, folders and symlinks an env may report special
 * files (`fifo`, `character_device`, `block_device`, `socket`); reading or writing one is refused
 * with an `invalid_argument` error naming the path and what it is, never waited on.
 */
export type FileKind = "file" | "directory" | "symlink" | "fifo" | "character_device" | "block_device" | "socket";

/** What `stat` and `lstat` report of a path: kind, size, modification time and permission bits. */
export interface FileInfo {
	readonly kind: FileKind;
	/** Size in bytes (for a symlink seen without following it: the length of its target). */
	readonly size: number;
	/** Last modification time, in milliseconds since the epoch. */
	readonly mtimeMs: number;
	/** Permission bits (`0o644`, …); `undefined` where the env has none. */
	readonly mode?: number;
}

/** One entry of a folder listing: its name and its own kind. */
export interface DirEntry {
	readonly name: string;
	/** The entry's own kind: a symlink is reported as `symlink`, not as its target's kind. */
	readonly kind: FileKind;
	/**
	 * Set when the name on disk is not valid UTF-8: `name` shows it with U+FFFD in place of the bad
	 * bytes, so a path made from it does not reach the entry (searches leave it out and count it).
	 */
	readonly notUtf8?: true;
}

/** Options shared by operations that can be cancelled. */
export interface SignalOptions {
	/** Once aborted, the operation settles with an `aborted` error as soon as it safely can. */
	// `| undefined` so a caller can pass on the signal it was given (`{ signal }`) under
	// `exactOptionalPropertyTypes`.
	readonly signal?: AbortSignal | undefined;
}

/** The file half of an `ExecutionEnv`: paths, reading (whole, by range, by line), writing, listing, temp files. Every method returns a `Result`; none throws for an expected failure. */
export interface FileSystem {
	/** The folder relative paths are resolved against. Absolute, no trailing slash (except `/`). */
	readonly cwd: string;

	/** `path` resolved against `cwd` and normalized (`.`/`..` removed). Symlinks are not resolved. */
	absolutePath(path: string): Result<string, FileError>;

	/** The absolute path with every symlink resolved. `not_found` if it does not exist. */
	canonicalPath(path: string): Promise<Result<string, FileError>>;

	/**
	 * Whether something exists at `path`, as a plain boolean (`if (await env.exists(p))` means what it
	 * says). `false` whenever it cannot be reached: missing, a dangling or looping symlink, an invalid
	 * path, a folder it may not look into. Use `fileInfo` to learn why.
	 */
	exists(path: string): Promise<boolean>;

	/** Kind, size and mtime. Follows symlinks unless `followSymlinks` is false. */
	fileInfo(path: string, options?: { readonly followSymlinks?: boolean }): Promise<Result<FileInfo, FileError>>;

	/** The entries of a folder, sorted by name. */
	listDir(path: string): Promise<Result<DirEntry[], FileError>>;

	/**
	 * The whole file decoded as UTF-8 (a BOM is kept; invalid bytes become U+FFFD). This and the
	 * other reads and `writeFile` accept only regular files: a FIFO, device or socket is refused
	 * (`invalid_argument`) from its metadata, without blocking.
	 */
	readTextFile(path: string, options?: SignalOptions): Promise<Result<string, FileError>>;

	/** The whole file as bytes. */
	readBinaryFile(path: string, options?: SignalOptions): Promise<Result<Uint8Array, FileError>>;

	/**
	 * At most `length` bytes starting at byte `offset`. Shorter (possibly empty) at the end of the
	 * file. Costs only the range: use it to page through files of any size.
	 */
	readRange(
		path: string,
		offset: number,
		length: number,
		options?: SignalOptions,
	): Promise<Result<Uint8Array, FileError>>;

	/**
	 * Replace the file's content, creating missing parent folders. Atomic: readers (and a crash)
	 * see the old content or the new one, never a mix. An existing file keeps its permission bits;
	 * writing through a symlink replaces the target, not the link.
	 */
	writeFile(path: string, data: string | Uint8Array, options?: SignalOptions): Promise<Result<void, FileError>>;

	/** Append to the file, creating it (and missing parent folders) if needed. Not atomic. */
	appendFile(path: string, data: string | Uint8Array): Promise<Result<void, FileError>>;

	/** Move a file or folder, replacing a file at `to`. */
	rename(from: string, to: string): Promise<Result<void, FileError>>;

	/** Delete a file, a symlink (not its target) or a folder (`recursive` for a non-empty one). */
	remove(path: string, options?: { readonly recursive?: boolean }): Promise<Result<void, FileError>>;

	/** Create a folder and, unless `recursive` is false, its missing parents. Existing folder: ok. */
	createDir(path: string, options?: { readonly recursive?: boolean }): Promise<Result<void, FileError>>;

	/** Create a new empty file in the env's temp folder and return its absolute path. */
	createTempFile(options?: { readonly prefix?: string; readonly suffix?: string }): Promise<Result<string, FileError>>;

	/** Create a new empty folder in the env's temp folder and return its absolute path. */
	createTempDir(options?: { readonly prefix?: string }): Promise<Result<string, FileError>>;
}

/** Options for `exec`: working folder, extra environment variables, timeout, output callbacks, cancellation. */
export interface ExecOptions extends SignalOptions {
	/** Working folder; defaults to the env's `cwd`. Relative values resolve against it. */
	readonly cwd?: string;
	/** Extra environment variables; `undefined` removes one. Merged over the env's own. */
	readonly env?: Readonly<Record<string, string | undefined>>;
	/** Seconds before the process tree is killed and `timeout` is returned. None by default. */
	readonly timeout?: number;
	/**
	 * Receives stdout bytes as they arrive. Chunks may split a multi-byte UTF-8 character: decode
	 * with a streaming decoder.
	 *
	 * May return a promise to apply backpressure: until it settles, no further stdout chunk is
	 * delivered and the env stops reading the stream (a real process then blocks on its full
	 * pipe), so a consumer slower than the command keeps memory bounded. A promise that never
	 * settles holds the command until its timeout or abort; on a timeout or an abort the env
	 * stops waiting for it. May throw or reject: the error is swallowed (a rejection counts as
	 * settled) and the command keeps running.
	 */
	readonly onStdout?: (chunk: Uint8Array) => void | Promise<void>;
	/** Like `onStdout`, for stderr (its backpressure holds back only stderr). */
	readonly onStderr?: (chunk: Uint8Array) => void | Promise<void>;
	/**
	 * Whether to buffer stdout and stderr into the result. Defaults to true only when neither
	 * `onStdout` nor `onStderr` is given, so a streaming caller's memory stays bounded.
	 */
	readonly captureOutput?: boolean;
}

/**
 * Where an env's tools may reach: allowed roots for reading and for writing, checked on the
 * canonical path (every symlink resolved), and what `exec` does about the shell. Without a policy
 * an env is unconfined. Refusals are `permission_denied` errors whose message names the roots.
 */
export interface PathPolicy {
	/** Folders (and everything under them) that may be read. Relative ones resolve against the env's cwd. */
	readonly read: readonly string[];
	/** Folders (and everything under them) that may be written. Default: the `read` roots. */
	readonly write?: readonly string[];
	/** Whether sandboxed commands may use the network. Default false. */
	readonly network?: boolean;
	/**
	 * Whether sandboxed commands may open Unix sockets (a database's, an agent's, a container
	 * engine's: any the user could reach). Default false: creating one fails with EPERM, even with
	 * `network: true`. Node only (the Linux sandbox's seccomp filter; on macOS, a profile rule).
	 */
	readonly unixSockets?: boolean;
	/**
	 * Whether sandboxed commands see only the read roots, the write roots and the system folders
	 * programs need to run (`/usr`, `/bin`, `/lib*`, `/opt`, Node's own install, the harmless part
	 * of `/etc`), with an empty private HOME and `/tmp`. Default false: they can read the whole disk
	 * (but not write it). Node only.
	 */
	readonly confineReads?: boolean;
	/**
	 * What `exec` does where no OS sandbox is available (no `bwrap` on Linux, no `sandbox-exec` on
	 * macOS, another OS, or the env's `sandbox: "off"`): `"refuse"` (the default) fails every command
	 * with `spawn_error`; `"warn"` runs it unconfined and says so in `ExecResult.warning` and stderr.
	 */
	readonly withoutSandbox?: "refuse" | "warn";
	/**
	 * How much a sandboxed command may take of the machine: processes, memory and its private
	 * temporary folders (see `SandboxLimits` for the defaults). Linux only; where each is enforced
	 * and how is in docs/security.md.
	 */
	readonly limits?: SandboxLimits;
}

/**
 * Resource limits of commands run in the shell sandbox (Linux). A command that reaches one gets
 * the kernel's refusal (a fork or an allocation fails, a process is killed for memory, a write
 * finds no space) and, where toolsmith can tell, a `LimitReached` in its result. `Infinity` lifts
 * a limit.
 */
export interface SandboxLimits {
	/** Most processes and threads the command may have at once, all together. Default 2048. */
	readonly processes?: number;
	/**
	 * Most memory in bytes: of the whole command (its tmpfs files included) where cgroups hold it,
	 * of each process otherwise. Default: half of the machine's memory.
	 */
	readonly memoryBytes?: number;
	/**
	 * Size in bytes of each private tmpfs the sandbox gives the command: `/tmp`, `/dev/shm` and,
	 * under `confineReads`, the empty HOME. Default 1 GiB.
	 */
	readonly tmpBytes?: number;
}

/** A sandbox limit a command reached, as far as toolsmith could tell (see `SandboxLimits`). */
export interface LimitReached {
	readonly limit: "processes" | "memory" | "tmp";
	/** The limit: a count of processes, or bytes. */
	readonly value: number;
	/** For `tmp`: the folder that filled up (`/tmp`, `/dev/shm` or the private HOME). */
	readonly path?: string;
	/** What happened and how to raise the limit, for the model and the user (also the last line of stderr). */
	readonly message: string;
}

/** How a command ended: its exit code, the output if it was captured, and how long it ran. */
export interface ExecResult {
	/** Set when the command ran without the confinement its env's policy asks for (see `PathPolicy.withoutSandbox`). */
	readonly warning?: string;
	/** The sandbox limits the command reached (see `PathPolicy.limits`); absent when none was. */
	readonly limitsReached?: readonly LimitReached[];
	/** The exit code; a process ended by a signal reports `128 + signal number`. */
	readonly exitCode: number;
	/** Buffered stdout (empty unless output was captured). */
	readonly stdout: string;
	/** Buffered stderr (empty unless output was captured). */
	readonly stderr: string;
	readonly durationMs: number;
}

/** The process half of an `ExecutionEnv`: running a command through the env's shell. */
export interface Shell {
	/**
	 * Run `command` through the env's shell. Resolves with the exit code (any code, including
	 * non-zero) or with an `ExecutionError` (`timeout`, `aborted`, `spawn_error`). On timeout or
	 * abort the whole process tree is killed before the promise settles.
	 */
	exec(command: string, options?: ExecOptions): Promise<Result<ExecResult, ExecutionError>>;
}

/** What `findFiles` looks for: files under a folder whose path matches a glob. */
export interface FindFilesRequest {
	/** The folder to search; relative paths resolve against `cwd`. */
	readonly path: string;
	/**
	 * The glob (`*`, `?`, `**`, `[...]`, `{a,b}`): without a `/` it is matched against base names,
	 * with one against paths relative to `path`, at any depth unless it starts with `/`.
	 */
	readonly pattern: string;
	/** At most this many paths come back (a positive integer). */
	readonly limit: number;
	/** Include names starting with `.` (`.git` never). Default false. */
	readonly hidden?: boolean;
}

/** What `findFiles` found: the first `limit` matching paths, in order, and whether there were more. */
export interface FindFilesResult {
	/**
	 * Paths relative to the searched folder, with `/` separators, in code point order segment by
	 * segment (a folder's contents right after it). Regular files and symlinks (not followed).
	 */
	readonly paths: readonly string[];
	/** Whether more files matched than `limit`. */
	readonly limitReached: boolean;
	/**
	 * Entries left out because their names are not valid UTF-8 (string paths cannot reach them); a
	 * folder counts once, whatever it holds. Absent when there were none.
	 */
	readonly skippedNames?: number;
}

/** What `searchText` looks for: lines matching a pattern in the text files under a folder. */
export interface SearchTextRequest {
	/** The folder to search; relative paths resolve against `cwd`. */
	readonly path: string;
	/** A regular expression in RE2 syntax (run in linear time; no lookaround or backreferences), or the text itself with `literal`. */
	readonly pattern: string;
	/** Match `pattern` as plain text. Default false. */
	readonly literal?: boolean;
	/** Match regardless of case. Default false. */
	readonly ignoreCase?: boolean;
	/** Only files whose path relative to `path` matches this glob (the find tool's glob rules). */
	readonly glob?: string;
	/** Lines before and after each match to return with it. Default 0. */
	readonly context?: number;
	/** Stop after this many matches (a positive integer). */
	readonly limit: number;
	/** Search names starting with `.` too (`.git` never). Default false. */
	readonly hidden?: boolean;
	/**
	 * The output budget, in bytes: matches whose lines (each counted as printed by grep,
	 * `path:line: text`) would start past it are counted toward `limit` but not kept, and
	 * `context` is held to `maxBytes / 6` lines (no longer window could be shown). Default 16 MiB;
	 * the grep tool passes its own (50 KB).
	 */
	readonly maxBytes?: number;
	/** Lines kept longer than this many characters are cut to one more than it (the grep tool passes 500). Default: none. */
	readonly maxLineChars?: number;
}

/** One matching line found by `searchText`. */
export interface SearchTextMatch {
	/** The file's path relative to the searched folder, with `/` separators. */
	readonly path: string;
	/** The line's number, from 1. */
	readonly line: number;
	/**
	 * The line, without its line ending and with every `\r` removed (invalid UTF-8 becomes U+FFFD);
	 * cut to `maxLineChars + 1` characters when the request set `maxLineChars`.
	 */
	readonly text: string;
	/** Up to `context` lines before it, in order, in the same form. */
	readonly before: readonly string[];
	/** Up to `context` lines after it, in order, in the same form. */
	readonly after: readonly string[];
}

/** What `searchText` found: the first `limit` matches, files in path order and lines in file order. */
export interface SearchTextResult {
	/** The matches, files in the order `findFiles` lists them. */
	readonly matches: readonly SearchTextMatch[];
	/** Whether the search stopped at `limit` matches (there may be no more). */
	readonly limitReached: boolean;
	/** Matches found (toward `limit`) but not kept because the output budget (`maxBytes`) was full. */
	readonly matchesNotKept?: number;
	/** Files and folders left out because their names are not valid UTF-8 (see `FindFilesResult`). */
	readonly skippedNames?: number;
}

/** Files plus a shell: everything a tool may touch. */
export interface ExecutionEnv extends FileSystem, Shell {
	/** A short name for messages and reports (`"node"`, `"memory"`). */
	readonly kind: string;

	/**
	 * Optional fast path of the find tool. Skips what `.gitignore` (inside a git repository),
	 * `.ignore` and `.fdignore` files exclude, the way `fd` does. An env without it still works:
	 * the tool walks the tree through the `FileSystem` methods, with the same result. Fails with
	 * `not_found` / `not_directory` naming the folder, `invalid_argument` for a malformed pattern.
	 */
	findFiles?(request: FindFilesRequest, options?: SignalOptions): Promise<Result<FindFilesResult, FileError>>;

	/**
	 * Optional fast path of the grep tool. Searches the regular files (symlinks not followed) that
	 * `.gitignore` (inside a git repository), `.ignore` and `.rgignore` files leave, the way `rg`
	 * does, skipping `.git` and binary files (a NUL byte anywhere). An env without it still works:
	 * the tool walks and reads the files through the `FileSystem` methods, with the same result.
	 * Fails with `not_found` / `not_directory` naming the folder, `invalid_argument` for a
	 * malformed pattern, glob or limit.
	 */
	searchText?(request: SearchTextRequest, options?: SignalOptions): Promise<Result<SearchTextResult, FileError>>;
}
