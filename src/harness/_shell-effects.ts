/**
 * Whether a recorded shell command may have changed files. The replay cannot run the real command,
 * so after one that may have written anything, what it knew about files is only probable.
 *
 * The check is deliberately conservative: a command counts as read-only only when every program in
 * it is on a short list of programs that do not write, used without their writing options, and no
 * output is redirected to a file. Anything else (an unknown program, a build, a script) may write.
 */

import { isWhiteSpace } from "../contract/text.js";

const READ_ONLY_PROGRAMS = new Set([
	"cat",
	"head",
	"tail",
	"wc",
	"grep",
	"egrep",
	"fgrep",
	"rg",
	"ls",
	"echo",
	"printf",
	"pwd",
	"cd",
	"date",
	"sort",
	"uniq",
	"cut",
	"tr",
	"diff",
	"which",
	"type",
	"file",
	"stat",
	"du",
	"df",
	"tree",
	"true",
	"false",
	"exit",
	"test",
	"[",
	"sleep",
	"basename",
	"dirname",
	"realpath",
	"readlink",
	"nl",
	"column",
	"jq",
	"less",
	"more",
	"env",
	"uname",
	"whoami",
	"id",
	"hostname",
	"xxd",
	"od",
	"hexdump",
	"md5sum",
	"shasum",
	"sha256sum",
	"seq",
]);

const READ_ONLY_GIT = new Set([
	"status",
	"log",
	"diff",
	"show",
	"rev-parse",
	"ls-files",
	"blame",
	"grep",
	"describe",
	"shortlog",
	"reflog",
	"cat-file",
	"ls-tree",
]);

const DUPLICATE = /&\d*-?/y;

/** Whether the redirection whose `>` is at `at` goes to `/dev/null` (also `>>`, with spaces). */
function redirectsToDevNull(command: string, at: number): boolean {
	let i = at + 1;
	if (command.charCodeAt(i) === 62 /* > */) i++;
	while (i < command.length && isWhiteSpace(command.charCodeAt(i))) i++;
	return command.startsWith("/dev/null", i);
}

/**
 * Split a command into its simple commands (on `&&`, `||`, `;`, `|`, newlines, and command
 * substitutions), keeping quoted text intact; each is a slice of the command. Returns `undefined`
 * for a command whose quoting is not understood (it is then treated as writing).
 */
function simpleCommands(command: string): { segments: string[]; redirectsToFile: boolean } | undefined {
	const segments: string[] = [];
	let start = 0;
	let quote: "'" | '"' | undefined;
	let redirectsToFile = false;
	const cut = (end: number, next: number) => {
		const segment = command.slice(start, end).trim();
		if (segment !== "") segments.push(segment);
		start = next;
	};
	for (let i = 0; i < command.length; i++) {
		const ch = command[i]!;
		if (quote) {
			if (ch === "\\" && quote === '"' && i + 1 < command.length) i++;
			else if (ch === quote) quote = undefined;
			continue;
		}
		if (ch === "'" || ch === '"') {
			quote = ch;
			continue;
		}
		if (ch === "\\" && i + 1 < command.length) {
			i++;
			continue;
		}
		if (ch === ">" || (ch === "&" && command[i + 1] === ">")) {
			// `2>&1` and `>&2` duplicate a stream; `> /dev/null` discards; anything else writes a file.
			if (ch === "&") i++;
			DUPLICATE.lastIndex = i + 1;
			const duplicate = DUPLICATE.exec(command);
			if (duplicate) {
				i += duplicate[0].length;
				continue;
			}
			if (!redirectsToDevNull(command, i)) redirectsToFile = true;
			continue;
		}
		if (ch === "`") cut(i, i + 1);
		else if (ch === "$" && command[i + 1] === "(") {
			cut(i, i + 2);
			i++;
		} else if (ch === ")" || ch === ";" || ch === "\n" || ch === "|" || ch === "&") cut(i, i + 1);
	}
	if (quote) return undefined;
	cut(command.length, command.length);
	return { segments, redirectsToFile };
}

/** The words of a simple command, with quotes removed (good enough to find the program and flags). */
function words(segment: string): string[] {
	// By hand, as the pattern /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g would read it: a quoted
	// word (without its quotes) when the quote is closed, else a run of non-space characters.
	const out: string[] = [];
	const length = segment.length;
	let i = 0;
	while (i < length) {
		while (i < length && isWhiteSpace(segment.charCodeAt(i))) i++;
		if (i >= length) break;
		const ch = segment[i];
		if (ch === '"' || ch === "'") {
			let j = i + 1;
			while (j < length && segment[j] !== ch) {
				if (ch === '"' && segment[j] === "\\") {
					// `\\.` escapes anything but a line break, which ends the quoted word unread.
					if (j + 1 >= length || /[\r\u2028\u2029]/.test(segment[j + 1] as string)) j = length;
					else j += 2;
				} else j++;
			}
			if (j < length) {
				out.push(segment.slice(i + 1, j));
				i = j + 1;
				continue;
			}
		}
		let j = i + 1;
		while (j < length && !isWhiteSpace(segment.charCodeAt(j))) j++;
		out.push(segment.slice(i, j));
		i = j;
	}
	return out;
}

/** `NAME=value`: `/^[A-Za-z_][A-Za-z0-9_]*=/`. */
function isAssignment(word: string): boolean {
	for (let i = 0; i < word.length; i++) {
		const c = word.charCodeAt(i);
		if (c === 61 /* = */) return i > 0;
		const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
		if (!letter && !(i > 0 && c >= 48 && c <= 57)) return false;
	}
	return false;
}

function segmentIsReadOnly(segment: string): boolean {
	const all = words(segment);
	let index = 0;
	// Leading variable assignments (`FOO=1 cmd`) do not change what the program is.
	while (index < all.length && isAssignment(all[index]!)) index++;
	const program = all[index];
	if (program === undefined) return true;
	const args = all.slice(index + 1);
	const name = program.slice(program.lastIndexOf("/") + 1);
	if (name === "git") {
		const sub = args.find((arg) => !arg.startsWith("-"));
		return sub !== undefined && READ_ONLY_GIT.has(sub) && !args.includes("--output");
	}
	if (name === "find") {
		return !args.some((arg) => /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/.test(arg));
	}
	if (name === "sed") return !args.some((arg) => /^-[a-zA-Z]*i/.test(arg) || arg.startsWith("--in-place"));
	if (name === "awk" || name === "gawk") return !segment.includes(">") && !segment.includes("system(");
	if (name === "sort") return !args.some((arg) => arg === "-o" || arg.startsWith("--output"));
	if (name === "tree") return !args.includes("-o");
	return READ_ONLY_PROGRAMS.has(name);
}

/** True unless `command` is provably read-only by the rules above. */
export function commandMayWrite(command: string): boolean {
	if (command.includes("<<")) return true;
	const parsed = simpleCommands(command);
	if (!parsed || parsed.redirectsToFile) return true;
	return !parsed.segments.every(segmentIsReadOnly);
}
