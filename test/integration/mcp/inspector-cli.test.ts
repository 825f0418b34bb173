/**
 * `toolsmith mcp` under a second, independent client: the MCP Inspector's CLI mode
 * (`@modelcontextprotocol/inspector --cli`), which is built on the SDK's 2.x client packages, not
 * on the 1.x SDK the server uses. It starts the server itself over stdio, or connects over
 * Streamable HTTP, and prints what it got as JSON.
 *
 * Needs the benchmark peers (`npm run bench:setup`: the Inspector and the Node 22 its engines ask
 * for); skips without them, and fails instead when `TOOLSMITH_REQUIRE_PEERS=1`.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { peersDir } from "../../bench/_peer.js";
import { makeProject, mcpCommand, type Project, startHttp } from "./_cli-server.js";

const node22 = join(peersDir, "node_modules", ".bin", "node");
const inspector = join(
	peersDir,
	"node_modules",
	"@modelcontextprotocol",
	"inspector",
	"clients",
	"launcher",
	"build",
	"index.js",
);
const installed = existsSync(node22) && existsSync(inspector);
const required = process.env.TOOLSMITH_REQUIRE_PEERS === "1";
if (!installed && required)
	throw new Error("The MCP Inspector is not installed in test/bench/peers: run `npm run bench:setup`.");
if (!installed)
	console.warn("MCP Inspector tests skipped: the benchmark peers are not installed (npm run bench:setup).");

interface Run {
	readonly code: number;
	readonly stdout: string;
	readonly stderr: string;
}

let home: string;

/** The Inspector's CLI with `args`, its catalog and home kept in a temp folder. */
function inspect(args: readonly string[], cwd: string): Promise<Run> {
	return new Promise((resolve) => {
		execFile(
			node22,
			[inspector, "--cli", ...args],
			{
				cwd,
				timeout: 60_000,
				env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, "mcp.json"), NO_COLOR: "1" },
			},
			(error, stdout, stderr) => {
				const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
				resolve({ code, stdout, stderr });
			},
		);
	});
}

/** The command line that makes the Inspector start `toolsmith mcp` of the current sources with these arguments. */
function server(args: readonly string[]): string[] {
	const { command, args: argv } = mcpCommand(args);
	return [command, ...argv];
}

function json(run: Run): Record<string, unknown> {
	try {
		return JSON.parse(run.stdout) as Record<string, unknown>;
	} catch {
		throw new Error(`the Inspector printed no JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
	}
}

const textOf = (result: Record<string, unknown>) =>
	(result.content as { type: string; text?: string }[]).map((block) => block.text ?? "").join("\n");

describe.skipIf(!installed)("the MCP Inspector's CLI against toolsmith mcp", () => {
	let project: Project;
	beforeAll(() => {
		project = makeProject();
		home = mkdtempSync(join(tmpdir(), "toolsmith-inspector-home-"));
	});
	afterAll(() => {
		project?.remove();
		rmSync(home, { recursive: true, force: true });
	});

	it("tools/list over stdio: every tool with its schema and annotations, and no portability problem under --strict", async () => {
		const run = await inspect(
			[...server([".", "--builtins", "--no-watch"]), "--method", "tools/list", "--strict"],
			project.dir,
		);
		expect(run.code, run.stderr).toBe(0);
		const tools = json(run).tools as { name: string; title?: string; inputSchema: object; annotations?: object }[];
		expect(tools.map((t) => t.name).sort()).toEqual(
			["bash", "countdown", "edit", "hello", "read", "todo", "wait", "write"].sort(),
		);
		const hello = tools.find((t) => t.name === "hello");
		expect(hello?.title).toBe("Hello");
		expect(hello?.inputSchema).toMatchObject({
			type: "object",
			required: ["name"],
			properties: { name: { type: "string" } },
		});
		expect(tools.find((t) => t.name === "bash")?.annotations).toMatchObject({ openWorldHint: true });
		expect(tools.find((t) => t.name === "write")?.annotations).toMatchObject({ readOnlyHint: false });
		// The probe extension wrote to stdout at load: it went to stderr, so the Inspector read clean JSON-RPC.
		expect(run.stderr).toContain("probe: loaded (console.log)");
	}, 90_000);

	it("tools/call over stdio: a result with its details, and an error result the Inspector flags", async () => {
		const ok = await inspect(
			[...server(["."]), "--method", "tools/call", "--tool-name", "hello", "--tool-arg", "name=Ada"],
			project.dir,
		);
		expect(ok.code, ok.stderr).toBe(0);
		const result = json(ok);
		expect(textOf(result)).toBe("Hello, Ada.");
		expect(result.isError).toBeUndefined();
		expect(result._meta).toEqual({ "toolsmith/details": { name: "Ada" } });

		const bad = await inspect([...server(["."]), "--method", "tools/call", "--tool-name", "hello"], project.dir);
		// The Inspector prints the result, its own error line on stderr, and exits 5 for an isError result.
		expect(bad.code).toBe(5);
		expect(json(bad).isError).toBe(true);
		expect(textOf(json(bad))).toContain("/name: missing, expected string");
		expect(bad.stderr).toContain("tool_is_error");
	}, 90_000);

	it("over Streamable HTTP: tools/call answers, a foreign Origin is refused with 403", async () => {
		const { server: raw, url: endpoint } = await startHttp([".", "--no-watch"], project.dir);
		const url = endpoint.href;
		try {
			const ok = await inspect(
				[
					url,
					"--transport",
					"http",
					"--method",
					"tools/call",
					"--tool-name",
					"countdown",
					"--tool-arg",
					"from=2",
					"intervalMs=1",
				],
				project.dir,
			);
			expect(ok.code, ok.stderr).toBe(0);
			expect(textOf(json(ok))).toBe("Counted down from 2.");

			const foreign = await inspect(
				[url, "--transport", "http", "--header", "Origin: http://evil.example", "--method", "tools/list"],
				project.dir,
			);
			expect(foreign.code).not.toBe(0);
			expect(foreign.stderr).toContain('"status":403');
			expect(foreign.stderr).toContain("is not allowed");
			expect(foreign.stdout).not.toContain('"tools"');
		} finally {
			raw.kill("SIGTERM");
			await raw.exited;
		}
	}, 90_000);
});
