/**
 * An extension whose top-level `await` never settles, beside a good one: `toolsmith dev` and
 * `toolsmith mcp` (real child processes, real jiti loading, real files) give it an E_LOAD_TIMEOUT
 * diagnostic naming its file after `--load-timeout`, serve the good one and keep running; a hot
 * reload to a hanging version keeps the last good one.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadExtensions } from "../../../src/extensions/node-loader.js";
import { INITIALIZE, startRaw, textOf } from "../mcp/_cli-server.js";
import { startCli } from "./_run.js";

const scratch = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-load-timeout-")));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const tool = (name: string, text: string) => `import { defineTool, Type } from "toolsmith-sdk";
export default function (api) {
	api.registerTool(defineTool({ name: "${name}", label: "${name}", description: "Answers ${text}.",
		parameters: Type.Object({}),
		async execute() { return { content: [{ type: "text", text: "${text}" }], details: {} }; } }));
}
`;
const HANGS = `await new Promise(() => {});\n${tool("never", "never")}`;

writeFileSync(join(scratch, "good.ts"), tool("ping", "pong"));
writeFileSync(join(scratch, "hangs.ts"), HANGS);

const TIMEOUT_LINE = /error hangs\.ts .*hangs\.ts did not finish evaluating within 700 ms .*\[E_LOAD_TIMEOUT\]/;

describe("a top-level await that never settles", () => {
	it("toolsmith dev prints E_LOAD_TIMEOUT for it, serves the good extension and keeps running", async () => {
		const started = Date.now();
		const cli = startCli(["dev", "good.ts", "hangs.ts", "--no-watch", "--load-timeout", "700"], { cwd: scratch });
		await cli.waitFor(/type help for commands\n/);
		expect(Date.now() - started).toBeGreaterThanOrEqual(700);
		expect(cli.stdout()).toMatch(TIMEOUT_LINE);
		expect(cli.stdout()).toMatch(/ping +good\.ts/);
		expect(cli.stdout()).not.toMatch(/^ +never /m);
		cli.send("call ping");
		await cli.waitFor(/pong\n✓ ok/);
		const run = await cli.end();
		expect(run.code).toBe(0);
		expect(run.stderr).toBe("");
	}, 60_000);

	it("toolsmith mcp prints E_LOAD_TIMEOUT on stderr and serves the good extension's tools", async () => {
		const server = startRaw(["good.ts", "hangs.ts", "--no-watch", "--load-timeout", "700"], scratch);
		try {
			server.send(INITIALIZE);
			await server.waitFor((m) => m.id === 0, 30_000);
			server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
			server.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
			const list = await server.waitFor((m) => m.id === 1);
			const names = ((list.result as { tools: { name: string }[] }).tools ?? []).map((t) => t.name);
			expect(names).toEqual(["ping"]);
			server.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "ping", arguments: {} } });
			const call = await server.waitFor((m) => m.id === 2);
			expect(textOf(call.result as object)).toBe("pong");
			expect(server.stderr()).toMatch(TIMEOUT_LINE);
			server.endStdin();
			expect(await server.exited).toBe(0);
		} finally {
			server.kill("SIGTERM");
		}
	}, 60_000);

	it("a reload to a version that hangs keeps the last good version, with the diagnostic", async () => {
		const file = join(scratch, "reloaded.ts");
		writeFileSync(file, tool("weather", "sunny"));
		const cli = startCli(["dev", "reloaded.ts", "--load-timeout", "700"], { cwd: scratch });
		await cli.waitFor(/type help for commands\n/);
		writeFileSync(file, `await new Promise(() => {});\n${tool("weather", "hung")}`);
		await cli.waitFor(/reload failed reloaded\.ts in \d+ ms · the previous version stays active\n.*\[E_LOAD_TIMEOUT\]/);
		cli.send("call weather");
		await cli.waitFor(/sunny\n✓ ok/);
		writeFileSync(file, tool("weather", "rain"));
		await cli.waitFor(/reloaded reloaded\.ts in \d+ ms/);
		cli.send("call weather");
		await cli.waitFor(/rain\n✓ ok/);
		const run = await cli.end();
		expect(run.code).toBe(0);
	}, 60_000);

	it("loadExtensions (check, test, schema) bounds it too and loads the others", async () => {
		const loaded = await loadExtensions([join(scratch, "hangs.ts"), join(scratch, "good.ts")], {
			cwd: scratch,
			builtins: false,
			loadTimeoutMs: 300,
		});
		expect(loaded.diagnostics.map((d) => [d.code, d.path])).toEqual([["E_LOAD_TIMEOUT", join(scratch, "hangs.ts")]]);
		expect(loaded.registry.entries().map((e) => e.name)).toEqual(["ping"]);
	});
});
