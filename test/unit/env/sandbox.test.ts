/**
 * The sandboxes' command lines as text: the macOS `sandbox-exec` profile (which cannot run here,
 * so it is read back with the SBPL reader's string rules) and bubblewrap's mount order.
 */
import { describe, expect, it } from "vitest";
import { bwrapArgs, sbplString, seatbeltProfile, seatbeltSandbox } from "../../../src/env/_node-sandbox.js";

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
		expect(forms).toHaveLength(4);
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
		const wrapped = seatbeltSandbox().wrap("/bin/bash", "echo 'a b'", {
			writeRoots: ["/w"],
			network: false,
			cwd: "/w",
		});
		expect(wrapped.file).toBe("/usr/bin/sandbox-exec");
		expect(wrapped.args).toEqual([
			"-p",
			seatbeltProfile({ writeRoots: ["/w"], network: false }),
			"/bin/bash",
			"-c",
			"echo 'a b'",
		]);
	});
});

describe("bubblewrap arguments", () => {
	const spec = { writeRoots: ["/"], network: false, cwd: "/home/ada/project" };

	it("binds write roots before the fresh /dev and /proc, so a root of / cannot hide them", () => {
		const args = bwrapArgs("/bin/sh", "true", spec);
		const bind = args.indexOf("--bind");
		expect(args.slice(bind, bind + 3)).toEqual(["--bind", "/", "/"]);
		expect(bind).toBeLessThan(args.indexOf("--dev"));
		expect(bind).toBeLessThan(args.indexOf("--proc"));
		// A write root that covers /tmp keeps it writable: no private tmpfs over it.
		expect(args).not.toContain("--tmpfs");
	});

	it("binds a write root inside /dev after /dev is mounted, and keeps /tmp private otherwise", () => {
		const args = bwrapArgs("/bin/sh", "true", { ...spec, writeRoots: ["/home/ada/project", "/dev/shm"] });
		expect(args.indexOf("/home/ada/project")).toBeLessThan(args.indexOf("--dev"));
		expect(args.indexOf("/dev/shm")).toBeGreaterThan(args.indexOf("--dev"));
		expect(args).toContain("--tmpfs");
		expect(args.slice(-4)).toEqual(["--", "/bin/sh", "-c", "true"]);
	});
});
