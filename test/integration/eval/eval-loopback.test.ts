/**
 * `toolsmith eval` end to end against the scripted OpenAI-compatible server on loopback (real SSE,
 * through the AI SDK provider): a model led astray by a vague tool description fails the scenario,
 * `--compare-description` shows the clear description fixes it beyond the noise, and the recorded
 * trials replay green under `toolsmith test`.
 */
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { program } from "../../../src/cli/_program.js";
import { runProgram } from "../../../src/command/node-command.js";
import { fakeIO } from "../../unit/cli/_fake-host.js";
import { runCli } from "../cli/_run.js";
import { descriptionLedScript, type ScriptedServer, startScriptedServer } from "./_openai-server.js";

const EXTENSION = `import { defineExtension, defineTool, Type } from "toolsmith-sdk";

export default defineExtension((api) => {
	api.registerTool(defineTool({
		name: "weather",
		label: "Weather",
		description: "Weather forecast for a place.",
		parameters: Type.Object({ city: Type.String({ minLength: 1 }) }),
		async execute(_id, { city }) {
			return { content: [{ type: "text", text: \`sunny in \${city}\` }], details: { city } };
		},
	}));
});
`;

const SCENARIO = `export default {
	name: "paris weather",
	prompt: "What is the weather in Paris?",
	tools: { extensions: ["./weather.ts"] },
	expect: { calls: [{ tool: "weather", args: { city: "Paris" } }], order: "strict", maxTurns: 2, answer: /sunny/ },
	trials: 10,
	passRate: 0.9,
};
`;

let dir: string;
let server: ScriptedServer;

beforeAll(async () => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-eval-loopback-")));
	writeFileSync(join(dir, "weather.ts"), EXTENSION);
	writeFileSync(join(dir, "weather.eval.ts"), SCENARIO);
	mkdirSync(join(dir, "rec"));
	server = await startScriptedServer(
		descriptionLedScript({
			tool: "weather",
			clear: /city/i,
			right: { city: "Paris" },
			wrong: { location: "Paris" },
			wrongRate: 0.7,
			seed: 34,
			answer: "It is sunny in Paris.",
		}),
	);
});

afterAll(async () => {
	await server.close();
	rmSync(dir, { recursive: true, force: true });
});

describe("toolsmith eval against an OpenAI-compatible server", () => {
	it("reports the failing description, the fixing one beyond the noise, and records replayable trials", async () => {
		const io = { ...fakeIO(), cwd: dir };
		const code = await runProgram(
			program,
			[
				"eval",
				"--model",
				"openai-compatible/test-model",
				"--base-url",
				server.baseUrl,
				"--concurrency",
				"4",
				"--record",
				"rec",
				"--compare-description",
				"weather=Current weather for a city name.",
			],
			io,
		);
		const out = io.out();
		if (process.env.SHOW_EVAL_OUTPUT) console.log(out);
		expect(io.err()).toBe("");
		// A (the vague description) falls under its goal: exit 1
		expect(code).toBe(1);
		const [a, b] = out.split(/^B$/m);
		const aPassed = Number(/paris weather {2}(\d+)\/10 passed/.exec(a ?? "")?.[1]);
		expect(aPassed).toBeLessThan(9);
		expect(a).toContain('the model called weather({"location":"Paris"}): /city: expected "Paris", missing');
		expect(a).toMatch(/invalid arguments: weather \d+\/\d+ calls \(\d+%\): city ×\d+/);
		// the trials that failed the same way are listed once
		expect(a).toMatch(new RegExp(`^  (#\\d+, ){${9 - aPassed}}#\\d+ failed \\(2 turns, ended by answer\\)$`, "m"));
		expect(a?.match(/the model called:/g)).toHaveLength(1);
		expect(a).toMatch(/in \/ \d+ out tokens/);
		expect(b).toContain("paris weather  10/10 passed (100%, goal 90%)  ok");
		expect(out).toMatch(
			new RegExp(`paris weather +${aPassed}/10 +10/10 +\\+\\d+% +\\[\\+\\d+%, \\+\\d+%\\] +B better`),
		);
		// every trial recorded, and replayed without the model
		expect(readdirSync(join(dir, "rec", "a"))).toHaveLength(10);
		expect(readdirSync(join(dir, "rec", "b"))).toHaveLength(10);
		const replay = await runCli(["test", "rec"], { cwd: dir });
		expect(replay.stdout).toContain("20 fixtures passed");
		expect(replay.code).toBe(0);
	});

	it("--api-key-env: sends the key the named variable holds, and refuses an unset one", async () => {
		const args = ["eval", "--model", "openai-compatible/test-model", "--base-url", server.baseUrl, "--trials", "1"];
		const io = { ...fakeIO({ LOOPBACK_KEY: "sk-loopback" }), cwd: dir };
		const before = server.requests.length;
		expect(await runProgram(program, [...args, "--api-key-env", "LOOPBACK_KEY"], io)).toBeLessThanOrEqual(1);
		const sent = server.requests.slice(before);
		expect(sent.length).toBeGreaterThan(0);
		for (const request of sent) expect(request.headers.authorization).toBe("Bearer sk-loopback");

		const unset = { ...fakeIO(), cwd: dir };
		expect(await runProgram(program, [...args, "--api-key-env", "NOT_SET_ANYWHERE"], unset)).toBe(2);
		expect(unset.err()).toContain("the environment variable NOT_SET_ANYWHERE is not set");
		const noUrl = { ...fakeIO({ LOOPBACK_KEY: "k" }), cwd: dir };
		expect(await runProgram(program, ["eval", "--model", "openai/x", "--api-key-env", "LOOPBACK_KEY"], noUrl)).toBe(2);
		expect(noUrl.err()).toContain("give its --base-url too");
	});
});
