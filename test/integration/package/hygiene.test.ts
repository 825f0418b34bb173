/**
 * What the repository tracks: sources, fixtures and their tiny dependencies, never a cache a tool
 * writes while the tests run (jiti writes one into the fixture extensions' node_modules).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { repoRoot } from "../_pack.js";

const run = promisify(execFile);
const git = async (...args: string[]) => (await run("git", args, { cwd: repoRoot })).stdout;
const inGit = await git("rev-parse", "--is-inside-work-tree").then(
	() => true,
	() => false,
);

it.skipIf(!inGit)("tracks no cache folder", async () => {
	const tracked = (await git("ls-files", "-z")).split("\0").filter(Boolean);
	expect(tracked.length).toBeGreaterThan(100);
	expect(tracked.filter((path) => /(^|\/)\.cache\//.test(path))).toEqual([]);
});

it.skipIf(!inGit)(
	"ignores the caches jiti writes under the fixtures, but not the fixtures' own dependencies",
	async () => {
		const cache = "test/fixtures/extensions/own-deps/node_modules/.cache/jiti/own-deps-index.cjs";
		expect((await git("check-ignore", cache)).trim()).toBe(cache);
		const dependency = (await git("ls-files", "test/fixtures/extensions/own-deps/node_modules")).trim();
		expect(dependency).not.toBe("");
	},
);
