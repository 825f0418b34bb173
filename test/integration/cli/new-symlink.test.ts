/**
 * `toolsmith new` (a real child process, real files in a temp folder) never writes through a
 * symbolic link to outside the project: a linked src/tools/index.ts, a linked src/tools folder and a
 * linked test folder are each refused with exit code 1 and a message naming the link, and nothing
 * is written, inside the project or out.
 */
import {
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	realpathSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./_run.js";

const scratch = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-new-symlink-")));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every file and link under `dir`, relative, with the content of the files. */
function snapshot(dir: string): Record<string, string> {
	const out: Record<string, string> = {};
	for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
		const path = join(entry.parentPath, entry.name);
		const key = relative(dir, path);
		if (entry.isSymbolicLink()) out[key] = "(link)";
		else if (entry.isFile()) out[key] = readFileSync(path, "utf8");
		else out[key] = "(folder)";
	}
	return out;
}

/** A project whose `link` (relative) is a symbolic link to a folder or file outside it. */
function setUp(name: string, link: string, kind: "file" | "folder") {
	const project = join(scratch, name, "project");
	const outside = join(scratch, name, "outside");
	mkdirSync(join(project, "src/tools"), { recursive: true });
	mkdirSync(outside, { recursive: true });
	writeFileSync(join(project, "package.json"), '{ "name": "project" }\n');
	writeFileSync(join(outside, "index.ts"), "// not the project's\n");
	if (kind === "file") {
		symlinkSync(join(outside, "index.ts"), join(project, link));
	} else {
		rmSync(join(project, link), { recursive: true, force: true });
		if (link === "test") writeFileSync(join(project, "src/tools/index.ts"), "");
		symlinkSync(outside, join(project, link));
	}
	return { project, outside, before: { project: snapshot(project), outside: snapshot(outside) } };
}

describe("toolsmith new and symbolic links", () => {
	it.each([
		["a linked src/tools/index.ts", "src/tools/index.ts", "file", "file"],
		["a linked src/tools folder", "src/tools", "folder", "folder"],
		["a linked test folder", "test", "folder", "folder"],
	] as const)(
		"refuses %s, writing nothing",
		async (_what, link, kind, replace) => {
			const { project, outside, before } = setUp(link.replaceAll("/", "-"), link, kind);
			const run = await runCli(["new", "fetch_issue"], { cwd: project });
			expect(run.code).toBe(1);
			expect(run.stdout).toBe("");
			expect(run.stderr).toContain(`toolsmith new: ${join(project, link)} is a symbolic link to ${outside}`);
			expect(run.stderr).toContain(`outside the project ${project}`);
			expect(run.stderr).toContain(`nothing was written. Replace the link with a real ${replace}`);
			expect(snapshot(project)).toEqual(before.project);
			expect(snapshot(outside)).toEqual(before.outside);
		},
		30_000,
	);

	it("still writes through a link that stays inside the project", async () => {
		const project = join(scratch, "inside", "project");
		mkdirSync(join(project, "lib/tools"), { recursive: true });
		mkdirSync(join(project, "src"), { recursive: true });
		writeFileSync(join(project, "package.json"), '{ "name": "project" }\n');
		writeFileSync(join(project, "lib/tools/index.ts"), "");
		symlinkSync(join(project, "lib/tools"), join(project, "src/tools"));
		const run = await runCli(["new", "fetch_issue"], { cwd: project });
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(readFileSync(join(project, "lib/tools/index.ts"), "utf8")).toContain("fetch-issue");
	}, 30_000);
});
