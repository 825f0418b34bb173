/**
 * `toolsmith check --mcp`: the conformance checks on the tools of a real MCP server, started over
 * stdio from a command line or reached over Streamable HTTP.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { afterAll, describe, expect, it } from "vitest";
import { program } from "../../../src/cli/_program.js";
import { runProgram } from "../../../src/command/node-command.js";
import { defineTool } from "../../../src/contract/tool.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { serveMcpOverHttp } from "../../../src/mcp/node-http.js";
import { fakeIO } from "../../unit/cli/_fake-host.js";
import { repoRoot } from "./_run.js";

// A folder with a space in its name: the command line must be quoted to reach it.
const dir = mkdtempSync(join(tmpdir(), "toolsmith check mcp "));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = join(repoRoot, "test/fixtures/mcp/check-server.mjs");
let runs = 0;

async function cli(argv: string[]) {
	const io = { ...fakeIO(), cwd: repoRoot };
	const code = await runProgram(program, argv, io);
	return { code, stdout: io.out(), stderr: io.err() };
}

/** A fresh calls file and pid file, and the `--mcp` command line that starts the fixture with them. */
function server(...flags: string[]) {
	runs++;
	const calls = join(dir, `calls ${runs}.jsonl`);
	const pid = join(dir, `pid ${runs}`);
	const line = ["node", fixture, calls, pid, ...flags].map((word) => `"${word.replaceAll('"', '\\"')}"`).join(" ");
	return { calls, pid, line };
}

function alive(pidFile: string): boolean {
	try {
		process.kill(Number(readFileSync(pidFile, "utf8")), 0);
		return true;
	} catch {
		return false;
	}
}

describe("toolsmith check --mcp", () => {
	it("checks every tool of a stdio server, calls only the read-only ones, and ends the server", async () => {
		const { calls, pid, line } = server();
		const run = await cli(["check", "--mcp", line]);
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		const lookup = run.stdout.slice(run.stdout.indexOf("PASS lookup"), run.stdout.indexOf("PASS record"));
		expect(lookup).toMatch(/✓ valid-samples: /);
		expect(lookup).toMatch(/✓ invalid-samples: /);
		expect(lookup).toMatch(/✓ deterministic: /);
		const record = run.stdout.slice(run.stdout.indexOf("PASS record"));
		expect(record).toMatch(/✓ name-valid: /);
		expect(record).toMatch(/✓ schema-anthropic: /);
		expect(record).toMatch(
			/- valid-samples: not called: the MCP server does not mark the tool read-only \(readOnlyHint\), .*--call-all/,
		);
		expect(existsSync(calls)).toBe(false);
		expect(alive(pid)).toBe(false);
	});

	it("calls the other tools too with --call-all", async () => {
		const { calls, pid, line } = server();
		const run = await cli(["check", "--mcp", line, "--call-all"]);
		expect(run.code).toBe(0);
		expect(run.stdout.slice(run.stdout.indexOf("PASS record"))).toMatch(/✓ valid-samples: /);
		const notes = readFileSync(calls, "utf8").trim().split("\n");
		expect(notes.length).toBeGreaterThan(1);
		for (const note of notes) expect(JSON.parse(note)).toHaveProperty("note");
		expect(alive(pid)).toBe(false);
	});

	it("fails a server tool that breaks a check, with the extension tools checked beside it", async () => {
		const { pid, line } = server("--bad");
		const run = await cli(["check", "docs/examples/hello.ts", "--mcp", line]);
		expect(run.code).toBe(1);
		expect(run.stdout).toMatch(/^PASS hello\n/);
		expect(run.stdout).toMatch(/\nFAIL terse\n {2}✓ name-valid: [^\n]*\n {2}✗ description: /);
		expect(alive(pid)).toBe(false);
	});

	it("checks a Streamable HTTP server, sending --header with every request", async () => {
		const echo = defineTool({
			name: "echo",
			label: "Echo",
			description: "Echoes the text it is given.",
			parameters: Type.Object({ text: Type.String() }),
			annotations: { readOnlyHint: true },
			async execute(_id, { text }) {
				return { content: [{ type: "text", text }], details: undefined };
			},
		});
		const endpoint = await serveMcpOverHttp({ tools: [echo], env: new MemoryExecutionEnv(), token: "s3cret" });
		try {
			const ok = await cli(["check", "--mcp", endpoint.url, "--header", "Authorization: Bearer s3cret"]);
			expect(ok.code).toBe(0);
			expect(ok.stdout).toMatch(/^PASS echo\n[\s\S]*✓ valid-samples: /);
			const refused = await cli(["check", "--mcp", endpoint.url]);
			expect(refused.code).toBe(1);
			expect(refused.stderr).toMatch(/^toolsmith check: cannot check the MCP server http:\/\/127\.0\.0\.1:\d+\/mcp: /);
		} finally {
			await endpoint.close();
		}
		expect(endpoint.sessions()).toBe(0);
	});

	it("says what is wrong with a server that cannot start, and with bad --mcp usage", async () => {
		const missing = await cli(["check", "--mcp", "toolsmith-no-such-command --stdio"]);
		expect(missing.code).toBe(1);
		expect(missing.stderr).toMatch(/^toolsmith check: cannot check the MCP server toolsmith-no-such-command --stdio: /);

		const usage = async (argv: string[]) => {
			const run = await cli(argv);
			expect(run.code).toBe(2);
			return run.stderr.split("\n")[0];
		};
		expect(await usage(["check"])).toBe(
			"toolsmith check: give extension paths to check, or --mcp <command|url> for the tools of an MCP server",
		);
		expect(await usage(["check", "--mcp", "node 'server.mjs"])).toBe(
			"toolsmith check: cannot split --mcp 'node 'server.mjs': unterminated single quote at column 6",
		);
		expect(await usage(["check", "--mcp", "  "])).toBe(
			"toolsmith check: --mcp needs the command that starts the server, or its http(s) URL",
		);
		expect(await usage(["check", "--mcp", "node server.mjs", "--header", "Authorization: Bearer x"])).toBe(
			"toolsmith check: --header applies to an --mcp URL only (a stdio server has no headers)",
		);
		expect(await usage(["check", "--mcp", "http://127.0.0.1:1/mcp", "--header", "no colon"])).toBe(
			"toolsmith check: invalid --header 'no colon': expected 'Name: value'",
		);
		expect(await usage(["check", ".", "--call-all"])).toBe("toolsmith check: --call-all applies to --mcp only");
	});
});
