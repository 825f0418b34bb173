/**
 * `toolsmith check --files`, `--fixtures` and `--sample` on a project in a real temp folder: tools
 * that read a file or run a command fail on the empty env of the behavioral checks, so `content`
 * is skipped until the check gets the files, commands and samples the tools need.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { program } from "../../../src/cli/_program.js";
import { runProgram } from "../../../src/command/node-command.js";
import { fakeIO } from "../../unit/cli/_fake-host.js";
import { runCli } from "./_run.js";

const EXTENSION = `import { defineExtension, defineTool, Type } from "toolsmith-sdk";

const firstLine = defineTool({
	name: "first_line",
	label: "First line",
	description: "The first line of a text file, relative to the working folder.",
	parameters: Type.Object({ path: Type.String() }),
	async execute(_id, { path }, _signal, _onUpdate, ctx) {
		const file = await ctx.env.readTextFile(path);
		if (!file.ok) throw file.error;
		return { content: [{ type: "text", text: file.value.split("\\n")[0] }], details: { path } };
	},
});

const branch = defineTool({
	name: "branch",
	label: "Branch",
	description: "The current git branch of the working folder.",
	parameters: Type.Object({}),
	async execute(_id, _params, _signal, _onUpdate, ctx) {
		const run = await ctx.env.exec("git branch --show-current");
		if (!run.ok) throw run.error;
		if (run.value.exitCode !== 0) throw new Error(run.value.stderr || "git failed");
		return { content: [{ type: "text", text: run.value.stdout.trim() }], details: {} };
	},
});

export default defineExtension((api) => {
	api.registerTool(firstLine);
	api.registerTool(branch);
});
`;

const FIXTURE = {
	name: "first line and branch",
	files: { "notes/today.md": "# Today\nwrite the tests\n" },
	commands: [{ match: "git branch --show-current", stdout: "main\n" }],
	steps: [
		{
			calls: [
				{ tool: "first_line", args: { path: "notes/today.md" }, expect: { text: "# Today" } },
				{ tool: "first_line", args: { path: "missing.md" }, expect: { isError: true } },
				{ tool: "branch", args: {} },
				{ tool: "read", args: { path: "notes/today.md" } },
			],
		},
	],
};

let dir: string;

beforeAll(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-check-seeds-")));
	writeFileSync(join(dir, "tools.ts"), EXTENSION);
	mkdirSync(join(dir, "samples", "docs"), { recursive: true });
	writeFileSync(join(dir, "samples", "docs", "guide.md"), "Guide\nsecond line\n");
	mkdirSync(join(dir, "fixtures"));
	writeFileSync(join(dir, "fixtures", "tools.json"), JSON.stringify(FIXTURE, null, 2));
	writeFileSync(join(dir, "fixtures", "broken.json.txt"), "not a fixture");
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function check(args: string[]) {
	const io = { ...fakeIO(), cwd: dir };
	const code = await runProgram(program, ["check", "tools.ts", ...args], io);
	return { code, stdout: io.out().replace(/\d+ ms/g, "<n> ms"), stderr: io.err() };
}

const line = (stdout: string, tool: string, id: string) => {
	const section = stdout.slice(stdout.indexOf(`PASS ${tool}\n`));
	return section.split("\n").find((l) => l.startsWith(`  ✓ ${id}:`) || l.startsWith(`  - ${id}:`)) ?? "";
};

describe("toolsmith check with files and samples", () => {
	it("skips content for tools that need files or commands, saying what the samples did and how to seed them", async () => {
		const run = await check([]);
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).not.toContain("seeded from");
		expect(line(run.stdout, "first_line", "content")).toBe(
			"  - content: no sample returned a result (2 threw); give the tool files and samples it succeeds on (toolsmith check --files, --sample, --fixtures; the files and samples options)",
		);
		// The skip shows what the tool said, which is what tells the author it wants a file.
		expect(run.stdout).toMatch(/\n {6}\{"path":"sample"\}: .*sample/);
		expect(line(run.stdout, "branch", "content")).toMatch(/^ {2}- content: no sample returned a result \(1 threw\)/);
		// The throws check agrees: the samples failed.
		expect(line(run.stdout, "first_line", "throws")).toMatch(/^ {2}✓ throws: \d+ reported failure/);
	});

	it("runs content on a folder's files with --files and a --sample of one's own", async () => {
		const run = await check(["--files", "samples", "--sample", 'first_line={"path":"docs/guide.md"}']);
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toMatch(/^seeded from --files samples, --sample ×1: 1 file, 1 sample \(first_line 1\)\n/);
		expect(line(run.stdout, "first_line", "content")).toBe("  ✓ content: 1 result(s) checked");
		expect(line(run.stdout, "first_line", "valid-samples")).toBe("  ✓ valid-samples: 3 sample(s), 3 reached execute");
		// No command is scripted: branch still cannot succeed.
		expect(line(run.stdout, "branch", "content")).toMatch(/^ {2}- content: no sample returned/);
	});

	it("takes files, scripted commands and the calls not expecting an error from --fixtures", async () => {
		const run = await check(["--fixtures", "fixtures"]);
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toMatch(
			/^seeded from 1 fixture \(fixtures\/tools\.json\): 1 file, 1 scripted command, 2 samples \(first_line 1, branch 1\)\n/,
		);
		expect(line(run.stdout, "first_line", "content")).toBe("  ✓ content: 1 result(s) checked");
		expect(line(run.stdout, "branch", "content")).toBe("  ✓ content: 1 result(s) checked");
	});

	it("refuses seeds it cannot use, saying what to give instead", async () => {
		const unknown = await check(["--sample", 'frist_line={"path":"a"}']);
		expect(unknown.code).toBe(2);
		expect(unknown.stderr).toContain(
			"toolsmith check: --sample names frist_line, which is not a checked tool (the tools are first_line, branch)\n",
		);
		const notJson = await check(["--sample", "first_line={path:a}"]);
		expect(notJson.code).toBe(2);
		expect(notJson.stderr).toMatch(
			/invalid --sample for first_line: the arguments are not JSON .*quote them for the shell/,
		);
		const notObject = await check(["--sample", "first_line=[1]"]);
		expect(notObject.stderr).toContain("the arguments must be a JSON object");
		const noTool = await check(["--sample", '{"path":"a"}']);
		expect(noTool.stderr).toContain("expected <tool>=<JSON arguments>");
		const file = await check(["--files", "tools.ts"]);
		expect(file.code).toBe(1);
		expect(file.stderr).toContain("--files tools.ts is not a folder");
		const missing = await check(["--files", "nowhere"]);
		expect(missing.stderr).toContain("--files nowhere does not exist");
		const noFixtures = await check(["--fixtures", "samples"]);
		expect(noFixtures.code).toBe(1);
		expect(noFixtures.stderr).toContain("--fixtures: no fixture files (*.json) found in samples");
		const io = { ...fakeIO(), cwd: dir };
		expect(await runProgram(program, ["check", "--mcp", "node server.js", "--files", "samples"], io)).toBe(2);
		expect(io.err()).toContain("--files seeds the in-memory env of extension tools");
	});

	it("works the same from the real command line", { timeout: 120_000 }, async () => {
		const run = await runCli(["check", "tools.ts", "--fixtures", "fixtures/tools.json"], { cwd: dir });
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toContain("seeded from 1 fixture (fixtures/tools.json)");
		expect(run.stdout).toMatch(/\n {2}✓ content: 1 result\(s\) checked\n/);
	});
});
