import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startCli } from "./_run.js";

const scratch = mkdtempSync(join(tmpdir(), "toolsmith-dev-watch-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const tool = (name: string, text: string) => `import { defineTool, Type } from "toolsmith-sdk";
export default function (api) {
	api.registerTool(defineTool({ name: "${name}", label: "${name}", description: "Weather, ${name}.",
		parameters: Type.Object({}),
		async execute() { return { content: [{ type: "text", text: "${text}" }], details: {} }; } }));
}
`;

describe("toolsmith dev with watching (child process)", () => {
	it("prints one line per reload, keeps the last good version through a broken save, and recovers", async () => {
		const file = join(scratch, "weather.ts");
		writeFileSync(file, tool("current", "sunny v1"));
		const cli = startCli(["dev", "weather.ts"], { cwd: scratch });
		await cli.waitFor(/type help for commands\n/);
		cli.send("call current");
		await cli.waitFor(/sunny v1\n✓ ok/);

		writeFileSync(file, tool("current", "sunny v2"));
		await cli.waitFor(/reloaded weather\.ts in \d+ ms · ~current\n/);
		cli.send("call current");
		await cli.waitFor(/sunny v2\n✓ ok/);

		writeFileSync(file, "export default function (api) {\n\tapi.registerTool({ name: \n}\n");
		await cli.waitFor(/reload failed weather\.ts/);
		cli.send("call current");
		await cli.waitFor(/sunny v2\n✓ ok · \d+ ms\n(.|\n)*sunny v2\n✓ ok/);

		writeFileSync(file, tool("forecast", "rain"));
		await cli.waitFor(/reloaded weather\.ts in \d+ ms · \+forecast -current\n/);
		cli.send("call forecast");
		await cli.waitFor(/rain\n✓ ok/);
		const run = await cli.end();
		expect(run.code).toBe(0);
		expect(run.stderr).toBe("");
		const out = run.stdout
			.replaceAll(scratch, "<tmp>")
			.replace(/\d+ ms/g, "N ms")
			.replace(/:\d+:\d+/g, ":L:C");
		expect(out).toMatchInlineSnapshot(`
			"toolsmith dev · 5 tools (1 from extensions) · node env · cwd .
			  name     source      mode      parameters
			  read     built-in    parallel  path: string, offset?: number, limit?: number
			  bash     built-in    parallel  command: string, timeout?: number
			  edit     built-in    parallel  path: string, edits: object[]
			  write    built-in    parallel  path: string, content: string
			  current  weather.ts  parallel  (none)
			watching 1 path · type help for commands
			> call current
			current
			  sunny v1
			✓ ok · N ms
			reloaded weather.ts in N ms · ~current
			> call current
			current
			  sunny v2
			✓ ok · N ms
			reload failed weather.ts in N ms · the previous version stays active
			  error weather.ts:L:C does not parse: Unexpected token. The extension was not loaded. [E_SYNTAX]
			> call current
			current
			  sunny v2
			✓ ok · N ms
			reloaded weather.ts in N ms · +forecast -current
			> call forecast
			forecast
			  rain
			✓ ok · N ms
			"
		`);
	});
});
