/**
 * The packed package in someone else's project: `npm pack` (built in a copy of the repository),
 * installed into a fresh ESM project, type-checked strictly with `skipLibCheck: false` under the
 * two module resolutions people use, imported and run by Node, and its bin started.
 */
import { execFile, spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectExports } from "../../../scripts/api-reference.js";
import { packToolsmith, repoRoot } from "../_pack.js";
import { declarationImportProblems, declarationSpecifiers } from "./_declarations.js";

interface Run {
	readonly code: number | null;
	readonly stdout: string;
	readonly stderr: string;
}

function run(command: string, args: readonly string[], cwd: string, env = process.env): Promise<Run> {
	return new Promise((resolve) => {
		// The timeout kills a child that outlives its test (a loaded machine, a hung install).
		execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: 240_000 }, (error, stdout, stderr) => {
			const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
			resolve({ code, stdout, stderr });
		});
	});
}

/** The output of a run that should have succeeded, so a failing assertion shows why. */
const transcript = (result: Run) => `exit ${result.code}\n${result.stdout}\n${result.stderr}`;

/** npm's environment for the scripts of this repository would point a nested npm at it. */
function npmEnv(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (/^npm_(package|lifecycle)_|^npm_config_local_prefix$|^INIT_CWD$/.test(key)) continue;
		env[key] = value;
	}
	return env;
}

const manifest = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8")) as {
	readonly version: string;
	readonly bin: Record<string, string>;
	readonly types?: string;
	readonly exports: Record<string, string | Record<string, string>>;
	readonly files: readonly string[];
};
const installedVersion = async (name: string) =>
	(JSON.parse(await readFile(join(repoRoot, "node_modules", name, "package.json"), "utf8")) as { version: string })
		.version;

const temporary: string[] = [];
let extracted = "";
let consumer = "";
const typecheck: { node16?: Run; bundler?: Run } = {};

beforeAll(async () => {
	const tarball = await packToolsmith();

	extracted = await mkdtemp(join(tmpdir(), "toolsmith-tarball-"));
	temporary.push(extracted);
	const untar = await run("tar", ["-xzf", tarball, "-C", extracted], extracted);
	if (untar.code !== 0) throw new Error(`tar failed: ${transcript(untar)}`);

	consumer = await mkdtemp(join(tmpdir(), "toolsmith-consumer-"));
	temporary.push(consumer);
	await writeFile(
		join(consumer, "package.json"),
		`${JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2)}\n`,
	);
	// The repository's own versions, so `--prefer-offline` finds them in the npm cache.
	const install = await run(
		"npm",
		[
			"install",
			"--no-audit",
			"--no-fund",
			"--prefer-offline",
			tarball,
			`typescript@${await installedVersion("typescript")}`,
			`@types/node@${await installedVersion("@types/node")}`,
		],
		consumer,
		npmEnv(),
	);
	if (install.code !== 0) throw new Error(`npm install failed: ${transcript(install)}`);

	await cp(join(repoRoot, "docs", "examples"), join(consumer, "src", "examples"), { recursive: true });
	await cp(join(repoRoot, "test", "integration", "package", "consumer"), join(consumer, "src"), { recursive: true });
	const strict = { strict: true, skipLibCheck: false, target: "ES2022", forceConsistentCasingInFileNames: true };
	const configs = {
		// This one also emits, so Node can run the compiled smoke test.
		node16: { ...strict, module: "node16", moduleResolution: "node16", rootDir: "src", outDir: "out" },
		bundler: { ...strict, module: "esnext", moduleResolution: "bundler", noEmit: true },
	};
	for (const [name, compilerOptions] of Object.entries(configs)) {
		await writeFile(join(consumer, `tsconfig.${name}.json`), JSON.stringify({ include: ["src"], compilerOptions }));
	}
	// Both at once (the tests below only read the outcomes): each is a few seconds of CPU.
	const tsc = (name: string) =>
		run(process.execPath, ["node_modules/typescript/bin/tsc", "-p", `tsconfig.${name}.json`], consumer);
	[typecheck.node16, typecheck.bundler] = await Promise.all([tsc("node16"), tsc("bundler")]);
}, 300_000);

afterAll(async () => {
	for (const dir of temporary) await rm(dir, { recursive: true, force: true });
});

describe("the tarball", () => {
	it("holds dist (JS, maps, declarations), LICENSE, README and every folder of `files`", async () => {
		const packed = join(extracted, "package");
		const { stdout } = await run("tar", ["-tzf", await packToolsmith()], extracted);
		const paths = stdout.split("\n").filter(Boolean);
		for (const kind of [".js", ".js.map", ".d.ts"]) {
			expect(paths.filter((path) => path.startsWith("package/dist/") && path.endsWith(kind)).length).toBeGreaterThan(0);
		}
		expect(paths).toContain("package/LICENSE");
		expect(paths).toContain("package/README.md");
		expect(paths).toContain("package/package.json");
		for (const folder of manifest.files) {
			const inRepo = await run("test", ["-e", join(repoRoot, folder)], repoRoot);
			// A listed folder the repository does not have (yet) cannot be packed; one it has must be.
			if (inRepo.code === 0) expect(paths.some((path) => path.startsWith(`package/${folder}/`))).toBe(true);
		}
		expect(paths.some((path) => path.startsWith("package/src/"))).toBe(false);
		expect(await readFile(join(packed, "LICENSE"), "utf8")).toMatch(/^MIT License/);
	});

	it("resolves every path in exports, bin and types", async () => {
		const targets = [
			...Object.values(manifest.bin),
			...(manifest.types ? [manifest.types] : []),
			...Object.values(manifest.exports).flatMap((target) =>
				typeof target === "string" ? [target] : Object.values(target),
			),
		];
		expect(targets.length).toBeGreaterThan(Object.keys(manifest.exports).length);
		const missing = [];
		for (const target of targets) {
			const found = await run("test", ["-f", join(extracted, "package", target)], extracted);
			if (found.code !== 0) missing.push(target);
		}
		expect(missing).toEqual([]);
	});

	it("ships declarations that import only files in dist, node: modules and declared dependencies", async () => {
		const problems = await declarationImportProblems(
			join(consumer, "node_modules", "toolsmith-sdk"),
			join(consumer, "node_modules"),
		);
		expect(problems).toEqual([]);
	});

	it("has a declaration check that catches inlined dependency types", async () => {
		const fake = join(extracted, "fake");
		await mkdir(join(fake, "dist"), { recursive: true });
		await writeFile(join(fake, "package.json"), JSON.stringify({ dependencies: { "@sinclair/typebox": "*" } }));
		const declaration = [
			"/** import { x } from 'only-in-a-comment' */",
			"import { TObject } from '../schema/index.mjs';",
			"import { Kind } from '@sinclair/typebox/build/esm/type/symbols';",
			"import { TSchema } from '@sinclair/typebox';",
			"import { Thing } from './thing.js';",
			"export type T = import('left-pad').T;",
		].join("\n");
		await writeFile(join(fake, "dist", "index.d.ts"), declaration);
		expect(declarationSpecifiers(declaration)).not.toContain("only-in-a-comment");
		const problems = await declarationImportProblems(fake, join(consumer, "node_modules"));
		expect(problems).toEqual([
			'dist/index.d.ts: "../schema/index.mjs" points outside dist/',
			'dist/index.d.ts: "@sinclair/typebox/build/esm/type/symbols" is a deep path: @sinclair/typebox does not export ./build/esm/type/symbols',
			'dist/index.d.ts: "./thing.js" names no file in dist/',
			'dist/index.d.ts: "left-pad" is not a dependency or peer dependency',
		]);
	});
});

describe.concurrent("in a fresh project", () => {
	for (const resolution of ["node16", "bundler"] as const) {
		it(`type-checks the examples and the type tests (strict, skipLibCheck false, ${resolution})`, ({ expect }) => {
			const result = typecheck[resolution];
			if (!result) throw new Error("the type check did not run");
			expect(result.code, transcript(result)).toBe(0);
		});
	}

	it("imports the three entries in Node and runs a harness with a built-in, a tool and an extension file", async ({
		expect,
	}) => {
		const smoke = await run(process.execPath, ["out/smoke.js", "src/examples/hello.ts"], consumer);
		expect(smoke.code, transcript(smoke)).toBe(0);
		expect(JSON.parse(smoke.stdout)).toEqual({
			read: "second\n",
			shout: "HI",
			hello: "Hello, Ada!",
			errors: 0,
			diagnostics: 0,
			packageJsonExists: true,
			missingExists: false,
		});
	});

	it("imports toolsmith-sdk and toolsmith-sdk/node without the MCP SDK, zod or semver, which load on first use", async ({
		expect,
	}) => {
		// A resolve hook (in the loader's thread) writes down every ES module the process resolves;
		// semver is CommonJS, so it is looked for in require's cache.
		const record = join(consumer, "resolved.txt");
		await writeFile(
			join(consumer, "record-hooks.mjs"),
			`import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
	const found = await next(specifier, context);
	appendFileSync(${JSON.stringify(record)}, found.url + "\\n");
	return found;
}
`,
		);
		const script = `
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire, register } from "node:module";
writeFileSync(${JSON.stringify(record)}, "");
register("./record-hooks.mjs", import.meta.url);
const require = createRequire(import.meta.url);
const heavy = () => [
	...readFileSync(${JSON.stringify(record)}, "utf8").split("\\n").filter((url) => /\\/node_modules\\/(@modelcontextprotocol\\/sdk|zod)\\//.test(url)).map((url) => url.replace(/.*\\/node_modules\\//, "").split("/").slice(0, 2).join("/")),
	...Object.keys(require.cache).filter((path) => /\\/node_modules\\/semver\\//.test(path)).map(() => "semver/"),
];
const unique = (list) => [...new Set(list)].sort();
await import("toolsmith-sdk");
const node = await import("toolsmith-sdk/node");
const atImport = unique(heavy());
const server = await node.createMcpServer({ tools: [] });
await server.close();
const incompatible = node.checkEngines("^999", "ext.ts", "package.json")?.code;
console.log(JSON.stringify({ atImport, afterUse: unique(heavy()), incompatible }));
`;
		await writeFile(join(consumer, "lazy-probe.mjs"), script);
		const result = await run(process.execPath, ["lazy-probe.mjs"], consumer);
		expect(result.code, transcript(result)).toBe(0);
		const probe = JSON.parse(result.stdout) as { atImport: string[]; afterUse: string[]; incompatible: string };
		expect(probe.atImport).toEqual([]);
		expect(probe.afterUse).toEqual(expect.arrayContaining(["@modelcontextprotocol/sdk", "semver/"]));
		expect(probe.afterUse.some((name) => name.startsWith("zod/"))).toBe(true);
		expect(probe.incompatible).toBe("E_INCOMPATIBLE");
	});

	it("exports at run time exactly the values docs/api.md lists, entry by entry", async ({ expect }) => {
		const listed = collectExports();
		// toolsmith-sdk/vitest needs vitest, which this project does not install; its types are checked above.
		const specifiers = [...listed.keys()].filter((specifier) => specifier !== "toolsmith-sdk/vitest");
		const script = `const out = {}; for (const s of ${JSON.stringify(specifiers)}) out[s] = Object.keys(await import(s)).sort(); console.log(JSON.stringify(out));`;
		const result = await run(process.execPath, ["--input-type=module", "-e", script], consumer);
		expect(result.code, transcript(result)).toBe(0);
		const values = (specifier: string) =>
			(listed.get(specifier) ?? [])
				.filter((item) => ["class", "function", "const", "enum"].includes(item.kind))
				.map((item) => item.name)
				.sort();
		expect(JSON.parse(result.stdout)).toEqual(Object.fromEntries(specifiers.map((s) => [s, values(s)])));
	});

	it("installs the toolsmith bin, which answers --version and --help", async ({ expect }) => {
		const bin = join(consumer, "node_modules", ".bin", "toolsmith");
		const version = await run(bin, ["--version"], consumer);
		expect(version.code, transcript(version)).toBe(0);
		expect(version.stdout.trim()).toBe(manifest.version);
		const help = await run(bin, ["--help"], consumer);
		expect(help.code, transcript(help)).toBe(0);
		expect(help.stdout).toMatch(/^Usage: toolsmith <command>/m);
	});

	it("serves the inspector's page from the tarball, offline, in a small footprint", async ({ expect }) => {
		const { stdout } = await run("tar", ["-tvzf", await packToolsmith()], extracted);
		const page = stdout
			.split("\n")
			.filter((line) => / package\/dist\/inspector\//.test(line))
			.map((line) => ({ path: line.split(/\s+/).at(-1) ?? "", size: Number(line.split(/\s+/)[2]) }));
		expect(page.map((f) => f.path).sort()).toEqual([
			"package/dist/inspector/THIRD-PARTY-LICENSES.txt",
			"package/dist/inspector/app.css",
			"package/dist/inspector/app.js",
			"package/dist/inspector/index.html",
		]);
		const total = page.filter((f) => !f.path.endsWith(".txt")).reduce((sum, f) => sum + f.size, 0);
		// The page adds no runtime dependency; its budget is 150 kB unpacked (it is about 81 kB).
		expect(total).toBeLessThan(150_000);
		const html = await readFile(join(consumer, "node_modules/toolsmith-sdk/dist/inspector/index.html"), "utf8");
		// Offline: nothing is fetched from anywhere but the page's own server.
		expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);

		const bin = join(consumer, "node_modules", ".bin", "toolsmith");
		const child = spawn(bin, ["inspect", "--env", "memory"], { cwd: consumer, env: { ...process.env, NO_COLOR: "1" } });
		try {
			const url = await new Promise<string>((resolve, reject) => {
				let out = "";
				const timer = setTimeout(() => reject(new Error(`no address printed: ${out}`)), 20_000);
				child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
					out += chunk;
					const match = /inspector (http:\/\/\S+)/.exec(out);
					if (match) {
						clearTimeout(timer);
						resolve(match[1]!);
					}
				});
			});
			const index = await fetch(url);
			expect(index.status).toBe(200);
			const token = new URL(url).searchParams.get("token");
			const script = await fetch(new URL(`/app.js?token=${token}`, url));
			expect(script.status).toBe(200);
			expect((await script.arrayBuffer()).byteLength).toBe(page.find((f) => f.path.endsWith("app.js"))?.size);
		} finally {
			child.kill("SIGTERM");
		}
	});
});
