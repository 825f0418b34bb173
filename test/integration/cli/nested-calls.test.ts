/**
 * Nested calls end to end through the real CLI (child processes): `toolsmith dev` and
 * `toolsmith mcp` (with the SDK's own client over stdio) on a pi 1.6.0 extension whose tool calls
 * other tools with `ctx.executeTool` (test/fixtures/pi-1x-nested). The nested calls go through
 * validation, the extension's `tool_call`/`tool_result` handlers and the callable set, and their
 * results, errors included, reach the caller's output: drawn under the call in `dev`, and in the
 * MCP result (`_meta` carries the calling tool's details and the `nestedCalls` record).
 */
import { copyFileSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, describe, it } from "vitest";
import { MCP_DETAILS_META_KEY, MCP_NESTED_CALLS_META_KEY } from "../../../src/mcp/node-server.js";
import { mcpCommand, textOf } from "../mcp/_cli-server.js";
import { repoRoot, runCli } from "./_run.js";

const scratch = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-nested-cli-")));
copyFileSync(join(repoRoot, "test", "fixtures", "pi-1x-nested", "index.ts"), join(scratch, "nested.ts"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Outcome {
	id: string;
	name: string;
	isError: boolean;
	text: string;
	structuredContent?: unknown;
}

describe.concurrent("nested calls through the CLI", () => {
	it("toolsmith dev draws each nested call with the extension's renderer, errors included", async ({ expect }) => {
		const run = await runCli(["dev", "nested.ts", "--no-watch"], {
			cwd: scratch,
			input: 'call gather {"key":"beta"}\nexit\n',
		});
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		const out = run.stdout.replace(/\d+ ms/g, "N ms").replace(/[ \t]+$/gm, "");
		expect(out).toContain("toolsmith dev · 6 tools (2 from extensions)");
		expect(out.slice(out.indexOf("> call gather"))).toMatchInlineSnapshot(`
			"> call gather {"key":"beta"}
			gather {"key":"beta"}
			  ↳ lookup beta in the table of known keys
			      = beta = 2
			    ✓ ok · call-1/1 · N ms
			  ↳ lookup undefined in the table of known keys
			      = Invalid arguments for tool "lookup":
			        - /key: missing, expected string

			      Received arguments:
			      {}

			      Fix the listed fields and call the tool again.
			    ✗ error · call-1/2
			  ↳ lookup blocked in the table of known keys
			      = lookup of blocked keys is not allowed
			    ✗ error · call-1/3
			  ↳ secret
			      Tool secret not found. Available tools: read, bash, edit, write, gather, lookup.
			    ✗ error · call-1/4
			  call-1/1 lookup: beta = 2
			  call-1/2 lookup: error
			  call-1/3 lookup: error
			  call-1/4 secret: error
			✓ ok · N ms
			> exit
			"
		`);
	}, 120_000);

	it("toolsmith mcp returns the caller's result with the nested outcomes and their record", async ({ expect }) => {
		const transport = new StdioClientTransport({ ...mcpCommand(["nested.ts"]), cwd: scratch, stderr: "pipe" });
		let stderr = "";
		transport.stderr?.on("data", (chunk: Buffer) => {
			stderr += chunk.toString("utf8");
		});
		const client = new Client({ name: "nested-test", version: "0.0.0" });
		await client.connect(transport);
		try {
			const { tools } = await client.listTools();
			// lookup is codemode: callable by tools, not listed; secret is model-only: listed.
			expect(tools.map((t) => t.name)).toEqual(["secret", "gather"]);
			const result = await client.callTool({ name: "gather", arguments: { key: "beta" } });
			expect(result.isError).toBeFalsy();
			const id = /^(mcp-\d+)\/1 /.exec(textOf(result))?.[1] as string;
			expect(textOf(result)).toBe(
				[`${id}/1 lookup: beta = 2`, `${id}/2 lookup: error`, `${id}/3 lookup: error`, `${id}/4 secret: error`].join(
					"\n",
				),
			);
			expect(result.structuredContent).toEqual({ key: "beta", value: 2 });
			const meta = result._meta as Record<string, unknown>;
			const details = meta[MCP_DETAILS_META_KEY] as { callable: string[]; outcomes: Outcome[]; heard: string[] };
			expect(details.callable).toEqual(["gather", "lookup"]);
			expect(details.outcomes.map((o) => [o.id, o.name, o.isError])).toEqual([
				[`${id}/1`, "lookup", false],
				[`${id}/2`, "lookup", true],
				[`${id}/3`, "lookup", true],
				[`${id}/4`, "secret", true],
			]);
			expect(details.outcomes[0]?.structuredContent).toEqual({ key: "beta", value: 2 });
			expect(details.outcomes[1]?.text).toMatch(/^Invalid arguments for tool "lookup":\n {2}- \/key: missing/);
			expect(details.outcomes[2]?.text).toBe("lookup of blocked keys is not allowed");
			expect(details.outcomes[3]?.text).toBe("Tool secret not found. Available tools: gather, lookup.");
			// The extension's handlers saw the nested calls (not the one validation refused).
			expect(details.heard).toEqual([
				`call gather ${id} parent=-`,
				`call lookup ${id}/1 parent=${id}`,
				`result lookup ${id}/1 parent=${id} error=false`,
				`call lookup ${id}/3 parent=${id}`,
			]);
			const record = meta[MCP_NESTED_CALLS_META_KEY] as {
				calls: { id: string; status: string; arguments?: unknown; error?: string }[];
				complete: boolean;
			};
			expect(record.complete).toBe(true);
			expect(record.calls.map(({ id, status, arguments: args }) => ({ id, status, args }))).toEqual([
				{ id: `${id}/1`, status: "ok", args: { key: "beta" } },
				{ id: `${id}/2`, status: "error", args: {} },
				{ id: `${id}/3`, status: "error", args: { key: "blocked" } },
				{ id: `${id}/4`, status: "error", args: {} },
			]);
			expect(record.calls[1]?.error).toContain('Invalid arguments for tool "lookup"');
			// A codemode tool is for tools to call, not for MCP clients.
			const direct = await client.callTool({ name: "lookup", arguments: { key: "beta" } });
			expect(direct.isError).toBe(true);
			expect(textOf(direct)).toMatch(/^Tool lookup not found/);
		} finally {
			await client.close();
		}
		expect(stderr).toMatch(/toolsmith mcp · 2 tools · stdio/);
	}, 120_000);
});
