/**
 * `npm install` on a clean clone must leave the committed lockfile as it is: npm rewrites a lockfile
 * whose content or layout (indentation, key order) differs from what it would write itself.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { repoRoot } from "../_pack.js";

const run = promisify(execFile);

it("npm install --package-lock-only leaves package-lock.json byte for byte as committed", async () => {
	const work = await mkdtemp(join(tmpdir(), "toolsmith-lockfile-"));
	try {
		const manifest = await readFile(join(repoRoot, "package.json"), "utf8");
		const lockfile = await readFile(join(repoRoot, "package-lock.json"), "utf8");
		await writeFile(join(work, "package.json"), manifest);
		await writeFile(join(work, "package-lock.json"), lockfile);
		// Workspaces are part of the lockfile: npm needs their manifests to agree with it.
		const { workspaces = [] } = JSON.parse(manifest) as { workspaces?: readonly string[] };
		for (const workspace of workspaces) {
			await mkdir(join(work, workspace), { recursive: true });
			await writeFile(
				join(work, workspace, "package.json"),
				await readFile(join(repoRoot, workspace, "package.json"), "utf8"),
			);
		}
		await run(
			"npm",
			["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"],
			{ cwd: work, timeout: 120_000 },
		);
		// Compared as text, so a layout change shows up as a diff too.
		expect(await readFile(join(work, "package-lock.json"), "utf8")).toBe(lockfile);
	} finally {
		await rm(work, { recursive: true, force: true });
	}
}, 150_000);
