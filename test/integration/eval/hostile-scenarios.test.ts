/**
 * `toolsmith eval` (the built CLI, as a child process) against scenario files written to attack it:
 * files that do not load beside files that do.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { type CliRun, startCli } from "../cli/_run.js";

// Answers by the prompt's first word: "long" gives an answer a backtracking engine chokes on,
// "link" makes a symlink to the folder outside with bash, anything else says "done".
const MODEL = `export default function script(request, turn) {
	const prompt = request.messages[0].text;
	if (prompt.startsWith("long")) return { text: "a".repeat(48) + "!" };
	if (prompt.startsWith("link") && turn === 0) {
		return { calls: [{ tool: "bash", args: { command: "ln -s " + process.env.OUTSIDE + " out && echo linked" } }] };
	}
	return { text: "done" };
}
`;

let root: string;
let dir: string;
let outside: string;
const SECRET = `top-secret-${process.pid}-${Date.now()}`;

beforeAll(() => {
	root = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-eval-hostile-")));
	dir = join(root, "project");
	outside = join(root, "outside");
	mkdirSync(dir);
	mkdirSync(outside);
	writeFileSync(join(outside, "secret.txt"), SECRET);
	writeFileSync(join(dir, "model.mjs"), MODEL);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A folder of its own under the project, with these files (JSON values are written as JSON). */
function suite(name: string, files: Record<string, unknown>): string {
	const folder = join(dir, name);
	mkdirSync(folder, { recursive: true });
	for (const [file, content] of Object.entries(files)) {
		writeFileSync(join(folder, file), typeof content === "string" ? content : JSON.stringify(content));
	}
	return name;
}

/** `toolsmith eval <args> --model scripted:model.mjs` in the project; killed if the test ends first. */
async function evalCli(args: readonly string[]): Promise<CliRun> {
	const cli = startCli(["eval", ...args, "--model", "scripted:model.mjs"], {
		cwd: dir,
		env: { NO_COLOR: "1", OUTSIDE: outside },
	});
	onTestFinished(async () => {
		await cli.kill("SIGKILL");
	});
	const code = await cli.exited;
	return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

describe("files that do not load", () => {
	it("are each reported with the reason while the others run; the command exits 1", async () => {
		const folder = suite("mixed", {
			"a-broken.eval.json": "{ not json",
			"b-good.eval.json": { name: "good", prompt: "p", expect: { answer: "done" } },
			"c-throws.eval.mjs": "throw new Error('scenario module exploded');\n",
			"d-empty.eval.json": "[]",
		});
		const run = await evalCli([folder]);
		expect(run.stdout).toContain("good  1/1 passed");
		expect(run.stderr).toMatch(/mixed\/a-broken\.eval\.json: .*not valid JSON/);
		expect(run.stderr).toMatch(/mixed\/c-throws\.eval\.mjs: .*scenario module exploded/);
		expect(run.stderr).toMatch(/mixed\/d-empty\.eval\.json: .*a scenario .* or a list of them/);
		expect(run.stdout).toMatch(/3 scenario files did not load/);
		expect(run.code).toBe(1);
	});

	it("exits 1 when no file loads, saying so", async () => {
		const folder = suite("all-broken", { "x.eval.json": "{", "y.eval.json": "[1]" });
		const run = await evalCli([folder]);
		expect(run.stderr).toMatch(/all-broken\/x\.eval\.json: /);
		expect(run.stderr).toMatch(/all-broken\/y\.eval\.json: /);
		expect(run.stderr).toMatch(/no scenario could be loaded from the 2 scenario files/);
		expect(run.code).toBe(1);
	});
});
