/**
 * The Node env's search reader on worker threads: a file comes back only when it may hold a
 * match, every other file (binary, without a match, a FIFO, a symlink, a folder, missing) as
 * undefined at once; reads held by a worker that stops are done on the main thread; and an idle
 * pool never keeps the process alive.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopSearchWorkers, workerSearchReader } from "../../../src/env/_node-search-workers.js";
import { compileSearchPattern, fileFilter, type LargeSearchFile } from "../../../src/env/grep.js";

describe("workerSearchReader", () => {
	let root: string;
	beforeAll(() => {
		root = mkdtempSync(join(tmpdir(), "toolsmith-search-workers-"));
		writeFileSync(join(root, "hit.txt"), "one\nneedle here\n");
		writeFileSync(join(root, "miss.txt"), "nothing\n");
		writeFileSync(join(root, "binary.txt"), Buffer.from("needle\n\0"));
		writeFileSync(join(root, "big.txt"), `${"x".repeat(300_000)}\nneedle\n`);
		writeFileSync(join(root, "empty.txt"), "");
		execFileSync("mkfifo", [join(root, "fifo")]);
		symlinkSync("hit.txt", join(root, "link.txt"));
		mkdirSync(join(root, "dir"));
	});
	afterAll(() => rmSync(root, { recursive: true, force: true }));

	const needleReader = () => {
		const pattern = compileSearchPattern("needle", false, false);
		return workerSearchReader(pattern, fileFilter(pattern));
	};
	const text = (bytes: Uint8Array | LargeSearchFile | undefined) =>
		bytes instanceof Uint8Array ? new TextDecoder().decode(bytes) : bytes === undefined ? undefined : "(large)";

	it("gives back only the files that may match; the rest at once as undefined", async () => {
		const reader = needleReader();
		const started = Date.now();
		const names = ["hit.txt", "miss.txt", "binary.txt", "big.txt", "empty.txt", "fifo", "link.txt", "dir", "missing"];
		const got = await Promise.all(names.map((name) => reader.read(join(root, name))));
		expect(Date.now() - started).toBeLessThan(2000);
		expect(Object.fromEntries(names.map((name, i) => [name, text(got[i])?.length]))).toEqual({
			"hit.txt": 16,
			"miss.txt": undefined,
			"binary.txt": undefined,
			"big.txt": 7,
			"empty.txt": undefined,
			fifo: undefined,
			"link.txt": undefined,
			dir: undefined,
			missing: undefined,
		});
		expect(text(got[0])).toBe("one\nneedle here\n");
	});

	it("without a filter, gives back every readable text file", async () => {
		const reader = workerSearchReader(compileSearchPattern("x", false, false), undefined);
		const got = await Promise.all(["miss.txt", "empty.txt", "binary.txt"].map((name) => reader.read(join(root, name))));
		expect(got.map(text)).toEqual(["nothing\n", "", undefined]);
	});

	it("reads on the main thread what stopped workers held", async () => {
		const reader = needleReader();
		const reads = Array.from({ length: 600 }, (_, i) => reader.read(join(root, i % 2 ? "hit.txt" : "miss.txt")));
		await new Promise((resolve) => setImmediate(resolve));
		await stopSearchWorkers();
		const got = await Promise.all(reads);
		// Read on the main thread, a file comes back whole, match or not; nothing is lost.
		got.forEach((bytes, i) => {
			if (i % 2) expect(text(bytes)).toBe("one\nneedle here\n");
			else expect([undefined, "nothing\n"]).toContain(text(bytes));
		});
		// And the next search starts new workers.
		expect(
			text(await workerSearchReader(compileSearchPattern("x", false, false), undefined).read(join(root, "hit.txt"))),
		).toBe("one\nneedle here\n");
	});

	it("an idle pool does not keep the process alive after a search", () => {
		const jiti = fileURLToPath(new URL("../../../node_modules/jiti/lib/jiti-cli.mjs", import.meta.url));
		const script = join(mkdtempSync(join(tmpdir(), "toolsmith-search-script-")), "search.ts");
		const env = fileURLToPath(new URL("../../../src/env/node.ts", import.meta.url));
		writeFileSync(
			script,
			`import { NodeExecutionEnv } from ${JSON.stringify(env)};
const env = new NodeExecutionEnv({ cwd: ${JSON.stringify(root)}, searchBinaries: false });
const found = await env.searchText({ path: ".", pattern: "needle", limit: 10 });
console.log(found.ok && found.value.matches.map((m) => m.path).join(","));
`,
		);
		const run = spawnSync(process.execPath, [jiti, script], { encoding: "utf8", timeout: 30_000 });
		expect(run.stdout.trim()).toBe("big.txt,hit.txt");
		expect(run.status).toBe(0);
		rmSync(join(script, ".."), { recursive: true, force: true });
	});
});
