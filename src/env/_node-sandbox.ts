/**
 * The OS sandbox NodeExecutionEnv runs commands in under a path policy (Node only): bubblewrap on
 * Linux, `sandbox-exec` on macOS. Write roots are the only writable places, the rest of the disk is
 * read-only, the network is off unless the policy allows it.
 */
import { execFile } from "node:child_process";
import { promises as fs, constants as fsConstants } from "node:fs";

/** What the sandbox is given: the canonical write roots, the network switch, the working folder. */
export interface SandboxSpec {
	readonly writeRoots: readonly string[];
	readonly network: boolean;
	readonly cwd: string;
}

/** The program and arguments that run `<shell> -c <command>` inside the sandbox. */
export interface SandboxedCommand {
	readonly file: string;
	readonly args: readonly string[];
}

/** A way to wrap a shell command in a sandbox on this machine. */
export interface Sandbox {
	readonly name: string;
	wrap(shell: string, command: string, spec: SandboxSpec): SandboxedCommand;
}

const BWRAP_PATHS = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"];

/** Whether running `file args` succeeds (exit 0) within a few seconds. */
function runs(file: string, args: readonly string[]): Promise<boolean> {
	return new Promise((resolve) => {
		execFile(file, [...args], { timeout: 5000 }, (error) => resolve(error === null));
	});
}

/**
 * bubblewrap: `/` bound read-only, each write root bound writable, then `/dev` and `/proc` fresh
 * (mounted after the write roots, so a root that contains them, such as `/`, cannot hide them:
 * bound over the sandbox's `/dev`, the host's one is `nodev` and `/dev/null` cannot be opened), a
 * private `/tmp` (unless the cwd or a write root lies under it or contains it), write roots inside
 * `/dev` or `/proc` bound last, its own PID namespace, and it dies with the env's process. No
 * `--new-session`: the command stays in the process group the env kills on timeout and abort
 * (stdin is never a terminal).
 */
export function bwrapSandbox(file: string): Sandbox {
	return {
		name: "bubblewrap",
		wrap(shell, command, spec) {
			return { file, args: bwrapArgs(shell, command, spec) };
		},
	};
}

/** The mounts bubblewrap makes itself: a write root inside one of them is bound after it. */
const FRESH_MOUNTS = ["/dev", "/proc"];

/** bubblewrap's arguments for `shell -c command` under `spec` (see `bwrapSandbox`). */
export function bwrapArgs(shell: string, command: string, spec: SandboxSpec): string[] {
	const inside = (path: string, folder: string) => folder === "/" || path === folder || path.startsWith(`${folder}/`);
	const underFresh = (root: string) => FRESH_MOUNTS.some((mount) => inside(root, mount));
	const args = ["--ro-bind", "/", "/"];
	for (const root of spec.writeRoots) if (!underFresh(root)) args.push("--bind", root, root);
	args.push("--dev", "/dev", "--proc", "/proc");
	// A private /tmp, unless the project lives there or a write root covers it: a tmpfs would hide
	// it (and turn writes there into writes that vanish instead of landing or failing).
	const touchesTmp = (path: string) => inside(path, "/tmp") || inside("/tmp", path);
	if (!spec.writeRoots.some(touchesTmp) && !inside(spec.cwd, "/tmp")) args.push("--tmpfs", "/tmp");
	for (const root of spec.writeRoots) if (underFresh(root)) args.push("--bind", root, root);
	if (!spec.network) args.push("--unshare-net");
	args.push("--unshare-pid", "--die-with-parent", "--chdir", spec.cwd, "--", shell, "-c", command);
	return args;
}

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

/**
 * The `sandbox-exec` profile for `spec`: everything allowed except writing outside the write roots
 * and `/dev` (later rules win, so the roots' `allow` overrides the `deny`), and the network unless
 * allowed.
 */
export function seatbeltProfile(spec: Pick<SandboxSpec, "writeRoots" | "network">): string {
	const writable = [...spec.writeRoots, "/dev"].map((root) => `(subpath ${sbplString(root)})`).join(" ");
	return [
		"(version 1)",
		"(allow default)",
		"(deny file-write*)",
		`(allow file-write* ${writable})`,
		...(spec.network ? [] : ["(deny network*)"]),
	].join("\n");
}

/** macOS `sandbox-exec`: everything allowed except writing outside the roots (and the network when off). */
export function seatbeltSandbox(): Sandbox {
	return {
		name: "sandbox-exec",
		wrap(shell, command, spec) {
			return { file: "/usr/bin/sandbox-exec", args: ["-p", seatbeltProfile(spec), shell, "-c", command] };
		},
	};
}

let found: Promise<Sandbox | undefined> | undefined;

/** The sandbox this machine offers (tried once per process: it must actually start), or undefined. */
export function findSandbox(): Promise<Sandbox | undefined> {
	found ??= (async () => {
		if (process.platform === "linux") {
			for (const file of BWRAP_PATHS) {
				try {
					await fs.access(file, fsConstants.X_OK);
				} catch {
					continue;
				}
				const probe = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid"];
				if (await runs(file, [...probe, "--", "/bin/sh", "-c", "true"])) return bwrapSandbox(file);
			}
			return undefined;
		}
		if (process.platform === "darwin") {
			return (await runs("/usr/bin/sandbox-exec", ["-p", "(version 1)(allow default)", "/usr/bin/true"]))
				? seatbeltSandbox()
				: undefined;
		}
		return undefined;
	})();
	return found;
}
