import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startCli } from "./_run.js";

const scratch = mkdtempSync(join(tmpdir(), "toolsmith-dev-stray-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// The timer's callback lives in a module the extension imports: attribution follows the stack
// through the extension's own modules, not only its entry file.
writeFileSync(
	join(scratch, "later.ts"),
	"export function throwLater(message: string) {\n  setTimeout(() => {\n    throw new Error(message);\n  }, 5);\n}\n",
);
writeFileSync(
	join(scratch, "stray.ts"),
	[
		'import { defineTool, Type } from "toolsmith-sdk";',
		'import { throwLater } from "./later.ts";',
		"export default function (api) {",
		"  api.registerTool(defineTool({ name: 'stray', label: 'Stray', description: 'Leaves an error behind.',",
		"    parameters: Type.Object({ kind: Type.String() }),",
		"    async execute(_id, { kind }) {",
		"      if (kind === 'timer') throwLater('timer went off');",
		"      else Promise.reject(new Error('nobody caught me'));",
		"      return { content: [{ type: 'text', text: 'left a ' + kind + ' behind' }], details: {} };",
		"    } }));",
		"  api.registerTool(defineTool({ name: 'ping', label: 'Ping', description: 'Answers pong.',",
		"    parameters: Type.Object({}),",
		"    async execute() { return { content: [{ type: 'text', text: 'pong' }], details: {} }; } }));",
		"}",
		"",
	].join("\n"),
);

describe("toolsmith dev survives its extensions' stray errors (child process over stdin)", () => {
	it("reports a throw in a timer and an unhandled rejection as diagnostics naming the extension, and keeps serving", async () => {
		const cli = startCli(["dev", join(scratch, "stray.ts"), "--no-watch"], { cwd: scratch });
		await cli.waitFor(/type help for commands/);
		cli.send('call stray {"kind":"timer"}');
		await cli.waitFor(/E_UNCAUGHT/);
		cli.send('call stray {"kind":"rejection"}');
		await cli.waitFor(/E_UNCAUGHT[\s\S]*E_UNCAUGHT/);
		cli.send("call ping {}");
		await cli.waitFor(/pong/);
		const run = await cli.end();
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(
			/stray\.ts An uncaught exception in this extension: timer went off\. The host caught it and keeps running/,
		);
		expect(run.stdout).toMatch(/stray\.ts An unhandled promise rejection in this extension: nobody caught me\./);
		expect(run.stdout).toContain("left a timer behind");
		expect(run.stderr).not.toMatch(/timer went off|nobody caught me/);
	}, 60_000);
});
