/**
 * `toolsmith check` reports a condition that tests an env Result instead of its `.ok`: a temp project
 * with a package.json, a tsconfig and an extension, the project's typescript (a link to the
 * repository's), and the CLI as a child process.
 */
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot, runCli } from "./_run.js";

let root: string;

async function put(path: string, content: string): Promise<void> {
	const file = join(root, path);
	await mkdir(dirname(file), { recursive: true });
	await writeFile(file, content);
}

/** A tool that reads a file; `guard` is the line that decides whether the read worked. */
const peekTool = (guard: string) => `import { defineTool, type ExtensionAPI, Type } from "toolsmith-sdk";

export const peek = defineTool({
	name: "peek",
	label: "Peek",
	description: "Show the first line of a text file. Fails when the file cannot be read.",
	parameters: Type.Object({ path: Type.String({ description: "The file, relative to the working folder" }) }),
	async execute(_toolCallId, { path }, _signal, _onUpdate, ctx) {
		const read = await ctx.env.readTextFile(path);
		${guard}
		const first = read.ok ? (read.value.split("\\n")[0] ?? "") : "";
		return { content: [{ type: "text", text: first }], details: { first } };
	},
});

export default function (api: ExtensionAPI) {
	api.registerTool(peek);
}
`;

const MISTAKE = 'if (!read) throw new Error("cannot read the file");';
/** Missing awaits: a negated `exists` (TS2801 misses it) and a write whose Promise is dropped. */
const UNAWAITED =
	'if (!ctx.env.exists(path)) throw new Error("no such file");\n\t\tctx.env.writeFile("seen.txt", path);';
const FIXED = "if (!read.ok) throw read.error;";

const project = async (dir: string, guard: string) => {
	await put(
		`${dir}/package.json`,
		JSON.stringify({ name: dir, type: "module", private: true, toolsmith: { extensions: ["./src/peek.ts"] } }),
	);
	await put(
		`${dir}/tsconfig.json`,
		JSON.stringify({
			compilerOptions: {
				target: "ES2022",
				lib: ["ES2023", "DOM"],
				module: "NodeNext",
				moduleResolution: "NodeNext",
				strict: true,
				noEmit: true,
				skipLibCheck: true,
				types: [],
				// What an installed toolsmith-sdk would give the project: its types (here, the sources').
				paths: { "toolsmith-sdk": [join(repoRoot, "src/index.ts")] },
			},
			include: ["src"],
		}),
	);
	await put(`${dir}/src/peek.ts`, peekTool(guard));
};

const check = (dir: string) => runCli(["check", "."], { cwd: join(root, dir) });

beforeAll(async () => {
	// Real path: on some systems the temp dir is reached through a symlink, and findings name real paths.
	root = await realpath(await mkdtemp(join(tmpdir(), "toolsmith-result-conditions-")));
	await project("app", MISTAKE);
	await mkdir(join(root, "app/node_modules"), { recursive: true });
	await symlink(join(repoRoot, "node_modules/typescript"), join(root, "app/node_modules/typescript"));
	await project("bare", MISTAKE);
	await project("awaits", `if (!read.ok) throw read.error;\n\t\t${UNAWAITED}`);
	await symlink(join(repoRoot, "node_modules"), join(root, "awaits/node_modules"));
});

afterAll(() => rm(root, { recursive: true, force: true }));

describe("toolsmith check on a project with its own typescript", () => {
	it("reports a condition that tests a Result with its file:line:col and exits 1; once fixed, exits 0", async () => {
		const wrong = await check("app");
		expect(wrong.stderr).toBe(
			"error src/peek.ts:10:8 this condition tests a Result, which is an object and always true; test its .ok instead (if (!read.ok) …)\n",
		);
		expect(wrong.stdout).toMatch(/^PASS peek\n/);
		expect(wrong.stdout).toMatch(
			/\n\d+ passed, 0 failed, \d+ skipped\n✗ Result conditions: 1 condition tests a Result instead of its \.ok \(listed on stderr\)\n$/,
		);
		expect(wrong.code).toBe(1);

		await put("app/src/peek.ts", peekTool(FIXED));
		const fixed = await check("app");
		expect(fixed).toMatchObject({ code: 0, stderr: "" });
		expect(fixed.stdout).toMatch(/\n\d+ passed, 0 failed, \d+ skipped\n$/);
	}, 60_000);

	it("reports an unawaited env call in a negated condition and a dropped one, and exits 1", async () => {
		const run = await check("awaits");
		expect(run.stderr).toBe(
			[
				"error src/peek.ts:11:8 this condition tests a Promise, which is always true: the call is not awaited; await it (if (!(await ctx.env.exists(path))) …)",
				"error src/peek.ts:12:3 the Promise of ctx.env.writeFile(…) is dropped: the call may still run after the tool returns, and its Result (a failure included) is lost; await it and check .ok, or write void before it to drop it on purpose",
				"",
			].join("\n"),
		);
		expect(run.stdout).toMatch(
			/\n\d+ passed, 0 failed, \d+ skipped\n✗ Missing awaits: 2 Promises are tested or dropped without await \(listed on stderr\)\n$/,
		);
		expect(run.code).toBe(1);
	}, 60_000);

	it("skips the check with one line when typescript cannot be resolved from the project", async () => {
		const run = await check("bare");
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(run.stdout).toMatch(
			/\n\d+ passed, 0 failed, \d+ skipped\n- Result conditions and missing awaits not checked: typescript cannot be resolved from \. \(it is a devDependency of the project\)\n$/,
		);
	});
});
