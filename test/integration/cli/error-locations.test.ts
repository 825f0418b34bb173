/**
 * A project laid out like the templates (an entry that registers every tool of `src/tools/`):
 * `check`, `test`, `dev`, `inspect` and `mcp` report an error of a tool's module at that module, and show each tool's
 * own file. Real files, the CLI as a child process.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InspectorState } from "../../../src/inspector/protocol.js";
import { startInspectCli } from "../inspector/_cli.js";
import { runCli, startCli } from "./_run.js";

const ENTRY = `import { defineExtension } from "toolsmith-sdk";
import * as tools from "./tools/index.js";

export default defineExtension((api) => {
	for (const tool of Object.values(tools)) api.registerTool(tool);
});
`;

const tool = (name: string, ident: string, text: string) => `import { defineTool, Type } from "toolsmith-sdk";

export const ${ident} = defineTool({
	name: "${name}",
	label: "${name}",
	description: "Answers ${text}, for tests.",
	parameters: Type.Object({}),
	async execute() {
		return { content: [{ type: "text", text: "${text}" }], details: {} };
	},
});
`;

/** Line 9 loses the brace that closes the result: `details: {} ;`, the `;` at column 65. */
const BROKEN = (name: string, ident: string, text: string) =>
	tool(name, ident, text).replace("details: {} };", "details: {} ;");

let dir: string;
const jsonGet = () => join(dir, "src/tools/json-get.ts");

function project(): void {
	writeFileSync(
		join(dir, "package.json"),
		JSON.stringify({ name: "p", type: "module", private: true, toolsmith: { extensions: ["./src/index.ts"] } }),
	);
	mkdirSync(join(dir, "src/tools"), { recursive: true });
	mkdirSync(join(dir, "test/fixtures"), { recursive: true });
	writeFileSync(join(dir, "src/index.ts"), ENTRY);
	writeFileSync(
		join(dir, "src/tools/index.ts"),
		'export { hello } from "./hello.js";\nexport { jsonGet } from "./json-get.js";\n',
	);
	writeFileSync(join(dir, "src/tools/hello.ts"), tool("hello", "hello", "hi"));
	writeFileSync(jsonGet(), tool("json_get", "jsonGet", "v1"));
	writeFileSync(
		join(dir, "test/fixtures/hello.json"),
		JSON.stringify({
			name: "hello",
			extensions: ["../.."],
			steps: [{ calls: [{ tool: "hello", args: {}, expect: { text: "hi" } }] }],
		}),
	);
}

beforeAll(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-error-locations-")));
	project();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SYNTAX_LINE =
	'error src/tools/json-get.ts:9:65 does not parse: Unexpected token, expected "," (imported by the extension src/index.ts). The extension was not loaded. [E_SYNTAX]';
const clean = (text: string) => text.replaceAll(dir, "<dir>").replace(/\d+ ms/g, "N ms");

describe("toolsmith check and test on a tool module that does not parse", () => {
	it("check names the module, line and column, and fails", async () => {
		writeFileSync(jsonGet(), BROKEN("json_get", "jsonGet", "v1"));
		try {
			const run = await runCli(["check", "."], { cwd: dir });
			expect(run.code).toBe(1);
			expect(clean(run.stderr).split("\n")).toContain(SYNTAX_LINE);
			expect(run.stderr).not.toContain("E_FACTORY_FAILED");
		} finally {
			writeFileSync(jsonGet(), tool("json_get", "jsonGet", "v1"));
		}
	}, 120_000);

	it("check on a project whose only extension does not load says so, not that it registers nothing", async () => {
		const entry = join(dir, "src/index.ts");
		writeFileSync(
			entry,
			`${ENTRY}
export const broken = ;\n`,
		);
		try {
			const run = await runCli(["check", "."], { cwd: dir });
			expect(run.code).toBe(1);
			expect(run.stderr).toContain(
				"no tools to check: the extensions at . did not load (the errors above say where; fix them and run check again)",
			);
			expect(run.stderr).not.toContain("register none");
		} finally {
			writeFileSync(entry, ENTRY);
		}
	}, 120_000);

	it("test names the module under the failing fixture", async () => {
		writeFileSync(jsonGet(), BROKEN("json_get", "jsonGet", "v1"));
		try {
			const run = await runCli(["test", "test/fixtures"], { cwd: dir });
			expect(run.code).toBe(1);
			expect(clean(run.stdout)).toContain(`  ✗ extensions: 1 error\n    ${SYNTAX_LINE}\n`);
		} finally {
			writeFileSync(jsonGet(), tool("json_get", "jsonGet", "v1"));
		}
	}, 120_000);
});

describe("toolsmith dev on a project with a module per tool", () => {
	it("shows each tool's file, reports a broken module at its line, and names the file on reload", async () => {
		const cli = startCli(["dev", "."], { cwd: dir });
		await cli.waitFor(/type help for commands\n/);

		writeFileSync(jsonGet(), BROKEN("json_get", "jsonGet", "v2"));
		await cli.waitFor(/E_SYNTAX\]\n/);
		cli.send("call json_get");
		await cli.waitFor(/v1\n✓ ok/);

		writeFileSync(jsonGet(), tool("json_get", "jsonGet", "v2"));
		await cli.waitFor(/reloaded src\/index\.ts in \d+ ms · ~json_get/);
		cli.send("call json_get");
		await cli.waitFor(/v2\n✓ ok/);
		const run = await cli.end();
		expect(run.code).toBe(0);
		expect(clean(run.stdout)).toBe(
			[
				"toolsmith dev · 6 tools (2 from extensions) · node env · cwd .",
				"  name      source                 mode      parameters",
				"  read      built-in               parallel  path: string, offset?: number, limit?: number",
				"  bash      built-in               parallel  command: string, timeout?: number",
				"  edit      built-in               parallel  path: string, edits: object[]",
				"  write     built-in               parallel  path: string, content: string",
				"  hello     src/tools/hello.ts     parallel  (none)",
				"  json_get  src/tools/json-get.ts  parallel  (none)",
				"watching 1 path · type help for commands",
				"reload failed src/index.ts in N ms · the previous version stays active",
				`  ${SYNTAX_LINE}`,
				"> call json_get",
				"json_get",
				"  v1",
				"✓ ok · N ms",
				"reloaded src/index.ts in N ms · ~json_get (src/tools/json-get.ts)",
				"> call json_get",
				"json_get",
				"  v2",
				"✓ ok · N ms",
				"",
			].join("\n"),
		);
	}, 120_000);
});

describe("toolsmith inspect on a project with a module per tool", () => {
	it("lists the broken module's diagnostic at its line, then each tool's own file and reload line", async () => {
		writeFileSync(jsonGet(), BROKEN("json_get", "jsonGet", "v1"));
		const inspect = await startInspectCli(["inspect", "."], { cwd: dir });
		const state = async () =>
			(await (
				await fetch(`http://127.0.0.1:${inspect.port}/api/state?token=${inspect.token}`)
			).json()) as InspectorState;
		try {
			const broken = await state();
			expect(broken.diagnostics.map((d) => clean(d.text))).toEqual([SYNTAX_LINE]);
			expect(broken.tools.map((t) => t.name)).not.toContain("json_get");

			writeFileSync(jsonGet(), tool("json_get", "jsonGet", "v2"));
			await expect.poll(async () => (await state()).reloads.length, { timeout: 30_000 }).toBe(1);
			const fixed = await state();
			expect(fixed.diagnostics).toEqual([]);
			expect(fixed.tools.filter((t) => t.kind === "extension").map((t) => [t.name, t.source])).toEqual([
				["hello", "src/tools/hello.ts"],
				["json_get", "src/tools/json-get.ts"],
			]);
			expect(clean(stripVTControlCharacters(fixed.reloads[0]?.lines[0] ?? ""))).toBe(
				"loaded src/index.ts in N ms · +hello (src/tools/hello.ts) +json_get (src/tools/json-get.ts)",
			);
		} finally {
			writeFileSync(jsonGet(), tool("json_get", "jsonGet", "v1"));
			await inspect.kill();
		}
	}, 120_000);
});

describe("toolsmith mcp on a project with a module per tool", () => {
	it("reports the broken module at its line on stderr and keeps serving", async () => {
		writeFileSync(jsonGet(), BROKEN("json_get", "jsonGet", "v1"));
		const cli = startCli(["mcp", "."], { cwd: dir });
		try {
			await expect
				.poll(() => clean(stripVTControlCharacters(cli.stderr())), { timeout: 60_000 })
				.toContain(SYNTAX_LINE);
			expect(cli.stderr()).not.toContain("E_FACTORY_FAILED");
			// Still a server: it answers an MCP request on stdio.
			cli.send(
				JSON.stringify({
					jsonrpc: "2.0",
					id: 1,
					method: "initialize",
					params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
				}),
			);
			await cli.waitFor(/"id":1/, 60_000);
		} finally {
			writeFileSync(jsonGet(), tool("json_get", "jsonGet", "v1"));
			await cli.kill();
		}
	}, 120_000);
});
