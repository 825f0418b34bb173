import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findRgBinary, rgAgrees } from "../../../src/env/_node-grep.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { createGrepTool, type GrepToolParams } from "../../../src/tools/grep.js";
import { contextFor, textOf } from "./_env.js";

const grep = createGrepTool();
const small = createGrepTool({ maxBytes: 600, maxLineChars: 40 });

function rng(seed: number): () => number {
	let s = seed >>> 0;
	return () => {
		s = (s * 1664525 + 1013904223) >>> 0;
		return s / 2 ** 32;
	};
}

const enc = new TextEncoder();
const bytes = (...parts: (string | number[])[]) =>
	Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(enc.encode(p)) : Buffer.from(p))));

/** File contents that probe the edges: line endings, encodings, binary data, long lines. */
const CONTENTS: readonly Buffer[] = [
	bytes("needle one\nno\nneedle two\n"),
	bytes("a\r\nNeedle crlf\r\nfoo bar\r\n"),
	bytes("mid\rline needle\nne\rdle\n"),
	bytes("last line needle without newline"),
	bytes(""),
	bytes("\n\n\n"),
	bytes("\uFEFFneedle after a BOM\n"),
	Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("needle utf-16\n", "utf16le")]),
	bytes("bad ", [0xff, 0xc3], " utf8 needle\nfoo", [0xe2, 0x82], "bar\n"),
	bytes("needle\u2028sep\nfoo|bar\na.b a-b [x]\n"),
	bytes("binary", [0], "needle\n"),
	bytes("needle late binary\n".repeat(12000), [0], "\n"),
	bytes(`${"long ".repeat(200)}needle\n`),
	bytes("ÄÖÜ needle ß straße STRASSE K k\n"),
	bytes("1\n2\nneedle\n4\nneedle\n6\n7\n8\nneedle\n"),
];
/** Past the Node env's size for reading a file whole (read in pieces): in the trees the memory env also gets. */
const LARGE: readonly Buffer[] = [
	bytes("head needle\n", `${"x".repeat(300_000)}\r\n`, "mid\n".repeat(5), "needle tail\r\nlast"),
	bytes("needle\n".repeat(50_000), [0]),
];
const NAMES = [
	"a.ts",
	"b.js",
	"c.test.ts",
	".hidden.ts",
	"ü.ts",
	"日本.md",
	"\u{1F600}.txt",
	"Z.TS",
	"x y.ts",
	"a-b.ts",
];
const DIRS = ["", "src", "src/deep", "lib", ".cache", "node_modules/pkg", "docs/ü", "a-b", "a"];
const RULES = ["*.js", "!b.js", "deep/", "/lib", "*.md", "node_modules/", "!keep.ts", "x*", "**/pkg/**", "ü.ts"];
const IGNORE_NAMES = [".gitignore", ".gitignore", ".ignore", ".rgignore"];

async function generate(root: string, seed: number, repo: boolean, large = false): Promise<void> {
	const random = rng(seed);
	const contents = large ? [...CONTENTS, ...LARGE] : CONTENTS;
	if (repo) {
		await fs.mkdir(join(root, ".git/info"), { recursive: true });
		await fs.writeFile(join(root, ".git/config"), "needle\n");
		if (random() < 0.5) await fs.writeFile(join(root, ".git/info/exclude"), "*.test.ts\n");
	}
	for (const dir of DIRS) {
		await fs.mkdir(join(root, dir), { recursive: true });
		for (const name of NAMES)
			if (random() < 0.6)
				await fs.writeFile(join(root, dir, name), contents[Math.floor(random() * contents.length)] as Buffer);
		if (random() < 0.6) {
			const lines = RULES.filter(() => random() < 0.3);
			const name = IGNORE_NAMES[Math.floor(random() * IGNORE_NAMES.length)] as string;
			await fs.writeFile(join(root, dir, name), `${lines.join("\n")}\n`);
		}
	}
	await fs.symlink("src", join(root, "src-link"));
	await fs.symlink("../..", join(root, "src/deep/up"));
	await fs.symlink("missing", join(root, "dangling.ts"));
	await fs.symlink("a.ts", join(root, "lib/link.ts"));
}

/** Calls: rg-friendly patterns (the fast path runs) and others (the Node env walks; same output anyway). */
const CALLS: readonly GrepToolParams[] = [
	{ pattern: "needle" },
	{ pattern: "needle", literal: true },
	{ pattern: "NEEDLE", ignoreCase: true },
	{ pattern: "strasse", ignoreCase: true, literal: true },
	{ pattern: "ne+dle$" },
	{ pattern: "^needle" },
	{ pattern: "bar$" },
	{ pattern: "CRLF$", ignoreCase: true },
	{ pattern: "(foo|bar)" },
	{ pattern: "[a-c]\\.b" },
	{ pattern: "a.b", literal: true },
	{ pattern: "[x]", literal: true },
	{ pattern: "foo|bar", literal: true },
	{ pattern: "" },
	{ pattern: "^$" },
	{ pattern: "needle", glob: "*.ts" },
	{ pattern: "needle", glob: "src/**" },
	{ pattern: "needle", context: 2 },
	{ pattern: "needle", context: 1, limit: 5 },
	{ pattern: "needle", limit: 1 },
	{ pattern: "needle", limit: 3 },
	{ pattern: "Needle|needle", limit: 7, context: 3 },
	{ pattern: "ü", ignoreCase: true },
	{ pattern: "n.edle" },
	{ pattern: "\\bneedle\\b" },
	{ pattern: "\\d" },
	{ pattern: "ne{1,2}dle" },
	{ pattern: "[a-z]{6}$" },
	{ pattern: "e{2,}", context: 1 },
];

const rgAvailable = (await findRgBinary()) !== undefined;

describe("rgAgrees: which patterns the rg fast path takes", () => {
	it("takes plain text, literals and the shared regex syntax; leaves the rest to the walker", () => {
		for (const pattern of [
			"needle",
			"ne+dle$",
			"^a|b",
			"(x)?y*",
			"[a-c]z",
			"a\\.b\\(",
			"日本",
			"a{2}",
			"[a-f]{3,}",
			"x{1,100}?",
		])
			expect(rgAgrees({ path: ".", pattern, limit: 1 }), pattern).toBe(true);
		for (const pattern of [
			"a.b",
			"[^a]",
			"\\d",
			"\\w",
			"\\s",
			"\\bx",
			"a{101}",
			"a{1,1000}",
			"(?:x)",
			"(?=x)",
			"\\1",
			"\uFFFD",
			"[a&&b]",
		])
			expect(rgAgrees({ path: ".", pattern, limit: 1 }), pattern).toBe(false);
		expect(rgAgrees({ path: ".", pattern: "a.b", literal: true, limit: 1 })).toBe(true);
		expect(rgAgrees({ path: ".", pattern: "ß", ignoreCase: true, limit: 1 })).toBe(false);
		expect(rgAgrees({ path: ".", pattern: "ss", ignoreCase: true, limit: 1 })).toBe(true);
	});
});

describe.skipIf(!rgAvailable)("grep: the rg fast path and the walker give the same output", () => {
	const temps: string[] = [];
	afterEach(async () => {
		for (const dir of temps.splice(0)) await fs.rm(dir, { recursive: true, force: true });
	});

	for (const seed of [31, 32, 33, 34, 35, 36]) {
		it(`generated tree ${seed}${seed >= 35 ? " inside a repository, with ignore files above the root" : ""}`, async () => {
			const base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-grep-")));
			temps.push(base);
			const root = join(base, "tree");
			if (seed >= 35) {
				await fs.mkdir(join(base, ".git"));
				await fs.writeFile(join(base, ".gitignore"), "*.md\ntree/lib/\n");
				await fs.writeFile(join(base, ".ignore"), "b.js\n");
			}
			await generate(root, seed, seed === 31 || seed === 33);
			const fast = new NodeExecutionEnv({ cwd: root });
			const slow = new NodeExecutionEnv({ cwd: root, searchBinaries: false });
			let compared = 0;
			for (const params of CALLS)
				for (const tool of [grep, small]) {
					const label = JSON.stringify(params);
					const a = await tool.execute("id", params, undefined, undefined, contextFor(fast));
					const b = await tool.execute("id", params, undefined, undefined, contextFor(slow));
					expect(textOf(a), label).toBe(textOf(b));
					expect(a.details, label).toEqual(b.details);
					if (textOf(a) !== "No matches found" && rgAgrees({ path: ".", ...params, limit: 1 })) compared++;
				}
			expect(compared).toBeGreaterThan(20);
		});
	}

	it("finds the same matches at the env level, with the same context lines", async () => {
		const base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-grep-")));
		temps.push(base);
		await generate(base, 40, true, true);
		const fast = new NodeExecutionEnv({ cwd: base });
		const slow = new NodeExecutionEnv({ cwd: base, searchBinaries: false });
		for (const context of [0, 2]) {
			const request = { path: ".", pattern: "needle", limit: 1000, hidden: true, context };
			const a = await fast.searchText(request);
			const b = await slow.searchText(request);
			expect(a).toEqual(b);
			expect(a.ok && a.value.matches.length).toBeGreaterThan(5);
		}
	});
});

describe.skipIf(!rgAvailable)("searchText through rg", () => {
	it("reports an abort, before and during the search, and leaves no match behind", async () => {
		const base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-grep-")));
		try {
			for (let i = 0; i < 200; i++) await fs.writeFile(join(base, `f${i}.txt`), "needle\n".repeat(500));
			const env = new NodeExecutionEnv({ cwd: base });
			const request = { path: ".", pattern: "needle", limit: 1_000_000 };
			const before = await env.searchText(request, { signal: AbortSignal.abort() });
			expect(!before.ok && before.error.code).toBe("aborted");
			const controller = new AbortController();
			const running = env.searchText(request, { signal: controller.signal });
			setTimeout(() => controller.abort(), 5);
			const during = await running;
			expect(!during.ok && during.error.code).toBe("aborted");
		} finally {
			await fs.rm(base, { recursive: true, force: true });
		}
	});

	it("lists further files when the first ones rg lists hold fewer matches than the limit", async () => {
		const base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-grep-")));
		try {
			// rg lists a0…a4 at their first line; a NUL far past it makes them binary for the walker.
			const late = Buffer.concat([Buffer.from("needle\n"), Buffer.alloc(300_000, 0x61), Buffer.from([0])]);
			for (let i = 0; i < 5; i++) await fs.writeFile(join(base, `a${i}.txt`), late);
			for (let i = 0; i < 10; i++) await fs.writeFile(join(base, `b${i}.txt`), `x\nneedle ${i}\n`);
			const fast = new NodeExecutionEnv({ cwd: base });
			const slow = new NodeExecutionEnv({ cwd: base, searchBinaries: false });
			for (const limit of [1, 3, 4, 20]) {
				const request = { path: ".", pattern: "needle", limit };
				const a = await fast.searchText(request);
				expect(a, `limit ${limit}`).toEqual(await slow.searchText(request));
				expect(a.ok && a.value.matches[0]?.path).toBe("b0.txt");
			}
		} finally {
			await fs.rm(base, { recursive: true, force: true });
		}
	});

	it("refuses a malformed pattern, a bad limit and a file by name, as the walker does", async () => {
		const base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-grep-")));
		try {
			await fs.writeFile(join(base, "f.txt"), "x\n");
			const fast = new NodeExecutionEnv({ cwd: base });
			const slow = new NodeExecutionEnv({ cwd: base, searchBinaries: false });
			for (const request of [
				{ path: ".", pattern: "a(b", limit: 5 },
				{ path: ".", pattern: "x", limit: 0 },
				{ path: "f.txt", pattern: "x", limit: 5 },
				{ path: "missing", pattern: "x", limit: 5 },
			]) {
				const a = await fast.searchText(request);
				expect(a.ok, JSON.stringify(request)).toBe(false);
				expect(a).toEqual(await slow.searchText(request));
			}
		} finally {
			await fs.rm(base, { recursive: true, force: true });
		}
	});
});

describe("grep on a memory env holding the same files as a disk tree", () => {
	it("prints what the Node env prints", async () => {
		const base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-grep-")));
		try {
			const root = join(base, "tree");
			await generate(root, 41, true, true);
			const files: Record<string, Uint8Array> = {};
			const symlinks: Record<string, string> = {};
			const copy = async (dir: string) => {
				for (const entry of await fs.readdir(join(root, dir), { withFileTypes: true })) {
					const rel = dir === "" ? entry.name : `${dir}/${entry.name}`;
					if (entry.isSymbolicLink()) symlinks[`/w/${rel}`] = await fs.readlink(join(root, rel));
					else if (entry.isDirectory()) await copy(rel);
					else files[`/w/${rel}`] = await fs.readFile(join(root, rel));
				}
			};
			await copy("");
			const memory = new MemoryExecutionEnv({ cwd: "/w", files, symlinks, dirs: ["/w/.git"] });
			const node = new NodeExecutionEnv({ cwd: root });
			for (const params of CALLS) {
				const a = await grep.execute("id", params, undefined, undefined, contextFor(node));
				const b = await grep.execute("id", params, undefined, undefined, contextFor(memory));
				expect(textOf(b), JSON.stringify(params)).toBe(textOf(a));
			}
		} finally {
			await fs.rm(base, { recursive: true, force: true });
		}
	});
});
