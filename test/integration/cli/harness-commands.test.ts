import { describe, expect, it } from "vitest";
import { runProgram } from "../../../src/cli/_command.js";
import { program } from "../../../src/cli/_program.js";
import { fakeIO } from "../../unit/cli/_fake-host.js";
import { repoRoot } from "./_run.js";

async function cli(argv: string[]) {
	const io = { ...fakeIO(), cwd: repoRoot };
	const code = await runProgram(program, argv, io);
	return { code, stdout: io.out().replaceAll(repoRoot, "<root>"), stderr: io.err().replaceAll(repoRoot, "<root>") };
}

describe("toolsmith test", () => {
	it("passes a good fixture and exits 0", async () => {
		const run = await cli(["test", "test/fixtures/replay/edit-and-test.json"]);
		expect(run.code).toBe(0);
		expect(run.stdout).toMatchInlineSnapshot(`
			"  result  fixture                                  calls  steps
			  pass    test/fixtures/replay/edit-and-test.json  5/5    4/4

			1 fixture passed
			"
		`);
	});

	it("fails wrong expectations and invalid fixtures with their reports, and exits 1", async () => {
		const run = await cli(["test", "test/fixtures/replay", "--extensions", "test/fixtures/replay/extensions"]);
		expect(run.code).toBe(1);
		expect(run.stdout).toMatch(
			/^ {2}result +fixture +calls +steps\n {2}pass +test\/fixtures\/replay\/edit-and-test\.json +5\/5 +4\/4\n/,
		);
		expect(run.stdout).toMatch(/ {2}FAIL +test\/fixtures\/replay\/invalid\.json +- +-\n/);
		expect(run.stdout).toContain("Invalid replay fixture <root>/test/fixtures/replay/invalid.json: steps[1]");
		expect(run.stdout).toContain("- BETA\n");
		expect(run.stdout).toMatch(/\n2 of 3 fixtures failed\n$/);
	});

	it("says so when there is nothing to run", async () => {
		const missing = await cli(["test", "no/such/dir"]);
		expect(missing).toEqual({
			code: 1,
			stdout: "",
			stderr: "toolsmith test: fixture path no/such/dir does not exist\n",
		});
		const empty = await cli(["test", "docs/examples"]);
		expect(empty.code).toBe(1);
		expect(empty.stderr).toBe("toolsmith test: no fixture files (*.json) found in docs/examples\n");
	});
});

describe("toolsmith replay-session", () => {
	it("prints the fidelity figures of the shared recorded session and exits 0 without mismatches", async () => {
		const run = await cli(["replay-session", "test/fixtures/sessions/pi-session-v1.jsonl"]);
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(
			/^replay-session test\/fixtures\/sessions\/pi-session-v1\.jsonl · cwd \S+\n {2}tool +calls +match +mismatch +unknowable\n/,
		);
		expect(run.stdout).toMatch(/\n {2}total +(\d+) +\d+ +0 +\d+\n/);
		expect(run.stdout).toMatch(/\nno mismatches in \d+ calls\n$/);
	});

	it("reports a file that is not a session and exits 1", async () => {
		const run = await cli(["replay-session", "package.json"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toMatch(/^toolsmith replay-session: .*package\.json/);
	});
});
