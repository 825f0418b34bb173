/**
 * The SSH env's search fast paths (the remote host's `fd` and `rg`) against its walker
 * (`searchBinaries: false`) and against NodeExecutionEnv, on the same trees: every request gives
 * the same result through all three (ignore files, hidden names, globs, limits, context, binary
 * files, names that are not UTF-8, which send the fast path back to the walker).
 */
import { execFileSync } from "node:child_process";
import { promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { FindFilesRequest, SearchTextRequest } from "../../../src/contract/env.js";
import { findFdBinary } from "../../../src/env/_node-find.js";
import { findRgBinary } from "../../../src/env/_node-grep.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { remoteProgram } from "../../../src/env/node-ssh/run.js";
import { searchRemote } from "../../../src/env/node-ssh/search.js";
import { SshExecutionEnv } from "../../../src/env/node-ssh.js";
import { sharedSshdStart, stopSharedSshd } from "../env/_fixtures.js";

const started = await sharedSshdStart();
if (!started.sshd) console.warn(`SSH search tests skipped: ${started.reason}`);
const sshd = started.sshd;
// The remote host is this machine: its rg and fd are the ones here.
const hasFd = (await findFdBinary()) !== undefined;
const hasRg = (await findRgBinary()) !== undefined;
afterAll(stopSharedSshd);

const TREE: Record<string, string | Uint8Array> = {
	".gitignore": "ignored/\n*.log\n!keep.log\n",
	".ignore": "skip-both.txt\n",
	".fdignore": "only-find-skips.ts\n",
	".rgignore": "only-grep-skips.ts\n",
	".hidden/secret.ts": "const hello = 'hidden';\n",
	".env": "HELLO=1\n",
	"README.md": "# Hello\nhello world\nnothing here\n",
	"src/a.ts": "import x from 'y';\nexport const hello = 1;\n// HELLO again\nconst a.b = 2;\n",
	"src/b.ts": "line one\nline two\nhello three\nline four\nline five\nhello six\n",
	"src/deep/c.ts": "hello\r\nworld\r\nhello\r\n",
	"src/deep/d.js": "no match here\n",
	"src/Upper.TS": "HeLLo mixed\n",
	"ignored/x.ts": "hello ignored\n",
	"app.log": "hello log\n",
	"keep.log": "hello kept\n",
	"skip-both.txt": "hello skipped\n",
	"only-find-skips.ts": "hello find skips me\n",
	"only-grep-skips.ts": "hello grep skips me\n",
	"bin.dat": new Uint8Array([104, 101, 108, 108, 111, 0, 1, 2, 10]),
	"late-binary.txt": `${"hello text\n".repeat(3)}\u0000tail\n`,
	"sub/.gitignore": "*.tmp\n",
	"sub/x.tmp": "hello tmp\n",
	"sub/y.ts": "hello sub\n",
	"empty.txt": "",
	"no-newline.txt": "hello at the end",
	"a b/space name.ts": "hello space\n",
};

async function makeTree(extra?: (root: string) => Promise<void>): Promise<string> {
	const root = realpathSync(await fs.mkdtemp(join(tmpdir(), "toolsmith-ssh-search-")));
	await fs.mkdir(join(root, ".git"));
	await fs.writeFile(join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
	for (const [path, content] of Object.entries(TREE)) {
		await fs.mkdir(join(root, path, ".."), { recursive: true });
		await fs.writeFile(join(root, path), content);
	}
	await fs.symlink("src/a.ts", join(root, "link.ts"));
	await extra?.(root);
	return root;
}

const FINDS: Omit<FindFilesRequest, "path">[] = [
	{ pattern: "**/*.ts", limit: 100 },
	{ pattern: "**/*.ts", limit: 100, hidden: true },
	{ pattern: "*.ts", limit: 100 },
	{ pattern: "**", limit: 1000 },
	{ pattern: "**", limit: 1000, hidden: true },
	{ pattern: "src/**", limit: 100 },
	{ pattern: "**/*.{md,log}", limit: 100 },
	{ pattern: "**/*.ts", limit: 2 },
	{ pattern: "**/*.ts", limit: 1 },
	{ pattern: "*.nothing", limit: 5 },
];

const GREPS: Omit<SearchTextRequest, "path">[] = [
	{ pattern: "hello", limit: 100 },
	{ pattern: "hello", limit: 100, hidden: true },
	{ pattern: "hello", limit: 100, ignoreCase: true },
	{ pattern: "hel+o", limit: 100 },
	{ pattern: "a.b", limit: 100, literal: true },
	{ pattern: "hello", limit: 100, glob: "**/*.ts" },
	{ pattern: "hello", limit: 100, glob: "src/**" },
	{ pattern: "hello", limit: 100, context: 1 },
	{ pattern: "hello", limit: 100, context: 2, glob: "src/b.ts" },
	{ pattern: "hello", limit: 1 },
	{ pattern: "hello", limit: 3 },
	{ pattern: "hello", limit: 100, maxBytes: 60 },
	{ pattern: "hello", limit: 100, maxLineChars: 3 },
	{ pattern: "^line (one|t[wx]o)$", limit: 100 },
	{ pattern: "nothing matches this", limit: 10 },
	// Not one ripgrep reads as JavaScript does: both sides walk.
	{ pattern: "hel.o", limit: 100 },
];

describe.skipIf(!sshd)("SSH search: fast path, walker and Node env agree", () => {
	let root: string;
	let fast: SshExecutionEnv;
	let walker: SshExecutionEnv;
	let node: NodeExecutionEnv;
	beforeAll(async () => {
		root = await makeTree();
		const options = { destination: sshd?.host ?? "", configFile: sshd?.configFile ?? "", cwd: root };
		fast = new SshExecutionEnv(options);
		walker = new SshExecutionEnv({ ...options, searchBinaries: false });
		node = new NodeExecutionEnv({ cwd: root });
	});
	afterAll(async () => {
		await fast?.close();
		await walker?.close();
		await fs.rm(root, { recursive: true, force: true });
	});

	it.skipIf(!hasFd)("findFiles runs the remote fd and equals the walker and the Node env", async () => {
		const program = vi.spyOn(searchRemote, "program");
		try {
			for (const request of FINDS) {
				for (const path of [".", "src"]) {
					const full = { ...request, path };
					const viaNode = await node.findFiles(full);
					const viaWalker = await walker.findFiles(full);
					const viaFast = await fast.findFiles(full);
					expect({ request: full, result: viaFast }).toEqual({ request: full, result: viaNode });
					expect({ request: full, result: viaWalker }).toEqual({ request: full, result: viaNode });
				}
			}
			expect(program).toHaveBeenCalled();
			expect(program.mock.calls.every(([, file]) => /\/fd(find)?$/.test(file))).toBe(true);
			expect(program.mock.calls.length).toBe(FINDS.length * 2);
		} finally {
			program.mockRestore();
		}
	});

	it.skipIf(!hasRg)("searchText runs the remote rg and equals the walker and the Node env", async () => {
		const program = vi.spyOn(searchRemote, "program");
		try {
			for (const request of GREPS) {
				for (const path of [".", "src"]) {
					const full = { ...request, path };
					const viaNode = await node.searchText(full);
					const viaWalker = await walker.searchText(full);
					const viaFast = await fast.searchText(full);
					expect({ request: full, result: viaFast }).toEqual({ request: full, result: viaNode });
					expect({ request: full, result: viaWalker }).toEqual({ request: full, result: viaNode });
				}
			}
			expect(program.mock.calls.every(([, file]) => /\/rg$/.test(file))).toBe(true);
			// Every pattern but the last (`.` is read differently by ripgrep) went through rg.
			expect(program.mock.calls.length).toBeGreaterThanOrEqual((GREPS.length - 1) * 2);
		} finally {
			program.mockRestore();
		}
	});

	it("requests the walker refuses are refused the same way", async () => {
		for (const env of [fast, walker, node]) {
			const results = [
				await env.findFiles({ path: ".", pattern: "*", limit: 0 }),
				await env.findFiles({ path: "missing", pattern: "*", limit: 5 }),
				await env.findFiles({ path: "README.md", pattern: "*", limit: 5 }),
				await env.searchText({ path: ".", pattern: "(", limit: 5 }),
				await env.searchText({ path: "missing", pattern: "x", limit: 5 }),
				await env.searchText({ path: "README.md", pattern: "x", limit: 5 }),
			].map((result) => (result.ok ? "ok" : result.error.code));
			expect(results).toEqual([
				"invalid_argument",
				"not_found",
				"not_directory",
				"invalid_argument",
				"not_found",
				"not_directory",
			]);
		}
	});

	it("an aborted search is aborted", async () => {
		const controller = new AbortController();
		controller.abort();
		for (const env of [fast, walker]) {
			const found = await env.findFiles({ path: ".", pattern: "**", limit: 10 }, { signal: controller.signal });
			const searched = await env.searchText({ path: ".", pattern: "hello", limit: 10 }, { signal: controller.signal });
			expect([found.ok || found.error.code, searched.ok || searched.error.code]).toEqual(["aborted", "aborted"]);
		}
	});
});

describe.skipIf(!sshd)("SSH search: an abort while the remote program runs", () => {
	it.skipIf(!hasRg)("settles at once as aborted and kills the program on the remote host", async () => {
		const root = await makeTree();
		const env = new SshExecutionEnv({ destination: sshd?.host ?? "", configFile: sshd?.configFile ?? "", cwd: root });
		// rg stands in for a long one: a program that runs until it is killed.
		const marker = `sleep ${30 + Math.floor(Math.random() * 1000) / 1000}`;
		const running = () => execFileSync("ps", ["-eo", "args"], { encoding: "utf8" }).split("\n").includes(marker);
		const listArgs = vi.fn();
		const program = vi.spyOn(searchRemote, "program").mockImplementation((connection) => {
			const sh = remoteProgram(connection, "/bin/sh");
			return {
				name: sh.name,
				list: (args, options, onPath) => {
					listArgs(args);
					return sh.list(["-c", `exec ${marker}`], options, onPath);
				},
			};
		});
		try {
			const controller = new AbortController();
			const pending = env.searchText({ path: ".", pattern: "hello", limit: 10 }, { signal: controller.signal });
			const deadline = Date.now() + 10_000;
			while (!running() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
			expect(running()).toBe(true);
			const abortedAt = performance.now();
			controller.abort();
			const result = await pending;
			expect(performance.now() - abortedAt).toBeLessThan(500);
			expect(result.ok || result.error.code).toBe("aborted");
			expect(listArgs).toHaveBeenCalledOnce();
			while (running() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
			expect(running()).toBe(false);
		} finally {
			program.mockRestore();
			await env.close();
			await fs.rm(root, { recursive: true, force: true });
		}
	});
});

describe.skipIf(!sshd)("SSH search: names that are not valid UTF-8", () => {
	let root: string;
	beforeAll(async () => {
		root = await makeTree(async (dir) => {
			const bad = Buffer.concat([Buffer.from(`${dir}/bad`), Buffer.from([0xff])]);
			await fs.mkdir(bad);
			await fs.writeFile(Buffer.concat([bad, Buffer.from("/f.ts")]), "hello\n");
			await fs.writeFile(
				Buffer.concat([Buffer.from(`${dir}/file`), Buffer.from([0xfe]), Buffer.from(".ts")]),
				"hello\n",
			);
		});
	});
	afterAll(() => fs.rm(root, { recursive: true, force: true }));

	it("send the fast path back to the walker: the same result, the names counted", async () => {
		const options = { destination: sshd?.host ?? "", configFile: sshd?.configFile ?? "", cwd: root };
		const fast = new SshExecutionEnv(options);
		const walker = new SshExecutionEnv({ ...options, searchBinaries: false });
		const node = new NodeExecutionEnv({ cwd: root });
		const program = vi.spyOn(searchRemote, "program");
		try {
			const find = { path: ".", pattern: "**/*.ts", limit: 100 };
			const grep = { path: ".", pattern: "hello", limit: 100 };
			const viaNode = [await node.findFiles(find), await node.searchText(grep)];
			expect(viaNode.map((result) => result.ok && result.value.skippedNames)).toEqual([2, 2]);
			expect([await walker.findFiles(find), await walker.searchText(grep)]).toEqual(viaNode);
			expect([await fast.findFiles(find), await fast.searchText(grep)]).toEqual(viaNode);
			expect(program).toHaveBeenCalledTimes((hasFd ? 1 : 0) + (hasRg ? 1 : 0));
		} finally {
			program.mockRestore();
			await fast.close();
			await walker.close();
		}
	});
});

describe.skipIf(!sshd)("SSH search: a dropped connection", () => {
	// After a drop the idle helpers' sessions may not have noticed yet: the first one to fail
	// ends the others, so only the search in flight can fail.
	it("fails the search in flight or not at all, and the next search works", async () => {
		const root = await makeTree();
		const env = new SshExecutionEnv({ destination: sshd?.host ?? "", configFile: sshd?.configFile ?? "", cwd: root });
		try {
			const request = { path: ".", pattern: "hello", limit: 100 };
			const before = await env.searchText(request);
			expect(before.ok).toBe(true);
			sshd?.dropConnections();
			const during = await env.searchText(request);
			if (!during.ok) {
				expect(during.error.code).toBe("io_error");
				expect(during.error.osCode).toBe("ECONNRESET");
			} else expect(during).toEqual(before);
			expect(await env.searchText(request)).toEqual(before);
		} finally {
			await env.close();
			await fs.rm(root, { recursive: true, force: true });
		}
	});
});
