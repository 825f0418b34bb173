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
}

/** The program and arguments that run `<shell> -c <command>` inside the sandbox. */
export interface SandboxedCommand {
	readonly file: string;
	readonly args: readonly string[];
	/** Bytes the program reads on file descriptor 3 before it starts the command (bubblewrap's seccomp filter). */
	readonly fd3?: Uint8Array;
}

/** A way to wrap a shell command in a sandbox on this machine. */
export interface Sandbox {
	readonly name: string;
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
/* seccomp: no Unix sockets (unless granted), no io_uring (it would bypass the filter), no keyrings */

/** The syscall numbers the filter looks at, for one architecture as seccomp reports it. */
interface SyscallTable {
	/** `AUDIT_ARCH_*`, as in `seccomp_data.arch`. */
	readonly arch: number;
	readonly socket: number;
	/** i386 multiplexes socket calls through `socketcall(call, args)`; call 1 is `socket`. */
	readonly socketcall?: number;
	/** add_key, request_key, keyctl: the kernel keyrings are per user, and root's would be shared. */
	readonly keyrings: readonly number[];
	/** x86-64: numbers with this bit set are x32 calls, refused whole. */
	readonly x32Bit?: number;
}

const IO_URING = [425, 426, 427];

/** The native table and its 32-bit compat table, by `process.arch`. */
const SYSCALLS: Readonly<Record<string, readonly SyscallTable[]>> = {
	x64: [
		{ arch: 0xc000003e, socket: 41, keyrings: [248, 249, 250], x32Bit: 0x40000000 },
		{ arch: 0x40000003, socket: 359, socketcall: 102, keyrings: [286, 287, 288] },
	],
	arm64: [
		{ arch: 0xc00000b7, socket: 198, keyrings: [217, 218, 219] },
		{ arch: 0x40000028, socket: 281, keyrings: [309, 310, 311] },
	],
};

const AF_UNIX = 1;
const EPERM = 1;
const ENOSYS = 38;
const RET_ALLOW = 0x7fff0000;
const retErrno = (errno: number) => 0x00050000 | errno;

/** One classic BPF instruction, with jumps to labels resolved when the program is assembled. */
type Op =
	| { readonly load: number }
	| { readonly ret: number }
	| { readonly jeq: number; readonly to: string; readonly else?: string }
	| { readonly jge: number; readonly to: string; readonly else?: string }
	| { readonly label: string };

/**
 * The seccomp filter (classic BPF, as bubblewrap's `--seccomp` takes it) for this process's
 * architecture, or undefined where there is no table. It refuses `socket(AF_UNIX, …)` with EPERM
 * unless `unixSockets`, and `io_uring_*` and the keyring calls with ENOSYS, for native and 32-bit
 * compat calls alike; any other architecture's calls get ENOSYS. `socketpair` stays allowed: it
 * makes two connected ends and reaches nothing outside.
 */
export function seccompFilter(unixSockets: boolean, arch: string = process.arch): Uint8Array | undefined {
	const tables = SYSCALLS[arch];
	if (!tables) return undefined;
	const ops: Op[] = [{ load: 4 }];
	tables.forEach((table, index) => {
		ops.push({ jeq: table.arch, to: `arch${index}` });
	});
	ops.push({ ret: retErrno(ENOSYS) });
	tables.forEach((table, index) => {
		ops.push({ label: `arch${index}` }, { load: 0 });
		if (table.x32Bit !== undefined) ops.push({ jge: table.x32Bit, to: "nosys" });
		for (const nr of [...IO_URING, ...table.keyrings]) ops.push({ jeq: nr, to: "nosys" });
		if (!unixSockets) {
			ops.push({ jeq: table.socket, to: "socket" });
			// socketcall's arguments are in memory, out of the filter's reach: refuse its `socket` call.
			if (table.socketcall !== undefined) ops.push({ jeq: table.socketcall, to: `socketcall${index}` });
		}
		ops.push({ ret: RET_ALLOW });
		if (!unixSockets && table.socketcall !== undefined) {
			ops.push({ label: `socketcall${index}` }, { load: 16 }, { jeq: 1, to: "eperm" }, { ret: RET_ALLOW });
		}
	});
	if (!unixSockets) ops.push({ label: "socket" }, { load: 16 }, { jeq: AF_UNIX, to: "eperm" }, { ret: RET_ALLOW });
	ops.push({ label: "eperm" }, { ret: retErrno(EPERM) }, { label: "nosys" }, { ret: retErrno(ENOSYS) });
	return assemble(ops);
}

/** Classic BPF bytes for `ops` (8 bytes an instruction, host byte order), labels resolved. */
function assemble(ops: readonly Op[]): Uint8Array {
	const at = new Map<string, number>();
	let count = 0;
	for (const op of ops) {
		if ("label" in op) at.set(op.label, count);
		else count++;
	}
	const bytes = new Uint8Array(count * 8);
	const view = new DataView(bytes.buffer);
	const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
	let index = 0;
	const offset = (label: string) => {
		const target = at.get(label);
		if (target === undefined) throw new Error(`seccomp filter: no label ${label}`);
		const jump = target - index - 1;
		if (jump < 0 || jump > 255) throw new Error(`seccomp filter: jump to ${label} out of range`);
		return jump;
	};
	for (const op of ops) {
		if ("label" in op) continue;
		let code: number;
		let k: number;
		let jt = 0;
		const jf = 0; // every jump falls through when false
		if ("load" in op) {
			code = 0x20; // BPF_LD | BPF_W | BPF_ABS
			k = op.load;
		} else if ("ret" in op) {
			code = 0x06; // BPF_RET | BPF_K
			k = op.ret;
		} else {
			code = "jeq" in op ? 0x15 : 0x35; // BPF_JMP | BPF_JEQ / BPF_JGE | BPF_K
			k = "jeq" in op ? op.jeq : op.jge;
			jt = offset(op.to);
		}
		view.setUint16(index * 8, code, little);
		view.setUint8(index * 8 + 2, jt);
		view.setUint8(index * 8 + 3, jf);
		view.setUint32(index * 8 + 4, k >>> 0, little);
		index++;
	}
	return bytes;
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

/**
 * bubblewrap's arguments for `shell -c command` under `spec`, with `disableUserns` where this
 * bubblewrap can stop the command from making user namespaces of its own.
 *
 * - Namespaces: user (the command has no capabilities, and as root cannot regain them: the
 *   mounts below are locked read-only), PID, UTS, IPC, cgroup where possible, and the network
 *   unless allowed. It dies with the env's process. No `--new-session`: the command stays in the
 *   process group the env kills on timeout and abort (stdin is never a terminal).
 * - Mounts: `/` read-only (or, with `confineReads`, only the system folders and the read roots),
 *   each write root writable, then `/dev` and `/proc` fresh (mounted after the write roots, so a
 *   root that contains them, such as `/`, cannot hide them), `/proc`'s global kernel settings
 *   read-only, `/sys` read-only even under a write root of `/`, a private `/tmp` (unless the cwd
 *   or a write root lies under it or contains it), and write roots inside `/dev` or `/proc` last.
 * - The seccomp filter comes on file descriptor 3 (`--seccomp 3`).
 */
export function bwrapArgs(shell: string, command: string, spec: SandboxSpec, disableUserns = true): string[] {
	const underFresh = (root: string) => FRESH_MOUNTS.some((mount) => inside(root, mount));
	const args = ["--unshare-user", ...(disableUserns ? ["--disable-userns"] : []), "--cap-drop", "ALL"];
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
	// A private /tmp, unless the project lives there or a write root covers it: a tmpfs would hide
	// it (and turn writes there into writes that vanish instead of landing or failing).
	const touchesTmp = (path: string) => inside(path, "/tmp") || inside("/tmp", path);
	if (!spec.writeRoots.some(touchesTmp) && !inside(spec.cwd, "/tmp")) args.push("--tmpfs", "/tmp");
	if (spec.confineReads && spec.home && spec.home !== "/") {
		const home = spec.home;
		const covered = [...spec.readRoots, ...spec.writeRoots].some((root) => inside(home, root));
		if (!covered && !inside(home, "/tmp")) args.push("--tmpfs", home);
	}
	for (const root of spec.writeRoots) if (underFresh(root)) args.push("--bind", root, root);
	// The root of a confined-reads sandbox is bubblewrap's own tmpfs: read-only, like the disk.
	if (spec.confineReads) args.push("--remount-ro", "/");
	args.push("--seccomp", "3", "--chdir", spec.cwd, "--", shell, "-c", command);
	return args;
}

/** bubblewrap at `file` (see `bwrapArgs`). */
export function bwrapSandbox(file: string, disableUserns = true): Sandbox {
	return {
		name: "bubblewrap",
		wrap(shell, command, spec) {
			const filter = seccompFilter(spec.unixSockets);
			if (!filter) {
				return err(
					`the sandbox's seccomp filter has no table for ${process.arch}, so it cannot stop Unix sockets, io_uring and the kernel keyrings here`,
				);
			}
			return ok({ file, args: bwrapArgs(shell, command, spec, disableUserns), fd3: filter });
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
				const filter = seccompFilter(false);
				if (!filter) return { missing: `the sandbox's seccomp filter has no table for ${process.arch}` };
				const spec: SandboxSpec = {
					writeRoots: [],
					readRoots: [],
					network: false,
					unixSockets: false,
					confineReads: false,
					cwd: "/",
				};
				// bubblewrap before 0.8 has no --disable-userns: without it a nested user namespace is
				// still locked to the read-only mounts, so that is the fallback.
				for (const disableUserns of [true, false]) {
					const problem = await tryRun(file, bwrapArgs("/bin/sh", "true", spec, disableUserns), filter);
					if (problem === undefined) return { sandbox: bwrapSandbox(file, disableUserns) };
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
