/**
 * The walker: ignore-file semantics checked against git itself on real files, and the walk's
 * order, hidden names, symlinks and abort on every env (SSH where a loopback sshd can start) with
 * one test body.
 */
import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { FileSystem } from "../../../src/contract/env.js";
import { compareNames, comparePaths, type WalkOptions, walk } from "../../../src/env/_walk.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { allToolEnvs, stopToolEnvs, type ToolFixture } from "../tools/_env.js";

const envs = await allToolEnvs();
afterAll(stopToolEnvs);

async function paths(env: FileSystem, root: string, options?: WalkOptions): Promise<string[]> {
	const out: string[] = [];
	for await (const entry of walk(env, root, options))
		out.push(entry.kind === "file" ? entry.path : `${entry.path} (${entry.kind})`);
	return out;
}

/** A small deterministic generator, so a failing tree can be rebuilt from its seed. */
function rng(seed: number): () => number {
	let s = seed >>> 0;
	return () => {
		s = (s * 1664525 + 1013904223) >>> 0;
		return s / 2 ** 32;
	};
}

const PATTERNS = [
	"*.log",
	"!keep.log",
	"/top.txt",
	"build/",
	"**/gen/",
	"!gen/keep.js",
	"a/**/deep.txt",
	"doc/*.md",
	"x?.js",
	"[ab].dat",
	"*.tmp",
	"!c/*.tmp",
	"c",
	"/b/",
	"sub/*.js",
	"!important.log",
	"# a comment",
	"\\#hash.txt",
	"trailing.txt   ",
	"d*/",
	"**/z/**",
	"!*.keep",
];
const DIRS = ["", "a", "b", "c", "a/c", "a/c/gen", "build", "doc", "a/doc", "b/sub", "d1", "z", "a/z/y", "gen"];
const FILES = [
	"top.txt",
	"x.log",
	"keep.log",
	"important.log",
	"deep.txt",
	"x1.js",
	"xy.js",
	"a.dat",
	"c.dat",
	"readme.md",
	"f.tmp",
	"keep.js",
	"#hash.txt",
	"trailing.txt",
	"c",
	"n.keep",
	"plain.ts",
];

interface Tree {
	readonly files: string[];
	readonly ignores: Map<string, string>;
}

function makeTree(seed: number): Tree {
	const random = rng(seed);
	const files: string[] = [];
	for (const dir of DIRS)
		for (const file of FILES) {
			// A folder named `c` exists at `c` and `a/c`; a file `c` is kept out of the root and `a`.
			if (file === "c" && (dir === "" || dir === "a")) continue;
			if (random() < 0.6) files.push(dir === "" ? file : `${dir}/${file}`);
		}
	const ignores = new Map<string, string>();
	for (const dir of ["", "a", "a/c", "b", "doc"]) {
		if (dir !== "" && random() < 0.3) continue;
		const lines = PATTERNS.filter(() => random() < 0.35);
		ignores.set(dir, `${lines.join("\n")}\n`);
	}
	return { files, ignores };
}

async function writeTree(root: string, tree: Tree, ignoreName: string): Promise<void> {
	for (const file of tree.files) {
		await fs.mkdir(join(root, file, ".."), { recursive: true });
		await fs.writeFile(join(root, file), "x\n");
	}
	for (const [dir, text] of tree.ignores) {
		await fs.mkdir(join(root, dir), { recursive: true });
		await fs.writeFile(join(root, dir, ignoreName), text);
	}
}

const temps: string[] = [];
afterEach(async () => {
	for (const dir of temps.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
	const dir = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-walk-")));
	temps.push(dir);
	return dir;
}

describe("walk: ignore files against git", () => {
	for (const seed of [1, 2, 3, 4, 5, 6]) {
		it(`tree ${seed}: the files it yields are the ones git does not ignore`, async () => {
			const tree = makeTree(seed);
			const repo = join(await tempDir(), "repo");
			await fs.mkdir(repo);
			execFileSync("git", ["init", "-q", repo]);
			await writeTree(repo, tree, ".gitignore");
			const git = execFileSync("git", ["-C", repo, "ls-files", "--others", "--exclude-standard", "-z"], {
				encoding: "utf8",
				env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
			})
				.split("\0")
				.filter((p) => p !== "")
				.sort(comparePaths);
			const env = new NodeExecutionEnv({ cwd: repo });
			expect(await paths(env, repo, { hidden: true })).toEqual(git);
			// Sanity: the generated rules do exclude something, and the tree has files left.
			expect(git.length).toBeGreaterThan(0);
			expect(git.length).toBeLessThan(tree.files.length + tree.ignores.size);
		});

		it(`tree ${seed}: .ignore files mean what .gitignore files mean, outside a repository too`, async () => {
			const tree = makeTree(seed);
			const base = await tempDir();
			const repo = join(base, "repo");
			await fs.mkdir(repo);
			execFileSync("git", ["init", "-q", repo]);
			await writeTree(repo, tree, ".gitignore");
			const git = execFileSync("git", ["-C", repo, "ls-files", "--others", "--exclude-standard", "-z"], {
				encoding: "utf8",
				env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
			})
				.split("\0")
				.filter((p) => p !== "" && !p.endsWith("/.gitignore") && p !== ".gitignore")
				.sort(comparePaths);
			const plain = join(base, "plain");
			await fs.mkdir(plain);
			await writeTree(plain, tree, ".ignore");
			const env = new NodeExecutionEnv({ cwd: plain });
			expect(await paths(env, plain)).toEqual(git);
		});
	}

	it(".gitignore counts only inside a repository unless requireGit is false; parents' files count", async () => {
		const base = await tempDir();
		await fs.mkdir(join(base, "p/inner"), { recursive: true });
		await fs.writeFile(join(base, "p/.gitignore"), "*.log\n");
		await fs.writeFile(join(base, "p/.ignore"), "*.tmp\n");
		await fs.writeFile(join(base, "p/inner/a.log"), "");
		await fs.writeFile(join(base, "p/inner/b.tmp"), "");
		await fs.writeFile(join(base, "p/inner/c.ts"), "");
		const env = new NodeExecutionEnv({ cwd: base });
		const inner = join(base, "p/inner");
		expect(await paths(env, inner)).toEqual(["a.log", "c.ts"]);
		expect(await paths(env, inner, { requireGit: false })).toEqual(["c.ts"]);
		expect(await paths(env, inner, { parents: false })).toEqual(["a.log", "b.tmp", "c.ts"]);
		await fs.mkdir(join(base, "p/.git"));
		expect(await paths(env, inner)).toEqual(["c.ts"]);
		expect(await paths(env, inner, { gitignore: false })).toEqual(["a.log", "c.ts"]);
		// A nested repository stops the parent's .gitignore (not its .ignore).
		await fs.mkdir(join(base, "p/inner/.git"));
		expect(await paths(env, inner)).toEqual(["a.log", "c.ts"]);
	});
});

describe("walk: a folder re-included by a file that takes precedence", () => {
	it("lists its entries by their own matches, as fd does (git's own rule would hide them)", async () => {
		const root = await tempDir();
		await fs.mkdir(join(root, ".git"));
		await fs.mkdir(join(root, "build"));
		await fs.writeFile(join(root, ".gitignore"), "build/\n*.o\n");
		await fs.writeFile(join(root, ".ignore"), "!build/\n");
		await fs.writeFile(join(root, "build/x"), "");
		await fs.writeFile(join(root, "build/y.o"), "");
		await fs.writeFile(join(root, "a"), "");
		const env = new NodeExecutionEnv({ cwd: root });
		expect(await paths(env, root, { hidden: true })).toEqual([".gitignore", ".ignore", "a", "build/x"]);
	});
});

describe.each(envs)("walk on the %s env", (_name, makeFixture) => {
	let fixture: ToolFixture | undefined;
	afterEach(async () => {
		await fixture?.cleanup();
		fixture = undefined;
	});

	it("yields relative paths in code point order, hidden names and links only when asked", async () => {
		fixture = await makeFixture({
			files: {
				".git/HEAD": "ref\n",
				".gitignore": "*.log\n!keep.log\nout/\n",
				".hidden/x.ts": "",
				".env": "",
				"a-c.ts": "",
				"a/b.ts": "",
				"a/.ignore": "skip.ts\n",
				"a/skip.ts": "",
				"a/keep.log": "",
				"a/drop.log": "",
				"out/o.ts": "",
				"\u{1F600}.ts": "",
				"\uFFFD.ts": "",
				"Z.ts": "",
				"sub/deep/f.ts": "",
			},
			symlinks: { "link-to-a": "a", "sub/deep/loop": "..", dangling: "nowhere" },
		});
		const { env } = fixture;
		const root = env.cwd;
		expect(await paths(env, root)).toEqual([
			"Z.ts",
			"a/b.ts",
			"a/keep.log",
			"a-c.ts",
			"dangling (symlink)",
			"link-to-a (symlink)",
			"sub/deep/f.ts",
			"sub/deep/loop (symlink)",
			"\uFFFD.ts",
			"\u{1F600}.ts",
		]);
		expect(await paths(env, root, { hidden: true })).toEqual([
			".env",
			".gitignore",
			".hidden/x.ts",
			"Z.ts",
			"a/.ignore",
			"a/b.ts",
			"a/keep.log",
			"a-c.ts",
			"dangling (symlink)",
			"link-to-a (symlink)",
			"sub/deep/f.ts",
			"sub/deep/loop (symlink)",
			"\uFFFD.ts",
			"\u{1F600}.ts",
		]);
		// Following links: `link-to-a` is walked like `a`; `loop` points back into the walk and is skipped.
		expect(await paths(env, root, { followSymlinks: true, includeDirs: true })).toEqual([
			"Z.ts",
			"a (directory)",
			"a/b.ts",
			"a/keep.log",
			"a-c.ts",
			"dangling (symlink)",
			"link-to-a (directory)",
			"link-to-a/b.ts",
			"link-to-a/keep.log",
			"sub (directory)",
			"sub/deep (directory)",
			"sub/deep/f.ts",
			"\uFFFD.ts",
			"\u{1F600}.ts",
		]);
		expect(await paths(env, fixture.path("a"))).toEqual(["b.ts", "keep.log"]);
	});

	it("names the root it cannot list, and stops once aborted", async () => {
		fixture = await makeFixture({ files: { "a.ts": "", "b/c.ts": "" } });
		await expect(paths(fixture.env, fixture.path("missing"))).rejects.toThrow(/Could not list .*missing/);
		const controller = new AbortController();
		const seen: string[] = [];
		await expect(
			(async () => {
				for await (const entry of walk(fixture.env, fixture.env.cwd, { signal: controller.signal })) {
					seen.push(entry.path);
					controller.abort();
				}
			})(),
		).rejects.toThrow("Operation aborted");
		expect(seen).toEqual(["a.ts"]);
	});
});

describe("ordering", () => {
	it("compares by code point, segment by segment", () => {
		expect(compareNames("\uFFFD", "\u{1F600}")).toBeLessThan(0);
		expect("\uFFFD" < "\u{1F600}").toBe(false); // UTF-16 order would put them the other way
		expect(["a-c", "a/b", "a", "B"].sort(comparePaths)).toEqual(["B", "a", "a/b", "a-c"]);
	});
});
