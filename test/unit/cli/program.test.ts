import { describe, expect, it } from "vitest";
import { createDevCommand } from "../../../src/cli/_dev.js";
import { program } from "../../../src/cli/_program.js";
import {
	type CommandSpec,
	defineCommand,
	EXIT_USAGE,
	type Program,
	runProgram,
} from "../../../src/command/node-command.js";
import { fakeIO } from "./_fake-host.js";

async function run(argv: string[], env: Record<string, string> = {}) {
	const io = fakeIO(env);
	const code = await runProgram(program, argv, io);
	return { code, stdout: io.out(), stderr: io.err() };
}

describe("runProgram", () => {
	it("shows the same help for --help, -h and help", async () => {
		const help = await run(["--help"]);
		expect(help.code).toBe(0);
		expect(help.stdout).toContain("Usage: toolsmith <command> [options]");
		for (const name of ["dev", "new", "test", "check", "replay-session", "schema"])
			expect(help.stdout).toContain(`  ${name} `);
		expect(await run(["-h"])).toEqual(help);
		expect(await run(["help"])).toEqual(help);
	});

	it("shows a command's help for <command> --help, -h anywhere before --, and help <command>", async () => {
		for (const name of ["dev", "new", "test", "check", "replay-session", "schema"]) {
			const help = await run([name, "--help"]);
			expect(help.code, name).toBe(0);
			expect(help.stdout, name).toMatch(new RegExp(`^Usage: toolsmith ${name} `));
			expect(await run(["help", name])).toEqual(help);
			expect(await run([name, "x", "--bogus", "-h"])).toEqual(help);
		}
		const afterDashes = await run(["schema", "--", "--help"]);
		expect(afterDashes.stdout).not.toContain("Usage:");
	});

	it("maps usage mistakes to exit code 2 with a hint, and help for an unknown topic too", async () => {
		const cases: [string[], string][] = [
			[["deploy"], "toolsmith: unknown command 'deploy'\nRun 'toolsmith --help' for usage.\n"],
			[
				["help", "tset"],
				"toolsmith: unknown command 'tset' (did you mean 'test'?)\nRun 'toolsmith --help' for usage.\n",
			],
			[["--verbose"], "toolsmith: unknown option '--verbose'\nRun 'toolsmith --help' for usage.\n"],
			[
				["schema", "--provider", "cohere"],
				"toolsmith schema: invalid value 'cohere' for --provider: expected one of 'openai', 'openai-chat', 'openai-responses', 'anthropic', 'google'\nRun 'toolsmith schema --help' for usage.\n",
			],
			[
				["check"],
				"toolsmith check: give extension paths to check, or --mcp <command|url> for the tools of an MCP server\nRun 'toolsmith check --help' for usage.\n",
			],
			[
				["dev", "--cwd"],
				"toolsmith dev: option --cwd needs a value: --cwd <dir>\nRun 'toolsmith dev --help' for usage.\n",
			],
		];
		for (const [argv, stderr] of cases) {
			const result = await run(argv);
			expect(result, argv.join(" ")).toEqual({ code: EXIT_USAGE, stdout: "", stderr });
		}
	});

	it("colors help only when FORCE_COLOR asks for it on a non-terminal", async () => {
		expect((await run(["--help"])).stdout).not.toContain("\x1b[");
		expect((await run(["--help"], { FORCE_COLOR: "1" })).stdout).toContain("\x1b[1mUsage:\x1b[22m");
		expect((await run(["--help"], { FORCE_COLOR: "false" })).stdout).not.toContain("\x1b[");
	});

	it("reports a command's unexpected throw as an internal error with exit code 1", async () => {
		const boom: CommandSpec = defineCommand({
			name: "boom",
			summary: "Throws",
			options: {},
			run: () => {
				throw new Error("kaput");
			},
		});
		const mini: Program = { name: "mini", version: "1.0.0", summary: "test", commands: [boom] };
		const io = fakeIO();
		expect(await runProgram(mini, ["boom"], io)).toBe(1);
		expect(io.err()).toMatch(/^mini boom: internal error\nError: kaput\n/);
	});

	it("passes typed options and resolved paths to the dev host factory", async () => {
		const seen: unknown[] = [];
		const dev = createDevCommand(async (options) => {
			seen.push({ ...options, log: typeof options.log });
			throw new Error("no host in this test");
		});
		const io = fakeIO();
		const code = await runProgram(
			{ ...program, commands: [dev] },
			["dev", "a.ts", "--env=memory", "--no-watch", "--cwd", "sub", "--", "-odd.ts"],
			io,
		);
		expect(code).toBe(1);
		expect(io.err()).toBe("toolsmith dev: could not start the host: no host in this test\n");
		expect(seen).toEqual([
			{
				paths: ["/project/a.ts", "/project/-odd.ts"],
				env: "memory",
				cwd: "/project/sub",
				watch: false,
				confine: false,
				confineReads: false,
				log: "function",
			},
		]);
	});

	it("passes --confine to the dev host factory", async () => {
		const seen: unknown[] = [];
		const dev = createDevCommand(async (options) => {
			seen.push([options.confine, options.confineReads]);
			throw new Error("no host in this test");
		});
		await runProgram({ ...program, commands: [dev] }, ["dev", "--confine"], fakeIO());
		await runProgram({ ...program, commands: [dev] }, ["dev", "--confine-reads"], fakeIO());
		expect(seen).toEqual([
			[true, false],
			[false, true],
		]);
	});
});
