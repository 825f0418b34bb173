/**
 * `npm run try-create`, the way to try the scaffolder from a checkout before it is published: run
 * as the README says, from the checkout, into a temporary folder; the project it makes passes its
 * own tests. Its refusals come before any packing.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../_pack.js";
import { sh, show } from "./_scaffold.js";

const work = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-try-create-")));
// The installed project holds thousands of files: removing them takes a while on a loaded machine.
afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000);

const tryCreate = (args: readonly string[]) => sh("npm", ["run", "--silent", "try-create", "--", ...args], repoRoot);

describe("npm run try-create", () => {
	it("makes a project from this checkout's packages whose tests pass", { timeout: 600_000 }, async () => {
		const made = await tryCreate([join(work, "my-tools"), "--yes", "--no-git"]);
		expect(made.code, show(made)).toBe(0);
		expect(made.stdout).toContain("from the 'tool' template");
		expect(made.stdout).toContain("Installed the dependencies with npm.");
		const manifest = JSON.parse(readFileSync(join(work, "my-tools", "package.json"), "utf8"));
		const spec: string = manifest.dependencies["toolsmith-sdk"];
		// The toolsmith-sdk packed from these sources, not the registry's.
		expect(spec).toMatch(/^file:.*\/node_modules\/\.cache\/toolsmith-pack\/[0-9a-f]+\/toolsmith-sdk-[^/]+\.tgz$/);
		expect(made.stderr).toContain(`the project's toolsmith-sdk is the tarball ${spec.slice("file:".length)}`);
		const tests = await sh("npm", ["test"], join(work, "my-tools"));
		expect(tests.code, show(tests)).toBe(0);
		expect(tests.stdout).toMatch(/Test Files\s+\d+ passed/);
	});

	it("passes create-toolsmith's other options on (--list)", { timeout: 300_000 }, async () => {
		const listed = await tryCreate(["--list"]);
		expect(listed.code, show(listed)).toBe(0);
		expect(listed.stdout).toMatch(/^tool\s+/m);
		expect(listed.stdout).toMatch(/^stateful\s+/m);
	});

	it.each([
		[
			"a folder inside the checkout",
			["my-tools"],
			/my-tools is inside the toolsmith checkout.*npm run try-create -- \.\.\/my-tools/,
		],
		["no folder", ["--yes"], /Name the project's folder, outside this checkout: npm run try-create -- \.\.\/my-tools/],
		["--toolsmith", ["--toolsmith", "1.0.0", "../x"], /try-create gives --toolsmith itself/],
	])("refuses %s, saying what to do, before packing anything", { timeout: 60_000 }, async (_label, args, message) => {
		const refused = await tryCreate(args);
		expect(refused.code, show(refused)).toBe(2);
		expect(refused.stderr).toMatch(message);
		expect(refused.stderr).not.toContain("packing");
	});
});
