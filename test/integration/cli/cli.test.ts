import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type CliRun, repoRoot, runCli } from "./_run.js";

const version = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
const normalize = (text: string) => text.replaceAll(version, "<version>");

// Each child process costs a Node start plus jiti, so they all start at once.
const cases = {
	help: ["--help"],
	version: ["--version"],
	devHelp: ["dev", "--help"],
	unknownCommand: ["deploy"],
	unknownFlag: ["dev", "--watchh"],
	missingValue: ["dev", "--env"],
	none: [],
} as const;
const runs = {} as Record<keyof typeof cases, CliRun>;
let forcedColor: CliRun;

beforeAll(async () => {
	const entries = Object.entries(cases) as [keyof typeof cases, readonly string[]][];
	const [color, ...results] = await Promise.all([
		runCli(["--help"], { env: { FORCE_COLOR: "1" } }),
		...entries.map(([, argv]) => runCli(argv)),
	]);
	forcedColor = color!;
	entries.forEach(([name], i) => {
		runs[name] = results[i]!;
	});
});

describe("toolsmith CLI (child process)", () => {
	it("--help lists the commands and exits 0", () => {
		expect(runs.help.code).toBe(0);
		expect(runs.help.stderr).toBe("");
		expect(normalize(runs.help.stdout)).toMatchInlineSnapshot(`
			"toolsmith <version> · write, load, hot-reload and test tools for LLM coding agents

			Usage: toolsmith <command> [options]

			Commands:
			  dev             Try tools at a prompt while their extensions hot-reload
			  inspect         Try tools in a local web page: forms, rendered results, live reload, fixtures
			  new             Add a tool to this project: its source, a test and a replay fixture
			  test            Replay fixture files against your tools and print a summary
			  check           Run the conformance checks on the tools of extensions or an MCP server
			  replay-session  Replay a recorded pi session through toolsmith's tools and report its fidelity
			  eval            Run tool-use eval scenarios against a model: does it call your tools right?
			  schema          Print tools in a provider's wire format, with what the provider rewrites
			  mcp             Serve the tools of extensions to MCP clients (stdio or Streamable HTTP)

			Options:
			  -h, --help     Show this help
			  -v, --version  Show the version

			Run 'toolsmith <command> --help' for the options of a command.
			Exit codes: 0 success, 1 failure, 2 usage error, 130 interrupted.
			"
		`);
	});

	it("--version prints the package version", () => {
		expect(runs.version).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
	});

	it("dev --help shows usage, options and examples", () => {
		expect(runs.devHelp.code).toBe(0);
		expect(runs.devHelp.stdout).toMatchInlineSnapshot(`
			"Usage: toolsmith dev [paths...] [options]

			Try tools at a prompt while their extensions hot-reload

			Prints the tools and any diagnostics, then watches every extension file (and the local modules
			it imports) and prints one line per reload. At the prompt, \`call <tool> <json-args>\` runs a tool
			and shows its renderCall/renderResult output; type \`help\` for the other commands.
			When stdin is not a terminal, the same commands are read from it line by line and the command
			exits at the end of input (exit code 1 if a line could not be run).
			Without paths only the built-in tools are loaded.
			--ssh runs the tools on another machine: their ctx.env reads, writes and runs commands there
			over one multiplexed OpenSSH connection (your ssh config, agent and known hosts apply), while
			the extensions themselves still load, and hot-reload, from this machine. The folder in the
			target is where they work (default: the remote home). Confined (--confine), file paths are
			checked on the remote host, and commands (bash) are refused: no sandbox runs there. A host that
			cannot be reached, an unknown host key or a missing folder ends the command before anything
			loads (exit code 1). See docs/env.md#ssh.

			Arguments:
			  paths  Extension files or folders to load

			Options:
			      --env <node|memory>       Run tools on the real disk and shell, or in an empty in-memory env (default: node)
			      --cwd <dir>               Working folder the tools see (default: the current one)
			      --watch, --no-watch       Reload extensions when their files change (on by default)
			      --confine                 Confine tools to the working folder: files outside it refused, bash in an OS sandbox
			      --confine-reads           Confine bash's reads too: it sees only the working folder and the system folders (implies --confine)
			      --limit <name=value>      With --confine, a limit of the shell sandbox: processes=N, memory=SIZE, tmp=SIZE (SIZE: 512M, 2G, …; none lifts it) (repeatable)
			      --load-timeout <ms>       Time each extension's module and default export may take to load (default 10000)
			      --ssh <target>            Run the tools on another machine over SSH: user@host:/path, host:relative/path or ssh://user@host:port/path (extensions still load from this machine)
			      --ssh-config <file>       With --ssh: the ssh config file to use (ssh -F; default: ~/.ssh/config)
			      --ssh-option <Key=Value>  With --ssh: an ssh option (ssh -o Key=Value), e.g. ProxyJump=bastion (repeatable)
			      --ui                      Also serve the web inspector (as toolsmith inspect does) beside the prompt
			      --open                    Open the page in the browser ($BROWSER, else the system's)
			      --host <address>          Interface to serve the page on (default 127.0.0.1; any other needs --token)
			      --port <port>             Port of the page (default: a free one)
			      --token <token>           Session token the page's address carries (default: a random one; $TOOLSMITH_INSPECTOR_TOKEN), at least 16 characters
			      --fixtures <dir>          Where Save as fixture writes (default: test/fixtures under --cwd)
			      --allow-eval-code         Under --confine, let the Evals tab import eval code from the working folder (*.eval.ts, a JSON scenario's extensions, scripted: modules), which the model may have written
			  -h, --help                    Show this help

			Examples:
			  toolsmith dev docs/examples
			  toolsmith dev docs/examples --ui --open
			  toolsmith dev ./my-tool.ts --env memory
			  toolsmith dev docs/examples --ssh me@buildbox:/srv/app
			  printf 'call hello {"name":"Ada"}\\n' | toolsmith dev docs/examples/hello.ts
			"
		`);
	});

	it("an unknown command exits 2 with a hint on stderr", () => {
		expect(runs.unknownCommand.code).toBe(2);
		expect(runs.unknownCommand.stdout).toBe("");
		expect(runs.unknownCommand.stderr).toMatchInlineSnapshot(`
			"toolsmith: unknown command 'deploy'
			Run 'toolsmith --help' for usage.
			"
		`);
	});

	it("bad flags exit 2 with a message naming the flag", () => {
		expect(runs.unknownFlag.code).toBe(2);
		expect(runs.unknownFlag.stderr).toMatchInlineSnapshot(`
			"toolsmith dev: unknown option '--watchh' (did you mean '--watch'?)
			Run 'toolsmith dev --help' for usage.
			"
		`);
		expect(runs.missingValue.code).toBe(2);
		expect(runs.missingValue.stderr).toMatchInlineSnapshot(`
			"toolsmith dev: option --env needs a value: --env <node|memory>
			Run 'toolsmith dev --help' for usage.
			"
		`);
	});

	it("no command prints the usage on stderr and exits 2", () => {
		expect(runs.none.code).toBe(2);
		expect(runs.none.stdout).toBe("");
		expect(runs.none.stderr).toBe(runs.help.stdout);
	});

	it("colors a pipe only when FORCE_COLOR asks", () => {
		expect(runs.help.stdout).not.toContain("\x1b[");
		expect(forcedColor.code).toBe(0);
		expect(forcedColor.stdout).toContain("\x1b[1mUsage:\x1b[22m");
	});
});
