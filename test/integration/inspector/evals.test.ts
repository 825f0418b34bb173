/**
 * The inspector's evals without a browser: the scenario files under its cwd with their scenarios'
 * names (and a file that does not load), and one scenario run with a scripted model over the
 * host's extensions, answered with each trial's trajectory, its failures and the pass rate.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EvalRunResponse, EvalScenariosResponse } from "../../../src/inspector/protocol.js";
import { eventStream, type Inspected, startInspected } from "./_server.js";

const SCENARIOS = `export default [
	{
		name: "greet ada",
		prompt: "Say hello to Ada.",
		expect: { calls: [{ tool: "hello", args: { name: /ada/i } }], order: "strict", answer: /Hello/ },
	},
	{
		name: "greet bob",
		prompt: "Say hello to Bob.",
		expect: { calls: [{ tool: "hello", args: { name: "Bob" } }], forbid: ["countdown"] },
		passRate: 0.5,
	},
];
`;

// Right for Ada; for Bob it sends a field the tool does not have.
const MODEL = `export default function script(request, turn) {
	const prompt = request.messages[0].text;
	if (turn > 0) return { text: "Hello, done." };
	const args = prompt.includes("Ada") ? { name: "Ada" } : { who: "Bob" };
	return { calls: [{ tool: "hello", args }] };
}
`;

let assets: string;
let it_: Inspected;
let outside: string;

beforeAll(async () => {
	assets = mkdtempSync(join(tmpdir(), "toolsmith-inspector-assets-"));
	writeFileSync(join(assets, "index.html"), "<p>__TOKEN__</p>");
	writeFileSync(join(assets, "app.js"), "export {};");
	writeFileSync(join(assets, "app.css"), "body{}");
	it_ = await startInspected({ assetsDir: assets, extensions: ["hello.ts", "countdown.ts"] });
	writeFileSync(join(it_.dir, "greet.eval.ts"), SCENARIOS);
	writeFileSync(join(it_.dir, "broken.eval.json"), "{ not json");
	writeFileSync(join(it_.dir, "model.ts"), MODEL);
	writeFileSync(
		join(it_.dir, "ada.json"),
		JSON.stringify([{ calls: [{ tool: "hello", args: { name: "Ada" } }] }, { text: "Hello, done." }]),
	);
	// A folder beside the project with a model module that leaves a mark when it is imported.
	outside = mkdtempSync(join(tmpdir(), "toolsmith-inspector-outside-"));
	mkdirSync(join(outside, "sub"));
	const mark = join(outside, "imported.txt");
	writeFileSync(
		join(outside, "model.mjs"),
		`import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(mark)}, "x");\nexport default [];\n`,
	);
	writeFileSync(join(outside, "model.json"), JSON.stringify([{ text: "x" }]));
	symlinkSync(join(outside, "model.mjs"), join(it_.dir, "linked-model.mjs"));
	// Scenario files reached through links out of the working folder: neither is listed nor run.
	writeFileSync(
		join(outside, "sub", "away.eval.mjs"),
		`import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(mark)}, "x");\nexport default [];\n`,
	);
	writeFileSync(
		join(outside, "away.eval.json"),
		JSON.stringify({ name: "away", prompt: "p", expect: { answer: "x" } }),
	);
	symlinkSync(join(outside, "away.eval.json"), join(it_.dir, "linked.eval.json"));
	symlinkSync(join(outside, "sub"), join(it_.dir, "linked-folder"));
});

afterAll(async () => {
	await it_?.close();
	rmSync(assets, { recursive: true, force: true });
	rmSync(outside, { recursive: true, force: true });
});

async function run(body: unknown): Promise<{ status: number; body: EvalRunResponse & { error?: string } }> {
	const response = await fetch(it_.url("/api/evals/run"), {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify(body),
	});
	return { status: response.status, body: (await response.json()) as EvalRunResponse & { error?: string } };
}

describe("the inspector's evals", () => {
	it("lists the scenario files under the cwd with their scenarios, and the file that does not load", async () => {
		const response = await fetch(it_.url("/api/evals"));
		expect(response.status).toBe(200);
		const { files } = (await response.json()) as EvalScenariosResponse;
		expect(files.map((f) => f.file)).toEqual(["broken.eval.json", "greet.eval.ts"]);
		expect(files[1]).toEqual({ file: "greet.eval.ts", scenarios: ["greet ada", "greet bob"] });
		expect(files[0]!.error).toMatch(/not valid JSON/);
	});

	it("neither lists nor runs a scenario file reached through a symlink out of the working folder", async () => {
		const { files } = (await (await fetch(it_.url("/api/evals"))).json()) as EvalScenariosResponse;
		expect(files.map((f) => f.file)).not.toContain("linked.eval.json");
		expect(files.map((f) => f.file).some((f) => f.startsWith("linked-folder"))).toBe(false);
		for (const file of ["linked.eval.json", "linked-folder/away.eval.mjs"]) {
			expect((await run({ file, scenario: "away", model: "scripted:ada.json" })).status, file).toBe(404);
		}
		expect(existsSync(join(outside, "imported.txt"))).toBe(false);
	});

	it("refuses the list and the run without the token", async () => {
		const list = await fetch(`http://127.0.0.1:${it_.server.port}/api/evals`);
		expect(list.status).toBe(403);
		const runs = await fetch(`http://127.0.0.1:${it_.server.port}/api/evals/run`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: "{}",
		});
		expect(runs.status).toBe(403);
	});

	it("runs a passing scenario with a scripted model over the host's tools: the trajectory turn by turn", async () => {
		const { status, body } = await run({ file: "greet.eval.ts", scenario: "greet ada", model: "scripted:model.ts" });
		expect(status).toBe(200);
		expect(body).toMatchObject({
			model: "scripted/model.ts",
			scenario: "greet ada",
			trials: 1,
			passed: 1,
			passRate: 1,
			goal: 1,
			ok: true,
			expected: { calls: [{ tool: "hello", args: { name: "/ada/i" } }], order: "strict", answer: "/Hello/" },
		});
		expect(body.results).toHaveLength(1);
		expect(body.results[0]).toMatchObject({
			trial: 1,
			passed: true,
			turns: 2,
			ended: "answer",
			answer: "Hello, done.",
			failures: [],
			calls: [{ turn: 1, tool: "hello", args: { name: "Ada" }, isError: false, invalidFields: [] }],
		});
	});

	it("runs a failing scenario for several trials: invalid fields and the failed expectation beside the expected call", async () => {
		const events = eventStream(it_.url("/api/events"));
		let streamed: unknown[];
		let status: number;
		let body: EvalRunResponse;
		try {
			await events.next((e) => e.type === "hello");
			({ status, body } = await run({
				file: "greet.eval.ts",
				scenario: "greet bob",
				model: "scripted:model.ts",
				trials: 2,
			}));
			await events.next((e) => e.type === "eval-trial" && e.run === body.run && e.trial.trial === 2);
			streamed = events.seen.filter((e) => e.type === "eval-trial" && e.run === body.run);
		} finally {
			events.close();
		}
		expect(status).toBe(200);
		// each trial was on the event stream as it ended, as the answer gives it
		expect(streamed).toHaveLength(2);
		expect(streamed).toEqual(
			expect.arrayContaining(
				body.results.map((trial) => ({ type: "eval-trial", run: body.run, scenario: "greet bob", trials: 2, trial })),
			),
		);
		expect(body).toMatchObject({ trials: 2, passed: 0, passRate: 0, goal: 0.5, ok: false });
		for (const trial of body.results) {
			expect(trial.passed).toBe(false);
			expect(trial.calls).toEqual([
				{
					turn: 1,
					tool: "hello",
					args: { who: "Bob" },
					isError: true,
					invalidFields: expect.arrayContaining(["name"]),
				},
			]);
			const failure = trial.failures.find((f) => f.expectation === "calls");
			expect(failure?.message).toContain("hello");
		}
	});

	it("answers 400 without a model, 404 for a file it does not list or a scenario it lacks", async () => {
		expect((await run({ file: "greet.eval.ts", scenario: "greet ada", model: " " })).status).toBe(400);
		expect(
			(await run({ file: "greet.eval.ts", scenario: "greet ada", model: "scripted:model.ts", trials: 0 })).status,
		).toBe(400);
		expect((await run({ file: "model.ts", scenario: "greet ada", model: "scripted:model.ts" })).status).toBe(404);
		expect((await run({ file: "greet.eval.ts", scenario: "nobody", model: "scripted:model.ts" })).status).toBe(404);
		const missing = await run({ file: "greet.eval.ts", scenario: "greet ada", model: "scripted:nowhere.ts" });
		expect(missing.status).toBe(400);
		expect(missing.body.error).toMatch(/^The model: /);
	});

	it("runs a scripted model given as a JSON list of turns", async () => {
		const { status, body } = await run({ file: "greet.eval.ts", scenario: "greet ada", model: "scripted:ada.json" });
		expect(status).toBe(200);
		expect(body).toMatchObject({ model: "scripted/ada.json", passed: 1 });
	});

	it("imports a scripted model only from inside the working folder: absolute, .., a symlink out, a NUL byte", async () => {
		const relativeOut = join("..", outside.slice(outside.lastIndexOf("/") + 1));
		for (const model of [
			`scripted:${join(outside, "model.mjs")}`,
			`scripted:${relativeOut}/model.mjs`,
			`scripted:${relativeOut}/model.json`,
			`scripted:tools/../${relativeOut}/sub/../model.mjs`,
			"scripted:linked-model.mjs",
		]) {
			const refused = await run({ file: "greet.eval.ts", scenario: "greet ada", model });
			expect(refused.status, model).toBe(400);
			expect(refused.body.error, model).toMatch(/is outside the working folder .* \(symlinks resolved\)/);
		}
		const nul = await run({ file: "greet.eval.ts", scenario: "greet ada", model: "scripted:model\u0000.ts" });
		expect(nul.status).toBe(400);
		expect(nul.body.error).toMatch(/NUL byte/);
		expect(existsSync(join(outside, "imported.txt"))).toBe(false);
	});
});
