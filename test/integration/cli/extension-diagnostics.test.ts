/**
 * `toolsmith test` and `toolsmith check` against broken, noisy and healthy extensions, a fixture's
 * own `extensions` field and project folders: real files in a temp dir, the CLI as a child process.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type CliRun, runCli } from "./_run.js";

// Every test starts the CLI, some of them several times, one after another (side by
// side they only fight for a two-core machine's CPUs); one start can take seconds there.
vi.setConfig({ testTimeout: 120_000 });

let root: string;

async function put(path: string, content: string): Promise<void> {
	const file = join(root, path);
	await mkdir(dirname(file), { recursive: true });
	await writeFile(file, content);
}

const greetTool = (name: string) => `import { Type } from "toolsmith-sdk";

export default function (api: import("toolsmith-sdk").ExtensionAPI) {
	api.registerTool({
		name: ${JSON.stringify(name)},
		label: "Greet",
		description: "Greets someone by name.",
		parameters: Type.Object({ name: Type.String() }),
		async execute(_id, params: { name: string }) {
			return { content: [{ type: "text", text: \`hello \${params.name}\` }], details: {} };
		},
	});
}
`;

const fixture = (tool: string, args: Record<string, unknown>, text: string, extra: Record<string, unknown> = {}) =>
	`${JSON.stringify({ ...extra, files: { "a.txt": "alpha" }, steps: [{ calls: [{ tool, args, expect: { text } }] }] }, null, "\t")}\n`;

/** Output with the temp dir written as `<tmp>`, so assertions do not depend on where it lives. */
function clean(run: CliRun): CliRun {
	const strip = (text: string) => text.replaceAll(root, "<tmp>");
	return { code: run.code, stdout: strip(run.stdout), stderr: strip(run.stderr) };
}

const toolsmith = async (args: readonly string[], cwd = root) => clean(await runCli(args, { cwd }));

beforeAll(async () => {
	// Real path: on some systems the temp dir is reached through a symlink, and diagnostics name real paths.
	root = await realpath(await mkdtemp(join(tmpdir(), "toolsmith-diagnostics-")));
	await put("fixtures/read.json", fixture("read", { path: "a.txt" }, "alpha"));
	await put("fixtures/greet.json", fixture("greet", { name: "Ada" }, "hello Ada"));
	await put("ext/greet.ts", greetTool("greet"));
	await put("ext/greet-again.ts", greetTool("greet"));
	await put("ext/not-a-function.ts", "export default { name: 'not a factory' };\n");
	await put(
		"ext/throws.ts",
		[
			'import type { ExtensionAPI } from "toolsmith-sdk";',
			"",
			"export default function (api: ExtensionAPI) {",
			"\tvoid api;",
			'\tthrow new Error("no config found");',
			"}",
			"",
		].join("\n"),
	);
	await put(
		"ext/invalid-tool.ts",
		'export default function (api: import("toolsmith-sdk").ExtensionAPI) {\n\tapi.registerTool({ name: "bad name!", label: "x", description: "", parameters: {} } as never);\n}\n',
	);
	await put(
		"incompatible/package.json",
		JSON.stringify({
			name: "incompatible",
			engines: { toolsmith: "^99.0.0" },
			toolsmith: { extensions: ["./index.ts"] },
		}),
	);
	await put("incompatible/index.ts", greetTool("future"));
	await put(
		"noisy/read-override.ts",
		'import { createReadTool } from "toolsmith-sdk";\n\nexport default function (api: import("toolsmith-sdk").ExtensionAPI) {\n\tapi.registerTool(createReadTool());\n}\n',
	);
});

afterAll(async () => {
	await rm(root, { recursive: true, force: true });
});

describe("toolsmith test reports every extension problem", () => {
	it("passes with healthy extensions and prints nothing on stderr", async () => {
		const run = await toolsmith(["test", "fixtures", "--extensions", "ext/greet.ts"]);
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(run.stdout).toMatch(/\n2 fixtures passed\n$/);
	});

	it("prints a missing --extensions path once on stderr, fails every fixture with it in the report, exits 1", async () => {
		const run = await toolsmith(["test", "fixtures", "--extensions", "ext/missing.ts,ext/greet.ts"]);
		expect(run.code).toBe(1);
		expect(run.stderr).toBe(
			"error ext/missing.ts Extension path <tmp>/ext/missing.ts does not exist. [E_PATH_NOT_FOUND]\n",
		);
		expect(run.stdout).toMatch(
			/ {2}FAIL +fixtures\/greet\.json +1\/1 +1\/1\n {2}FAIL +fixtures\/read\.json +1\/1 +1\/1\n/,
		);
		expect(run.stdout.split("  ✗ extensions: 1 error\n    error ext/missing.ts Extension path")).toHaveLength(3);
		expect(run.stdout).toMatch(/\n2 of 2 fixtures failed\n$/);
	});

	it("fails each fixture whose extension is broken, with its own diagnostic; the others pass", async () => {
		// Each fixture names its broken extension in its `extensions` field, next to --extensions.
		const broken = {
			"no-factory": "../ext/not-a-function.ts",
			throws: "../ext/throws.ts",
			"invalid-tool": "../ext/invalid-tool.ts",
			incompatible: "../incompatible",
		};
		for (const [name, path] of Object.entries(broken)) {
			await put(`broken/${name}.json`, fixture("read", { path: "a.txt" }, "alpha", { extensions: [path] }));
		}
		await put("broken/zz-fine.json", fixture("greet", { name: "Cy" }, "hello Cy"));
		const run = await toolsmith(["test", "broken", "--extensions", "ext/greet.ts"]);
		expect(run.code).toBe(1);
		const stderr = run.stderr.trimEnd().split("\n");
		expect(stderr.map((line) => /^(\w+) (\S+) .*\[([A-Z_]+)\]$/.exec(line)?.slice(1))).toEqual([
			["error", "incompatible/index.ts", "E_INCOMPATIBLE"],
			["error", "ext/invalid-tool.ts", "E_INVALID_TOOL"],
			["error", "ext/not-a-function.ts", "E_NO_FACTORY"],
			["error", expect.stringMatching(/^ext\/throws\.ts:5:\d+$/), "E_FACTORY_FAILED"],
		]);
		expect(stderr[1]).toContain('Tool "bad name!" from <tmp>/ext/invalid-tool.ts was rejected');
		expect(stderr[2]).toContain("default-exports an object, not a function");
		expect(stderr[3]).toContain("threw: no config found");
		for (const name of Object.keys(broken)) {
			expect(run.stdout).toMatch(new RegExp(` {2}FAIL +broken/${name}\\.json +1/1 +1/1\\n`));
		}
		expect(run.stdout).toMatch(/ {2}pass +broken\/zz-fine\.json +1\/1 +1\/1\n/);
		for (const line of stderr) expect(run.stdout).toContain(`  ✗ extensions: 1 error\n    ${line}\n`);
		expect(run.stdout).toMatch(/\n4 of 5 fixtures failed\n$/);
	});

	it("prints warnings and infos without changing the exit code", async () => {
		const run = await toolsmith([
			"test",
			"fixtures",
			"--extensions",
			"ext/greet.ts,ext/greet-again.ts",
			"--extensions",
			"noisy/read-override.ts",
		]);
		expect(run.stderr).toMatch(/^warning ext\/greet-again\.ts .*\[W_DUPLICATE_TOOL\]$/m);
		expect(run.stderr).toMatch(/^info noisy\/read-override\.ts .*\[I_BUILTIN_OVERRIDDEN\]$/m);
		expect(run.stderr).not.toMatch(/^error/m);
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(/\n2 fixtures passed\n$/);
	});

	it("loads a fixture's extensions relative to the fixture file, whatever the working folder", async () => {
		await put(
			"own/deep/greet.json",
			fixture("greet", { name: "Bo" }, "hello Bo", { extensions: ["../../ext/greet.ts"] }),
		);
		const run = await toolsmith(["test", "../own/deep/greet.json"], join(root, "fixtures"));
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(run.stdout).toMatch(/\n1 fixture passed\n$/);
	});
});

describe("a call to an unknown tool", () => {
	it("fails, lists the tools, names both ways to load an extension and, when there is one, the likely file", async () => {
		// A project of its own, so the search for likely files sees only what this test wrote.
		await put("unknown/package.json", '{ "name": "unknown-tools" }\n');
		await put("unknown/tools/greet.ts", greetTool("greet"));
		await put("unknown/test/greet.json", fixture("greet", { name: "Ada" }, "hello Ada"));
		await put("unknown/test/lonely.json", fixture("forecast", {}, "sunny"));
		// renamed/greet.ts is loaded and registers another name: no answer for the tool it lacks.
		await put("unknown/renamed/fixture.json", fixture("greet", { name: "Di" }, "hello Di"));
		await put("unknown/renamed/greet.ts", greetTool("salute"));
		await put(
			"unknown/renamed/expects-error.json",
			`${JSON.stringify({ steps: [{ calls: [{ tool: "nope", expect: { isError: true, text: { contains: "Tool nope not found" } } }] }] })}\n`,
		);
		const run = await toolsmith(["test", "test", "renamed", "--extensions", "renamed/greet.ts"], join(root, "unknown"));
		expect(run.code).toBe(1);
		expect(run.stderr).toBe("");
		const reports = run.stdout.split("\n\n");
		const report = (name: string) => reports.find((r) => r.startsWith(`${name}\n`)) ?? "";
		expect(report("test/greet.json")).toContain(
			[
				"    ✗ greet (s0c0)",
				'      call: greet {"name":"Ada"}',
				'      - no tool named "greet" is registered',
				"      - text differs from the expected text",
			].join("\n"),
		);
		// The executor's own text is what the model sees, unchanged.
		expect(report("test/greet.json")).toContain(
			"+ Tool greet not found. Available tools: read, bash, edit, write, salute.",
		);
		expect(report("test/greet.json")).toContain(
			[
				'      hint: the tools are bash, edit, read, salute, write; "greet" may come from an extension that was not loaded',
				`      hint: name it in the fixture's "extensions": [...] (paths relative to the fixture) or pass it with --extensions <paths>`,
				'      hint: near the fixture: "extensions": ["../tools/greet.ts"]',
			].join("\n"),
		);
		expect(report("test/lonely.json")).toContain('"forecast" may come from an extension that was not loaded');
		expect(report("test/lonely.json")).toContain("pass it with --extensions <paths>");
		expect(report("test/lonely.json")).not.toContain("near the fixture");
		expect(report("renamed/fixture.json")).toContain('hint: near the fixture: "extensions": ["../tools/greet.ts"]\n');
		// A fixture may test the not-found answer itself.
		expect(run.stdout).toMatch(/ {2}pass +renamed\/expects-error\.json +1\/1 +1\/1\n/);
		expect(run.stdout).toMatch(/\n3 of 4 fixtures failed\n$/);
	});
});

describe("toolsmith check reports every extension problem", () => {
	it("prints each diagnostic with its position, checks the tools that loaded, and exits 1", async () => {
		const run = await toolsmith([
			"check",
			"ext/missing.ts",
			"ext/not-a-function.ts",
			"ext/throws.ts",
			"ext/invalid-tool.ts",
			"incompatible",
			"ext/greet.ts",
		]);
		expect(run.code).toBe(1);
		const lines = run.stderr.trimEnd().split("\n");
		expect(lines.map((l) => /^(\w+) (\S+) .*\[([A-Z_]+)\]$/.exec(l)?.slice(1))).toEqual([
			["error", "ext/missing.ts", "E_PATH_NOT_FOUND"],
			["error", "ext/not-a-function.ts", "E_NO_FACTORY"],
			["error", expect.stringMatching(/^ext\/throws\.ts:5:\d+$/), "E_FACTORY_FAILED"],
			["error", "ext/invalid-tool.ts", "E_INVALID_TOOL"],
			["error", "incompatible/index.ts", "E_INCOMPATIBLE"],
		]);
		expect(run.stdout).toMatch(/^PASS greet\n/);
	});

	it("prints a failing session_start handler but passes when the tools do", async () => {
		await put(
			"ext/handler-throws.ts",
			`${greetTool("greet_h").replace(
				'export default function (api: import("toolsmith-sdk").ExtensionAPI) {',
				'export default function (api: import("toolsmith-sdk").ExtensionAPI) {\n\tapi.on("session_start", () => {\n\t\tthrow new Error("no session here");\n\t});',
			)}`,
		);
		const run = await toolsmith(["check", "ext/handler-throws.ts"]);
		expect(run.stderr).toMatch(/^error ext\/handler-throws\.ts.*no session here.*\[E_HANDLER_FAILED\]$/m);
		expect(run.stderr).toContain("do not fail the check: they do not concern the checked tools");
		expect(run.stdout).toMatch(/^PASS greet_h\n/);
		expect(run.code).toBe(0);
	});

	it("exits 0 with warnings and infos only", async () => {
		const run = await toolsmith(["check", "ext/greet.ts", "ext/greet-again.ts", "noisy/read-override.ts"]);
		expect(run.stderr).toMatch(/^warning ext\/greet-again\.ts .*\[W_DUPLICATE_TOOL\]$/m);
		expect(run.stderr).toMatch(/^info noisy\/read-override\.ts .*\[I_BUILTIN_OVERRIDDEN\]$/m);
		expect(run.stderr).not.toMatch(/^error/m);
		expect(run.code).toBe(0);
	});
});

describe("a project folder with a manifest", () => {
	const project = (manifest: Record<string, unknown>) =>
		JSON.stringify({ name: "my-tools", type: "module", ...manifest }, null, "\t");

	beforeAll(async () => {
		await put("project/package.json", project({ toolsmith: { extensions: ["./src/greet.ts"] } }));
		await put("project/tsconfig.json", '{ "compilerOptions": { "strict": true } }\n');
		await put("project/src/greet.ts", greetTool("greet"));
		await put(
			"project/test/fixtures/greet.json",
			fixture("greet", { name: "Ed" }, "hello Ed", { extensions: ["../.."] }),
		);
		await put("project/test/plain/greet.json", fixture("greet", { name: "Flo" }, "hello Flo"));
	});

	it("toolsmith check . loads the entries the manifest names and exits 0", async () => {
		const run = await toolsmith(["check", "."], join(root, "project"));
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(run.stdout).toMatch(/^PASS greet\n/);
	});

	it("toolsmith test . runs the project's fixtures, which load the project by its field or by --extensions .", async () => {
		// package.json and tsconfig.json are the project's configuration, not fixtures.
		const run = await toolsmith(["test", ".", "--extensions", "."], join(root, "project"));
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(run.stdout).toMatch(
			/^ {2}result +fixture +calls +steps\n {2}pass +test\/fixtures\/greet\.json +1\/1 +1\/1\n {2}pass +test\/plain\/greet\.json +1\/1 +1\/1\n\n2 fixtures passed\n$/,
		);
	});

	it("follows pi.extensions too, and a manifest entry that does not exist is an error", async () => {
		await put("pi-project/package.json", project({ pi: { extensions: ["./greet.ts"] } }));
		await put("pi-project/greet.ts", greetTool("greet"));
		expect(await toolsmith(["check", "."], join(root, "pi-project"))).toMatchObject({ code: 0, stderr: "" });
		await put(
			"broken-project/package.json",
			project({ toolsmith: { extensions: ["./src/gone.ts", "./src/greet.ts"] } }),
		);
		await put("broken-project/src/greet.ts", greetTool("greet"));
		const broken = await toolsmith(["check", "."], join(root, "broken-project"));
		expect(broken.code).toBe(1);
		expect(broken.stderr).toMatch(/^error package\.json .*"\.\/src\/gone\.ts".*\[E_MANIFEST\]\n$/);
		expect(broken.stdout).toMatch(/^PASS greet\n/);
	});
});
