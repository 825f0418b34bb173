import { describe, expect, it } from "vitest";
import { defineTool } from "../../../src/contract/tool.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { runTrial } from "../../../src/eval/loop.js";
import { scriptedModel } from "../../../src/eval/scripted.js";
import { scenarioRegistry, toolsetOf } from "../../../src/eval/toolset.js";
import type { EvalModelRequest, EvalScenario } from "../../../src/eval/types.js";
import { Type } from "../../../src/index.js";

const note = defineTool({
	name: "note",
	label: "Note",
	description: "Write a note to a file. Use it to remember things.",
	promptGuidelines: ["Keep notes short."],
	parameters: Type.Object({ path: Type.String(), text: Type.String({ minLength: 1 }) }),
	async execute(_id, { path, text }, _signal, _onUpdate, ctx) {
		const written = await ctx.env.writeFile(path, text);
		if (!written.ok) throw new Error(written.error.message);
		return { content: [{ type: "text", text: `wrote ${path}` }], details: {} };
	},
});

const stop = defineTool({
	name: "stop",
	label: "Stop",
	description: "Stop.",
	parameters: Type.Object({}),
	async execute() {
		return { content: [{ type: "text", text: "stopped" }], details: {}, terminate: true };
	},
});

const scenario: EvalScenario = {
	name: "notes",
	prompt: "Remember that the answer is 42.",
	system: "Be brief.",
	tools: { definitions: [note, stop] },
	expect: { calls: [{ tool: "note", args: { text: /42/ } }], files: { "notes.txt": "42" }, answer: /saved/ },
};

function trialOf(s: EvalScenario, model = scriptedModel([])) {
	const env = new MemoryExecutionEnv();
	return runTrial({ scenario: s, trial: 1, model, toolset: toolsetOf(scenarioRegistry(s), s), env });
}

describe("runTrial", () => {
	it("runs turns, batches the calls through the executor, and checks the end", async () => {
		const requests: EvalModelRequest[] = [];
		const model = scriptedModel((request, turn) => {
			requests.push(request);
			return turn === 0
				? {
						calls: [{ tool: "note", args: { path: "notes.txt", text: "42" } }],
						usage: { inputTokens: 10, outputTokens: 2 },
					}
				: { text: "saved", usage: { inputTokens: 20, outputTokens: 1, costUsd: 0.001 } };
		});
		const result = await trialOf(scenario, model);
		expect(result.failures).toEqual([]);
		expect(result).toMatchObject({ passed: true, turns: 2, answer: "saved", ended: "answer" });
		expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 3, costUsd: 0.001 });
		expect(result.calls).toHaveLength(1);
		expect(result.calls[0]).toMatchObject({ turn: 1, isError: false, invalidFields: [] });
		// the system prompt: the tools section, then the scenario's own
		expect(requests[0]?.system).toBe(
			"Available tools:\n- note: Write a note to a file.\n- stop: Stop.\n\nGuidelines:\n- Keep notes short.\n\nBe brief.",
		);
		expect(requests[0]?.tools.map((t) => t.name)).toEqual(["note", "stop"]);
		expect(requests[0]?.tools[0]?.parameters).toMatchObject({ type: "object", required: ["path", "text"] });
		expect(requests[1]?.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
	});

	it("overrides descriptions in what the model is told", async () => {
		let seen: EvalModelRequest | undefined;
		const s = { ...scenario, tools: { ...scenario.tools, descriptions: { note: "Jot something down. More." } } };
		await trialOf(
			s,
			scriptedModel((request) => {
				seen = request;
				return { text: "" };
			}),
		);
		expect(seen?.tools[0]?.description).toBe("Jot something down. More.");
		expect(seen?.system).toContain("- note: Jot something down.");
		expect(() => toolsetOf(scenarioRegistry(s), { ...s, tools: { ...s.tools, descriptions: { nope: "x" } } })).toThrow(
			/no tool "nope"/,
		);
	});

	it("records the fields validation refused, and the failing expectations", async () => {
		const result = await trialOf(
			scenario,
			scriptedModel([{ calls: [{ tool: "note", args: { text: "" } }] }, { text: "oops" }]),
		);
		expect(result.passed).toBe(false);
		expect(result.calls[0]).toMatchObject({ isError: true });
		expect([...(result.calls[0]?.invalidFields ?? [])].sort()).toEqual(["path", "text"]);
		expect(result.failures.map((f) => f.expectation)).toEqual(["calls", "files", "answer"]);
		expect(result.failures[0]?.actual).toEqual({ tool: "note", args: { text: "" } });
	});

	it("ends on terminate, on the turn limit, and on an error (recorded as a failure)", async () => {
		const terminated = await trialOf(scenario, scriptedModel([{ calls: [{ tool: "stop" }] }]));
		expect(terminated).toMatchObject({ ended: "terminate", turns: 1 });
		const limited = await trialOf(
			{ ...scenario, turnLimit: 3 },
			scriptedModel(() => ({ calls: [{ tool: "note", args: { path: "n", text: "x" } }] })),
		);
		expect(limited).toMatchObject({ ended: "turn-limit", turns: 3 });
		const failed = await trialOf(
			scenario,
			scriptedModel(() => {
				throw new Error("rate limited");
			}),
		);
		expect(failed).toMatchObject({ ended: "error", passed: false });
		expect(failed.failures[0]).toMatchObject({
			expectation: "error",
			message: "the trial stopped on an error: rate limited",
		});
	});

	it("gives built-ins by name", async () => {
		let names: string[] = [];
		await trialOf(
			{ ...scenario, tools: { builtins: ["read", "ls"] } },
			scriptedModel((request) => {
				names = request.tools.map((t) => t.name);
				return { text: "" };
			}),
		);
		expect(names).toEqual(["read", "ls"]);
	});
});

describe("runTrial: the end state stays inside the world", () => {
	const model = scriptedModel([{ text: "done" }]);
	const run = (env: MemoryExecutionEnv, files: Record<string, string | null>) => {
		const s: EvalScenario = { name: "end", prompt: "p", expect: { files } };
		return runTrial({ scenario: s, trial: 1, model, toolset: toolsetOf(scenarioRegistry(s), s), env });
	};

	it("refuses a path a symlink leads outside the world's folder, without reading it", async () => {
		const env = new MemoryExecutionEnv({
			cwd: "/project",
			files: { "/secret/key.txt": "SECRET", "inside.txt": "here" },
			symlinks: { "/project/out": "/secret", "/project/alias.txt": "inside.txt" },
		});
		const result = await run(env, { "out/key.txt": "x", "alias.txt": "here", "missing.txt": null });
		expect(result.passed).toBe(false);
		expect(result.failures).toEqual([
			{
				expectation: "files",
				message:
					"expect.files[\"out/key.txt\"]: refused: it leads outside the world's folder (/project); only the world's own files are read",
				expected: '"x"',
				actual: null,
			},
		]);
		expect(JSON.stringify(result)).not.toContain("SECRET");
	});

	it("refuses absolute and .. paths given straight to runTrial (no defineEval on the way)", async () => {
		const env = new MemoryExecutionEnv({ cwd: "/project", files: { "/secret.txt": "SECRET" } });
		const result = await run(env, { "/secret.txt": "x", "../secret.txt": null });
		expect(result.failures.map((failure) => failure.message)).toEqual([
			expect.stringMatching(/^expect\.files\["\/secret\.txt"\]: refused: must be a path relative/),
			expect.stringMatching(/^expect\.files\["\.\.\/secret\.txt"\]: refused: must stay inside the world's folder/),
		]);
		expect(JSON.stringify(result)).not.toContain("SECRET");
	});
});
