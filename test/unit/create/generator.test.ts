import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	realpathSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
	addTool,
	GeneratorError,
	generateProject,
	listTemplates,
	packageManagerFromAgent,
	packageNameProblem,
	suggestPackageName,
	toolNameProblem,
	toolNames,
	toolsmithDependencySpec,
} from "../../../create-tool/src/generator.js";

const templatesDir = fileURLToPath(new URL("../../../templates", import.meta.url));
const folders: string[] = [];
const scratch = () => {
	const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-generator-")));
	folders.push(dir);
	return dir;
};
afterEach(() => {
	for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const base = { templatesDir, toolsmithSpec: "^0.1.0", apiRange: "^1.1.0" } as const;

async function refusal(promise: Promise<unknown>): Promise<GeneratorError> {
	const error = await promise.then(
		() => undefined,
		(e: unknown) => e,
	);
	expect(error).toBeInstanceOf(GeneratorError);
	return error as GeneratorError;
}

/** Every file and folder under `dir`, relative to it. */
function tree(dir: string): string[] {
	return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

describe("names", () => {
	it("accepts npm package names and explains the rest, with a valid suggestion", () => {
		for (const ok of ["my-tools", "@acme/tools", "a.b_c~d", "x1"]) expect(packageNameProblem(ok)).toBeUndefined();
		const cases: [string, RegExp, string][] = [
			["My Tools", /upper-case/, "my-tools"],
			["my tools", /characters other than/, "my-tools"],
			["_private", /starts with \. or _/, "private"],
			["Héllo Wörld!", /upper-case/, "hello-world"],
			["@Acme/Tools", /upper-case/, "@acme/tools"],
			["", /empty/, "my-tools"],
			["node_modules", /reserved/, "node_modules"],
		];
		for (const [name, problem, suggestion] of cases) {
			expect(packageNameProblem(name)).toMatch(problem);
			expect(suggestPackageName(name)).toBe(suggestion);
		}
		for (const [name] of cases.filter(([n]) => n !== "node_modules")) {
			expect(packageNameProblem(suggestPackageName(name))).toBeUndefined();
		}
	});

	it("takes tool names every provider takes, and derives the names of its code", () => {
		expect(toolNameProblem("word_count")).toBeUndefined();
		expect(toolNameProblem("lint-file")).toBeUndefined();
		expect(toolNameProblem("2fast")).toMatch(/start with a letter/);
		expect(toolNameProblem("a.b")).toMatch(/characters other than/);
		expect(toolNameProblem("x".repeat(65))).toMatch(/64/);
		expect(toolNames("fetch_issue")).toEqual({
			toolName: "fetch_issue",
			toolIdent: "fetchIssue",
			ToolIdent: "FetchIssue",
			toolFile: "fetch-issue",
			toolLabel: "Fetch issue",
		});
		expect(toolNames("readMany").toolFile).toBe("read-many");
		expect(toolNames("lint-file").toolIdent).toBe("lintFile");
	});

	it("reads the package manager from the user agent, npm by default", () => {
		expect(packageManagerFromAgent("pnpm/9.1.0 npm/? node/v20.19.0 linux x64")).toBe("pnpm");
		expect(packageManagerFromAgent("yarn/4.0.0 npm/? node/v20")).toBe("yarn");
		expect(packageManagerFromAgent("bun/1.1.0 npm/? node/v20")).toBe("bun");
		expect(packageManagerFromAgent("npm/11.0.0 node/v20")).toBe("npm");
		expect(packageManagerFromAgent(undefined)).toBe("npm");
		expect(packageManagerFromAgent("deno/2")).toBe("npm");
	});

	it("turns paths into file: specs with absolute paths and leaves versions alone", () => {
		const dir = scratch();
		writeFileSync(join(dir, "toolsmith-sdk-0.1.0.tgz"), "");
		expect(toolsmithDependencySpec("^0.1.0", dir)).toBe("^0.1.0");
		expect(toolsmithDependencySpec("latest", dir)).toBe("latest");
		expect(toolsmithDependencySpec("./toolsmith-sdk-0.1.0.tgz", dir)).toBe(`file:${dir}/toolsmith-sdk-0.1.0.tgz`);
		expect(toolsmithDependencySpec("toolsmith-sdk-0.1.0.tgz", dir)).toBe(`file:${dir}/toolsmith-sdk-0.1.0.tgz`);
		expect(toolsmithDependencySpec("../sdk", dir)).toBe(`file:${join(dir, "../sdk")}`);
		expect(toolsmithDependencySpec("file:/x/y.tgz", dir)).toBe("file:/x/y.tgz");
	});
});

describe("generateProject", () => {
	it("lists the templates with descriptions, tool first", () => {
		const templates = listTemplates(templatesDir);
		expect(templates.map((t) => t.name)).toEqual(["tool", "mcp", "pi-extension", "stateful"]);
		for (const t of templates) expect(t.description.length).toBeGreaterThan(20);
	});

	it("renders every template completely: no placeholder is left, paths and dotfiles are renamed", async () => {
		for (const { name } of listTemplates(templatesDir)) {
			const dir = join(scratch(), "my-tools");
			const project = await generateProject({ ...base, template: name, targetDir: dir, packageManager: "pnpm" });
			expect(project.files).toEqual(tree(dir).filter((p) => existsSync(join(dir, p)) && !readdirSafe(join(dir, p))));
			expect(project.files).toContain(".gitignore");
			for (const file of project.files) {
				expect(file).not.toMatch(/__\w+__|_gitignore|template\.json/);
				expect(readFileSync(join(dir, file), "utf8"), `${name}/${file}`).not.toMatch(/\{\{\w+\}\}/);
			}
			const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
			expect(manifest).toMatchObject({ name: "my-tools", type: "module", engines: { toolsmith: "^1.1.0" } });
			// The same scripts everywhere; the mcp template adds `mcp`, which serves its tools, and the
			// tool template `eval`, which runs its eval scenarios against a real model.
			const scripts = [
				"build",
				"check",
				"dev",
				"test",
				...(name === "mcp" ? ["mcp"] : []),
				...(name === "tool" ? ["eval"] : []),
			];
			expect(Object.keys(manifest.scripts).sort()).toEqual(scripts.sort());
			expect({ ...manifest.dependencies, ...manifest.devDependencies }["toolsmith-sdk"]).toBe("^0.1.0");
			const readme = readFileSync(join(dir, "README.md"), "utf8").split("\n");
			expect(readme[0]).toBe("# my-tools");
			expect(readme.slice(2, 6).join("\n")).toMatch(/```sh\npnpm install && pnpm dev .*\npnpm test .*\n```/);
		}
	});

	it("starts the tool template with the tool it is given, registered in src/tools/index.ts", async () => {
		const dir = join(scratch(), "grep-tools");
		const project = await generateProject({ ...base, template: "tool", targetDir: dir, toolName: "find_todos" });
		expect(project.files).toEqual(
			expect.arrayContaining(["src/tools/find-todos.ts", "test/find-todos.test.ts", "test/fixtures/find-todos.json"]),
		);
		expect(readFileSync(join(dir, "src/tools/index.ts"), "utf8")).toBe(
			'export { findTodos } from "./find-todos.js";\n',
		);
		expect(readFileSync(join(dir, "src/tools/find-todos.ts"), "utf8")).toContain('name: "find_todos"');
	});

	it("gives the mcp template the MCP SDK range toolsmith-sdk depends on, so one copy is installed", async () => {
		const dir = join(scratch(), "mcp-tools");
		await generateProject({ ...base, template: "mcp", targetDir: dir });
		const project = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
		const toolsmith = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8"));
		const sdk = "@modelcontextprotocol/sdk";
		expect(project.devDependencies[sdk]).toBe(toolsmith.dependencies[sdk]);
		expect(project.scripts.mcp).toBe("toolsmith mcp .");
		expect(project.toolsmith).toEqual({ extensions: ["./src/index.ts"] });
	});

	it("refuses a folder that is not empty and writes nothing; an empty folder is fine", async () => {
		const parent = scratch();
		mkdirSync(join(parent, "taken"));
		writeFileSync(join(parent, "taken", "keep.txt"), "mine");
		const error = await refusal(generateProject({ ...base, template: "tool", targetDir: join(parent, "taken") }));
		expect(error.code).toBe("E_TARGET_NOT_EMPTY");
		expect(tree(parent)).toEqual(["taken", "taken/keep.txt"]);

		writeFileSync(join(parent, "a-file"), "x");
		expect(
			(await refusal(generateProject({ ...base, template: "tool", targetDir: join(parent, "a-file") }))).code,
		).toBe("E_TARGET_NOT_EMPTY");

		mkdirSync(join(parent, "empty"));
		await generateProject({ ...base, template: "stateful", targetDir: join(parent, "empty") });
		expect(existsSync(join(parent, "empty", "src", "index.ts"))).toBe(true);
	});

	it("refuses an invalid package name with a suggestion, and an unknown template with the list", async () => {
		const parent = scratch();
		const named = await refusal(generateProject({ ...base, template: "tool", targetDir: join(parent, "My Tools") }));
		expect(named.code).toBe("E_INVALID_PACKAGE_NAME");
		expect(named.message).toContain("try 'my-tools'");
		const unknown = await refusal(generateProject({ ...base, template: "rest-api", targetDir: join(parent, "x") }));
		expect(unknown.code).toBe("E_UNKNOWN_TEMPLATE");
		expect(unknown.message).toContain("tool, mcp, pi-extension, stateful");
		expect(tree(parent)).toEqual([]);
	});

	it("leaves no half project and no temporary folder when writing fails", async () => {
		// A template whose files cannot all be written: `thing` is a file in the base and a folder in the template.
		const templates = scratch();
		mkdirSync(join(templates, "_base"));
		writeFileSync(join(templates, "_base", "package.json"), '{ "name": "{{packageName}}" }');
		writeFileSync(join(templates, "_base", "thing"), "a file");
		mkdirSync(join(templates, "broken", "thing"), { recursive: true });
		writeFileSync(join(templates, "broken", "thing", "inner.txt"), "a file in a folder of that name");
		writeFileSync(join(templates, "broken", "template.json"), '{ "description": "cannot be written" }');
		const parent = scratch();
		const error = await generateProject({
			...base,
			templatesDir: templates,
			template: "broken",
			targetDir: join(parent, "p"),
		}).then(
			() => undefined,
			(e: unknown) => e,
		);
		expect(error).toBeInstanceOf(Error);
		expect(tree(parent)).toEqual([]);
	});

	it("refuses a template that uses a value the generator does not have", async () => {
		const templates = scratch();
		mkdirSync(join(templates, "odd"));
		writeFileSync(join(templates, "odd", "template.json"), '{ "description": "uses an unknown value" }');
		writeFileSync(join(templates, "odd", "README.md"), "# {{projectTitle}}\n");
		const parent = scratch();
		const error = await refusal(
			generateProject({ ...base, templatesDir: templates, template: "odd", targetDir: join(parent, "p") }),
		);
		expect(error.message).toContain("{{projectTitle}}");
		expect(tree(parent)).toEqual([]);
	});
});

function readdirSafe(path: string): boolean {
	try {
		readdirSync(path);
		return true;
	} catch {
		return false;
	}
}

describe("addTool", () => {
	async function project(): Promise<string> {
		const dir = join(scratch(), "my-tools");
		await generateProject({ ...base, template: "tool", targetDir: dir });
		return dir;
	}

	it("adds the tool's source, test and fixture and registers it", async () => {
		const dir = await project();
		const added = await addTool({ templatesDir, projectDir: dir, toolName: "fetch_issue" });
		expect(added).toEqual({
			toolName: "fetch_issue",
			files: [
				"src/tools/fetch-issue.ts",
				"src/tools/index.ts",
				"test/fetch-issue.test.ts",
				"test/fixtures/fetch-issue.json",
			],
			registeredIn: "src/tools/index.ts",
		});
		expect(readFileSync(join(dir, "src/tools/index.ts"), "utf8")).toBe(
			'export { wordCount } from "./word-count.js";\nexport { fetchIssue } from "./fetch-issue.js";\n',
		);
		expect(readFileSync(join(dir, "test/fixtures/fetch-issue.json"), "utf8")).toContain('"tool": "fetch_issue"');
	});

	it("refuses, writing nothing, a tool whose files exist, an invalid name, or a project without the registry", async () => {
		const dir = await project();
		const before = tree(dir).map((path) => [
			path,
			readdirSafe(join(dir, path)) ? "" : readFileSync(join(dir, path), "utf8"),
		]);
		expect((await refusal(addTool({ templatesDir, projectDir: dir, toolName: "word_count" }))).code).toBe(
			"E_TOOL_EXISTS",
		);
		expect((await refusal(addTool({ templatesDir, projectDir: dir, toolName: "9lives" }))).code).toBe(
			"E_INVALID_TOOL_NAME",
		);
		rmSync(join(dir, "src/tools/index.ts"));
		const unregistered = await refusal(addTool({ templatesDir, projectDir: dir, toolName: "other" }));
		expect(unregistered.code).toBe("E_NOT_A_PROJECT");
		expect(unregistered.message).toContain("--no-register");
		expect(
			tree(dir).map((path) => [path, readdirSafe(join(dir, path)) ? "" : readFileSync(join(dir, path), "utf8")]),
		).toEqual(before.filter(([path]) => path !== "src/tools/index.ts"));

		const bare = await addTool({ templatesDir, projectDir: dir, toolName: "other", register: false });
		expect(bare.files).toEqual(["src/tools/other.ts", "test/fixtures/other.json", "test/other.test.ts"]);
		expect(bare.registeredIn).toBeUndefined();
	});

	it("refuses a folder without package.json", async () => {
		expect((await refusal(addTool({ templatesDir, projectDir: scratch(), toolName: "x" }))).code).toBe(
			"E_NOT_A_PROJECT",
		);
	});
});
