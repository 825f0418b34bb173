/**
 * `toolsmith eval` (the built CLI, as a child process) against scenario files written to attack it:
 * a `$regex` that backtracks for ever on JavaScript's engine, patterns the linear-time engine
 * cannot run, `expect.files` keys that reach outside the world (absolute, `..`, a symlink the
 * trial made, a NUL byte), files that do not load beside files that do, and hostile data (deep
 * nesting, a huge file, too much pattern text, a FIFO, a scenario file that is a symlink).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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

describe("$regex in JSON scenarios", () => {
	it("runs ^(a+)+$ on the linear-time engine: a long answer is judged, not backtracked on", async () => {
		const folder = suite("catastrophic", {
			"slow.eval.json": { name: "catastrophic", prompt: "long answer", expect: { answer: { $regex: "^(a+)+$" } } },
		});
		const run = await evalCli([folder]);
		expect(run.stderr).toBe("");
		expect(run.stdout).toContain("catastrophic  0/1 passed");
		expect(run.stdout).toContain("the answer should be /^(a+)+$/");
		expect(run.code).toBe(1);
	});

	it("refuses lookaround, backreferences, bad flags and malformed pattern objects at load, naming the JSON path", async () => {
		const folder = suite("refused-patterns", {
			"lookahead.eval.json": {
				name: "lookahead",
				prompt: "p",
				expect: { calls: [{ tool: "weather", args: { city: { $regex: "(?=P)aris" } } }] },
			},
			"backref.eval.json": { name: "backref", prompt: "p", expect: { answer: { $regex: "(a)\\1" } } },
			"flags.eval.json": { name: "flags", prompt: "p", expect: { answer: { $regex: "a", flags: "x" } } },
			"shape.eval.json": {
				name: "shape",
				prompt: "p",
				expect: { files: { "a.txt": { $regex: 5 }, "b.txt": { $regex: "b", flag: "i" } } },
			},
		});
		const run = await evalCli([folder]);
		expect(run.code).toBe(1);
		expect(run.stderr).toMatch(/lookahead\.eval\.json: expect\.calls\[0\]\.args\.city: the pattern "\(\?=P\)aris"/);
		expect(run.stderr).toMatch(/backref\.eval\.json: expect\.answer: .*no backreferences or lookaround/);
		expect(run.stderr).toMatch(/flags\.eval\.json: expect\.answer: .*unsupported flag "x"/);
		expect(run.stderr).toMatch(/shape\.eval\.json: expect\.files\["a\.txt"\]: "\$regex" must be a string/);
		expect(run.stderr).toMatch(/shape\.eval\.json: .*expect\.files\["b\.txt"\]: .*remove "flag"/);
	});
});

describe("expect.files stays inside the world", () => {
	it("refuses absolute and .. keys when the file loads, and never prints what they name", async () => {
		const folder = suite("leak", {
			"absolute.eval.json": {
				name: "absolute",
				prompt: "p",
				world: { env: "node" },
				expect: { files: { [join(outside, "secret.txt")]: "x" } },
			},
			"dotdot.eval.json": {
				name: "dotdot",
				prompt: "p",
				world: { env: "node" },
				expect: { files: { [`../../../../../../..${join(outside, "secret.txt")}`]: "x" } },
			},
			"write.eval.json": {
				name: "write",
				prompt: "p",
				world: { files: { "../escape.txt": "x" } },
				expect: { answer: "done" },
			},
			"nul.eval.json": { name: "nul", prompt: "p", expect: { files: { "a\u0000b": "x" } } },
		});
		const run = await evalCli([folder]);
		expect(`${run.stdout}\n${run.stderr}`).not.toContain(SECRET);
		expect(run.stderr).toContain(
			`absolute.eval.json: Eval scenario "absolute" is not valid:\n  - expect.files[${JSON.stringify(join(outside, "secret.txt"))}]: must be a path relative to the world's folder`,
		);
		expect(run.stderr).toMatch(/dotdot\.eval\.json: .*expect\.files\[".*"\]: .*without "\.\."/s);
		expect(run.stderr).toMatch(/write\.eval\.json: .*world\.files\["\.\.\/escape\.txt"\]: .*without "\.\."/s);
		expect(run.stderr).toMatch(/nul\.eval\.json: .*expect\.files\["a\\u0000b"\]: holds a NUL byte/s);
		expect(run.code).toBe(1);
	});

	it("refuses a path that a symlink made during the trial leads outside, without reading it", async () => {
		const folder = suite("symlink", {
			"link.eval.json": {
				name: "link",
				prompt: "link the folder",
				world: { env: "node" },
				tools: { builtins: ["bash"] },
				expect: { files: { "out/secret.txt": "anything" } },
			},
		});
		const run = await evalCli([folder]);
		expect(run.stdout).toContain("link  0/1 passed");
		expect(run.stdout).toMatch(/files: expect\.files\["out\/secret\.txt"\]: refused: .*outside the world's folder/);
		expect(`${run.stdout}\n${run.stderr}`).not.toContain(SECRET);
		expect(run.code).toBe(1);
	});
});

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

describe("hostile data", () => {
	it("refuses nesting past the limit, a huge file, too much pattern text, a FIFO; follows a named symlink", async () => {
		let deep: unknown = "x";
		for (let i = 0; i < 600; i++) deep = [deep];
		const folder = suite("data", {
			"deep.eval.json": { name: "deep", prompt: "p", expect: { calls: [{ tool: "t", args: { v: deep } }] } },
			"huge.eval.json": `{"name":"huge","prompt":"p","expect":{"answer":"done"},"system":"${"x".repeat(17 * 1024 * 1024)}"}`,
			"many.eval.json": {
				name: "many",
				prompt: "p",
				expect: { calls: Array.from({ length: 40 }, () => ({ tool: "t", args: { v: { $regex: "a".repeat(2000) } } })) },
			},
		});
		execFileSync("mkfifo", [join(dir, folder, "fifo.eval.json")]);
		mkdirSync(join(root, "elsewhere"));
		writeFileSync(
			join(root, "elsewhere", "good.eval.json"),
			JSON.stringify({ name: "linked", prompt: "p", expect: { answer: "done" } }),
		);
		symlinkSync(join(root, "elsewhere", "good.eval.json"), join(dir, folder, "linked.eval.json"));
		const run = await evalCli([folder, `${folder}/fifo.eval.json`, `${folder}/linked.eval.json`]);
		expect(run.stderr).toMatch(/deep\.eval\.json: .*nests deeper than 512 levels/);
		expect(run.stderr).toMatch(/huge\.eval\.json: is 17\.0 MiB; JSON files are read up to 16 MiB/);
		expect(run.stderr).toMatch(/many\.eval\.json: .*patterns hold more than 65536 characters/);
		expect(run.stderr).toMatch(/fifo\.eval\.json: .*not a regular file/);
		// a symlink named on the command line is the user's own choice: it is followed
		expect(run.stdout).toContain("linked  1/1 passed");
		expect(run.stdout).toMatch(/4 scenario files did not load/);
		expect(run.code).toBe(1);
	});
});
