/**
 * cgroups for sandboxed commands (Linux, Node only): where this process may make control groups
 * with the `pids` and `memory` controllers, each command gets one of its own with the policy's
 * limits on the whole of it (every process and thread it starts, tmpfs pages included), and
 * afterwards says whether it reached them. cgroup v1 where the controller's hierarchy is writable
 * (root, typically); cgroup v2 below the nearest ancestor that delegates both controllers to us
 * (root, or a user under a systemd user manager). Elsewhere there is none, and the sandbox falls
 * back to rlimits (see `node-limits.ts`).
 *
 * Layout: `<base>/toolsmith-<pid>/c<n>`, one folder per command; a folder some background process
 * still holds is removed by a later command or at exit, and folders of processes that are gone are
 * swept when the next process probes.
 */
import { spawn } from "node:child_process";
import { readFileSync, rmdirSync } from "node:fs";
import { mkdir, readdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/** The controllers a command's limits use. */
export type CgroupController = "pids" | "memory";

/** Where a controller's command groups are made: a cgroup v1 hierarchy or the v2 one. */
interface ControllerHome {
	readonly version: 1 | 2;
	/** The folder the process's own `toolsmith-<pid>` folder goes in. */
	readonly base: string;
}

/** What this process can use, by controller, and why not where it cannot. */
export interface CgroupSupport {
	readonly homes: Partial<Record<CgroupController, ControllerHome>>;
	/** Why a controller is missing (shown in docs and diagnostics). */
	readonly missing: Partial<Record<CgroupController, string>>;
}

/** The limits a command's group takes; undefined for none. */
export interface CgroupLimits {
	readonly processes?: number;
	readonly memoryBytes?: number;
}

/** One command's control groups. */
export interface CommandCgroup {
	/** The `cgroup.procs` files the command's first process writes its pid to before it starts the sandbox. */
	readonly procsFiles: readonly string[];
	/** The controllers that hold a limit for this command. */
	readonly controllers: readonly CgroupController[];
	/** Which limits the command reached (read after it ended). */
	reached(): Promise<{ readonly processes: boolean; readonly memory: boolean }>;
	/** Removes the groups, now or (when a background process still runs in them) later. */
	release(): Promise<void>;
}

/** A mount of a cgroup file system, from `/proc/self/mountinfo`. */
export interface CgroupMount {
	readonly version: 1 | 2;
	readonly root: string;
	readonly point: string;
	readonly controllers: readonly string[];
}

/** mountinfo escapes spaces, tabs, newlines and backslashes as `\ooo`. */
const unescapeField = (field: string) =>
	field.replace(/\\([0-7]{3})/g, (_, code: string) => String.fromCharCode(Number.parseInt(code, 8)));

/** The cgroup mounts of `/proc/self/mountinfo`'s text. */
export function cgroupMounts(mountinfo: string): CgroupMount[] {
	const mounts: CgroupMount[] = [];
	for (const line of mountinfo.split("\n")) {
		const dash = line.indexOf(" - ");
		if (dash < 0) continue;
		const fields = line.slice(0, dash).split(" ");
		const [fsType, , superOptions = ""] = line.slice(dash + 3).split(" ");
		const root = fields[3];
		const point = fields[4];
		if (root === undefined || point === undefined) continue;
		if (fsType === "cgroup2")
			mounts.push({ version: 2, root: unescapeField(root), point: unescapeField(point), controllers: [] });
		else if (fsType === "cgroup") {
			mounts.push({
				version: 1,
				root: unescapeField(root),
				point: unescapeField(point),
				controllers: superOptions.split(","),
			});
		}
	}
	return mounts;
}

/** `/proc/self/cgroup`'s text as a map: controller (or "" for v2) → the process's cgroup path. */
export function cgroupPaths(text: string): Map<string, string> {
	const paths = new Map<string, string>();
	for (const line of text.split("\n")) {
		const match = /^\d+:([^:]*):(.*)$/.exec(line);
		if (!match) continue;
		const [, names = "", path = ""] = match;
		if (names === "") paths.set("", path);
		for (const name of names.split(",")) if (name !== "") paths.set(name, path);
	}
	return paths;
}

/** The folder of cgroup `path` under `mount`, or undefined when the mount does not show it. */
function folderOf(mount: CgroupMount, path: string): string | undefined {
	const root = mount.root === "/" ? "" : mount.root;
	if (!path.startsWith("/") || (root !== "" && path !== root && !path.startsWith(`${root}/`))) return undefined;
	const rest = path.slice(root.length).replace(/\/+$/, "");
	return rest === "" ? mount.point : join(mount.point, rest);
}

/** Runs `sh -c 'echo $$ > file…; exit 0'`: whether a process of ours may join those groups. */
function canJoin(procsFiles: readonly string[]): Promise<string | undefined> {
	return new Promise((resolve) => {
		const child = spawn(
			"/bin/sh",
			["-c", JOIN_SCRIPT, "toolsmith-join", ...procsFiles, "--", "/bin/sh", "-c", "exit 0"],
			{
				stdio: ["ignore", "ignore", "pipe"],
			},
		);
		let stderr = "";
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
			if (stderr.length < 1000) stderr += chunk;
		});
		child.on("error", (error) => resolve(error.message));
		child.on("close", (code) => resolve(code === 0 ? undefined : stderr.trim() || `exit ${code}`));
	});
}

/**
 * The first process of a command: writes its pid to each `cgroup.procs` file named before `--`,
 * then becomes the program after it, so every process the command starts is in its groups.
 */
export const JOIN_SCRIPT =
	'while [ "$#" -gt 0 ] && [ "$1" != -- ]; do echo $$ > "$1" || { echo "toolsmith: could not move the command into its control group ($1)" >&2; exit 125; }; shift; done; shift; exec "$@"';

const GROUP_PREFIX = "toolsmith-";
const ownFolderName = () => `${GROUP_PREFIX}${process.pid}`;

/** Whether the process `pid` of this PID namespace still runs. */
function running(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}

/** Removes the command groups of toolsmith processes that are gone (best effort). */
async function sweep(base: string): Promise<void> {
	let names: string[];
	try {
		names = await readdir(base);
	} catch {
		return;
	}
	for (const name of names) {
		const pid = name.startsWith(GROUP_PREFIX) ? Number(name.slice(GROUP_PREFIX.length)) : Number.NaN;
		if (!Number.isInteger(pid) || pid === process.pid || running(pid)) continue;
		const folder = join(base, name);
		for (const child of await readdir(folder).catch(() => [] as string[])) {
			if (/^c\d+$/.test(child)) await rmdir(join(folder, child)).catch(() => {});
		}
		await rmdir(folder).catch(() => {});
	}
}

/** Whether `folder`'s `cgroup.subtree_control` hands both controllers to its children. */
async function delegates(folder: string): Promise<boolean> {
	try {
		const enabled = (await readFile(join(folder, "cgroup.subtree_control"), "utf8")).split(/\s+/);
		return enabled.includes("pids") && enabled.includes("memory");
	} catch {
		return false;
	}
}

/** Makes `<base>/toolsmith-<pid>` (for v2, handing both controllers to its children). */
async function ownFolder(home: ControllerHome): Promise<string> {
	const folder = join(home.base, ownFolderName());
	await mkdir(folder, { recursive: true });
	if (home.version === 2) await writeFile(join(folder, "cgroup.subtree_control"), "+pids +memory");
	return folder;
}

/** Creates a trial group in `home`, joins it with a shell and removes it: why not, or undefined if it works. */
async function tryHome(home: ControllerHome, controller: CgroupController): Promise<string | undefined> {
	let trial: string | undefined;
	try {
		const folder = await ownFolder(home);
		owned.add(folder);
		trial = join(folder, "probe");
		await mkdir(trial, { recursive: true });
		await writeLimit(home.version, controller, trial, controller === "pids" ? 4096 : 1 << 30);
		return await canJoin([join(trial, "cgroup.procs")]);
	} catch (error) {
		return (error as Error).message;
	} finally {
		if (trial) await rmdir(trial).catch(() => {});
	}
}

async function writeLimit(version: 1 | 2, controller: CgroupController, folder: string, value: number): Promise<void> {
	if (controller === "pids") await writeFile(join(folder, "pids.max"), String(value));
	else await writeFile(join(folder, version === 1 ? "memory.limit_in_bytes" : "memory.max"), String(value));
}

/**
 * Where a command's group for `controller` could go, best first: the process's own group in the
 * controller's v1 hierarchy; else, in the v2 one, the nearest ancestor of its own group whose
 * `cgroup.subtree_control` (as `delegates` reads it) hands both controllers down. The process's
 * own v2 group is never one: it holds processes, so it cannot hand controllers to children.
 */
export async function homeCandidates(
	controller: CgroupController,
	mounts: readonly CgroupMount[],
	paths: ReadonlyMap<string, string>,
	delegates: (folder: string) => Promise<boolean>,
): Promise<ControllerHome[]> {
	const v1 = mounts.find((mount) => mount.version === 1 && mount.controllers.includes(controller));
	const v1Path = paths.get(controller);
	if (v1) {
		const folder = v1Path !== undefined ? folderOf(v1, v1Path) : undefined;
		return folder ? [{ version: 1, base: folder }] : [];
	}
	const v2 = mounts.find((mount) => mount.version === 2);
	const v2Path = paths.get("");
	const own = v2 && v2Path !== undefined ? folderOf(v2, v2Path) : undefined;
	if (!v2 || !own) return [];
	for (let folder = own; folder !== v2.point && folder.startsWith(`${v2.point === "/" ? "" : v2.point}/`); ) {
		const parent = dirname(folder);
		if (await delegates(parent)) return [{ version: 2, base: parent }];
		folder = parent;
	}
	return [];
}

let probed: Promise<CgroupSupport> | undefined;
/** This process's `toolsmith-<pid>` folders. */
const owned = new Set<string>();
/** Command groups a background process still held when their command ended. */
const pending = new Set<string>();

/**
 * Which controllers this process can give commands groups of their own with (tried once per
 * process: a group made, limited, joined by a shell and removed), sweeping the groups of
 * toolsmith processes that are gone.
 */
export function probeCgroups(): Promise<CgroupSupport> {
	probed ??= (async (): Promise<CgroupSupport> => {
		const homes: Partial<Record<CgroupController, ControllerHome>> = {};
		const missing: Partial<Record<CgroupController, string>> = {};
		if (process.platform !== "linux") {
			missing.pids = missing.memory = "cgroups are Linux's";
			return { homes, missing };
		}
		let mounts: CgroupMount[];
		let paths: Map<string, string>;
		try {
			mounts = cgroupMounts(readFileSync("/proc/self/mountinfo", "utf8"));
			paths = cgroupPaths(readFileSync("/proc/self/cgroup", "utf8"));
		} catch (error) {
			missing.pids = missing.memory = `cannot read /proc/self: ${(error as Error).message}`;
			return { homes, missing };
		}
		for (const controller of ["pids", "memory"] as const) {
			const candidates = await homeCandidates(controller, mounts, paths, delegates);
			if (candidates.length === 0) {
				missing[controller] =
					mounts.length > 0 ? `no ${controller} controller this process may use` : "no cgroup file system is mounted";
				continue;
			}
			for (const home of candidates) {
				await sweep(home.base);
				const problem = await tryHome(home, controller);
				if (problem === undefined) {
					homes[controller] = home;
					delete missing[controller];
					break;
				}
				missing[controller] = problem;
			}
		}
		if (Object.keys(homes).length > 0) process.once("exit", releaseAllNow);
		return { homes, missing };
	})();
	return probed;
}

/** At exit: removes what can be removed of this process's groups (synchronously), commands' first. */
function releaseAllNow(): void {
	for (const folder of [...pending, ...owned]) {
		try {
			rmdirSync(folder);
		} catch {
			// Still holds a process (--die-with-parent ends it in a moment): a later process sweeps it.
		}
	}
}

let counter = 0;

/**
 * Groups of its own for one command with `limits` (for each limit that has a controller here), or
 * undefined when none applies. Throws when a group cannot be made (the caller runs the command
 * with rlimits alone).
 */
export async function commandCgroup(limits: CgroupLimits): Promise<CommandCgroup | undefined> {
	const support = await probeCgroups();
	for (const folder of [...pending]) {
		await rmdir(folder).then(
			() => pending.delete(folder),
			() => {},
		);
	}
	const wanted: [CgroupController, number][] = [];
	if (limits.processes !== undefined && support.homes.pids) wanted.push(["pids", limits.processes]);
	if (limits.memoryBytes !== undefined && support.homes.memory) wanted.push(["memory", limits.memoryBytes]);
	if (wanted.length === 0) return undefined;
	const name = `c${++counter}`;
	// One folder per home: v2 keeps both controllers in one group.
	const groups = new Map<string, { version: 1 | 2; folder: string; controllers: CgroupController[] }>();
	for (const [controller] of wanted) {
		const home = support.homes[controller] as ControllerHome;
		const own = await ownFolder(home);
		owned.add(own);
		const folder = join(own, name);
		const group = groups.get(folder) ?? { version: home.version, folder, controllers: [] };
		group.controllers.push(controller);
		groups.set(folder, group);
	}
	const made: string[] = [];
	try {
		for (const group of groups.values()) {
			await mkdir(group.folder);
			made.push(group.folder);
			for (const [controller, value] of wanted) {
				if (group.controllers.includes(controller)) await writeLimit(group.version, controller, group.folder, value);
			}
		}
	} catch (error) {
		for (const folder of made) await rmdir(folder).catch(() => pending.add(folder));
		throw error;
	}
	const counterOf = async (file: string, key: string) => {
		const text = await readFile(file, "utf8").catch(() => "");
		const match = new RegExp(`^${key} (\\d+)$`, "m").exec(text);
		return match ? Number(match[1]) : 0;
	};
	return {
		procsFiles: [...groups.keys()].map((folder) => join(folder, "cgroup.procs")),
		controllers: wanted.map(([controller]) => controller),
		async reached() {
			let processes = false;
			let memory = false;
			for (const group of groups.values()) {
				if (group.controllers.includes("pids"))
					processes ||= (await counterOf(join(group.folder, "pids.events"), "max")) > 0;
				if (group.controllers.includes("memory")) {
					const file = group.version === 1 ? "memory.oom_control" : "memory.events";
					memory ||= (await counterOf(join(group.folder, file), "oom_kill")) > 0;
				}
			}
			return { processes, memory };
		},
		async release() {
			for (const folder of groups.keys()) await rmdir(folder).catch(() => pending.add(folder));
		},
	};
}
