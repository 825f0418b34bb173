/**
 * `npm create toolsmith` in-process, on real temp folders: flags, defaults, refusals, and the
 * questions on a terminal (answered by a scripted stand-in for the prompt library). The real terminal
 * and the packed package are covered by tty.test.ts and the templates' end-to-end test.
 */
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	realpathSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createCommand, createProgram, type Prompts, type Runner } from "../../../create-tool/src/create.js";
import { runCommand } from "../../../src/command/node-command.js";
import type { CliIO } from "../../../src/command/node-io.js";

const templatesDir = fileURLToPath(new URL("../../../templates", import.meta.url));
const folders: string[] = [];
afterEach(() => {
	for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Call {
	readonly command: string;
	readonly args: readonly string[];
	readonly cwd: string;
}

interface Setup {
	readonly argv: string[];
	readonly tty?: boolean;
	readonly env?: Record<string, string>;
	readonly prompts?: Prompts;
	/** Exit codes by command (`npm install`, `git init`, `git rev-parse`); 0 otherwise. */
	readonly exits?: Record<string, number>;
	readonly cwd?: string;
}

async function create(setup: Setup) {
	const cwd = setup.cwd ?? realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-create-")));
	folders.push(cwd);
	let out = "";
	let err = "";
	const stdin = Object.assign(new PassThrough(), { isTTY: setup.tty === true });
	const io: CliIO = {
		stdin,
		stdout: { write: (chunk: string) => (out += chunk), isTTY: setup.tty === true },
		stderr: { write: (chunk: string) => (err += chunk) },
		env: setup.env ?? {},
		cwd,
		onInterrupt: () => () => {},
	};
	const calls: Call[] = [];
	const run: Runner = async (command, args, options) => {
		calls.push({ command, args, cwd: options.cwd });
		// Outside a repository, as a fresh temp folder is (unless a test says otherwise).
		const key = `${command} ${args[0]}`;
		return setup.exits?.[key] ?? (key === "git rev-parse" ? 128 : 0);
	};
	const command = createCommand({
		templatesDir,
		toolsmithVersion: "0.1.0",
		run,
		...(setup.prompts ? { prompts: setup.prompts } : {}),
	});
	const code = await runCommand(createProgram("0.1.0"), command, setup.argv, io);
	return { code, out, err, cwd, calls, files: () => readdirSync(cwd, { recursive: true, encoding: "utf8" }).sort() };
}

/** Prompts that answer from a script, and fail the test when asked something unexpected. */
function scripted(answers: (string | boolean | undefined)[], asked: string[] = []): Prompts {
	const next = (message: string) => {
		asked.push(message);
		if (answers.length === 0) throw new Error(`unexpected question: ${message}`);
		return answers.shift();
	};
	return {
		intro() {},
		step() {},
		outro() {},
		cancel() {},
		text: async (q) => next(q.message) as string | undefined,
		select: async (q) => next(q.message) as string | undefined,
		confirm: async (q) => next(q.message) as boolean | undefined,
		progress: (_message, task) => task(),
	};
}

describe("npm create toolsmith, with flags", () => {
	it("shows its help and lists its templates", async () => {
		const help = await create({ argv: ["--help"] });
		expect(help.code).toBe(0);
		expect(help.out).toMatchInlineSnapshot(`
			"Usage: npm create toolsmith [directory] [options]

			Start a project of tools for LLM coding agents, with tests that pass on the first run

			On a terminal it asks for what the flags do not say; otherwise (or with --yes) it uses the
			defaults. The project is written to a temporary folder and moved into place, so an error never
			leaves half a project; an existing folder that is not empty is refused. With npm, pass flags
			after --: npm create toolsmith@latest my-tools -- --template stateful. --version prints the version.

			Arguments:
			  directory  Where the project goes (default: my-tools)

			Options:
			  -t, --template <name>        The template (see --list)
			      --list                   List the templates and exit
			  -y, --yes                    Ask nothing: defaults for everything not given
			      --install, --no-install  Install the dependencies (on by default)
			      --git                    Initialize a git repository, or not with --no-git (default: yes, unless inside one)
			      --pm <manager>           The package manager for install and the README (default: the one running this)
			      --toolsmith <spec>       The toolsmith-sdk dependency: a version, a range, a path or a tarball
			      --tool <name>            The first tool's name (default: word_count)
			  -h, --help                   Show this help

			Examples:
			  npm create toolsmith@latest my-tools
			  npm create toolsmith@latest my-tools -- --template stateful --yes
			  create-toolsmith my-tools --yes --no-install --toolsmith ../toolsmith-sdk-0.1.0.tgz
			"
		`);
		for (const flag of ["--template", "--list", "--yes", "--no-install", "--git", "--pm", "--toolsmith"]) {
			expect(help.out).toContain(flag);
		}
		const list = await create({ argv: ["--list"] });
		expect(list.out.split("\n").map((line) => line.split(/\s+/)[0])).toEqual([
			"tool",
			"mcp",
			"pi-extension",
			"stateful",
			"",
		]);
		expect(list.files()).toEqual([]);
	});

	it("makes the default project, installs it and initializes git, off a terminal without asking", async () => {
		const result = await create({ argv: ["my-tools"] });
		expect(result.code, result.err).toBe(0);
		expect(result.files()).toEqual(
			expect.arrayContaining(["my-tools/package.json", "my-tools/src/tools/word-count.ts"]),
		);
		const dir = join(result.cwd, "my-tools");
		expect(result.calls).toEqual([
			{ command: "git", args: ["rev-parse", "--is-inside-work-tree"], cwd: result.cwd },
			{ command: "npm", args: ["install"], cwd: dir },
			{ command: "git", args: ["init", "--quiet"], cwd: dir },
		]);
		expect(result.out).toContain("Created my-tools from the 'tool' template");
		expect(result.out).toContain("Next:\n  cd my-tools\n  npm run dev  # try the tools");
		expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).dependencies["toolsmith-sdk"]).toBe("^0.1.0");
	});

	it("follows --template, --no-install, --no-git, --pm, --tool and --toolsmith", async () => {
		const cwd = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-create-")));
		writeFileSync(join(cwd, "toolsmith-sdk-9.9.9.tgz"), "");
		const result = await create({
			cwd,
			argv: [
				"a",
				"--no-install",
				"--no-git",
				"--pm",
				"pnpm",
				"--tool",
				"grep_log",
				"--toolsmith",
				"./toolsmith-sdk-9.9.9.tgz",
			],
		});
		expect(result.code, result.err).toBe(0);
		expect(result.calls.filter((c) => c.command !== "git" || c.args[0] !== "rev-parse")).toEqual([]);
		const manifest = JSON.parse(readFileSync(join(cwd, "a", "package.json"), "utf8"));
		expect(manifest.dependencies["toolsmith-sdk"]).toBe(`file:${cwd}/toolsmith-sdk-9.9.9.tgz`);
		expect(existsSync(join(cwd, "a", "src/tools/grep-log.ts"))).toBe(true);
		expect(readFileSync(join(cwd, "a", "README.md"), "utf8")).toContain("pnpm install && pnpm dev");
		expect(result.out).toContain("  pnpm install\n  pnpm dev");

		const stateful = await create({ argv: ["s", "-t", "stateful", "--no-install", "--no-git"] });
		expect(stateful.files()).toContain("s/test/todo.test.ts");
	});

	it("takes the package manager that runs it, and skips git inside a work tree", async () => {
		const result = await create({
			argv: ["y"],
			env: { npm_config_user_agent: "yarn/4.1.0 npm/? node/v20.19.0 linux x64" },
			exits: { "git rev-parse": 0 },
		});
		expect(result.code, result.err).toBe(0);
		expect(result.calls.map((c) => `${c.command} ${c.args.join(" ")}`)).toEqual([
			"git rev-parse --is-inside-work-tree",
			"yarn install",
		]);
		expect(result.out).toContain("  yarn dev");
	});

	it("refuses an unknown template (exit 2), a folder that is not empty and an invalid name (exit 1), writing nothing", async () => {
		const template = await create({ argv: ["x", "--template", "rest-api"] });
		expect(template.code).toBe(2);
		expect(template.err).toContain("unknown template 'rest-api': use one of 'tool', 'mcp', 'pi-extension', 'stateful'");
		expect(template.files()).toEqual([]);

		const cwd = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-create-")));
		mkdirSync(join(cwd, "taken"));
		writeFileSync(join(cwd, "taken", "notes.md"), "mine");
		const taken = await create({ cwd, argv: ["taken", "--yes"] });
		expect(taken.code).toBe(1);
		expect(taken.err).toContain("already exists and is not an empty folder");
		expect(taken.files()).toEqual(["taken", "taken/notes.md"]);
		expect(taken.calls.filter((c) => c.args[0] !== "rev-parse")).toEqual([]);

		const named = await create({ argv: ["My Tools", "--yes"] });
		expect(named.code).toBe(1);
		expect(named.err).toContain("'My Tools' cannot be a package name (it has upper-case letters); try 'my-tools'");
		expect(named.files()).toEqual([]);

		const usage = await create({ argv: ["x", "--pm", "deno"] });
		expect(usage.code).toBe(2);
		expect(usage.files()).toEqual([]);
	});

	it("keeps the project and says what to run when the install fails", async () => {
		const result = await create({ argv: ["p", "--no-git"], exits: { "npm install": 1 } });
		expect(result.code).toBe(1);
		expect(result.err).toContain(
			"'npm install' failed (exit code 1); the project is in p: fix the cause and run 'npm install' there",
		);
		expect(result.files()).toContain("p/package.json");
	});
});

describe("npm create toolsmith, on a terminal", () => {
	it("asks for what the flags do not say", async () => {
		const asked: string[] = [];
		const result = await create({
			tty: true,
			argv: [],
			prompts: scripted(["tools-x", "stateful", false, true], asked),
		});
		expect(result.code, result.err).toBe(0);
		expect(asked).toEqual([
			"Where should the project go?",
			"Which template?",
			"Install the dependencies now (npm)?",
			"Initialize a git repository?",
		]);
		expect(result.files()).toContain("tools-x/src/index.ts");
		expect(result.calls.map((c) => `${c.command} ${c.args[0]}`)).toEqual(["git rev-parse", "git init"]);

		const flagged: string[] = [];
		const given = await create({
			tty: true,
			argv: ["b", "-t", "tool", "--no-install", "--git"],
			prompts: scripted([], flagged),
		});
		expect(given.code, given.err).toBe(0);
		expect(flagged).toEqual([]);
		const yes = await create({ tty: true, argv: ["c", "--yes", "--no-install"], prompts: scripted([]) });
		expect(yes.code, yes.err).toBe(0);
	});

	it("writes nothing when a question is cancelled (Ctrl-C or Esc)", async () => {
		for (const answers of [[undefined], ["p", undefined], ["p", "tool", undefined], ["p", "tool", true, undefined]]) {
			const result = await create({ tty: true, argv: [], prompts: scripted(answers) });
			expect(result.code, JSON.stringify(answers)).toBe(130);
			expect(result.files(), JSON.stringify(answers)).toEqual([]);
			expect(result.calls.filter((c) => c.args[0] !== "rev-parse")).toEqual([]);
		}
	});

	it("checks the folder while it is typed", async () => {
		let validate: ((value: string) => string | undefined) | undefined;
		const prompts: Prompts = {
			...scripted([]),
			text: async (q) => {
				validate = q.validate;
				return undefined;
			},
		};
		const result = await create({ tty: true, argv: [], prompts });
		mkdirSync(join(result.cwd, "full"));
		writeFileSync(join(result.cwd, "full", "x"), "");
		expect(validate?.("Bad Name")).toContain("try 'bad-name'");
		expect(validate?.("full")).toContain("is not an empty folder");
		expect(validate?.("fine")).toBeUndefined();
		expect(validate?.("")).toBeUndefined();
	});
});
