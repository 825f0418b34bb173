import { describe, expect, it } from "vitest";
import { program } from "../../../src/cli/_program.js";
import { runProgram } from "../../../src/command/node-command.js";
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
			/^replay-session test\/fixtures\/sessions\/pi-session-v1\.jsonl · cwd \S+\n\d+ of \d+ calls verified against the replayed files; \d+ more match in format only\n/,
		);
		expect(run.stdout).toMatch(/\n {2}total +(\d+) +\d+ +\d+ +0 +\d+\n/);
		expect(run.stdout).toMatch(/\nno mismatches in \d+ calls\n$/);
		expect(run.stdout).toMatchInlineSnapshot(`
			"replay-session test/fixtures/sessions/pi-session-v1.jsonl · cwd /Users/badlogic/workspaces/pi-mono
			106 of 391 calls verified against the replayed files; 236 more match in format only

			  tool   calls  state-verified  format-only  mismatch  unknowable
			  bash   192    0               192          0         0
			  edit   146    93              4            0         49
			  read   50     13              37           0         0
			  write  3      0               3            0         0
			  total  391    106             236          0         49

			unknowable: no-result 18, unseen-region 16, outside-change 2, unseen-file 13
			normalized: edit-success 115, read-continuation 25, bash-empty-output-status 11, edit-failure 16, edit-dollar-patterns 1
			reads checked against their own page: 37

			no mismatches in 391 calls
			"
		`);
	});

	it("reports a file that is not a session and exits 1", async () => {
		const run = await cli(["replay-session", "package.json"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toMatch(/^toolsmith replay-session: .*package\.json/);
	});
});

describe("toolsmith check", () => {
	it("reports every check of every extension tool; the stateful demo fails determinism, so it exits 1", async () => {
		const run = await cli(["check", "docs/examples"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toMatch(/^info docs\/examples\/read-override\.ts .*\[I_BUILTIN_OVERRIDDEN\]\n$/);
		for (const tool of ["countdown", "hello", "read"]) expect(run.stdout).toContain(`PASS ${tool}\n`);
		expect(run.stdout).toContain("FAIL todo\n");
		expect(run.stdout).toMatch(/ {2}✗ deterministic: two fresh envs gave different results/);
		expect(run.stdout).toMatch(/\n\d+ passed, 1 failed, \d+ skipped\n$/);
	});

	it("passes once the stateful tool is declared nondeterministic, and refuses names that are not registered", async () => {
		const run = await cli(["check", "docs/examples/todo.ts", "--nondeterministic", "todo"]);
		expect(run.code).toBe(0);
		expect(run.stdout).toContain("  - deterministic: the tool is declared nondeterministic\n");
		expect(run.stdout.replace(/\d+ ms/g, "<n> ms")).toMatchInlineSnapshot(`
			"PASS todo
			  ✓ name-valid: "todo" is accepted by OpenAI, Anthropic and Google
			  ✓ description: 139 characters
			  ✓ label: "To-do"
			  ✓ parameters-object: an object schema
			  ✓ schema-openai: 0 rewrite(s)
			  ✓ schema-anthropic: 0 rewrite(s)
			  ✓ schema-google: 0 rewrite(s)
			  - prompt-snippet: no promptSnippet (the description's first sentence is used)
			  - prompt-guidelines: no promptGuidelines
			  ✓ valid-samples: 3 sample(s), 3 reached execute
			  ✓ invalid-samples: 2 near miss(es) rejected: wrong-type, missing-required
			  ✓ abort: settled <n> ms after the call
			  ✓ content: 2 result(s) checked
			  ✓ throws: 2 reported failure(s) became error results
			  - updates: no sample sent partial updates
			  ✓ render: 3 sample(s) rendered
			  - deterministic: the tool is declared nondeterministic
			13 passed, 0 failed, 4 skipped
			"
		`);
		const typo = await cli(["check", "docs/examples/todo.ts", "--nondeterministic", "tood"]);
		expect(typo.code).toBe(2);
		expect(typo.stderr).toBe(
			"toolsmith check: --nondeterministic names tood, which the extensions do not register (they register todo)\n",
		);
	});

	it("accepts known failures from a baseline and fails on a stale entry", async () => {
		const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
		const { tmpdir } = await import("node:os");
		const { join } = await import("node:path");
		const dir = mkdtempSync(join(tmpdir(), "toolsmith-check-cli-"));
		try {
			const accepted = join(dir, "accepted.json");
			writeFileSync(accepted, JSON.stringify({ expectedFailures: { todo: ["deterministic"] } }));
			const ok = await cli(["check", "docs/examples/todo.ts", "--baseline", accepted]);
			expect(ok.code).toBe(0);
			expect(ok.stdout).toContain("(expected failure)");
			const stale = join(dir, "stale.json");
			writeFileSync(stale, JSON.stringify({ expectedFailures: { todo: ["deterministic", "label"] } }));
			const bad = await cli(["check", "docs/examples/todo.ts", "--baseline", stale]);
			expect(bad.code).toBe(1);
			expect(bad.stdout).toContain("✗ stale baseline entry todo: label: it now passes; remove the entry\n");
			const broken = join(dir, "broken.json");
			writeFileSync(broken, "{ nope");
			const unreadable = await cli(["check", "docs/examples/todo.ts", "--baseline", broken]);
			expect(unreadable.code).toBe(1);
			expect(unreadable.stderr).toMatch(/^toolsmith check: cannot use the baseline .*broken\.json: /);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
