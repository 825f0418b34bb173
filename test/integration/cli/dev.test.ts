import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { repoRoot, runCli } from "./_run.js";

const scratch = mkdtempSync(join(tmpdir(), "toolsmith-dev-cli-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const normalize = (text: string) =>
	text
		.replaceAll(repoRoot, "<root>")
		.replaceAll(scratch, "<tmp>")
		.replace(/\d+ ms/g, "N ms");

// Each case is its own child process; running them side by side keeps the file quick.
describe.concurrent("toolsmith dev over piped stdin (child process)", () => {
	it("loads the demo extensions, runs calls with their renderers, and exits 0 at end of input", async ({ expect }) => {
		const script = [
			'call hello {"name":"Ada","excited":true}',
			'call countdown {"from":3,"intervalMs":1}',
			'call todo {"action":"add","text":"write docs"}',
			'call todo {"action":"done","id":1}',
			'call todo {"action":"done","id":7}',
			"/todos",
			'call read {"path":".env"}',
			'call read {"path":"docs/examples/hello.ts","limit":2}',
			"exit",
		].join("\n");
		const run = await runCli(["dev", "docs/examples", "--no-watch"], { input: `${script}\n` });
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(normalize(run.stdout)).toMatchInlineSnapshot(`
			"toolsmith dev · 7 tools (4 from extensions) · node env · cwd .
			  name       source                          mode        parameters
			  bash       built-in                        parallel    command: string, timeout?: number
			  edit       built-in                        parallel    path: string, edits: object[]
			  write      built-in                        parallel    path: string, content: string
			  countdown  docs/examples/countdown.ts      parallel    from: integer, intervalMs?: integer
			  hello      docs/examples/hello.ts          parallel    name: string, excited?: boolean
			  read       docs/examples/read-override.ts  parallel    path: string, offset?: number, limit?: number
			  todo       docs/examples/todo.ts           sequential  action: add|done|list|clear, text?: string, id?: integer

			  command  source                 description
			  /todos   docs/examples/todo.ts  Show the to-do list
			info docs/examples/read-override.ts Tool "read" from <root>/docs/examples/read-override.ts replaces the built-in tool of the same name. [I_BUILTIN_OVERRIDDEN]
			type help for commands
			> call hello {"name":"Ada","excited":true}
			hello Ada
			  Hello, Ada!
			✓ ok · N ms
			> call countdown {"from":3,"intervalMs":1}
			countdown {"from":3,"intervalMs":1}
			  … .................... 3 to go
			  … #######............. 2 to go
			  … #############....... 1 to go
			  liftoff (Counted down from 3.)
			✓ ok · N ms
			> call todo {"action":"add","text":"write docs"}
			todo {"action":"add","text":"write docs"}
			  #1 write docs
			✓ ok · N ms
			> call todo {"action":"done","id":1}
			todo {"action":"done","id":1}
			  #1 write docs
			✓ ok · N ms
			> call todo {"action":"done","id":7}
			todo {"action":"done","id":7}
			  no item #7; call todo with action=list to see the ids
			✗ error · N ms
			> /todos
			[info] [x] #1 write docs
			> call read {"path":".env"}
			read .env
			  Refusing to read .env: it usually holds secrets. Ask the user to share what you need.
			✗ error · N ms
			> call read {"path":"docs/examples/hello.ts","limit":2}
			read docs/examples/hello.ts
			  /**
			   * The smallest useful extension: one tool with a custom look in \`toolsmith dev\`.
			  
			  [33 more lines in file. Use offset=3 to continue.]
			✓ ok · N ms
			> exit
			"
		`);
	});

	it("runs tools against an in-memory env with --env memory, leaving the disk alone", async ({ expect }) => {
		const script = [
			'call write {"path":"notes.txt","content":"only in memory"}',
			'call read {"path":"notes.txt"}',
			'call bash {"command":"ls"}',
		].join("\n");
		const run = await runCli(["dev", "--env", "memory", "--cwd", scratch], { input: `${script}\n` });
		expect(run.code).toBe(0);
		const out = normalize(run.stdout);
		expect(out).toContain("toolsmith dev · 4 tools (0 from extensions) · memory env · cwd <tmp>");
		expect(out).toContain("  only in memory\n✓ ok");
		expect(out).toMatch(/> call bash \{"command":"ls"\}\n.*\n(.*\n)*✗ error/);
		const { existsSync } = await import("node:fs");
		expect(existsSync(join(scratch, "notes.txt"))).toBe(false);
	});

	it('draws results under the call, except for a tool with renderShell "self", which draws its own frame', async ({
		expect,
	}) => {
		const tool = (name: string, shell: string) =>
			[
				`  api.registerTool(defineTool({ name: '${name}', label: '${name}', description: 'Draws.',${shell}`,
				"    parameters: Type.Object({}),",
				"    async execute() { return { content: [{ type: 'text', text: 'x' }], details: {} }; },",
				"    renderResult(_r, _o, _t, ctx) { return '|w=' + ctx.width + ' pad=' + ctx.outputPad + '|'; } }));",
			].join("\n");
		writeFileSync(
			join(scratch, "shells.ts"),
			[
				'import { defineTool, Type } from "toolsmith-sdk";',
				"export default function (api) {",
				tool("framed", ""),
				tool("own", " renderShell: 'self',"),
				"}",
			].join("\n"),
		);
		const run = await runCli(["dev", join(scratch, "shells.ts"), "--no-watch"], {
			cwd: scratch,
			input: "call framed\ncall own\n",
		});
		expect(run.code).toBe(0);
		const framed = /^( *)\|w=(\d+) pad=1\|$/m.exec(run.stdout.slice(run.stdout.indexOf("> call framed")));
		const own = /^( *)\|w=(\d+) pad=1\|$/m.exec(run.stdout.slice(run.stdout.indexOf("> call own")));
		expect([framed?.[1], own?.[1]]).toEqual(["  ", ""]);
		expect(Number(own?.[2]) - Number(framed?.[2])).toBe(2);
	}, 90_000);

	it("prints load diagnostics with file:line:col, keeps the healthy extensions, and exits 1 on a bad line", async ({
		expect,
	}) => {
		writeFileSync(join(scratch, "broken.ts"), "export default function (api) {\n  api.registerTool({ name: \n}\n");
		writeFileSync(
			join(scratch, "fine.ts"),
			[
				'import { defineTool, Type } from "toolsmith-sdk";',
				"export default function (api) {",
				"  api.registerTool(defineTool({ name: 'fine', label: 'Fine', description: 'Always fine.',",
				"    parameters: Type.Object({}),",
				"    async execute() { return { content: [{ type: 'text', text: 'fine' }], details: {} }; },",
				"    renderResult() { throw new Error('renderer bug'); } }));",
				"}",
			].join("\n"),
		);
		const run = await runCli(["dev", join(scratch, "broken.ts"), join(scratch, "fine.ts"), "--no-watch"], {
			cwd: scratch,
			input: "call fine\nbogus\n",
		});
		expect(run.code).toBe(1);
		expect(normalize(run.stderr)).toBe("unknown command 'bogus' (type help for the list)\n");
		const out = normalize(run.stdout);
		expect(out).toMatch(/^error broken\.ts:\d+:\d+ .*\[E_SYNTAX\]$/m);
		expect(out).toMatch(/^ {2}fine +fine\.ts +parallel +\(none\)$/m);
		expect(out).toContain("  fine\n  ! renderResult of fine failed: renderer bug\n✓ ok");
	});
});
