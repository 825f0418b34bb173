/**
 * The compat factories honor the reference's `LsOperations`, `FindOperations` and
 * `GrepOperations`: a pi extension that points ls, find and grep at another world (a fake remote:
 * a second folder) has them act there. Grep's operations cannot list a folder, so (as the
 * reference, which runs rg on the local disk) folders are listed locally and every file is read
 * through `operations.readFile`; the extension is told so once. Where the benchmark peers are
 * installed, the same operations handed to the reference's own factories give the same texts.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { type LoadExtensionsResult, loadExtensions } from "../../../src/extensions/node-loader.js";
import { importPeer } from "../../bench/_peer.js";
import { runTool } from "./_run-tool.js";

/** Operations over the folder `remote`, for paths named under `local`; every call is counted. */
const opsModule = `
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export function makeOps(local, remote, { someRelative = true } = {}) {
	const calls = [];
	const there = (p) => remote + p.slice(local.length);
	const walk = (dir, out) => {
		for (const name of readdirSync(dir).sort()) {
			const full = join(dir, name);
			if (name === "node_modules" || name === ".git") continue;
			if (statSync(full).isDirectory()) walk(full, out);
			else out.push(full);
		}
		return out;
	};
	const toRegex = (glob) => new RegExp("^" + glob.replace(/[.+^$()|[\\]\\\\]/g, "\\\\$&").replace(/\\*/g, "[^/]*").replace(/\\?/g, "[^/]") + "$");
	return {
		calls,
		ls: {
			exists: (p) => (calls.push("ls.exists"), existsSync(there(p))),
			stat: (p) => (calls.push("ls.stat"), statSync(there(p))),
			readdir: (p) => (calls.push("ls.readdir"), readdirSync(there(p))),
		},
		find: {
			exists: (p) => (calls.push("find.exists"), existsSync(there(p))),
			glob: (pattern, cwd, { limit }) => {
				calls.push("find.glob");
				const matches = walk(there(cwd), []).filter((f) => toRegex(pattern).test(f.slice(f.lastIndexOf("/") + 1)));
				// Half as paths relative to cwd, half as absolute paths in the caller's namespace.
				return matches
					.slice(0, limit)
					.map((f, i) => (someRelative && i % 2 ? relative(there(cwd), f) : cwd + f.slice(there(cwd).length)));
			},
		},
		grep: {
			isDirectory: (p) => (calls.push("grep.isDirectory"), statSync(there(p)).isDirectory()),
			readFile: (p) => (calls.push("grep.readFile"), readFileSync(there(p), "utf8")),
		},
	};
}
`;

const extension = `
import { createFindTool, createGrepTool, createLsTool } from "@mariozechner/pi-coding-agent";
import { makeOps } from "./ops.mjs";

export default function (pi) {
	const ops = makeOps(process.env.OPS_LOCAL, process.env.OPS_REMOTE);
	globalThis.__searchOpsCalls = ops.calls;
	const local = process.env.OPS_LOCAL;
	pi.registerTool({ ...createLsTool(local, { operations: ops.ls }), name: "remote_ls" });
	pi.registerTool({ ...createFindTool(local, { operations: ops.find }), name: "remote_find" });
	pi.registerTool({ ...createGrepTool(local, { operations: ops.grep }), name: "remote_grep" });
}
`;

interface Ops {
	calls: string[];
	ls: object;
	find: object;
	grep: object;
}

function tree(root: string, files: Record<string, string>): void {
	for (const [path, content] of Object.entries(files)) {
		mkdirSync(join(root, path, ".."), { recursive: true });
		writeFileSync(join(root, path), content);
	}
}

describe("compat ls, find and grep honor operations", () => {
	let root: string;
	let local: string;
	let remote: string;
	let loaded: LoadExtensionsResult;
	const saved = { ...process.env };

	beforeAll(async () => {
		root = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-search-ops-")));
		local = join(root, "local");
		remote = join(root, "remote");
		// The same names on both sides (grep lists locally), different contents and extra entries.
		tree(local, { "a.txt": "local needle\n", "sub/b.txt": "local needle too\n", "local-only.md": "x\n" });
		tree(remote, {
			"a.txt": "remote needle\n",
			"sub/b.txt": "before\nremote needle too\nafter\n",
			"remote-only.txt": "no match\n",
			"node_modules/dep/x.txt": "remote needle in a dependency\n",
			"Zeta/c.txt": "c\n",
		});
		writeFileSync(join(root, "ops.mjs"), opsModule);
		writeFileSync(join(root, "ext.mjs"), extension);
		process.env.OPS_LOCAL = local;
		process.env.OPS_REMOTE = remote;
		loaded = await loadExtensions([join(root, "ext.mjs")], { cwd: local, env: new NodeExecutionEnv({ cwd: local }) });
	});

	afterAll(() => {
		for (const key of ["OPS_LOCAL", "OPS_REMOTE"]) if (saved[key] === undefined) delete process.env[key];
		rmSync(root, { recursive: true, force: true });
	});

	const run = (name: string, args: unknown) => runTool(loaded, name, args);
	const calls = () => (globalThis as { __searchOpsCalls?: string[] }).__searchOpsCalls ?? [];

	it("loads, telling the extension once that grep lists folders locally", () => {
		expect(loaded.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
		const notes = loaded.diagnostics.filter((d) => d.code === "W_UNSUPPORTED_API");
		expect(notes).toHaveLength(1);
		expect(notes[0]?.message).toContain("createGrepTool");
		expect(notes[0]?.message).toContain("local disk");
		expect(notes[0]?.path).toBe(join(root, "ext.mjs"));
	});

	it("ls lists the remote folder through exists, stat and readdir", async () => {
		const result = await run("remote_ls", {});
		expect(result).toEqual({ isError: false, text: "a.txt\nnode_modules/\nremote-only.txt\nsub/\nZeta/" });
		expect(calls()).toEqual(expect.arrayContaining(["ls.exists", "ls.stat", "ls.readdir"]));
		expect(await run("remote_ls", { path: "sub" })).toEqual({ isError: false, text: "b.txt" });
		expect(await run("remote_ls", { path: "local-only.md" })).toMatchObject({
			isError: true,
			text: `Path not found: ${join(local, "local-only.md")}`,
		});
	});

	it("find asks the operations' glob (node_modules and .git left out), paths relative and sorted", async () => {
		const result = await run("remote_find", { pattern: "*.txt" });
		expect(result).toEqual({ isError: false, text: "Zeta/c.txt\na.txt\nremote-only.txt\nsub/b.txt" });
		expect(calls()).toContain("find.glob");
		const limited = await run("remote_find", { pattern: "*.txt", limit: 2 });
		expect(limited.text).toBe(
			"Zeta/c.txt\na.txt\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]",
		);
		expect(await run("remote_find", { pattern: "*.md" })).toEqual({
			isError: false,
			text: "No files found matching pattern",
		});
	});

	it("find given operations without glob is not created (the reference would run fd locally)", async () => {
		const path = join(root, "exists-only-find.mjs");
		writeFileSync(
			path,
			`import { createFindTool } from "@mariozechner/pi-coding-agent";
export default function (pi) {
	pi.registerTool({ ...createFindTool(process.cwd(), { operations: { exists: () => true } }), name: "exists_only_find" });
}
`,
		);
		const other = await loadExtensions([path], { cwd: local, env: new NodeExecutionEnv({ cwd: local }) });
		const failed = other.diagnostics.find((d) => d.code === "E_FACTORY_FAILED");
		expect(failed?.path).toBe(path);
		expect(failed?.message).toContain("without `glob`");
		expect(other.registry.infos().some((info) => info.name === "exists_only_find")).toBe(false);
	});

	it("grep lists locally and reads every file through operations.readFile", async () => {
		const result = await run("remote_grep", { pattern: "needle" });
		expect(result).toEqual({ isError: false, text: "a.txt:1: remote needle\nsub/b.txt:2: remote needle too" });
		const context = await run("remote_grep", { pattern: "too", path: "sub/b.txt", context: 1 });
		expect(context).toEqual({
			isError: false,
			text: "b.txt-1- before\nb.txt:2: remote needle too\nb.txt-3- after",
		});
		expect(calls()).toEqual(expect.arrayContaining(["grep.isDirectory", "grep.readFile"]));
	});
});

const peersRequired = process.env.TOOLSMITH_REQUIRE_PEERS === "1";

/** The texts the reference's own factories give for the same operations over one folder. */
describe("the same operations in the reference's factories give the same texts", () => {
	interface PeerTool {
		execute(id: string, params: object): Promise<{ content: { type: string; text?: string }[] }>;
	}
	interface PeerTools {
		createLsTool(cwd: string, options: object): PeerTool;
		createFindTool(cwd: string, options: object): PeerTool;
		createGrepTool(cwd: string, options: object): PeerTool;
	}
	let peer: PeerTools | undefined;
	let root: string;
	let folder: string;
	let ops: Ops;
	const saved = { ...process.env };

	beforeAll(async () => {
		root = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-search-ops-peer-")));
		folder = join(root, "w");
		tree(folder, {
			"long.txt": `${"word ".repeat(150)}needle at the end\n`,
			"many.txt": Array.from({ length: 300 }, (_, i) => `line ${i} needle ${"x".repeat(300)}`).join("\n"),
			"empty/.keep": "",
			"README.md": "# needle\n",
			"src/a.ts": "const needle = 1;\nother\n",
			"src/deep/b.ts": "x\nneedle()\ny\n",
			".hidden/c.ts": "needle\n",
			"Upper.ts": "z\n",
		});
		writeFileSync(join(root, "ops.mjs"), opsModule);
		// Absolute paths only: the reference resolves a relative one against the process's cwd.
		const module = (await import(pathToFileURL(join(root, "ops.mjs")).href)) as {
			makeOps(l: string, r: string, o: { someRelative: boolean }): Ops;
		};
		ops = module.makeOps(folder, folder, { someRelative: false });
		process.env.PI_OFFLINE = "1";
		process.env.PI_CODING_AGENT_DIR = join(root, "agent");
		try {
			peer = await importPeer<PeerTools>("@mariozechner/pi-coding-agent", "dist/core/tools/index.js");
		} catch {
			peer = undefined;
		}
	});

	afterAll(() => {
		for (const key of ["PI_OFFLINE", "PI_CODING_AGENT_DIR"]) if (saved[key] === undefined) delete process.env[key];
		rmSync(root, { recursive: true, force: true });
	});

	const text = (result: { content: { type: string; text?: string }[] }) =>
		result.content.map((block) => block.text ?? "").join("");

	/**
	 * How a case is compared: `exact`; `unordered` (the reference's grep prints rg's matches in the
	 * order rg's threads find them, toolsmith sorts by path); `notice` (only the limit notice: which
	 * match the reference shows first varies from run to run).
	 */
	type Compare = "exact" | "unordered" | "notice";
	const cases: [tool: "ls" | "find" | "grep", params: object, compare: Compare][] = [
		["ls", {}, "exact"],
		["ls", { path: "src" }, "exact"],
		["ls", { limit: 2 }, "exact"],
		["find", { pattern: "*.ts" }, "exact"],
		["find", { pattern: "*.ts", limit: 2 }, "exact"],
		["find", { pattern: "*.none" }, "exact"],
		["grep", { pattern: "needle", path: "src" }, "unordered"],
		["grep", { pattern: "needle", glob: "*.{md,ts}" }, "unordered"],
		["grep", { pattern: "needle", path: "src", limit: 1 }, "notice"],
		["grep", { pattern: "needle", path: "src/deep/b.ts" }, "exact"],
		["grep", { pattern: "needle", path: "src/deep/b.ts", context: 1 }, "exact"],
		["grep", { pattern: "NEEDLE", ignoreCase: true, glob: "*.ts" }, "unordered"],
		["grep", { pattern: "needle at", path: "long.txt" }, "exact"],
		["grep", { pattern: "needle", path: "many.txt" }, "exact"],
		["grep", { pattern: "needle", path: "many.txt", limit: 500 }, "exact"],
		["grep", { pattern: "needle", path: "many.txt", context: 2, limit: 3 }, "exact"],
		["grep", { pattern: "a.b|[x]", literal: true, path: "README.md" }, "exact"],
		["grep", { pattern: "absent" }, "exact"],
		["ls", { path: "empty" }, "exact"],
		["ls", { path: "nope" }, "exact"],
		["ls", { path: "README.md" }, "exact"],
		["find", { pattern: "*.md" }, "exact"],
		["find", { pattern: "*", path: "nope" }, "exact"],
	];
	for (const [tool, params, compare] of cases) {
		it(`${tool} ${JSON.stringify(params)}`, async (context) => {
			if (!peer) {
				if (peersRequired)
					expect.fail("the reference package is not installed in test/bench/peers; run `npm run bench:setup`");
				return context.skip("the benchmark peers are not installed (npm run bench:setup)");
			}
			const compat = await import("../../../src/extensions/node-compat/pi-coding-agent.js");
			const make = { ls: "createLsTool", find: "createFindTool", grep: "createGrepTool" } as const;
			const options = { operations: ops[tool] };
			// A tool that fails throws; its message is what the model reads.
			const outcome = async (run: () => Promise<{ content: { type: string; text?: string }[] }>) => {
				try {
					return text(await run());
				} catch (error) {
					return `error: ${(error as Error).message}`;
				}
			};
			let theirs = await outcome(() => (peer as PeerTools)[make[tool]](folder, options).execute("peer", params));
			const ours = await outcome(() => compat[make[tool]](folder, options).execute("ours", params as never));
			// The one deliberate difference: toolsmith's find says how to see more, whatever gave the paths.
			theirs = theirs.replace(
				/\[(\d+) results limit reached\]$/,
				(_, n) => `[${n} results limit reached. Use limit=${2 * Number(n)} for more, or refine pattern]`,
			);
			if (compare === "exact") expect(ours).toBe(theirs);
			else if (compare === "unordered") expect(ours.split("\n").sort()).toEqual(theirs.split("\n").sort());
			else expect(ours.slice(ours.lastIndexOf("\n"))).toBe(theirs.slice(theirs.lastIndexOf("\n")));
		});
	}
});
