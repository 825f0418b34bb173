/**
 * The OS sandbox NodeExecutionEnv runs commands in under a path policy (Node only): bubblewrap on
 * Linux, `sandbox-exec` on macOS. Write roots are the only writable places, the rest of the disk is
 * read-only (or, with `confineReads`, hidden but for the read roots and what programs need), the
 * network is off unless the policy allows it, and Unix sockets cannot be opened unless it grants
 * them. On Linux the command runs in user, PID, UTS, IPC and (where it can) cgroup namespaces of its
 * own with no capabilities, so running as root confines it exactly as running as a user does.
 */
import { spawn } from "node:child_process";
import { existsSync, promises as fs, constants as fsConstants, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname } from "node:path";
import { err, ok, type Result } from "../contract/result.js";
import { JOIN_SCRIPT } from "./_node-cgroup.js";
import { seccompFilter } from "./_node-seccomp.js";
import { DEFAULT_PROCESSES, DEFAULT_TMP_BYTES, limitScript, type ResolvedLimits } from "./node-limits.js";

/** What the sandbox is given: canonical roots, the switches of the policy, the working folder. */
export interface SandboxSpec {
	readonly writeRoots: readonly string[];
	/** The read roots: visible to the command only when `confineReads` is set (else the whole disk is). */
	readonly readRoots: readonly string[];
	readonly network: boolean;
	/** Whether the command may create Unix sockets (and so connect to any it can reach). */
	readonly unixSockets: boolean;
	/** Hide everything but the roots and the system folders programs need to run. */
	readonly confineReads: boolean;
	readonly cwd: string;
	/** The command's HOME: under `confineReads`, an empty private folder unless a root covers it. */
	readonly home?: string;
	/** The resource limits the command runs under; absent: none. */
	readonly limits?: ResolvedLimits;
	/** `cgroup.procs` files of the command's own control groups, which it joins before the sandbox starts. */
	readonly cgroupProcs?: readonly string[];
	/**
	 * The limits those groups hold for the whole command, which get no rlimit: a per-process
	 * rlimit would only add a stricter rule (`RLIMIT_DATA` counts address space a program reserves,
	 * such as a sanitizer's shadow memory, that it never uses).
	 */
	readonly heldByCgroups?: readonly ("processes" | "memoryBytes")[];
}

/** The program and arguments that run `<shell> -c <command>` inside the sandbox. */
export interface SandboxedCommand {
	readonly file: string;
	readonly args: readonly string[];
	/** Bytes the program reads on file descriptor 3 before it starts the command (bubblewrap's seccomp filter). */
	readonly fd3?: Uint8Array;
	/** Whether the program writes what it saw of the limits on file descriptor 4 (see `limitScript`). */
	readonly reports?: boolean;
	/**
	 * The private tmpfs folders of the policy's size, the only ones a report may name (the command
	 * could write to the script's descriptor through `/proc`: it can only repeat the truth, then).
	 */
	readonly sizedFolders?: readonly string[];
}

/** A way to wrap a shell command in a sandbox on this machine. */
export interface Sandbox {
	readonly name: string;
	/** What this bubblewrap can do (absent for other sandboxes). */
	readonly features?: BwrapFeatures;
	/** The wrapped command, or why this sandbox cannot give what `spec` asks for here. */
	wrap(shell: string, command: string, spec: SandboxSpec): Result<SandboxedCommand, string>;
}

const BWRAP_PATHS = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"];

/** How running `file args` ended: `undefined` for exit 0, else what it printed (or why it failed). */
function tryRun(file: string, args: readonly string[], fd3?: Uint8Array): Promise<string | undefined> {
	return new Promise((resolve) => {
		const child = spawn(file, [...args], { stdio: ["ignore", "ignore", "pipe", fd3 ? "pipe" : "ignore"] });
		let stderr = "";
		const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
		child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
			if (stderr.length < 2000) stderr += chunk;
		});
		const extra = child.stdio[3];
		if (fd3 && extra && "end" in extra) {
			extra.on("error", () => {});
			extra.end(fd3);
		}
		child.on("error", (error) => {
			clearTimeout(timer);
			resolve(error.message);
		});
		child.on("close", (code, signal) => {
			clearTimeout(timer);
			resolve(code === 0 ? undefined : stderr.trim() || `exit ${code ?? signal}`);
		});
	});
}

/* --------------------------------------------------------------------------------------------- */
/* bubblewrap                                                                                    */

/** What the host's `/` holds of the system folders a confined-reads sandbox shows. */
interface SystemEntry {
	readonly path: string;
	/** Set for a symbolic link (a merged `/usr` has `/bin -> usr/bin`): made as the same link. */
	readonly link?: string;
}

/** Folders programs need to run: binaries, libraries, and the install of Node that runs this. */
const SYSTEM_FOLDERS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/nix/store"];

/**
 * The parts of `/etc` programs read to run (the loader's cache, users and groups without their
 * password hashes, name resolution, time zone, certificates, shell start-up files); not its
 * secrets (`shadow`, `ssh`, `sudoers`).
 */
const ETC_ENTRIES = [
	"alternatives",
	"bash.bashrc",
	"ca-certificates",
	"ca-certificates.conf",
	"crypto-policies",
	"debian_version",
	"environment",
	"group",
	"host.conf",
	"hostname",
	"hosts",
	"inputrc",
	"ld.so.cache",
	"ld.so.conf",
	"ld.so.conf.d",
	"locale.alias",
	"locale.conf",
	"localtime",
	"lsb-release",
	"magic",
	"mime.types",
	"nsswitch.conf",
	"os-release",
	"passwd",
	"pki",
	"profile",
	"profile.d",
	"protocols",
	"resolv.conf",
	"services",
	"ssl",
	"terminfo",
	"timezone",
].map((name) => `/etc/${name}`);

let systemEntries: readonly SystemEntry[] | undefined;

/** The system folders and files that exist here (read once per process). */
function systemView(): readonly SystemEntry[] {
	if (systemEntries) return systemEntries;
	const entries: SystemEntry[] = [];
	const add = (path: string) => {
		if (entries.some((entry) => entry.path === path)) return;
		try {
			const stats = lstatSync(path);
			entries.push(stats.isSymbolicLink() ? { path, link: readlinkSync(path) } : { path });
		} catch {
			// Not on this machine.
		}
	};
	for (const path of [...SYSTEM_FOLDERS, ...ETC_ENTRIES]) add(path);
	// Node's own install (`<prefix>/bin/node`), wherever it lives, so `node` runs inside.
	try {
		add(dirname(dirname(realpathSync(process.execPath))));
	} catch {
		// Without it, node is found only where it lives in a system folder.
	}
	systemEntries = entries;
	return entries;
}

/** The mounts bubblewrap makes itself: a write root inside one of them is bound after it. */
const FRESH_MOUNTS = ["/dev", "/proc"];

/**
 * Kernel settings under `/proc` that are not namespaced: a command whose user is root outside the
 * sandbox would otherwise still pass their owner check (`/proc/sys/kernel/*`, `sysrq-trigger`).
 */
const PROC_READ_ONLY = ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"];

/** `/proc` files that list what belongs to the user (root's keys) or the kernel: hidden. */
const PROC_HIDDEN = ["/proc/keys", "/proc/key-users", "/proc/timer_list", "/proc/sched_debug", "/proc/kcore"];

let procFiles: readonly string[] | undefined;

/** The files of `PROC_HIDDEN` this kernel has (a bind needs its target to exist). */
function hiddenProcFiles(): readonly string[] {
	procFiles ??= PROC_HIDDEN.filter((path) => existsSync(path));
	return procFiles;
}

const inside = (path: string, folder: string) => folder === "/" || path === folder || path.startsWith(`${folder}/`);

/** What this machine's bubblewrap can do beyond its basics (0.8 brought both). */
export interface BwrapFeatures {
	/** `--disable-userns`: the command cannot make a user namespace of its own. */
	readonly disableUserns: boolean;
	/** `--size` before `--tmpfs`: the private tmpfs folders have the policy's size. */
	readonly tmpfsSize: boolean;
}

const MODERN: BwrapFeatures = { disableUserns: true, tmpfsSize: true };

/**
 * bubblewrap's arguments for `shell -c command` under `spec`, with what this bubblewrap can do.
 *
 * - Namespaces: user (the command has no capabilities, and as root cannot regain them: the
 *   mounts below are locked read-only), PID, UTS, IPC, cgroup where possible, and the network
 *   unless allowed. It dies with the env's process. No `--new-session`: the command stays in the
 *   process group the env kills on timeout and abort (stdin is never a terminal).
 * - Mounts: `/` read-only (or, with `confineReads`, only the system folders and the read roots),
 *   each write root writable (bubblewrap binds them `nosuid` and `nodev`), then `/dev` and `/proc`
 *   fresh (mounted after the write roots, so a root that contains them, such as `/`, cannot hide
 *   them), `/proc`'s global kernel settings read-only, `/sys` read-only even under a write root of
 *   `/`, a private `/tmp` (unless the cwd or a write root lies under it or contains it) and
 *   `/dev/shm` of the policy's tmpfs size, write roots inside `/dev` or `/proc` last, and `/dev`
 *   itself read-only (its tmpfs has no size).
 * - The seccomp filter comes on file descriptor 3 (`--seccomp 3`).
 * - The command runs under `limitScript`, which reports on descriptor 4.
 */
export function bwrapArgs(
	shell: string,
	command: string,
	spec: SandboxSpec,
	features: BwrapFeatures = MODERN,
): string[] {
	return bwrapCommand(shell, command, spec, features).args;
}

/** `bwrapArgs`, and the private tmpfs folders given the policy's size. */
function bwrapCommand(
	shell: string,
	command: string,
	spec: SandboxSpec,
	features: BwrapFeatures,
): { args: string[]; sized: string[] } {
	const underFresh = (root: string) => FRESH_MOUNTS.some((mount) => inside(root, mount));
	const args = ["--unshare-user", ...(features.disableUserns ? ["--disable-userns"] : []), "--cap-drop", "ALL"];
	args.push("--unshare-pid", "--unshare-uts", "--unshare-ipc", "--unshare-cgroup-try");
	if (!spec.network) args.push("--unshare-net");
	args.push("--die-with-parent");
	if (spec.confineReads) {
		// Shallow first, so a deeper bind lands on top of the one that contains it.
		const binds: { path: string; how: string[] }[] = [];
		for (const entry of systemView()) {
			if (entry.link !== undefined) binds.push({ path: entry.path, how: ["--symlink", entry.link, entry.path] });
			else binds.push({ path: entry.path, how: ["--ro-bind-try", entry.path, entry.path] });
		}
		for (const root of spec.readRoots) binds.push({ path: root, how: ["--ro-bind", root, root] });
		for (const root of spec.writeRoots) {
			if (!underFresh(root)) binds.push({ path: root, how: ["--bind", root, root] });
		}
		const depth = (path: string) => (path === "/" ? 0 : path.split("/").length);
		binds.sort((a, b) => depth(a.path) - depth(b.path));
		for (const bind of binds) args.push(...bind.how);
	} else {
		args.push("--ro-bind", "/", "/");
		for (const root of spec.writeRoots) if (!underFresh(root)) args.push("--bind", root, root);
	}
	args.push("--dev", "/dev", "--proc", "/proc");
	for (const path of PROC_READ_ONLY) args.push("--ro-bind-try", path, path);
	for (const path of hiddenProcFiles()) args.push("--ro-bind", "/dev/null", path);
	if (!spec.confineReads && spec.writeRoots.some((root) => inside("/sys", root))) {
		args.push("--ro-bind-try", "/sys", "/sys");
	}
	const tmpBytes = features.tmpfsSize ? spec.limits?.tmpBytes : undefined;
	const sized: string[] = [];
	const tmpfs = (folder: string) => {
		if (tmpBytes !== undefined) {
			args.push("--size", String(tmpBytes));
			sized.push(folder);
		}
		args.push("--tmpfs", folder);
	};
	// A private /tmp, unless the project lives there or a write root covers it: a tmpfs would hide
	// it (and turn writes there into writes that vanish instead of landing or failing).
	const touchesTmp = (path: string) => inside(path, "/tmp") || inside("/tmp", path);
	if (!spec.writeRoots.some(touchesTmp) && !inside(spec.cwd, "/tmp")) tmpfs("/tmp");
	tmpfs("/dev/shm");
	if (spec.confineReads && spec.home && spec.home !== "/") {
		const home = spec.home;
		const covered = [...spec.readRoots, ...spec.writeRoots].some((root) => inside(home, root));
		if (!covered && !inside(home, "/tmp")) tmpfs(home);
	}
	for (const root of spec.writeRoots) if (underFresh(root)) args.push("--bind", root, root);
	// /dev's own tmpfs (bubblewrap's) has no size: nothing may be written there but its devices.
	args.push("--remount-ro", "/dev");
	// The root of a confined-reads sandbox is bubblewrap's own tmpfs: read-only, like the disk.
	if (spec.confineReads) args.push("--remount-ro", "/");
	const rlimits: { -readonly [K in keyof ResolvedLimits]: ResolvedLimits[K] } = { ...spec.limits };
	for (const held of spec.heldByCgroups ?? []) delete rlimits[held];
	const script = limitScript(rlimits, sized);
	args.push("--seccomp", "3", "--chdir", spec.cwd, "--", "/bin/sh", "-c", script, shell, command);
	return { args, sized };
}

/** bubblewrap at `file` (see `bwrapArgs`), started inside the command's cgroups when it has some. */
export function bwrapSandbox(file: string, features: BwrapFeatures = MODERN): Sandbox {
	return {
		name: "bubblewrap",
		features,
		wrap(shell, command, spec) {
			const filter = seccompFilter({ unixSockets: spec.unixSockets, network: spec.network });
			if (!filter) {
				return err(
					`the sandbox's seccomp filter has no table for ${process.arch}, so it cannot stop Unix sockets, io_uring and the kernel keyrings here`,
				);
			}
			const { args, sized } = bwrapCommand(shell, command, spec, features);
			const procs = spec.cgroupProcs ?? [];
			const reports = { fd3: filter, reports: true, sizedFolders: sized };
			if (procs.length === 0) return ok({ file, args, ...reports });
			return ok({
				file: "/bin/sh",
				args: ["-c", JOIN_SCRIPT, "toolsmith-join", ...procs, "--", file, ...args],
				...reports,
			});
		},
	};
}

/* --------------------------------------------------------------------------------------------- */
/* macOS                                                                                         */

/**
 * A string literal of the `sandbox-exec` profile language (SBPL, a Scheme read by a TinyScheme
 * reader): only `\` and `"` are escaped, every other character stands for itself (a newline
 * inside the quotes is a newline). Not `JSON.stringify`: its `\uXXXX`, `\b` and `\f` are no
 * SBPL escapes (the reader takes `\u0001` as `u0001`), so a path holding a control character
 * would name another path.
 */
export function sbplString(text: string): string {
	return `"${text.replace(/[\\"]/g, "\\$&")}"`;
}

/** What macOS programs need to read to run, besides the roots (under `confineReads`). */
const MACOS_SYSTEM_READS = [
	"/usr",
	"/bin",
	"/sbin",
	"/System",
	"/Library",
	"/opt/homebrew",
	"/private/etc",
	"/private/var/db/timezone",
	"/dev",
];

/**
 * The `sandbox-exec` profile for `spec`: everything allowed except writing outside the write roots
 * and `/dev` (later rules win, so the roots' `allow` overrides the `deny`), the network unless
 * allowed, Unix sockets unless granted, and, with `confineReads`, reading outside the roots and
 * the system folders.
 */
export function seatbeltProfile(
	spec: Pick<SandboxSpec, "writeRoots" | "network"> &
		Partial<Pick<SandboxSpec, "readRoots" | "unixSockets" | "confineReads">>,
): string {
	const subpaths = (paths: readonly string[]) => paths.map((root) => `(subpath ${sbplString(root)})`).join(" ");
	const rules = ["(version 1)", "(allow default)"];
	if (spec.confineReads) {
		const readable = [...MACOS_SYSTEM_READS, ...(spec.readRoots ?? []), ...spec.writeRoots];
		// The root folder itself, so paths can be looked up from it.
		rules.push(
			"(deny file-read*)",
			'(allow file-read-metadata (literal "/"))',
			`(allow file-read* ${subpaths(readable)})`,
		);
	}
	rules.push("(deny file-write*)", `(allow file-write* ${subpaths([...spec.writeRoots, "/dev"])})`);
	if (!spec.network) rules.push("(deny network*)");
	else if (!spec.unixSockets) rules.push("(deny network-outbound (remote unix-socket))");
	return rules.join("\n");
}

/** macOS `sandbox-exec` (see `seatbeltProfile`). */
export function seatbeltSandbox(): Sandbox {
	return {
		name: "sandbox-exec",
		wrap(shell, command, spec) {
			return ok({ file: "/usr/bin/sandbox-exec", args: ["-p", seatbeltProfile(spec), shell, "-c", command] });
		},
	};
}

/** This machine's sandbox, or why there is none. */
export type SandboxProbe = { readonly sandbox: Sandbox } | { readonly missing: string };

let found: Promise<SandboxProbe> | undefined;

/**
 * The sandbox this machine offers, tried once per process with the options every command gets
 * (so a machine where bubblewrap cannot make a user namespace has none), or why there is none.
 */
export function probeSandbox(): Promise<SandboxProbe> {
	found ??= (async (): Promise<SandboxProbe> => {
		if (process.platform === "linux") {
			const problems: string[] = [];
			for (const file of BWRAP_PATHS) {
				try {
					await fs.access(file, fsConstants.X_OK);
				} catch {
					continue;
				}
				const filter = seccompFilter({ unixSockets: false, network: false });
				if (!filter) return { missing: `the sandbox's seccomp filter has no table for ${process.arch}` };
				const spec: SandboxSpec = {
					writeRoots: [],
					readRoots: [],
					network: false,
					unixSockets: false,
					confineReads: false,
					cwd: "/",
					limits: { processes: DEFAULT_PROCESSES, tmpBytes: DEFAULT_TMP_BYTES },
				};
				// bubblewrap before 0.8 has neither --disable-userns nor --size: without the first a nested
				// user namespace is still locked to the read-only mounts, without the second the private
				// tmpfs folders have the kernel's default size (half the memory). That is the fallback.
				for (const features of [MODERN, { disableUserns: false, tmpfsSize: false }]) {
					const problem = await tryRun(file, bwrapArgs("/bin/sh", "true", spec, features), filter);
					if (problem === undefined) return { sandbox: bwrapSandbox(file, features) };
					if (!problems.includes(problem)) problems.push(problem);
				}
			}
			if (problems.length === 0)
				return { missing: "bubblewrap (bwrap) is not installed: install it (the bubblewrap package)" };
			return {
				missing: `bubblewrap cannot start the sandbox here (${problems.join("; ")}); it needs user namespaces, which some containers, kernel.unprivileged_userns_clone=0 and AppArmor's restrictions turn off`,
			};
		}
		if (process.platform === "darwin") {
			const problem = await tryRun("/usr/bin/sandbox-exec", ["-p", "(version 1)(allow default)", "/usr/bin/true"]);
			return problem === undefined
				? { sandbox: seatbeltSandbox() }
				: { missing: `sandbox-exec cannot run here (${problem})` };
		}
		return { missing: `no sandbox is supported on ${process.platform}` };
	})();
	return found;
}

/** The sandbox this machine offers (see `probeSandbox`), or undefined. */
export async function findSandbox(): Promise<Sandbox | undefined> {
	const probe = await probeSandbox();
	return "sandbox" in probe ? probe.sandbox : undefined;
}
