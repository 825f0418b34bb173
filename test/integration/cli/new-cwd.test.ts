/**
 * `toolsmith new --cwd` (a real child process, real files in a temp folder) takes the folder as a
 * path: an absolute one as it is, a relative one against the current folder (`..` included), in
 * every spelling of the option; a folder that does not exist, or is not a project, is refused
 * naming the folder as resolved, and nothing is written.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./_run.js";

const scratch = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-new-cwd-")));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** An empty project at `scratch/<name>/project` and a sibling folder `elsewhere` to run from. */
function setUp(name: string): { project: string; elsewhere: string } {
	const project = join(scratch, name, "project");
	const elsewhere = join(scratch, name, "elsewhere");
	mkdirSync(join(project, "src/tools"), { recursive: true });
	mkdirSync(elsewhere, { recursive: true });
	writeFileSync(join(project, "package.json"), '{ "name": "project" }\n');
	writeFileSync(join(project, "src/tools/index.ts"), "");
	return { project, elsewhere };
}

describe("toolsmith new --cwd", () => {
	it.each([
		["an absolute --cwd", (project: string) => ["--cwd", project]],
		["an absolute --cwd=", (project: string) => [`--cwd=${project}`]],
		["an absolute -C", (project: string) => ["-C", project]],
		["a relative --cwd with ..", () => ["--cwd", "../project"]],
	])(
		"writes into the project %s names, run from another folder",
		async (label, option) => {
			const { project, elsewhere } = setUp(label.replaceAll(/\W+/g, "-"));
			const run = await runCli(["new", "fetch_issue", ...option(project)], { cwd: elsewhere });
			expect(run.stderr).toBe("");
			expect(run.code).toBe(0);
			expect(existsSync(join(project, "src/tools/fetch-issue.ts"))).toBe(true);
			expect(readFileSync(join(project, "src/tools/index.ts"), "utf8")).toContain("fetch-issue");
			// Nothing landed under the folder it ran from (where a joined path would point).
			expect(existsSync(join(elsewhere, project))).toBe(false);
			expect(existsSync(join(elsewhere, "src"))).toBe(false);
		},
		30_000,
	);

	it("refuses a folder that does not exist, naming it as resolved", async () => {
		const { elsewhere } = setUp("missing");
		const missing = join(scratch, "missing", "nowhere");
		const run = await runCli(["new", "fetch_issue", "--cwd", missing], { cwd: elsewhere });
		expect(run.code).toBe(1);
		expect(run.stderr).toBe(
			`toolsmith new: --cwd ${missing}: ${missing} is not a folder; give the folder of your tool project (npm create toolsmith makes one)\n`,
		);
		expect(existsSync(missing)).toBe(false);
		const relative = await runCli(["new", "fetch_issue", "--cwd", "../nowhere"], { cwd: elsewhere });
		expect(relative.code).toBe(1);
		expect(relative.stderr).toContain(`--cwd ../nowhere: ${missing} is not a folder`);
	}, 30_000);

	it("refuses a folder that is not a project, naming it as resolved", async () => {
		const { elsewhere } = setUp("not-a-project");
		const run = await runCli(["new", "fetch_issue", "--cwd", scratch], { cwd: elsewhere });
		expect(run.code).toBe(1);
		expect(run.stderr).toContain(`toolsmith new: ${scratch} has no package.json`);
		expect(existsSync(join(scratch, "src"))).toBe(false);
	}, 30_000);
});
