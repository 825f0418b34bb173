/**
 * Process-group helpers for NodeExecutionEnv: finding a shell, and telling whether any process
 * of a group is still alive. Node-only.
 */
import { promises as fs, constants as fsConstants, readdirSync, readFileSync } from "node:fs";
import { delimiter } from "node:path";

let shellPromise: Promise<string> | undefined;

/** `bash` from PATH (or the usual places), else `/bin/sh`. Looked up once per process. */
export function defaultShell(): Promise<string> {
	shellPromise ??= (async () => {
		const dirs = (process.env.PATH ?? "").split(delimiter).filter((dir) => dir.startsWith("/"));
		for (const candidate of [...dirs.map((dir) => `${dir}/bash`), "/bin/bash", "/usr/bin/bash"]) {
			try {
				await fs.access(candidate, fsConstants.X_OK);
				return candidate;
			} catch {
				// Not here; try the next place.
			}
		}
		return "/bin/sh";
	})();
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
