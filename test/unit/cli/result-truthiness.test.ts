/**
 * The Result-condition analysis of `toolsmith check`, on one in-memory program against the real env
 * types: each case is a file, and `/*!*\/` marks the start of every expression that must be reported.
 * The project-level part (finding the tsconfig and the project's typescript) is tested on temp dirs.
 */
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	checkResultConditions,
	findResultConditions,
	mayDropEnvPromises,
	mayTestResults,
	type ResultCondition,
} from "../../../src/cli/_result-truthiness.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
// Inside the repository, so `@types/node` and TypeBox resolve from its node_modules.
const virtualRoot = join(repoRoot, "test/unit/cli/__result-truthiness__");
const MARK = "/*!*/";

const prelude = `import type { ExecutionEnv, FileError, Result, ToolContext } from "toolsmith-sdk";
declare const env: ExecutionEnv;
declare const ctx: ToolContext;
declare const p: string;
`;

/** Each case: the body of an async function, after the prelude. */
const positives: Record<string, string> = {
	"if-await-read": "if (/*!*/await env.readTextFile(p)) return 1;",
	"not-file-info": "const r = await env.fileInfo(p);\nif (!/*!*/r) return 1;",
	ternary: "const r = await env.listDir(p);\nreturn /*!*/r ? 1 : 2;",
	while: "let r = await env.readTextFile(p);\nwhile (/*!*/r) r = await env.readTextFile(p);",
	"and-outside-a-condition": "const r = await env.readTextFile(p);\nconst done = /*!*/r && r.ok;\nreturn done;",
	"or-outside-a-condition": "const r = await env.exec('ls');\nreturn /*!*/r || undefined;",
	"do-while": "let r = await env.readTextFile(p);\ndo r = await env.readTextFile(p);\nwhile (/*!*/r);",
	for: "for (let r = await env.readTextFile(p); /*!*/r; r = await env.readTextFile(p)) break;",
	"Boolean-call": "const r = await env.remove(p);\nreturn Boolean(/*!*/r);",
	"both-sides-in-a-condition":
		"const a = await env.readTextFile(p);\nconst b = await env.readTextFile(p);\nif (p.length > 0 && (/*!*/a || !/*!*/b)) return 1;",
	"right-operand-in-a-condition": "const r = await env.readTextFile(p);\nif (p.length > 0 && /*!*/r) return 1;",
	"double-not": "const r = await env.readTextFile(p);\nreturn !!/*!*/r;",
	"narrowed-to-one-member":
		"const r = await env.readTextFile(p);\nif (!r.ok) return 0;\nif (/*!*/r) return r.value.length;",
	assignment: "let r: Result<string, FileError> | undefined;\nif ((/*!*/r = await env.readTextFile(p))) return 1;",
	"a-result-of-your-own":
		"const mine = (): { ok: true; value: number } | { ok: false; error: string } => ({ ok: true, value: 1 });\nif (/*!*/mine()) return 1;",
	// Promises in conditions: the forms TypeScript's TS2801 leaves out (it reports `if (promise)`,
	// `promise ? a : b` and `&&`/`||` operands directly in an `if`, which a valid case cannot hold).
	"not-unawaited-exists": "if (!/*!*/ctx.env.exists(p)) return 1;",
	"not-unawaited-in-and": "if (p.length > 0 && !/*!*/ctx.env.exists(p)) return 1;",
	"not-unawaited-in-or": "if (!/*!*/env.exists(p) || p === '') return 1;",
	"not-unawaited-in-ternary": "return !/*!*/ctx.env.exists(p) ? 1 : 2;",
	"while-unawaited": "while (/*!*/ctx.env.exists(p)) break;",
	"while-not-unawaited": "while (!/*!*/ctx.env.exists(p)) await new Promise((r) => setTimeout(r, 1));",
	"unawaited-outside-a-condition": "const missing = !/*!*/ctx.env.exists(p);\nreturn missing;",
	"unawaited-in-Boolean": "return Boolean(/*!*/ctx.env.exists(p));",
	"unawaited-destructured":
		"const { exists } = { exists: (x: string) => env.exists(x) };\nif (!/*!*/exists(p)) return 1;",
	// Statements that drop an env call's Promise.
	"dropped-write": '/*!*/ctx.env.writeFile(p, "x");',
	"dropped-exec": '/*!*/ctx.env.exec("ls");',
	"dropped-optional-call": "/*!*/ctx.env.searchText?.({ pattern: 'x', path: p, limit: 1 });",
	"dropped-through-destructured-env": "const { env: e } = ctx;\n/*!*/e.remove(p);",
	"dropped-through-destructured-parameter":
		"const make = async ({ env }: ToolContext) => {\n\t/*!*/env.createDir(p);\n};\nawait make(ctx);",
	"dropped-in-branches": 'p ? /*!*/env.writeFile(p, "a") : /*!*/env.appendFile(p, "b");',
	"dropped-after-and": 'p.length > 0 && /*!*/env.writeFile(p, "a");',
	"dropped-in-parens": '(/*!*/ctx.env.rename(p, "b"));',
};

const negatives: Record<string, string> = {
	"tests-ok":
		"const r = await env.readTextFile(p);\nif (r.ok && r.value) return 1;\nif (!r.ok) return 2;\nreturn r.ok ? 3 : 4;",
	exists: "if (await env.exists(p)) return 1;\nreturn !(await env.exists(p));",
	"may-be-undefined":
		"let r: Result<string, FileError> | undefined;\nif (p) r = await env.readTextFile(p);\nif (r) return 1;",
	"not-result-shaped":
		"const info = { kind: 'file', size: 1 };\nconst flag = { ok: p.length > 0, value: p };\nif (info) return 1;\nif (flag) return 2;",
	"a-boolean": "const r = await env.readTextFile(p);\nconst ok = r.ok;\nif (ok) return 1;\nreturn Boolean(ok);",
	"right-operand-is-the-value": "const r = await env.readTextFile(p);\nconst v = p.length > 0 || r;\nreturn v;",
	"unknown-and-any":
		"const u: unknown = await env.readTextFile(p);\nconst a: any = u;\nif (u) return 1;\nif (a) return 2;",
	"a-local-Boolean": "const Boolean = (x: unknown) => x !== null;\nreturn Boolean(await env.readTextFile(p));",
	"awaited-env-calls":
		'if (!(await ctx.env.exists(p))) return 1;\nconst w = await ctx.env.writeFile(p, "x");\nif (!w.ok) return 2;\nwhile (!(await env.exists(p))) break;\nawait env.remove(p);',
	"returned-env-call": 'return ctx.env.writeFile(p, "x");',
	"assigned-then-awaited":
		'const pending = ctx.env.writeFile(p, "x");\nconst written = await pending;\nif (!written.ok) return 1;',
	"voided-on-purpose": 'void ctx.env.writeFile(p, "x");\nvoid env.exec("ls");',
	"gathered-then-awaited": 'await Promise.all([env.writeFile(p, "a"), env.remove(p)]);',
	"an-arrow-returns-it": 'const later = () => ctx.env.writeFile(p, "x");\nawait later();',
	"not-an-env": "const store = { writeFile: async (_p: string) => 1 };\nstore.writeFile(p);",
};

const fileOf = (name: string) => join(virtualRoot, `${name}.ts`);
const source = (body: string) =>
	`${prelude}export async function run(): Promise<unknown> {\n${body
		.split("\n")
		.map((l) => `\t${l}`)
		.join("\n")}\n\treturn 0;\n}\n`;

/** The 1-based line and column of each marked expression. */
function marked(text: string): { line: number; column: number }[] {
	const found: { line: number; column: number }[] = [];
	for (let at = text.indexOf(MARK); at !== -1; at = text.indexOf(MARK, at + 1)) {
		const before = text.slice(0, at + MARK.length).split("\n");
		found.push({ line: before.length, column: before.at(-1)!.length + 1 });
	}
	return found;
}

let findings: ResultCondition[];
const texts = new Map<string, string>();

beforeAll(() => {
	for (const [name, body] of [...Object.entries(positives), ...Object.entries(negatives)]) {
		// A name used twice would silently replace a case.
		expect(texts.has(fileOf(name)), name).toBe(false);
		texts.set(fileOf(name), source(body));
	}
	const options: ts.CompilerOptions = {
		target: ts.ScriptTarget.ES2022,
		lib: ["lib.es2023.d.ts"],
		module: ts.ModuleKind.NodeNext,
		moduleResolution: ts.ModuleResolutionKind.NodeNext,
		strict: true,
		noEmit: true,
		skipLibCheck: true,
		types: ["node"],
		baseUrl: repoRoot,
		paths: { "toolsmith-sdk": ["./src/index.ts"] },
	};
	const host = ts.createCompilerHost(options);
	const readDisk = host.getSourceFile.bind(host);
	host.getSourceFile = (name, language, ...rest) => {
		const text = texts.get(name);
		return text === undefined ? readDisk(name, language, ...rest) : ts.createSourceFile(name, text, language);
	};
	host.fileExists = (name) => texts.has(name) || ts.sys.fileExists(name);
	host.readFile = (name) => texts.get(name) ?? ts.sys.readFile(name);
	const program = ts.createProgram({ rootNames: [...texts.keys()], options, host });
	// The cases must be valid TypeScript, or a finding (or its absence) could come from an error type.
	const errors = ts
		.getPreEmitDiagnostics(program)
		.filter((d) => d.file !== undefined && texts.has(d.file.fileName))
		.map((d) => `${d.file?.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`);
	expect(errors).toEqual([]);
	findings = findResultConditions(ts, program);
}, 90_000);

describe("conditions that test a Result", () => {
	it.each(Object.keys(positives))("reports %s at each marked expression", (name) => {
		const file = fileOf(name);
		const expected = marked(texts.get(file)!);
		expect(expected.length).toBeGreaterThan(0);
		expect(findings.filter((f) => f.file === file).map(({ line, column }) => ({ line, column }))).toEqual(expected);
	});

	it.each(Object.keys(negatives))("leaves %s alone", (name) => {
		expect(findings.filter((f) => f.file === fileOf(name))).toEqual([]);
	});

	it("says what to test instead, with the reference's name and the ! kept", () => {
		const message = (name: string) => findings.find((f) => f.file === fileOf(name))?.message;
		expect(message("if-await-read")).toBe(
			"this condition tests a Result, which is an object and always true; test its .ok instead (if (result.ok) …)",
		);
		expect(message("not-file-info")).toMatch(/\(if \(!r\.ok\) …\)$/);
		expect(message("double-not")).toMatch(/\(if \(r\.ok\) …\)$/);
	});

	it("says to await an unawaited Promise, keeping the !, and what a dropped one loses", () => {
		const message = (name: string) => findings.find((f) => f.file === fileOf(name))?.message;
		expect(message("not-unawaited-exists")).toBe(
			"this condition tests a Promise, which is always true: the call is not awaited; await it (if (!(await ctx.env.exists(p))) …)",
		);
		expect(message("while-unawaited")).toMatch(/await it \(if \(await ctx\.env\.exists\(p\)\) …\)$/);
		expect(message("dropped-write")).toBe(
			"the Promise of ctx.env.writeFile(…) is dropped: the call may still run after the tool returns, and its Result (a failure included) is lost; await it and check .ok, or write void before it to drop it on purpose",
		);
		expect(findings.filter((f) => f.file === fileOf("dropped-write")).map((f) => f.kind)).toEqual(["dropped"]);
		expect(findings.filter((f) => f.file === fileOf("not-unawaited-exists")).map((f) => f.kind)).toEqual(["promise"]);
	});
});

describe("the syntax pass that picks a program's roots", () => {
	const parse = (text: string) => ts.createSourceFile("case.ts", text, ts.ScriptTarget.Latest);

	it("keeps a file that tests anything that could be an object, and only such a file", () => {
		for (const text of ["if (r) f();", "const v = !x.y;", "g(a && b);", "const n = Boolean(call());", "for (;r;) {}"]) {
			expect(mayTestResults(ts, parse(text)), text).toBe(true);
		}
		const none = 'if (a === 1 || typeof b === "string") f(!(c > 2));\nconst t = `d` ? 1 : 2;\nexpect(x).toBe(1);';
		expect(mayTestResults(ts, parse(none))).toBe(false);
	});

	it("keeps a file with a statement that calls a method named like an env one, and only such a file", () => {
		for (const text of [
			"ctx.env.writeFile(p, x);",
			"a && env.remove(p);",
			"f ? e.exec('ls') : g();",
			"x.exists?.(p);",
		]) {
			expect(mayDropEnvPromises(ts, parse(text)), text).toBe(true);
		}
		const none = "await ctx.env.writeFile(p, x);\nvoid env.exec('ls');\nconst r = env.exists(p);\nlog(p);";
		expect(mayDropEnvPromises(ts, parse(none))).toBe(false);
	});
});

describe("the projects paths lie in", () => {
	let root: string;
	const put = async (path: string, content: string) => {
		await mkdir(dirname(join(root, path)), { recursive: true });
		await writeFile(join(root, path), content);
	};
	const strict = JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [] }, include: ["src"] });
	const mistake = "declare const r: { ok: true; value: 1 } | { ok: false; error: 2 };\nexport const x = r ? 1 : 2;\n";

	beforeAll(async () => {
		root = await realpath(await mkdtemp(join(tmpdir(), "toolsmith-result-conditions-")));
		await put("loose/ext.ts", mistake);
		await put("no-typescript/tsconfig.json", strict);
		await put("no-typescript/src/ext.ts", mistake);
		for (const project of ["with-typescript", "not-strict", "elsewhere"]) {
			await mkdir(join(root, project, "node_modules"), { recursive: true });
			await symlink(join(repoRoot, "node_modules/typescript"), join(root, project, "node_modules/typescript"));
		}
		await put("with-typescript/tsconfig.json", strict);
		await put("with-typescript/src/ext.ts", mistake);
		await put("with-typescript/src/fine.ts", 'import { x } from "./ext.js";\nexport const y = x ? "a" : "b";\n');
		await put("not-strict/tsconfig.json", JSON.stringify({ compilerOptions: { noEmit: true }, include: ["src"] }));
		await put("not-strict/src/ext.ts", mistake);
		await put("elsewhere/tsconfig.json", strict);
		await put("elsewhere/tools/ext.ts", mistake);
	});

	afterAll(() => rm(root, { recursive: true, force: true }));

	it("checks the files of the nearest tsconfig under the paths, with the project's own typescript", () => {
		const report = checkResultConditions(["with-typescript"], root);
		expect(report.skipped).toEqual([]);
		expect(report.checked).toEqual([join(root, "with-typescript/tsconfig.json")]);
		expect(report.findings.map((f) => [f.file, f.line, f.column])).toEqual([
			[join(root, "with-typescript/src/ext.ts"), 2, 18],
		]);
		// A file path finds the tsconfig above it; the file it imports is in the program, not walked.
		expect(checkResultConditions(["with-typescript/src/fine.ts"], root)).toEqual({
			findings: [],
			skipped: [],
			checked: [join(root, "with-typescript/tsconfig.json")],
		});
	});

	it("skips, saying why: no tsconfig, no typescript, strictNullChecks off, a path the tsconfig leaves out", () => {
		expect(checkResultConditions(["loose/ext.ts"], root).skipped).toEqual([
			"no tsconfig.json in or above loose/ext.ts",
		]);
		expect(checkResultConditions(["no-typescript"], root).skipped).toEqual([
			"typescript cannot be resolved from no-typescript (it is a devDependency of the project)",
		]);
		expect(checkResultConditions(["not-strict/src/ext.ts"], root).skipped).toEqual([
			"not-strict/tsconfig.json has strictNullChecks off, so its types cannot tell a Result from one that may be undefined",
		]);
		expect(checkResultConditions(["elsewhere/tools"], root).skipped).toEqual([
			"elsewhere/tools is not among the files of elsewhere/tsconfig.json",
		]);
	});
});
