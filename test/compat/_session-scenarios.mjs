/**
 * The scripted scenarios every reference release is driven through to write a session
 * (test/compat/generate-sessions.ts). Plain JavaScript: it runs in a child process under the
 * release's own Node, next to the release's modules, with nothing of toolsmith loaded.
 *
 * `prepareWorld(dir)` writes the files the scenarios use; `scenarioBatches(tools)` gives the tool
 * call batches in order, adapted to the tools the release has (`tools` maps a tool name to the
 * property names of its parameters). Every value here is deterministic, so two runs of one release
 * write the same calls.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A 1×1 PNG (one red pixel). */
const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

function lines(count, make) {
	return Array.from({ length: count }, (_, i) => make(i + 1)).join("\n");
}

export function prepareWorld(dir) {
	const file = (name, text) => {
		mkdirSync(join(dir, name, ".."), { recursive: true });
		writeFileSync(join(dir, name), text);
	};
	file("notes.txt", `${lines(30, (n) => `note ${n}: keep the tools exact`)}\n`);
	file("big.txt", `${lines(2600, (n) => `line ${n} of a long file`)}\n`);
	// 400 lines of 200 characters: 80 KB, over the byte limit long before the line limit.
	file("wide.txt", `${lines(400, (n) => `${String(n).padStart(4, "0")} ${"w".repeat(195)}`)}\n`);
	// One line past the byte limit on its own.
	file("long-line.txt", `${"x".repeat(60 * 1024)}\nafter the long line\n`);
	file("mid-long.txt", `${lines(10, (n) => `short ${n}`)}\n${"y".repeat(70 * 1024)}\nlast line\n`);
	file("no-newline.txt", "first\nsecond\nthird without newline");
	file("empty.txt", "");
	file("crlf.txt", "alpha\r\nbeta\r\ngamma\r\n");
	file("dup.txt", "same line\nother\nsame line\n");
	file(
		"src/app.ts",
		'export function greet(name: string): string {\n\treturn "hello " + name;\n}\n\nexport const answer = 42;\n',
	);
	file("src/util.ts", "export const a = 1;\nexport const b = 2;\nexport const c = 3;\nexport const d = 4;\n");
	file("unicode.txt", "naïve café\nüber straße\n日本語のテキスト\nemoji 🚀 rocket\n");
	file("pixel.png", Buffer.from(PIXEL_PNG, "base64"));
}

/** The batches, each a list of `{ name, arguments }`, for a release whose tools are `tools`. */
export function scenarioBatches(tools) {
	const has = (name) => tools[name] !== undefined;
	const multiEdit = has("edit") && tools.edit.includes("edits");
	const edit = (path, oldText, newText) =>
		multiEdit
			? { name: "edit", arguments: { path, edits: [{ oldText, newText }] } }
			: { name: "edit", arguments: { path, oldText, newText } };
	const batches = [
		// Reads: whole files, pages, offsets, limits, both truncation limits, long lines.
		[{ name: "read", arguments: { path: "notes.txt" } }],
		[{ name: "read", arguments: { path: "big.txt" } }],
		[{ name: "read", arguments: { path: "big.txt", offset: 2001 } }],
		[{ name: "read", arguments: { path: "big.txt", offset: 100, limit: 20 } }],
		[{ name: "read", arguments: { path: "big.txt", offset: 2590 } }],
		[{ name: "read", arguments: { path: "wide.txt" } }],
		[{ name: "read", arguments: { path: "wide.txt", offset: 300, limit: 50 } }],
		[{ name: "read", arguments: { path: "long-line.txt" } }],
		[{ name: "read", arguments: { path: "long-line.txt", offset: 2 } }],
		[{ name: "read", arguments: { path: "mid-long.txt" } }],
		[{ name: "read", arguments: { path: "mid-long.txt", offset: 11 } }],
		[{ name: "read", arguments: { path: "no-newline.txt" } }],
		[{ name: "read", arguments: { path: "empty.txt" } }],
		[{ name: "read", arguments: { path: "notes.txt", offset: 40 } }],
		[{ name: "read", arguments: { path: "unseen-short.txt", offset: 50 } }],
		// Past the end of a file no result has shown yet: the error shows that it exists.
		[{ name: "read", arguments: { path: "src/util.ts", offset: 50 } }],
		[{ name: "read", arguments: { path: "does-not-exist.txt" } }],
		[{ name: "read", arguments: { path: "src" } }],
		[{ name: "read", arguments: { path: "pixel.png" } }],
		// Parallel reads in one batch.
		[
			{ name: "read", arguments: { path: "src/app.ts" } },
			{ name: "read", arguments: { path: "src/util.ts" } },
			{ name: "read", arguments: { path: "unicode.txt" } },
		],
		// Writes: non-ASCII text, a new nested file, an overwrite, then reads of them.
		[{ name: "write", arguments: { path: "out/unicode.txt", content: "héllo — wörld\n日本語\n🚀 launch\n" } }],
		[{ name: "read", arguments: { path: "out/unicode.txt" } }],
		[{ name: "write", arguments: { path: "notes.txt", content: `${lines(12, (n) => `rewritten ${n}`)}\n` } }],
		[{ name: "read", arguments: { path: "notes.txt", offset: 5, limit: 3 } }],
		[{ name: "write", arguments: { path: "empty-again.txt", content: "" } }],
		// Edits that work (the files read first, so the replay knows them).
		[
			{ name: "read", arguments: { path: "crlf.txt" } },
			{ name: "read", arguments: { path: "dup.txt" } },
		],
		// biome-ignore lint/suspicious/noTemplateCurlyInString: the file's new text is a template literal.
		[edit("src/app.ts", '"hello " + name', "`hello ${name}`")],
		[edit("src/util.ts", "export const b = 2;", "export const b = 20;")],
		[edit("unicode.txt", "über straße", "über Straße ✓")],
		[edit("crlf.txt", "beta", "BETA")],
		[edit("notes.txt", "rewritten 3\nrewritten 4", "three\nfour\nfour and a half")],
		// Edits that fail: not found, ambiguous, no change, no such file, empty old text.
		[edit("src/util.ts", "export const z = 26;", "export const z = 0;")],
		[edit("dup.txt", "same line", "changed line")],
		[edit("src/util.ts", "export const c = 3;", "export const c = 3;")],
		[edit("missing/file.ts", "a", "b")],
		[edit("src/util.ts", "", "x")],
		[{ name: "read", arguments: { path: "src/util.ts" } }],
		[{ name: "read", arguments: { path: "src/app.ts" } }],
		[{ name: "read", arguments: { path: "crlf.txt" } }],
		// Shell: output, status codes, output before a failure, no output, long output.
		[{ name: "bash", arguments: { command: "echo hello from bash" } }],
		[{ name: "bash", arguments: { command: "printf 'out line\\n'; echo 'err line' >&2; exit 3" } }],
		[{ name: "bash", arguments: { command: "true" } }],
		[{ name: "bash", arguments: { command: "false" } }],
		[{ name: "bash", arguments: { command: "exit 7" } }],
		[{ name: "bash", arguments: { command: "no-such-command-here" } }],
		[{ name: "bash", arguments: { command: "seq 1 3000" } }],
		[{ name: "bash", arguments: { command: "head -c 70000 wide.txt" } }],
		[{ name: "bash", arguments: { command: "printf 'no trailing newline'" } }],
		[{ name: "bash", arguments: { command: "wc -l notes.txt big.txt" } }],
		[{ name: "bash", arguments: { command: "echo started; sleep 5", timeout: 1 } }],
		[{ name: "bash", arguments: { command: "printf 'made by the shell\\n' > shell.txt && cat shell.txt" } }],
		[{ name: "read", arguments: { path: "shell.txt" } }],
		[{ name: "read", arguments: { path: "notes.txt" } }],
	];
	if (multiEdit) {
		const edits = (...pairs) => [
			{
				name: "edit",
				arguments: { path: "src/util.ts", edits: pairs.map(([oldText, newText]) => ({ oldText, newText })) },
			},
		];
		batches.push(
			edits(["export const a = 1;", "export const a = 10;"], ["export const d = 4;", "export const d = 40;"]),
			// A second edit that is not found, two edits of the same text, and two that overlap.
			edits(["export const a = 10;", "export const a = 11;"], ["export const q = 0;", "export const q = 1;"]),
			edits(["export const a = 10;", "A"], ["export const a = 10;", "B"]),
			edits(["export const a = 10;\nexport const b", "A"], ["b = 20;", "B"]),
			[{ name: "read", arguments: { path: "src/util.ts" } }],
		);
	}
	if (has("grep")) {
		batches.push(
			[{ name: "grep", arguments: { pattern: "export", path: "src/util.ts" } }],
			[{ name: "grep", arguments: { pattern: "line 2\\d\\d\\d", path: "." } }],
		);
	}
	if (has("ls")) batches.push([{ name: "ls", arguments: { path: "src/app.ts" } }], [{ name: "ls", arguments: {} }]);
	if (has("find")) batches.push([{ name: "find", arguments: { pattern: "*.ts" } }]);
	return batches;
}
