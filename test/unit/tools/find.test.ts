import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { ExecutionEnv } from "../../../src/contract/env.js";
import { findFdBinary } from "../../../src/env/_node-find.js";
import { compileGlob } from "../../../src/env/glob.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { createFindTool, type FindToolDetails } from "../../../src/tools/find.js";
import { allToolEnvs, contextFor, type FixtureFiles, stopToolEnvs, type ToolFixture, textOf } from "./_env.js";

const envs = await allToolEnvs();
afterAll(stopToolEnvs);

const find = createFindTool();

describe.each(envs)("find on %s", (_name, make) => {
	let fx: ToolFixture;
	const setup = async (spec: FixtureFiles = {}) => {
		fx = await make(spec);
		return fx;
	};
	afterEach(async () => fx?.cleanup());
	const call = (args: { pattern: string; path?: string; limit?: number }, signal?: AbortSignal) =>
		find.execute("id", args, signal, undefined, fx.ctx);

	const tree: FixtureFiles = {
		files: {
			".git/HEAD": "ref\n",
			".gitignore": "dist/\n*.log\n",
			".env.ts": "",
			"src/a.ts": "",
			"src/a.test.ts": "",
			"src/deep/b.ts": "",
			"src/.ignore": "skip.ts\n",
			"src/skip.ts": "",
			"lib/src/c.ts": "",
			"dist/out.ts": "",
			"x.log": "",
			"README.md": "",
		},
		symlinks: { "link.ts": "src/a.ts" },
	};

	it("matches base names without '/', paths with it, in order, relative to the search folder", async () => {
		await setup(tree);
		expect(textOf(await call({ pattern: "*.ts" }))).toBe(
			[".env.ts", "lib/src/c.ts", "link.ts", "src/a.test.ts", "src/a.ts", "src/deep/b.ts"].join("\n"),
		);
		expect(textOf(await call({ pattern: "src/*.ts" }))).toBe(["lib/src/c.ts", "src/a.test.ts", "src/a.ts"].join("\n"));
		expect(textOf(await call({ pattern: "/src/**/*.ts" }))).toBe(
			["src/a.test.ts", "src/a.ts", "src/deep/b.ts"].join("\n"),
		);
		expect(textOf(await call({ pattern: "*.{md,log}" }))).toBe("README.md");
		expect(textOf(await call({ pattern: "*.ts", path: "src" }))).toBe(["a.test.ts", "a.ts", "deep/b.ts"].join("\n"));
		expect(textOf(await call({ pattern: "*.ts", path: "@src/deep" }))).toBe("b.ts");
		const none = await call({ pattern: "*.rs" });
		expect(textOf(none)).toBe("No files found matching pattern");
		expect(none.details).toBeUndefined();
	});

	it("says when the limit cut the list, only when more matched, and how to continue", async () => {
		await setup(tree);
		const cut = await call({ pattern: "*.ts", limit: 2 });
		expect(textOf(cut)).toBe(
			".env.ts\nlib/src/c.ts\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]",
		);
		expect(cut.details as FindToolDetails).toEqual({ resultLimitReached: 2 });
		const exact = await call({ pattern: "*.ts", limit: 6 });
		expect(textOf(exact).split("\n")).toHaveLength(6);
		expect(exact.details).toBeUndefined();
	});

	it("keeps the output to the byte budget and says so", async () => {
		const files: Record<string, string> = {};
		for (let i = 0; i < 600; i++) files[`${"d".repeat(90)}/${String(i).padStart(4, "0")}.txt`] = "";
		await setup({ files });
		const result = await call({ pattern: "*.txt" });
		const text = textOf(result);
		expect(text.endsWith("\n\n[50.0KB limit reached]")).toBe(true);
		const details = result.details as FindToolDetails;
		expect(details.truncation?.truncated).toBe(true);
		expect(details.resultLimitReached).toBeUndefined();
		expect(new TextEncoder().encode(text.slice(0, text.indexOf("\n\n["))).length).toBeLessThanOrEqual(50 * 1024);
	});

	it("refuses a missing folder, a file, a malformed pattern and a bad limit by name", async () => {
		await setup(tree);
		await expect(call({ pattern: "*", path: "nope" })).rejects.toThrow(`Path not found: ${fx.path("nope")}`);
		await expect(call({ pattern: "*", path: "README.md" })).rejects.toThrow(/README\.md.*find searches a folder/);
		await expect(call({ pattern: "[ab" })).rejects.toThrow(/Invalid glob pattern "\[ab": a \[ is not closed/);
		await expect(call({ pattern: "" })).rejects.toThrow(/Invalid glob pattern: it is empty/);
		await expect(call({ pattern: "*", limit: 0 })).rejects.toThrow(
			"Invalid limit 0: pass a whole number of at least 1",
		);
		const controller = new AbortController();
		controller.abort();
		await expect(call({ pattern: "*" }, controller.signal)).rejects.toThrow("Operation aborted");
	});

	it("gives the same output through an env without findFiles (the walker over its file methods)", async () => {
		await setup(tree);
		const bare = new Proxy(fx.env, {
			get(target, key) {
				if (key === "findFiles") return undefined;
				const value = Reflect.get(target, key, target);
				return typeof value === "function" ? value.bind(target) : value;
			},
		}) as ExecutionEnv;
		for (const pattern of ["*.ts", "src/**", "*"]) {
			const viaEnv = await call({ pattern });
			const viaWalk = await find.execute("id", { pattern }, undefined, undefined, contextFor(bare));
			expect(textOf(viaWalk)).toBe(textOf(viaEnv));
		}
	});
});

describe("compileGlob", () => {
	it("implements *, ?, **, classes, braces and escapes", () => {
		const m = (pattern: string, path: string) => compileGlob(pattern).matches(path);
		expect(m("*.ts", "a/b/c.ts")).toBe(true);
		expect(m("*.ts", "a/b/c.tsx")).toBe(false);
		expect(m("?.ts", "ab.ts")).toBe(false);
		expect(m("[!a]b", "cb")).toBe(true);
		expect(m("[!a]b", "ab")).toBe(false);
		expect(m("[a-c]x", "bx")).toBe(true);
		expect(m("a/**/b", "a/b")).toBe(true);
		expect(m("a/**/b", "x/a/y/z/b")).toBe(true);
		expect(m("/a/**/b", "x/a/b")).toBe(false);
		expect(m("a/*", "a/b/c")).toBe(false);
		expect(m("{src,lib}/*.ts", "lib/x.ts")).toBe(true);
		expect(m("\\*", "*")).toBe(true);
		expect(m("\\*", "x")).toBe(false);
		expect(m("*", ".hidden")).toBe(true);
		expect(m("ü*", "dir/über")).toBe(true);
	});
});

// ---------------------------------------------------------------- fd against the walker

function rng(seed: number): () => number {
	let s = seed >>> 0;
	return () => {
		s = (s * 1664525 + 1013904223) >>> 0;
		return s / 2 ** 32;
	};
}

const NAMES = [
	"a.ts",
	"b.js",
	"c.test.ts",
	".hidden.ts",
	"ü.ts",
	"日本.md",
	"\u{1F600}.ts",
	"\uFFFD.txt",
	"Z.TS",
	"x y.ts",
	"a-b.ts",
];
const DIRS = ["", "src", "src/deep", "lib", ".cache", "node_modules/pkg", "docs/ü", "a-b", "a"];
const RULES = ["*.js", "!b.js", "deep/", "/lib", "*.md", "node_modules/", "!keep.ts", "x*", "**/pkg/**", "ü.ts"];
const PATTERNS = ["*", "*.ts", "**/*.ts", "src/**", "/src/*.ts", "*.{md,txt}", "[a-c]*", "deep/*", "**", "?.ts"];

async function generate(root: string, seed: number, repo: boolean): Promise<void> {
	const random = rng(seed);
	if (repo) await fs.mkdir(join(root, ".git"), { recursive: true });
	for (const dir of DIRS) {
		await fs.mkdir(join(root, dir), { recursive: true });
		for (const name of NAMES) if (random() < 0.55) await fs.writeFile(join(root, dir, name), "x");
		if (random() < 0.5) {
			const lines = RULES.filter(() => random() < 0.3);
			await fs.writeFile(join(root, dir, random() < 0.7 ? ".gitignore" : ".ignore"), `${lines.join("\n")}\n`);
		}
	}
	if (random() < 0.5) await fs.writeFile(join(root, ".fdignore"), "*.txt\n");
	await fs.symlink("src", join(root, "src-link"));
	await fs.symlink("../..", join(root, "src/deep/up"));
	await fs.symlink("missing", join(root, "dangling.ts"));
	await fs.symlink("a.ts", join(root, "lib/link.ts"));
}

const fdAvailable = (await findFdBinary()) !== undefined;

describe.skipIf(!fdAvailable)("find: the fd fast path and the walker give the same output", () => {
	const temps: string[] = [];
	afterEach(async () => {
		for (const dir of temps.splice(0)) await fs.rm(dir, { recursive: true, force: true });
	});

	for (const seed of [11, 12, 13, 14]) {
		it(`generated tree ${seed}`, async () => {
			const base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-find-")));
			temps.push(base);
			const root = join(base, "tree");
			await generate(root, seed, seed % 2 === 1);
			const fast = new NodeExecutionEnv({ cwd: root });
			const slow = new NodeExecutionEnv({ cwd: root, searchBinaries: false });
			let compared = 0;
			for (const pattern of PATTERNS)
				for (const limit of [1000, 3]) {
					const a = await find.execute("id", { pattern, limit }, undefined, undefined, contextFor(fast));
					const b = await find.execute("id", { pattern, limit }, undefined, undefined, contextFor(slow));
					expect(textOf(a), `${pattern} limit ${limit}`).toBe(textOf(b));
					expect(a.details).toEqual(b.details);
					if (textOf(a) !== "No files found matching pattern") compared++;
				}
			expect(compared).toBeGreaterThan(10);
		});
	}
});

describe("find on a memory env holding the same files as a disk tree", () => {
	it("lists what the Node env lists", async () => {
		const base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "toolsmith-find-")));
		try {
			const root = join(base, "tree");
			await generate(root, 21, true);
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
			for (const pattern of PATTERNS) {
				const a = await find.execute("id", { pattern }, undefined, undefined, contextFor(node));
				const b = await find.execute("id", { pattern }, undefined, undefined, contextFor(memory));
				expect(textOf(b), pattern).toBe(textOf(a));
			}
		} finally {
			await fs.rm(base, { recursive: true, force: true });
		}
	});
});
