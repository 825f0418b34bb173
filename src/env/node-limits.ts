/**
 * Resource limits of sandboxed commands (Node only): the policy's `limits` with their defaults,
 * the small shell that starts a command inside the sandbox under rlimits and afterwards looks
 * whether it filled a private tmpfs, and the words a reached limit is reported in.
 */
import { totalmem } from "node:os";
import type { LimitReached, SandboxLimits } from "../contract/env.js";
import { err, ok, type Result } from "../contract/result.js";

/** The limits a command runs under; undefined for a lifted one. */
export interface ResolvedLimits {
	readonly processes?: number;
	readonly memoryBytes?: number;
	readonly tmpBytes?: number;
}

export const DEFAULT_PROCESSES = 2048;
export const DEFAULT_TMP_BYTES = 1024 ** 3;
/** Half of this machine's memory. */
export const defaultMemoryBytes = () => Math.floor(totalmem() / 2);

/** The lowest value each limit takes: below it the sandbox itself could not start a shell. */
export const LIMIT_MINIMUMS = { processes: 8, memoryBytes: 16 * 1024 ** 2, tmpBytes: 64 * 1024 } as const;
const MINIMUM = LIMIT_MINIMUMS;

/** `bytes` as people read it: `512 MiB`, `1 GiB`, `1.5 GiB`. */
export function formatBytes(bytes: number): string {
	const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
	let value = bytes;
	let unit = 0;
	while (value >= 1024 && unit < units.length - 1) {
		value /= 1024;
		unit++;
	}
	const shown = Number.isInteger(value) ? String(value) : value.toFixed(1).replace(/\.0$/, "");
	return `${shown} ${units[unit]}`;
}

/** `limits` with the defaults filled in and `Infinity` taken as lifted, or what is wrong with them. */
export function resolveLimits(limits: SandboxLimits | undefined): Result<ResolvedLimits, string> {
	const given = limits ?? {};
	if (typeof given !== "object" || given === null) return err("policy.limits must be an object");
	const known = new Set(["processes", "memoryBytes", "tmpBytes"]);
	const unknown = Object.keys(given).filter((key) => !known.has(key));
	if (unknown.length > 0) {
		return err(
			`policy.limits has no ${unknown.map((key) => JSON.stringify(key)).join(", ")}: use processes, memoryBytes or tmpBytes`,
		);
	}
	const defaults = { processes: DEFAULT_PROCESSES, memoryBytes: defaultMemoryBytes(), tmpBytes: DEFAULT_TMP_BYTES };
	const resolved: { processes?: number; memoryBytes?: number; tmpBytes?: number } = {};
	for (const key of ["processes", "memoryBytes", "tmpBytes"] as const) {
		const value: unknown = given[key] ?? defaults[key];
		if (value === Number.POSITIVE_INFINITY) continue;
		if (typeof value !== "number" || !Number.isSafeInteger(value) || value < MINIMUM[key]) {
			const least = key === "processes" ? String(MINIMUM[key]) : `${MINIMUM[key]} (${formatBytes(MINIMUM[key])})`;
			return err(
				`policy.limits.${key} must be a whole number of at least ${least}, or Infinity for none; got ${String(value)}`,
			);
		}
		resolved[key] = value;
	}
	return ok(resolved);
}

/** A word for the shell: single-quoted. */
const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * The script the sandbox runs as `sh -c <script> <shell> <command>`: sets the rlimits (the number
 * of processes counts the sandbox's user namespace only when set from inside it, so it is set
 * here, not before bubblewrap starts), runs `<shell> -c <command>` without the report descriptor,
 * then writes `tmp <folder>` on descriptor 4 for each of `tmpfsFolders` left without a free block.
 */
export function limitScript(limits: ResolvedLimits, tmpfsFolders: readonly string[]): string {
	const lines: string[] = [];
	if (limits.processes !== undefined) {
		// bash and busybox spell it -u, dash -p (bash's -p is the pipe size, read-only: it fails).
		lines.push(`ulimit -u ${limits.processes} 2>/dev/null || ulimit -p ${limits.processes} 2>/dev/null`);
	}
	if (limits.memoryBytes !== undefined) lines.push(`ulimit -d ${Math.ceil(limits.memoryBytes / 1024)} 2>/dev/null`);
	lines.push('"$0" -c "$1" 4>&-', "s=$?");
	for (const folder of tmpfsFolders) {
		lines.push(`[ "$(stat -f -c %a ${quote(folder)} 2>/dev/null)" = 0 ] && echo ${quote(`tmp ${folder}`)} >&4`);
	}
	lines.push("exit $s");
	return lines.join("\n");
}

/** The report of a reached limit. */
export function limitReached(limit: LimitReached["limit"], value: number, folder?: string): LimitReached {
	const message =
		limit === "processes"
			? `toolsmith: the command reached the sandbox's limit of ${value} processes and threads, so starting another failed. If it needs more, raise the policy's limits.processes (--limit processes=N on the toolsmith CLI).`
			: limit === "memory"
				? `toolsmith: the command reached the sandbox's memory limit of ${formatBytes(value)}, and the kernel killed a process of it. If it needs more, raise the policy's limits.memoryBytes (--limit memory=SIZE on the toolsmith CLI).`
				: `toolsmith: the command filled ${folder ?? "/tmp"}, a private tmpfs of ${formatBytes(value)} in the sandbox, so a write there failed. Write large files inside the project instead, or raise the policy's limits.tmpBytes (--limit tmp=SIZE on the toolsmith CLI).`;
	return folder === undefined ? { limit, value, message } : { limit, value, path: folder, message };
}

/** The `tmp <folder>` lines of the report descriptor as reports, for the folders in `watched` only. */
export function tmpReports(text: string, limits: ResolvedLimits, watched: readonly string[]): LimitReached[] {
	if (limits.tmpBytes === undefined) return [];
	const folders = text
		.split("\n")
		.filter((line) => line.startsWith("tmp "))
		.map((line) => line.slice("tmp ".length))
		.filter((folder) => watched.includes(folder));
	return [...new Set(folders)].map((folder) => limitReached("tmp", limits.tmpBytes as number, folder));
}
