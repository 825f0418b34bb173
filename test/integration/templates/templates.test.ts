/**
 * Every template, end to end, as a user gets it: both packages packed, `create-toolsmith` run from
 * its tarball with `--toolsmith <tarball>`, the project installed from the registry (one shared npm
 * cache), then its own `npm test`, a strict type check, `toolsmith check .` and `toolsmith dev .`
 * driven over stdin; for the `tool` template also `toolsmith new`; for the `mcp` template, its
 * `npm run --silent mcp` started the way an MCP client starts it, with the SDK's own client.
 */
import { copyFileSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { listTemplates } from "../../../create-tool/src/generator.js";
import { packCreateToolsmith, packToolsmith } from "../_pack.js";
import { installCreate, type Outcome, sh, show } from "./_scaffold.js";

const templatesDir = fileURLToPath(new URL("../../../templates", import.meta.url));
/**
 * A second tool as a user writes it (source, test, replay fixture) in a project whose entry registers
 * every tool of `src/tools/`: other parameters (an array of enums, an optional integer) and other
 * details than the template's tool.
 */
const secondTool = fileURLToPath(new URL("../../fixtures/second-tool/", import.meta.url));

/** What to try in each template's dev loop, and what its answer must say. */
const DEV_CALLS: Record<string, { readonly tool: string; readonly call: string; readonly answer: RegExp }> = {
	tool: { tool: "word_count", call: 'call word_count {"path":"package.json"}', answer: /\d+ lines · \d+ words/ },
	mcp: { tool: "word_count", call: 'call word_count {"path":"package.json"}', answer: /\d+ lines · \d+ words/ },
	"pi-extension": { tool: "slugify", call: 'call slugify {"text":"Hello, World"}', answer: /hello-world/ },
	stateful: { tool: "todo", call: 'call todo {"action":"add","text":"try the loop"}', answer: /#1 try the loop/ },
};

const templates = listTemplates(templatesDir).map((t) => t.name);

/** One tool's section of a `toolsmith check` report: its PASS/FAIL line and its check lines. */
function checkSection(report: string, tool: string): string {
	const lines = report.split("\n");
	const start = lines.findIndex((line) => line === `PASS ${tool}` || line === `FAIL ${tool}`);
	if (start === -1) return "";
	const end = lines.findIndex((line, i) => i > start && !line.startsWith("  "));
	return lines.slice(start, end === -1 ? undefined : end).join("\n");
}

/**
 * `npm <args>` in `cwd` as an MCP client starts a stdio server: a child process with the client's
 * default environment, connected to the SDK's own `Client`. A line on stdout that is not a protocol
 * message reaches `errors`.
 */
async function connectOverStdio(args: readonly string[], cwd: string) {
	const transport = new StdioClientTransport({ command: "npm", args: [...args], cwd, stderr: "pipe" });
	let stderr = "";
	transport.stderr?.on("data", (chunk: Buffer) => {
		stderr += chunk.toString("utf8");
	});
	const client = new Client({ name: "templates-test", version: "0.0.0" });
	const errors: Error[] = [];
	client.onerror = (error) => errors.push(error);
	await client.connect(transport);
	return { client, errors, stderr: () => stderr };
}

let work: string;
let toolsmithTarball: string;
/** Each template's scaffold (create-toolsmith with its install), its first `npm test`, and the time the two took. */
const firstRuns = new Map<string, Promise<{ created: Outcome; firstTest?: Outcome; seconds: number }>>();

beforeAll(async () => {
	work = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-templates-")));
	const [tarball, createTarball] = await Promise.all([packToolsmith(), packCreateToolsmith()]);
	toolsmithTarball = tarball;
	const create = await installCreate(createTarball, work);
	// The projects are made side by side: most of it is waiting for npm.
	for (const template of templates) {
		firstRuns.set(
			template,
			(async () => {
				const started = performance.now();
				const created = await sh(
					create,
					[`${template}-project`, "--template", template, "--yes", "--no-git", "--toolsmith", toolsmithTarball],
					work,
				);
				if (created.code !== 0) return { created, seconds: 0 };
				const firstTest = await sh("npm", ["test"], join(work, `${template}-project`));
				const seconds = (performance.now() - started) / 1000;
				console.info(`${template}: scaffold, install and first green test in ${seconds.toFixed(1)} s`);
				return { created, firstTest, seconds };
			})(),
		);
	}
	await Promise.all(firstRuns.values());
}, 600_000);

// The installed projects hold tens of thousands of files: removing them takes a while on a loaded machine.
afterAll(() => rmSync(work, { recursive: true, force: true }), 180_000);

describe.each(templates)("the %s template", (template) => {
	const dir = () => join(work, `${template}-project`);
	const dev = DEV_CALLS[template];
	let created: Outcome;
	let firstTest: Outcome | undefined;

	beforeAll(async () => {
		({ created, firstTest } = await firstRuns.get(template)!);
	});

	it("is scaffolded and installed by create-toolsmith from its tarball", () => {
		expect(created.code, show(created)).toBe(0);
		expect(created.stdout).toContain(`from the '${template}' template`);
		expect(created.stdout).toContain("Installed the dependencies with npm.");
		const manifest = JSON.parse(readFileSync(join(dir(), "package.json"), "utf8"));
		const spec = { ...manifest.dependencies, ...manifest.devDependencies }["toolsmith-sdk"];
		expect(spec).toBe(`file:${toolsmithTarball}`);
	});

	it("passes its own tests on the first run", () => {
		expect(firstTest?.code, firstTest && show(firstTest)).toBe(0);
		expect(firstTest?.stdout).toMatch(/Test Files\s+\d+ passed/);
		expect(firstTest?.stdout).not.toMatch(/failed/);
	});

	it("type-checks strictly against the packed toolsmith (skipLibCheck false)", { timeout: 180_000 }, async () => {
		// The project's own check takes the dependencies' declarations as they are (most of tsc's time,
		// see docs/create-tool.md); checking them too must pass all the same.
		expect(readFileSync(join(dir(), "tsconfig.json"), "utf8")).toMatch(/"skipLibCheck": true/);
		if (template !== "pi-extension") {
			const strict = await sh("npx", ["tsc", "--noEmit", "--skipLibCheck", "false"], dir());
			expect(strict.code, show(strict)).toBe(0);
			return;
		}
		// pi's own dependencies ship declarations that fail on their own (the template's tsconfig skips
		// declaration files for that reason); every other file — the project's, toolsmith's, pi's API —
		// must be clean, so the project's own setting passes too. @google/genai's declarations import
		// the MCP SDK's (installed here as toolsmith's dependency), which need DOM types such as
		// `HeadersInit`: they fail the same way. toolsmith's own declarations never import the SDK's
		// (test/integration/package checks what they import).
		const strict = await sh("npx", ["tsc", "--noEmit", "--skipLibCheck", "false"], dir());
		const files = new Set([...strict.stdout.matchAll(/^(\S+?)\(\d+,\d+\): error/gm)].map((m) => m[1]));
		expect(files.size, show(strict)).toBeGreaterThan(0);
		for (const file of files)
			expect(file, show(strict)).toMatch(
				/^node_modules\/(@anthropic-ai\/sdk|@google\/genai|@modelcontextprotocol\/sdk)\//,
			);
	});

	it("passes npm run check, its conformance checks seeded by the fixtures so content runs", {
		timeout: 180_000,
	}, async () => {
		const check = await sh("npm", ["run", "check"], dir());
		expect(check.code, show(check)).toBe(0);
		expect(check.stdout).toContain("toolsmith check . --fixtures test/fixtures");
		expect(check.stdout).toMatch(/^seeded from \d+ fixtures? \(test\/fixtures\//m);
		expect(checkSection(check.stdout, dev!.tool), show(check)).toMatch(
			/^PASS .*\n(.*\n)* {2}✓ content: \d+ result\(s\) checked/,
		);
		expect(check.stdout).toMatch(/\d+ passed, 0 failed/);
	});

	it.runIf(template === "tool" || template === "mcp")(
		"runs the content check in its own conformance test (vitest), not skipping it",
		{ timeout: 120_000 },
		async () => {
			const out = join(dir(), "conformance.json");
			const run = await sh(
				"npx",
				["vitest", "run", "test/word-count.test.ts", "--reporter=json", `--outputFile=${out}`],
				dir(),
			);
			expect(run.code, show(run)).toBe(0);
			const report = JSON.parse(readFileSync(out, "utf8")) as {
				testResults: { assertionResults: { title: string; status: string }[] }[];
			};
			rmSync(out);
			const tests = report.testResults.flatMap((file) => file.assertionResults);
			expect(tests.find((test) => test.title.startsWith("content:"))).toMatchObject({ status: "passed" });
		},
	);

	it("opens in toolsmith dev ., lists its tools and answers a call", { timeout: 120_000 }, async () => {
		const session = await sh("npx", ["toolsmith", "dev", "."], dir(), `tools\n${dev!.call}\n`, 60_000);
		expect(session.code, show(session)).toBe(0);
		// The tools table names the file that defines each tool: the tool's own module where it has one.
		const source = template === "tool" || template === "mcp" ? "src/tools/word-count\\.ts" : "src/index\\.ts";
		expect(session.stdout).toMatch(new RegExp(`^\\s+${dev!.tool}\\s+${source}\\s`, "m"));
		expect(session.stdout).toMatch(dev!.answer);
		expect(session.stdout).toMatch(/✓ ok/);
		expect(session.stderr).toBe("");
	});

	it.runIf(template === "mcp")(
		"is served by npm run --silent mcp to an MCP client, its stdout carrying protocol messages only",
		{ timeout: 120_000 },
		async () => {
			const { client, errors, stderr } = await connectOverStdio(["run", "--silent", "mcp"], dir());
			try {
				const { tools } = await client.listTools();
				expect(tools.map((tool) => tool.name)).toContain(dev!.tool);
				expect(tools.find((tool) => tool.name === dev!.tool)).toMatchObject({
					inputSchema: { type: "object", properties: { path: { type: "string" } } },
					annotations: { readOnlyHint: true },
				});
				const counted = await client.callTool({ name: dev!.tool, arguments: { path: "package.json" } });
				expect(counted.isError, JSON.stringify(counted)).toBeFalsy();
				expect(counted.content).toEqual([
					{ type: "text", text: expect.stringMatching(/^package\.json: \d+ lines, \d+ words, \d+ characters$/) },
				]);
				const missing = await client.callTool({ name: dev!.tool, arguments: { path: "missing.txt" } });
				expect(missing.isError).toBe(true);
			} finally {
				await client.close();
			}
			expect(errors).toEqual([]);
			expect(stderr()).toMatch(/toolsmith mcp · 1 tool · stdio/);
			// Closing the client closed the server's stdin: it stopped by itself, nothing had to be killed.
			await vi.waitFor(() => expect(stderr()).toContain("toolsmith mcp · stopping (stdin closed)"));
		},
	);

	it.runIf(template === "mcp")(
		"needs --silent: npm run mcp writes its banner to stdout, where the client cannot parse it",
		{ timeout: 120_000 },
		async () => {
			const { client, errors } = await connectOverStdio(["run", "mcp"], dir());
			try {
				await client.listTools();
			} finally {
				await client.close();
			}
			// The banner's lines (`> mcp-project@0.1.0 mcp`, `> toolsmith mcp .`) came where JSON was due.
			expect(errors.map((error) => error.name)).toContain("SyntaxError");
			expect(errors.map(String).join("\n")).toMatch(/"> /);
		},
	);

	it.runIf(template === "tool")(
		"fails npm run check on a type error in the project's own code, with its file and line",
		{ timeout: 180_000 },
		async () => {
			// skipLibCheck hides nothing here: a wrong use of toolsmith's types and a plain mismatch.
			const file = join(dir(), "src", "tools", "oops.ts");
			writeFileSync(
				file,
				[
					'import { defineTool, Type } from "toolsmith-sdk";',
					"",
					"export const oops = defineTool({",
					'	name: "oops",',
					'	label: "Oops",',
					'	description: "Fails the type check.",',
					"	parameters: Type.Object({ n: Type.Number() }),",
					"	async execute(_id, { n }) {",
					"		const text: string = n;",
					'		return { content: [{ type: "txt", text }], details: {} };',
					"	},",
					"});",
					"",
				].join("\n"),
			);
			try {
				const check = await sh("npm", ["run", "check"], dir());
				expect(check.code, show(check)).not.toBe(0);
				expect(check.stdout).toMatch(/src\/tools\/oops\.ts\(8,8\): error TS2322/);
				expect(check.stdout).toMatch(
					/src\/tools\/oops\.ts\(9,9\): error TS2322: Type 'number' is not assignable to type 'string'/,
				);
			} finally {
				rmSync(file);
			}
		},
	);

	it.runIf(template === "tool")(
		"takes another tool from toolsmith new, and its tests still pass",
		{ timeout: 240_000 },
		async () => {
			const added = await sh("npx", ["toolsmith", "new", "fetch_issue"], dir());
			expect(added.code, show(added)).toBe(0);
			expect(added.stdout).toContain("src/tools/fetch-issue.ts");
			const again = await sh("npx", ["toolsmith", "new", "fetch_issue"], dir());
			expect(again.code).toBe(1);
			expect(again.stderr).toContain("exist already");
			const tests = await sh("npm", ["test"], dir());
			expect(tests.code, show(tests)).toBe(0);
			expect(tests.stdout).toContain("fetch-issue.test.ts");
			const types = await sh("npx", ["tsc", "--noEmit"], dir());
			expect(types.code, show(types)).toBe(0);
		},
	);

	it.runIf(template === "tool" || template === "mcp")(
		"takes a second tool of other parameters and details, and passes npm run check and npm test",
		{ timeout: 300_000 },
		async () => {
			// Last, so the tests above see the project as generated. As a user would: `toolsmith new`
			// makes the files and registers the tool, the user rewrites them.
			const added = await sh("npx", ["toolsmith", "new", "find_todos"], dir());
			expect(added.code, show(added)).toBe(0);
			copyFileSync(join(secondTool, "find-todos.ts"), join(dir(), "src/tools/find-todos.ts"));
			copyFileSync(join(secondTool, "find-todos.test.ts"), join(dir(), "test/find-todos.test.ts"));
			copyFileSync(join(secondTool, "find-todos.json"), join(dir(), "test/fixtures/find-todos.json"));
			// The entry the author never touched registers both, whatever their shapes, type-checked.
			expect(readFileSync(join(dir(), "src/index.ts"), "utf8")).toContain(
				"for (const tool of Object.values(tools)) api.registerTool(tool);",
			);
			const check = await sh("npm", ["run", "check"], dir());
			expect(check.code, show(check)).toBe(0);
			for (const tool of [dev!.tool, "find_todos"]) {
				expect(checkSection(check.stdout, tool), show(check)).toMatch(/\n {2}✓ content: \d+ result\(s\) checked/);
			}
			const tests = await sh("npm", ["test"], dir());
			expect(tests.code, show(tests)).toBe(0);
			expect(tests.stdout).toContain("find-todos.test.ts");
			expect(tests.stdout).toMatch(/Test Files\s+\d+ passed/);
		},
	);
});
