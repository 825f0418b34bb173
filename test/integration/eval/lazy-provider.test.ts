/**
 * The provider library is loaded only when a model is created: importing toolsmith's entries, or
 * the eval model module itself, loads nothing of the AI SDK. Checked in a child process whose
 * module hooks record every `ai` and `@ai-sdk/*` import.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, beforeAll, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../../..");
let dir: string;

beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), "toolsmith-eval-lazy-"));
});
afterAll(() => {
	rmSync(dir, { recursive: true, force: true });
});

it("loads the AI SDK only when createEvalModel is called", async () => {
	const model = join(dir, "node-model.mjs");
	await build({
		entryPoints: [join(root, "src/eval/node-model.ts")],
		bundle: true,
		platform: "node",
		format: "esm",
		packages: "external",
		outfile: model,
		logLevel: "silent",
	});
	const log = join(dir, "loaded.log");
	// The bundle lives outside the project: packages resolve as if imported from it.
	writeFileSync(
		join(dir, "hooks.mjs"),
		`import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
	if (/^(ai|@ai-sdk\\/.*)$/.test(specifier)) {
		appendFileSync(${JSON.stringify(log)}, specifier + "\\n");
		return next(specifier, { ...context, parentURL: ${JSON.stringify(pathToFileURL(join(root, "package.json")).href)} });
	}
	return next(specifier, context);
}`,
	);
	const entries = ["dist/index.js", "dist/node.js", "dist/eval.js"]
		.map((file) => join(root, file))
		.filter((file) => existsSync(file));
	writeFileSync(
		join(dir, "main.mjs"),
		`import { register } from "node:module";
import { existsSync, readFileSync } from "node:fs";
register(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});
const loaded = () => (existsSync(${JSON.stringify(log)}) ? readFileSync(${JSON.stringify(log)}, "utf8").split("\\n").filter(Boolean) : []);
for (const entry of ${JSON.stringify(entries.map((file) => pathToFileURL(file).href))}) await import(entry);
const afterEntries = loaded();
const { createEvalModel } = await import(${JSON.stringify(pathToFileURL(model).href)});
const afterModule = loaded();
await createEvalModel("openai-compatible/x", { baseUrl: "http://127.0.0.1:9/v1" });
console.log(JSON.stringify({ afterEntries, afterModule, afterCreate: loaded() }));`,
	);
	const { stdout } = await promisify(execFile)(process.execPath, [join(dir, "main.mjs")], { cwd: root });
	const result = JSON.parse(stdout) as Record<string, string[]>;
	expect(entries.length).toBeGreaterThanOrEqual(2);
	expect(result.afterEntries).toEqual([]);
	expect(result.afterModule).toEqual([]);
	expect(result.afterCreate).toEqual(expect.arrayContaining(["ai", "@ai-sdk/openai-compatible"]));
	expect(readFileSync(model, "utf8")).toMatch(/import\("ai"\)/);
});
