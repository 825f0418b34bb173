/**
 * Extensions that call `process.exit` (or `process.abort`): `toolsmith dev` and `toolsmith mcp`
 * (real child processes, real jiti loading) refuse it with E_PROCESS_EXIT, as the call's error
 * result, as the extension's load diagnostic, or as a stray-error diagnostic from a timer, and keep
 * serving.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { INITIALIZE, startRaw, textOf } from "../mcp/_cli-server.js";
import { startCli } from "./_run.js";

const scratch = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-process-exit-")));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

writeFileSync(
	join(scratch, "quits.ts"),
	`import { defineTool, Type } from "toolsmith-sdk";
export default function (api) {
	api.registerTool(defineTool({ name: "quit", label: "Quit", description: "Ends the process.",
		parameters: Type.Object({}),
		async execute() { process.exit(3); } }));
	api.registerTool(defineTool({ name: "later", label: "Later", description: "Ends the process from a timer.",
		parameters: Type.Object({}),
		async execute() {
			setTimeout(() => process.exit(5), 5);
			return { content: [{ type: "text", text: "scheduled" }], details: {} };
		} }));
	api.registerTool(defineTool({ name: "ping", label: "Ping", description: "Answers pong.",
		parameters: Type.Object({}),
		async execute() { return { content: [{ type: "text", text: "pong" }], details: {} }; } }));
}
`,
);
writeFileSync(join(scratch, "top-level.ts"), "process.exit(4);\nexport default function () {}\n");
writeFileSync(join(scratch, "factory.ts"), "export default function () {\n\tprocess.abort();\n}\n");

const REFUSED = "was refused (E_PROCESS_EXIT): an extension may not end the host; throw an error instead.";

describe("process.exit from extension code", () => {
	it("toolsmith dev refuses it at load time, in a tool call and in a timer, and keeps serving", async () => {
		const cli = startCli(["dev", "quits.ts", "top-level.ts", "factory.ts", "--no-watch"], { cwd: scratch });
		await cli.waitFor(/type help for commands\n/);
		expect(cli.stdout()).toMatch(
			/error top-level\.ts.* tried to end the process while its module was evaluated: process\.exit\(4\) was refused .*\[E_PROCESS_EXIT\]/,
		);
		expect(cli.stdout()).toMatch(
			/error factory\.ts.* tried to end the process: process\.abort\(\) was refused .*\[E_PROCESS_EXIT\]/,
		);
		cli.send("call quit");
		await cli.waitFor(/process\.exit\(3\) was refused[^\n]*\n✗ error/);
		cli.send("call later");
		await cli.waitFor(/error quits\.ts This extension tried to end the process from a timer[^\n]*\[E_PROCESS_EXIT\]/);
		cli.send("call ping");
		await cli.waitFor(/pong\n✓ ok/);
		const run = await cli.end();
		expect(run.code).toBe(0);
		expect(run.stdout).toContain(REFUSED);
		expect(run.stderr).toBe("");
	}, 60_000);

	it("toolsmith mcp gives a tool's process.exit as an error result and keeps serving", async () => {
		const server = startRaw(["quits.ts", "top-level.ts", "--no-watch"], scratch);
		try {
			server.send(INITIALIZE);
			await server.waitFor((m) => m.id === 0, 30_000);
			server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
			server.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "quit", arguments: {} } });
			const quit = (await server.waitFor((m) => m.id === 1)).result as { isError?: boolean };
			expect(quit.isError).toBe(true);
			expect(textOf(quit)).toContain(`process.exit(3) ${REFUSED}`);
			server.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "ping", arguments: {} } });
			expect(textOf((await server.waitFor((m) => m.id === 2)).result as object)).toBe("pong");
			expect(server.stderr()).toMatch(/error top-level\.ts.*process\.exit\(4\) was refused.*\[E_PROCESS_EXIT\]/);
			server.endStdin();
			expect(await server.exited).toBe(0);
		} finally {
			server.kill("SIGTERM");
		}
	}, 60_000);
});
