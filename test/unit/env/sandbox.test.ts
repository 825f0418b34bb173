/**
 * The sandboxes' command lines as text: the macOS `sandbox-exec` profile (which cannot run here,
 * so it is read back with the SBPL reader's string rules) and bubblewrap's mount order.
 */
import { describe, expect, it } from "vitest";
import {
	bwrapArgs,
	type SandboxSpec,
	sbplString,
	seatbeltProfile,
	seatbeltSandbox,
} from "../../../src/env/_node-sandbox.js";
import { limitScript } from "../../../src/env/node-limits.js";

type Form = string | { readonly string: string } | readonly Form[];

/**
 * Reads SBPL text into forms, with the string rules of the TinyScheme reader `sandbox-exec` uses:
 * `\"`, `\\`, `\n`, `\t`, `\r` and `\xHH` are escapes, a backslash before any other character
 * stands for that character, and a raw newline inside the quotes is part of the string.
 */
function readSbpl(text: string): Form[] {
	let at = 0;
	const form = (): Form => {
		while (/\s/.test(text[at] ?? "")) at++;
		const c = text[at];
		if (c === undefined) throw new Error("unexpected end of profile");
		if (c === "(") {
			at++;
			const list: Form[] = [];
			for (;;) {
				while (/\s/.test(text[at] ?? "")) at++;
				if (text[at] === ")") {
					at++;
					return list;
				}
				list.push(form());
			}
		}
		if (c === ")") throw new Error(`unbalanced ) at ${at}`);
		if (c === '"') {
			at++;
			let value = "";
			for (;;) {
				const ch = text[at++];
				if (ch === undefined) throw new Error("unterminated string");
				if (ch === '"') return { string: value };
				if (ch !== "\\") {
					value += ch;
					continue;
				}
				const next = text[at++];
				if (next === "n") value += "\n";
				else if (next === "t") value += "\t";
				else if (next === "r") value += "\r";
				else if (next === "x" || next === "X") {
					value += String.fromCharCode(Number.parseInt(text.slice(at, at + 2), 16));
					at += 2;
				} else value += next;
			}
		}
		const start = at;
		while (at < text.length && !/[\s()"]/.test(text[at] as string)) at++;
		return text.slice(start, at);
	};
	const forms: Form[] = [];
	for (;;) {
		while (/\s/.test(text[at] ?? "")) at++;
		if (at >= text.length) return forms;
		forms.push(form());
	}
}

/** The paths of `(subpath "…")` in the profile's `(allow file-write* …)` rule. */
function writablePaths(profile: string): string[] {
	const rule = readSbpl(profile).find(
		(form): form is readonly Form[] => Array.isArray(form) && form[0] === "allow" && form[1] === "file-write*",
	);
	if (!rule) throw new Error("no (allow file-write* …) rule");
	return rule.slice(2).map((part) => {
		if (!Array.isArray(part) || part[0] !== "subpath" || part.length !== 2) throw new Error("not a (subpath …)");
		const path = part[1] as Form;
		if (typeof path !== "object" || Array.isArray(path)) throw new Error("subpath without a string");
		return (path as { string: string }).string;
	});
}

const HOSTILE_PATHS = [
	'/Users/ada/say "hi"',
	"/Users/ada/back\\slash",
	"/Users/ada/ends with a backslash\\",
	"/Users/ada/new\nline",
	'/Users/ada/tricky") (allow file-write* (subpath "/',
	"/Users/ada/tab\tand\rreturn",
	"/Users/ada/control\u0001\u0008\u000cbytes",
	"/Users/ada/ünïcødé 日本",
];

/** A spec with every switch off. */
const plain: SandboxSpec = {
	writeRoots: [],
	readRoots: [],
	network: false,
	unixSockets: false,
	confineReads: false,
	cwd: "/",
};

describe("sandbox-exec profile", () => {
	it("makes only the write roots and /dev writable, the rest read-only, and the network off", () => {
		const profile = seatbeltProfile({ writeRoots: ["/Users/ada/project", "/private/tmp/x"], network: false });
		const forms = readSbpl(profile);
		expect(forms).toEqual([
			["version", "1"],
			["allow", "default"],
			["deny", "file-write*"],
			[
				"allow",
				"file-write*",
				["subpath", { string: "/Users/ada/project" }],
				["subpath", { string: "/private/tmp/x" }],
				["subpath", { string: "/dev" }],
			],
			["deny", "network*"],
		]);
	});

	it("leaves the network on when the policy allows it", () => {
		const forms = readSbpl(seatbeltProfile({ writeRoots: ["/w"], network: true }));
		expect(forms.some((form) => Array.isArray(form) && form[1] === "network*")).toBe(false);
		// Unix sockets stay closed unless granted.
		expect(forms.at(-1)).toEqual(["deny", "network-outbound", ["remote", "unix-socket"]]);
		expect(readSbpl(seatbeltProfile({ writeRoots: ["/w"], network: true, unixSockets: true }))).toHaveLength(4);
	});

	it("denies reading outside the roots and the system folders under confineReads", () => {
		const forms = readSbpl(
			seatbeltProfile({ writeRoots: ["/w"], readRoots: ['/r "x"'], network: false, confineReads: true }),
		);
		expect(forms[2]).toEqual(["deny", "file-read*"]);
		const allowed = forms.find(
			(form): form is readonly Form[] => Array.isArray(form) && form[0] === "allow" && form[1] === "file-read*",
		);
		const paths = allowed?.slice(2).map((part) => ((part as Form[])[1] as { string: string }).string);
		expect(paths).toContain('/r "x"');
		expect(paths).toContain("/w");
		expect(paths).toContain("/usr");
		expect(paths).not.toContain("/Users");
	});

	it.each(HOSTILE_PATHS.map((path) => [JSON.stringify(path), path]))(
		"quotes %s so that the profile names exactly that path",
		(_shown, path) => {
			expect(writablePaths(seatbeltProfile({ writeRoots: [path], network: false }))).toEqual([path, "/dev"]);
			expect(readSbpl(sbplString(path))).toEqual([{ string: path }]);
		},
	);

	it("keeps all hostile roots apart in one profile, and the rules after them intact", () => {
		const profile = seatbeltProfile({ writeRoots: HOSTILE_PATHS, network: false });
		expect(writablePaths(profile)).toEqual([...HOSTILE_PATHS, "/dev"]);
		expect(readSbpl(profile).at(-1)).toEqual(["deny", "network*"]);
	});

	it("passes the profile and the command to sandbox-exec as separate arguments", () => {
		const wrapped = seatbeltSandbox().wrap("/bin/bash", "echo 'a b'", { ...plain, writeRoots: ["/w"], cwd: "/w" });
		if (!wrapped.ok) throw new Error(wrapped.error);
		expect(wrapped.value.file).toBe("/usr/bin/sandbox-exec");
		expect(wrapped.value.args).toEqual([
			"-p",
			seatbeltProfile({ writeRoots: ["/w"], network: false }),
			"/bin/bash",
			"-c",
			"echo 'a b'",
		]);
	});
});

describe("bubblewrap arguments", () => {
	const spec: SandboxSpec = { ...plain, writeRoots: ["/"], cwd: "/home/ada/project" };

	it("binds write roots before the fresh /dev and /proc, so a root of / cannot hide them", () => {
		const args = bwrapArgs("/bin/sh", "true", spec);
		const bind = args.indexOf("--bind");
		expect(args.slice(bind, bind + 3)).toEqual(["--bind", "/", "/"]);
		expect(bind).toBeLessThan(args.indexOf("--dev"));
		expect(bind).toBeLessThan(args.indexOf("--proc"));
		// A write root that covers /tmp keeps it writable: no private tmpfs over it (/dev/shm's only).
		expect(tmpfsFolders(args)).toEqual(["/dev/shm"]);
	});

	it("binds a write root inside /dev after /dev is mounted, and keeps /tmp private otherwise", () => {
		const args = bwrapArgs("/bin/sh", "true", { ...spec, writeRoots: ["/home/ada/project", "/dev/shm"] });
		expect(args.indexOf("/home/ada/project")).toBeLessThan(args.indexOf("--dev"));
		expect(args.indexOf("/dev/shm")).toBeGreaterThan(args.indexOf("--dev"));
		expect(tmpfsFolders(args)).toEqual(["/tmp", "/dev/shm"]);
		// The host's /dev/shm, a write root, goes over the sandbox's own.
		expect(args.lastIndexOf("/dev/shm")).toBeGreaterThan(args.indexOf("--tmpfs"));
		expect(args.slice(-6, -2)).toEqual(["--", "/bin/sh", "-c", limitScript({}, [])]);
		expect(args.slice(-2)).toEqual(["/bin/sh", "true"]);
	});

	it("sizes each private tmpfs as the limits say, and makes /dev itself read-only last", () => {
		const limits = { processes: 100, memoryBytes: 1 << 28, tmpBytes: 1 << 20 };
		const args = bwrapArgs("/bin/bash", "echo hi", {
			...plain,
			writeRoots: ["/w"],
			cwd: "/w",
			confineReads: true,
			home: "/home/ada",
			limits,
		});
		const sized = args.flatMap((arg, index) =>
			arg === "--size" ? [[args[index + 1], args[index + 2], args[index + 3]]] : [],
		);
		expect(sized).toEqual([
			[String(1 << 20), "--tmpfs", "/tmp"],
			[String(1 << 20), "--tmpfs", "/dev/shm"],
			[String(1 << 20), "--tmpfs", "/home/ada"],
		]);
		const remount = args.indexOf("/dev", args.indexOf("--remount-ro"));
		expect(args[remount - 1]).toBe("--remount-ro");
		expect(remount).toBeGreaterThan(args.lastIndexOf("--tmpfs"));
		// The command runs under the script that sets the rlimits and watches those folders.
		expect(args.slice(-4)).toEqual([
			"-c",
			limitScript(limits, ["/tmp", "/dev/shm", "/home/ada"]),
			"/bin/bash",
			"echo hi",
		]);
		// Limits the command's cgroups hold get no rlimit; the rest still do.
		const held = bwrapArgs("/bin/bash", "echo hi", {
			...plain,
			writeRoots: ["/w"],
			cwd: "/w",
			limits,
			cgroupProcs: ["/sys/fs/cgroup/pids/x/cgroup.procs"],
			heldByCgroups: ["memoryBytes"],
		});
		expect(held.at(-3)).toBe(limitScript({ processes: 100, tmpBytes: 1 << 20 }, ["/tmp", "/dev/shm"]));
		expect(held.at(-3)).not.toContain("ulimit -d");
		// Without --size (bubblewrap before 0.8) the folders have the kernel's size, and nothing watches them.
		const old = bwrapArgs(
			"/bin/bash",
			"echo hi",
			{ ...plain, writeRoots: ["/w"], cwd: "/w", limits },
			{
				disableUserns: false,
				tmpfsSize: false,
			},
		);
		expect(old).not.toContain("--size");
		expect(old.at(-3)).toBe(limitScript(limits, []));
	});
});

/** The folders bubblewrap mounts a tmpfs on, in order. */
function tmpfsFolders(args: readonly string[]): string[] {
	return args.flatMap((arg, index) => (arg === "--tmpfs" ? [args[index + 1] as string] : []));
}

describe("bubblewrap namespaces", () => {
	const args = bwrapArgs("/bin/sh", "true", { ...plain, writeRoots: ["/w"], cwd: "/w" });

	it("gives the command user, PID, UTS and IPC namespaces of its own and no capabilities", () => {
		for (const flag of ["--unshare-user", "--disable-userns", "--unshare-pid", "--unshare-uts", "--unshare-ipc"]) {
			expect(args).toContain(flag);
		}
		expect(args.slice(args.indexOf("--cap-drop"), args.indexOf("--cap-drop") + 2)).toEqual(["--cap-drop", "ALL"]);
		expect(args.slice(args.indexOf("--seccomp"), args.indexOf("--seccomp") + 2)).toEqual(["--seccomp", "3"]);
		// Without --disable-userns where bubblewrap is older than 0.8.
		expect(bwrapArgs("/bin/sh", "true", plain, { disableUserns: false, tmpfsSize: false })).not.toContain(
			"--disable-userns",
		);
	});

	it("binds /proc's global kernel settings read-only after the fresh /proc", () => {
		const sys = args.indexOf("/proc/sys");
		expect(args[sys - 1]).toBe("--ro-bind-try");
		expect(sys).toBeGreaterThan(args.indexOf("--proc"));
		expect(args).toContain("/proc/sysrq-trigger");
	});

	it("keeps /sys read-only under a write root of /", () => {
		const all = bwrapArgs("/bin/sh", "true", { ...plain, writeRoots: ["/"], cwd: "/w" });
		const sys = all.lastIndexOf("/sys");
		expect(all.slice(sys - 2, sys + 1)).toEqual(["--ro-bind-try", "/sys", "/sys"]);
		expect(sys).toBeGreaterThan(all.indexOf("--bind"));
	});

	it("shows only the roots and the system folders under confineReads, shallow binds first", () => {
		const confined = bwrapArgs("/bin/sh", "true", {
			...plain,
			confineReads: true,
			readRoots: ["/data/ref"],
			writeRoots: ["/data/ref/out", "/w"],
			cwd: "/w",
			home: "/home/ada",
		});
		expect(confined.join(" ")).not.toContain("--ro-bind / /");
		const at = (path: string) => confined.indexOf(path);
		expect(confined[at("/data/ref") - 1]).toBe("--ro-bind");
		expect(confined[at("/data/ref/out") - 1]).toBe("--bind");
		expect(at("/data/ref")).toBeLessThan(at("/data/ref/out"));
		// An empty private HOME, and the sandbox's own root read-only.
		expect(confined.slice(at("/home/ada") - 1, at("/home/ada") + 1)).toEqual(["--tmpfs", "/home/ada"]);
		expect(confined.slice(-12, -10)).toEqual(["--remount-ro", "/"]);
	});
});
