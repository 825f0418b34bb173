/**
 * The inspector's Evals tab under a path policy, as `toolsmith inspect --confine` (a child process)
 * serves it, against files a confined model could have written into the working folder: scenario
 * code is listed but not imported without `--allow-eval-code` (and neither are a JSON scenario's
 * extensions or a scripted model module), JSON scenarios and JSON scripted models still run,
 * `expect.files` cannot read outside the world, `scripted:` stays inside the working folder (symlinks
 * resolved) with or without the opt-in, and a Node world's bash runs under the policy too.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeSandbox } from "../../../src/env/_node-sandbox.js";
import type { EvalRunResponse, EvalScenariosResponse } from "../../../src/inspector/protocol.js";
import { runCli } from "../cli/_run.js";
import { type InspectProcess, startInspectCli } from "./_cli.js";

const bwrap = process.platform === "linux" && "sandbox" in (await probeSandbox());

let root: string;
let project: string;
let outside: string;
const SECRET = `inspector-secret-${process.pid}-${Date.now()}`;

/** A module that, when imported, writes `file` (outside the roots) and exports what `body` says. */
function pwnModule(file: string, body: string): string {
	return `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(file)}, "pwned");\n${body}\n`;
}

beforeAll(() => {
	root = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-inspect-evals-confine-")));
	project = join(root, "project");
	outside = join(root, "outside");
	mkdirSync(project);
	mkdirSync(outside);
	writeFileSync(join(outside, "secret.txt"), SECRET);
	// What the model could have written with the write tool (all inside the working folder):
	writeFileSync(
		join(project, "ext.eval.json"),
		JSON.stringify({
			name: "with extension",
			prompt: "p",
			tools: { extensions: ["./evil.mjs"] },
			expect: { answer: "done" },
		}),
	);
	writeFileSync(join(project, "evil.mjs"), pwnModule(join(outside, "by-extension.txt"), "export default () => {};"));
	writeFileSync(
		join(project, "model.mjs"),
		pwnModule(join(outside, "by-model.txt"), 'export default [{ text: "done" }];'),
	);
	writeFileSync(join(project, "done.json"), JSON.stringify([{ text: "done" }]));
	writeFileSync(join(project, "long.json"), JSON.stringify([{ text: `${"a".repeat(48)}!` }]));
	writeFileSync(
		join(project, "plain.eval.json"),
		JSON.stringify([
			{ name: "says done", prompt: "p", expect: { answer: "done" } },
			{ name: "catastrophic", prompt: "p", expect: { answer: { $regex: "^(a+)+$" } } },
		]),
	);
	writeFileSync(
		join(project, "leak.eval.json"),
		JSON.stringify({
			name: "leak",
			prompt: "p",
			world: { env: "node" },
			expect: { files: { [join(outside, "secret.txt")]: "x" } },
		}),
	);
	writeFileSync(
		join(project, "bash.eval.json"),
		JSON.stringify({
			name: "bash outside",
			prompt: "p",
			world: { env: "node" },
			tools: { builtins: ["bash"] },
			expect: { answer: "done" },
		}),
	);
	writeFileSync(
		join(project, "bash-model.json"),
		JSON.stringify([
			{ calls: [{ tool: "bash", args: { command: `echo x > ${join(outside, "by-bash.txt")}` } }] },
			{ text: "done" },
		]),
	);
	writeFileSync(join(outside, "model.json"), JSON.stringify([{ text: "done" }]));
	writeFileSync(join(outside, "model.mjs"), pwnModule(join(outside, "by-outside-model.txt"), "export default [];"));
	symlinkSync(join(outside, "model.json"), join(project, "linked-model.json"));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function api(inspect: InspectProcess, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
	const response = await fetch(`http://127.0.0.1:${inspect.port}${path}?token=${inspect.token}`, {
		...(body === undefined
			? {}
			: { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
	});
	return { status: response.status, json: await response.json() };
}

const run = (inspect: InspectProcess, body: Record<string, unknown>) =>
	api(inspect, "/api/evals/run", body) as Promise<{ status: number; json: EvalRunResponse & { error?: string } }>;

/** `toolsmith inspect` in the project with `args`; stopped at the end. */
async function withInspector(args: readonly string[], body: (inspect: InspectProcess) => Promise<void>): Promise<void> {
	const inspect = await startInspectCli(["inspect", "--no-watch", ...args], { cwd: project });
	try {
		await body(inspect);
	} finally {
		await inspect.kill("SIGKILL");
	}
}

describe("--allow-eval-code", () => {
	it.each([
		[["inspect", "--allow-eval-code"], /--allow-eval-code applies under --confine or --confine-reads/],
		[["dev", "--allow-eval-code"], /--allow-eval-code applies to the page: add --ui/],
		[["dev", "--ui", "--allow-eval-code"], /--allow-eval-code applies under --confine or --confine-reads/],
	])("%j is a usage error (exit 2)", async (args, message) => {
		const run = await runCli(args, { cwd: project });
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(message);
	});
});

describe("toolsmith inspect --confine-reads: the Evals tab", () => {
	it("lists scenario code without importing it, saying why and how to opt in", async () => {
		await withInspector(["--confine-reads"], async (inspect) => {
			// the model writes a scenario module with the write tool, as it may inside the roots
			const started = await api(inspect, "/api/call", {
				tool: "write",
				args: {
					path: "pwn.eval.mjs",
					content: pwnModule(
						join(outside, "by-scenario.txt"),
						'export default { name: "pwn", prompt: "p", expect: { answer: "x" } };',
					),
				},
			});
			expect(started.status).toBe(200);
			await expect.poll(() => existsSync(join(project, "pwn.eval.mjs")), { timeout: 20_000 }).toBe(true);
			const list = await api(inspect, "/api/evals");
			expect(list.status).toBe(200);
			const files = (list.json as EvalScenariosResponse).files;
			const pwn = files.find((f) => f.file === "pwn.eval.mjs");
			expect(pwn).toEqual({
				file: "pwn.eval.mjs",
				scenarios: [],
				error: expect.stringMatching(
					/^not imported: this file is scenario code, which is not run under a path policy: .* --allow-eval-code/,
				),
			});
			expect(files.find((f) => f.file === "plain.eval.json")?.scenarios).toEqual(["says done", "catastrophic"]);
			const refused = await run(inspect, { file: "pwn.eval.mjs", scenario: "pwn", model: "scripted:done.json" });
			expect(refused.status).toBe(403);
			expect(refused.json.error).toMatch(/--allow-eval-code/);
			expect(existsSync(join(outside, "by-scenario.txt"))).toBe(false);
		});
	});

	it("refuses a JSON scenario's extensions and a scripted model module, and runs JSON ones", async () => {
		await withInspector(["--confine-reads"], async (inspect) => {
			const extension = await run(inspect, {
				file: "ext.eval.json",
				scenario: "with extension",
				model: "scripted:done.json",
			});
			expect(extension.status).toBe(403);
			expect(extension.json.error).toMatch(/loads extension code \(\.\/evil\.mjs\).*--allow-eval-code/);
			const module = await run(inspect, {
				file: "plain.eval.json",
				scenario: "says done",
				model: "scripted:model.mjs",
			});
			expect(module.status).toBe(403);
			expect(module.json.error).toMatch(/scripted:model\.mjs is code.*--allow-eval-code.*a \.json list of turns/);
			expect(existsSync(join(outside, "by-extension.txt"))).toBe(false);
			expect(existsSync(join(outside, "by-model.txt"))).toBe(false);
			const data = await run(inspect, { file: "plain.eval.json", scenario: "says done", model: "scripted:done.json" });
			expect(data.status).toBe(200);
			expect(data.json).toMatchObject({ model: "scripted/done.json", passed: 1, ok: true });
		});
	});

	it("runs $regex on the linear-time engine: ^(a+)+$ against a long answer is judged", async () => {
		await withInspector(["--confine-reads"], async (inspect) => {
			const judged = await run(inspect, {
				file: "plain.eval.json",
				scenario: "catastrophic",
				model: "scripted:long.json",
			});
			expect(judged.status).toBe(200);
			expect(judged.json).toMatchObject({ passed: 0, expected: { answer: "/^(a+)+$/" } });
			expect((await api(inspect, "/api/state")).status).toBe(200);
		});
	});

	it("never reads a file outside through expect.files", async () => {
		await withInspector(["--confine-reads"], async (inspect) => {
			const list = await api(inspect, "/api/evals");
			const leak = (list.json as EvalScenariosResponse).files.find((f) => f.file === "leak.eval.json");
			expect(leak?.error).toMatch(/expect\.files\[".*secret\.txt"\]: must be a path relative to the world's folder/);
			const refused = await run(inspect, { file: "leak.eval.json", scenario: "leak", model: "scripted:done.json" });
			expect(refused.status).toBe(422);
			expect(JSON.stringify([list.json, refused.json])).not.toContain(SECRET);
		});
	});

	it("keeps scripted: inside the working folder: absolute, .., a symlink out, a NUL byte", async () => {
		await withInspector(["--confine-reads", "--allow-eval-code"], async (inspect) => {
			for (const model of [
				`scripted:${join(outside, "model.mjs")}`,
				"scripted:../outside/model.mjs",
				"scripted:../outside/model.json",
				"scripted:linked-model.json",
			]) {
				const refused = await run(inspect, { file: "plain.eval.json", scenario: "says done", model });
				expect(refused.status, model).toBe(400);
				expect(refused.json.error, model).toMatch(/outside the working folder/);
			}
			const nul = await run(inspect, {
				file: "plain.eval.json",
				scenario: "says done",
				model: "scripted:a\u0000b.json",
			});
			expect(nul.status).toBe(400);
			expect(nul.json.error).toMatch(/NUL/);
			expect(existsSync(join(outside, "by-outside-model.txt"))).toBe(false);
		});
	});

	it("with --allow-eval-code, imports scenario code and scripted model modules", async () => {
		writeFileSync(
			join(project, "opted.eval.mjs"),
			'export default { name: "opted", prompt: "p", expect: { answer: "done" } };\n',
		);
		await withInspector(["--confine", "--allow-eval-code"], async (inspect) => {
			const list = await api(inspect, "/api/evals");
			expect((list.json as EvalScenariosResponse).files.find((f) => f.file === "opted.eval.mjs")).toEqual({
				file: "opted.eval.mjs",
				scenarios: ["opted"],
			});
			const ran = await run(inspect, { file: "opted.eval.mjs", scenario: "opted", model: "scripted:model.mjs" });
			expect(ran.status).toBe(200);
			expect(ran.json).toMatchObject({ passed: 1 });
			// the opt-in was given: the module ran, and what it did outside is the user's choice
			expect(existsSync(join(outside, "by-model.txt"))).toBe(true);
		});
	});

	it.skipIf(!bwrap)("runs a Node world's bash under the policy too", async () => {
		await withInspector(["--confine"], async (inspect) => {
			const ran = await run(inspect, {
				file: "bash.eval.json",
				scenario: "bash outside",
				model: "scripted:bash-model.json",
			});
			expect(ran.status).toBe(200);
			expect(ran.json.results[0]?.calls[0]).toMatchObject({ tool: "bash", isError: true });
			expect(existsSync(join(outside, "by-bash.txt"))).toBe(false);
		});
	});

	it("refuses runs that would import its own extensions again from the working folder", async () => {
		mkdirSync(join(project, "tools"), { recursive: true });
		writeFileSync(join(project, "tools", "mine.ts"), "export default function () {}\n");
		mkdirSync(join(root, "ext"), { recursive: true });
		writeFileSync(join(root, "ext", "theirs.ts"), "export default function () {}\n");
		const body = { file: "plain.eval.json", scenario: "says done", model: "scripted:done.json" };
		await withInspector(["tools", "--confine"], async (inspect) => {
			const refused = await run(inspect, body);
			expect(refused.status).toBe(403);
			expect(refused.json.error).toMatch(
				/The inspector's extensions tools lie in the working folder .*--allow-eval-code/,
			);
		});
		await withInspector(["tools", "--confine", "--allow-eval-code"], async (inspect) => {
			expect((await run(inspect, body)).status).toBe(200);
		});
		// Extensions outside the working folder cannot be rewritten by the confined tools.
		await withInspector([join(root, "ext"), "--confine"], async (inspect) => {
			expect((await run(inspect, body)).status).toBe(200);
		});
	});
});
