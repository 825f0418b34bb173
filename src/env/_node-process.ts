/**
 * Process helpers for NodeExecutionEnv: finding programs on PATH (the shell, rg, fd), running rg
 * or fd for the paths they list (here, or through a `PathProgram` elsewhere), and telling whether
 * any process of a group is still alive.
 * Node-only.
 */
import { isUtf8 } from "node:buffer";
import { type ChildProcess, spawn } from "node:child_process";
import { promises as fs, constants as fsConstants, readdirSync, readFileSync } from "node:fs";
import { delimiter } from "node:path";

/**
 * The first executable file named one of `names` (in that order) in an absolute PATH folder, or
 * in one of `extraPlaces`, that `accepts`; undefined when there is none.
 */
export async function findExecutable(
	names: readonly string[],
	accepts: (file: string) => Promise<boolean> = async () => true,
	extraPlaces: readonly string[] = [],
): Promise<string | undefined> {
	const dirs = (process.env.PATH ?? "").split(delimiter).filter((dir) => dir.startsWith("/"));
	const candidates = [...names.flatMap((name) => dirs.map((dir) => `${dir}/${name}`)), ...extraPlaces];
	for (const candidate of candidates) {
		try {
			await fs.access(candidate, fsConstants.X_OK);
		} catch {
			continue; // not here; try the next place
		}
		if (await accepts(candidate)) return candidate;
	}
	return undefined;
}

/** Whether `file --version` exits 0 with output matching `pattern` (a same-named program may be another). */
export function reportsVersion(file: string, pattern: RegExp): Promise<boolean> {
	return new Promise((resolve) => {
		const child = spawn(file, ["--version"], { stdio: ["ignore", "pipe", "ignore"] });
		let out = "";
		child.stdout.on("data", (chunk: Buffer) => {
			out += chunk.toString("utf8");
		});
		child.on("error", () => resolve(false));
		child.on("close", (code) => resolve(code === 0 && pattern.test(out)));
	});
}

/**
 * `process.env` with HOME and XDG_CONFIG_HOME pointed at a folder that does not exist: rg and fd
 * then read no global gitignore (core.excludesFile, ~/.config/git/ignore) or config of their own,
 * which the walker does not read either.
 */
export function withoutHomeConfig(): NodeJS.ProcessEnv {
	const none = "/nonexistent-toolsmith-home";
	return { ...process.env, HOME: none, XDG_CONFIG_HOME: none };
}

/** How a run of `listPaths` ended: the program's exit code and the start of what it wrote on stderr. */
export type ListedPaths =
	| { readonly ok: true; readonly code: number | null; readonly stderr: string }
	| {
			readonly ok: false;
			/** `aborted` once `signal` fired (the program is killed), `spawn` when it could not start or run. */
			readonly why: "aborted" | "spawn";
			readonly message: string;
			/** The system's name for the failure, when there is one (`ECONNRESET` for a lost connection). */
			readonly osCode?: string;
	  };

/** What a run of a listing program is given besides its arguments. */
export interface ListOptions {
	/** The folder it runs in. */
	readonly cwd?: string;
	readonly signal: AbortSignal | undefined;
}

/**
 * A program that lists paths (rg, fd), wherever it runs: on this machine (`localProgram`) or on
 * another one. `list` hands each NUL-terminated path it prints to `onPath` as `listPaths` does,
 * with the home config pointed away; resolves when it ends or `signal` fires; never rejects.
 */
export interface PathProgram {
	/** How messages name it (its path). */
	readonly name: string;
	list(
		args: readonly string[],
		options: ListOptions,
		onPath: (path: string, utf8: boolean) => void,
	): Promise<ListedPaths>;
}

/** `file` on this machine as a `PathProgram`. */
export function localProgram(file: string): PathProgram {
	return { name: file, list: (args, options, onPath) => listPaths(file, args, options, onPath) };
}

/**
 * A reader of a program's stdout cut at NUL bytes: each path goes to `onPath` as text without a
 * leading `./` (empty ones skipped), with whether its bytes are valid UTF-8 (when not, the text
 * has U+FFFD in their place and names no file). Call `end` once the output ended.
 */
export function nulSeparatedPaths(onPath: (path: string, utf8: boolean) => void): {
	push(chunk: Buffer): void;
	end(): void;
} {
	let pending: Buffer = Buffer.alloc(0);
	const take = (bytes: Buffer) => {
		let path = bytes.toString("utf8");
		if (path.startsWith("./")) path = path.slice(2);
		if (path !== "") onPath(path, isUtf8(bytes));
	};
	return {
		push(chunk) {
			const data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
			let start = 0;
			for (let nul = data.indexOf(0, start); nul >= 0; nul = data.indexOf(0, start)) {
				take(data.subarray(start, nul));
				start = nul + 1;
			}
			// A copy: the chunk's buffer may be reused.
			pending = Buffer.from(data.subarray(start));
		},
		end() {
			if (pending.length > 0) take(pending);
			pending = Buffer.alloc(0);
		},
	};
}

/**
 * Run `file` (rg, fd) with `args`, handing each NUL-terminated path it prints on stdout to
 * `onPath` (`nulSeparatedPaths`). With the home config pointed away (`withoutHomeConfig`).
 * Resolves when the program ends or `signal` fires; never rejects.
 */
export function listPaths(
	file: string,
	args: readonly string[],
	options: ListOptions,
	onPath: (path: string, utf8: boolean) => void,
): Promise<ListedPaths> {
	const { signal } = options;
	if (signal?.aborted) return Promise.resolve({ ok: false, why: "aborted", message: "aborted" });
	const env = withoutHomeConfig();
	delete env.RIPGREP_CONFIG_PATH;
	const child = spawn(file, args, { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"], env });
	return collectPaths(child, signal, onPath, {
		failed: (error) => ({ ok: false, why: "spawn", message: `could not run ${file}: ${error.message}` }),
	});
}

/** What `collectPaths` makes of a child that could not start, and of its end. */
export interface CollectOutcomes {
	/** The result for a child that could not be started. */
	readonly failed: (error: Error) => ListedPaths;
	/** The result for a child that ended with `code`, when it is not the plain `{ ok: true }` one. */
	readonly closed?: (code: number | null, stderr: string) => ListedPaths | undefined;
}

/**
 * Hand each NUL-terminated path `child` prints on stdout to `onPath` (`nulSeparatedPaths`) until
 * it ends, keeping the start of its stderr; once `signal` fires, kill it and settle as aborted.
 * Never rejects.
 */
export function collectPaths(
	child: ChildProcess,
	signal: AbortSignal | undefined,
	onPath: (path: string, utf8: boolean) => void,
	outcomes: CollectOutcomes,
): Promise<ListedPaths> {
	return new Promise((resolve) => {
		const paths = nulSeparatedPaths(onPath);
		let stderr = "";
		let done = false;
		const finish = (result: ListedPaths) => {
			if (done) return;
			done = true;
			signal?.removeEventListener("abort", onAbort);
			child.kill();
			resolve(result);
		};
		const onAbort = () => finish({ ok: false, why: "aborted", message: "aborted" });
		signal?.addEventListener("abort", onAbort, { once: true });
		child.stdin?.on("error", () => {});
		child.stdout?.on("data", (chunk: Buffer) => {
			if (!done) paths.push(chunk);
		});
		child.stderr?.on("data", (chunk: Buffer) => {
			if (stderr.length < 4096) stderr += chunk.toString("utf8");
		});
		child.on("error", (error) => finish(outcomes.failed(error)));
		child.on("close", (code) => {
			if (done) return;
			const special = outcomes.closed?.(code, stderr);
			if (special) return finish(special);
			paths.end();
			finish({ ok: true, code, stderr });
		});
	});
}

let shellPromise: Promise<string> | undefined;

/** `bash` from PATH (or the usual places), else `/bin/sh`. Looked up once per process. */
export function defaultShell(): Promise<string> {
	shellPromise ??= findExecutable(["bash"], undefined, ["/bin/bash", "/usr/bin/bash"]).then(
		(bash) => bash ?? "/bin/sh",
	);
	return shellPromise;
}

/** The state letter and process group of `pid` from /proc, or undefined where there is no /proc. */
function procStat(pid: string): { state: string; pgrp: number } | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		// The command name may hold spaces and parentheses, so parse from the last ")".
		const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		return { state: fields[0] ?? "", pgrp: Number(fields[2]) };
	} catch {
		return undefined;
	}
}

/**
 * Whether a process of group `pgid` can still run. A zombie cannot, and in containers whose init
 * never reaps orphans zombies linger forever, so on Linux they are not counted.
 */
export function groupAlive(pgid: number): boolean {
	try {
		process.kill(-pgid, 0);
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
	if (process.platform !== "linux") return true;
	let names: string[];
	try {
		names = readdirSync("/proc");
	} catch {
		return true;
	}
	for (const name of names) {
		if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
		const stat = procStat(name);
		if (stat && stat.pgrp === pgid && stat.state !== "Z" && stat.state !== "X") return true;
	}
	return false;
}

/** Send `signal` to every process of group `pgid`; ignore a group that is already gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pgid, signal);
	} catch {
		// Gone already, or never started: nothing left to signal.
	}
}
