/**
 * `toolsmith eval` on a project in a real temp folder, driven by a scripted model (no network): pass
 * rates, failing expectations beside the model's calls, invalid arguments, usage errors, `--json`,
 * `--compare` with a description override and with a second extension, and `--record` giving
 * fixtures that `toolsmith test` replays green.
 */
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
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { program } from "../../../src/cli/_program.js";
import { runProgram } from "../../../src/command/node-command.js";
import { fakeIO } from "../../unit/cli/_fake-host.js";
import { runCli } from "../cli/_run.js";

const weatherTool = (description: string) => `import { defineExtension, defineTool, Type } from "toolsmith-sdk";

export default defineExtension((api) => {
	api.registerTool(defineTool({
		name: "weather",
		label: "Weather",
		description: ${JSON.stringify(description)},
		parameters: Type.Object({ city: Type.String({ minLength: 1 }) }),
		async execute(_id, { city }) {
			return { content: [{ type: "text", text: \`sunny in \${city}\` }], details: { city } };
		},
	}));
	api.registerTool(defineTool({
		name: "save_report",
		label: "Save report",
		description: "Save a weather report to report.txt.",
		parameters: Type.Object({ text: Type.String() }),
		async execute(_id, { text }, _signal, _onUpdate, ctx) {
			const before = await ctx.env.readTextFile("header.txt");
			const written = await ctx.env.writeFile("report.txt", (before.ok ? before.value : "") + text);
			if (!written.ok) throw written.error;
			return { content: [{ type: "text", text: "saved" }], details: {} };
		},
	}));
});
`;

const SCENARIOS = `export default [
	{
		name: "paris weather",
		prompt: "What is the weather in Paris?",
		tools: { extensions: ["./tools/weather.ts"] },
		expect: { calls: [{ tool: "weather", args: { city: /paris/i } }], order: "strict", answer: /sunny/ },
		trials: 3,
	},
	{
		name: "save report",
		prompt: "Save a report saying it is sunny.",
		world: { files: { "header.txt": "Report: " } },
		tools: { extensions: ["./tools/weather.ts"] },
		expect: { calls: [{ tool: "save_report" }], forbid: ["weather"], files: { "report.txt": "Report: sunny" } },
		trials: 2,
		passRate: 0.5,
	},
];
`;

// The model reads the weather tool's description: told of a "city", it passes one; otherwise it
// guesses a "location" field, which validation refuses.
const MODEL = `export default function script(request, turn) {
	const prompt = request.messages[0].text;
	if (prompt.startsWith("Save")) {
		return turn === 0
			? { calls: [{ tool: "save_report", args: { text: "sunny" } }], usage: { inputTokens: 100, outputTokens: 10 } }
			: { text: "Saved.", usage: { inputTokens: 120, outputTokens: 3 } };
	}
	if (turn > 0) return { text: "It is sunny in Paris.", usage: { inputTokens: 150, outputTokens: 8, costUsd: 0.0001 } };
	const weather = request.tools.find((tool) => tool.name === "weather");
	const args = /city/i.test(weather.description) ? { city: "Paris" } : { location: "Paris" };
	return { calls: [{ tool: "weather", args }], usage: { inputTokens: 100, outputTokens: 12, costUsd: 0.0001 } };
}
`;

let dir: string;

beforeAll(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-eval-cli-")));
	mkdirSync(join(dir, "tools"));
	mkdirSync(join(dir, "evals"));
	writeFileSync(join(dir, "tools", "weather.ts"), weatherTool("Weather forecast for a place."));
	writeFileSync(join(dir, "weather-v2.ts"), weatherTool("Current weather for a city name."));
	writeFileSync(join(dir, "weather.eval.ts"), SCENARIOS);
	writeFileSync(join(dir, "evals", "model.ts"), MODEL);
	mkdirSync(join(dir, "node_modules", "x"), { recursive: true });
	writeFileSync(join(dir, "node_modules", "x", "skip.eval.ts"), "throw new Error('node_modules is searched');");
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: readonly string[]) {
	const io = { ...fakeIO(), cwd: dir };
	const code = await runProgram(program, ["eval", ...args], io);
	return { code, out: io.out(), err: io.err() };
}

describe("toolsmith eval", () => {
	it("reports pass rates against goals, the failing expectations and the invalid arguments; exits 1 under a goal", async () => {
		const { code, out, err } = await run(["--model", "scripted:evals/model.ts"]);
		expect(err).toBe("");
		expect(code).toBe(1);
		expect(out).toContain("paris weather  0/3 passed (0%, goal 100%)  UNDER GOAL");
		expect(out).toContain("invalid arguments: weather 3/3 calls (100%): city ×3");
		expect(out).toContain(
			'calls: strict: call 1 should be weather({"city":"/paris/i"}); the model called weather({"location":"Paris"}): /city: expected /paris/i, missing',
		);
		expect(out).toContain("the model called: weather!");
		expect(out).toContain("save report  2/2 passed (100%, goal 50%)  ok");
		expect(out).toContain("turns 2.0 on average, 750 in / 60 out tokens, $0.0006");
		expect(out).toContain("turns 2.0 on average, 440 in / 26 out tokens\n");
		expect(out).toContain("1 of 2 scenarios fell under their goal");
		// not a terminal: one plain line per trial
		expect(out).toMatch(/^FAIL paris weather #1 \(calls\), 2 turns, \d+ ms$/m);
	});

	it("--grep, --trials, --json", async () => {
		const { code, out } = await run([
			"--model",
			"scripted:evals/model.ts",
			"--grep",
			"^save",
			"--trials",
			"3",
			"--json",
			"out/report.json",
		]);
		expect(code).toBe(0);
		expect(out).toContain("save report  3/3 passed");
		expect(out).not.toContain("paris");
		const report = JSON.parse(readFileSync(join(dir, "out", "report.json"), "utf8"));
		expect(report).toMatchObject({
			model: "scripted/model.ts",
			ok: true,
			scenarios: [{ scenario: "save report", trials: 3, passed: 3 }],
		});
	});

	it("--verbose: every trial's trajectory, turn by turn", async () => {
		const { out } = await run(["--model", "scripted:evals/model.ts", "--trials", "1", "--verbose"]);
		expect(out).toContain(
			[
				"  #1 failed (2 turns, ended by answer)",
				'    calls: strict: call 1 should be weather({"city":"/paris/i"}); the model called weather({"location":"Paris"}): /city: expected /paris/i, missing',
				'    turn 1: weather({"location":"Paris"})!',
				'    answer: "It is sunny in Paris."',
			].join("\n"),
		);
		expect(out).toContain(
			["  #1 passed (2 turns)", '    turn 1: save_report({"text":"sunny"})', '    answer: "Saved."'].join("\n"),
		);
	});

	it("--compare-description: the difference of pass rates with its interval", async () => {
		const { code, out } = await run([
			"--model",
			"scripted:evals/model.ts",
			"--grep",
			"paris",
			"--compare-description",
			"weather=Current weather for a city name.",
		]);
		expect(code).toBe(1);
		expect(out).toContain("B: weather's description replaced");
		expect(out).toMatch(/paris weather +0\/3 +3\/3 +\+100% +\[\+21%, \+100%\] +B better/);
	});

	it("--compare <extension>: another version of the tool; within noise on few trials", async () => {
		const { out } = await run([
			"--model",
			"scripted:evals/model.ts",
			"--grep",
			"paris",
			"--trials",
			"1",
			"--compare",
			"weather-v2.ts",
		]);
		expect(out).toContain("B: with weather-v2.ts");
		expect(out).toMatch(/paris weather +0\/1 +1\/1 +\+100% +\[.*\] +within noise/);
	});

	it("draws a progress line on a terminal", async () => {
		let out = "";
		const io = { ...fakeIO(), cwd: dir, stdout: { write: (chunk: string) => (out += chunk), isTTY: true } };
		const code = await runProgram(program, ["eval", "weather.eval.ts", "--model", "scripted:evals/model.ts"], io);
		expect(code).toBe(1);
		const plain = out.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "");
		expect(plain).toContain("\r\x1b[K0/5 trials, 0 failed");
		expect(plain).toContain("\r\x1b[K5/5 trials, 3 failed — save report #2");
		expect(plain).not.toMatch(/^FAIL paris weather #1/m);
	});

	it("stops on Ctrl-C, prints what was done and exits 130", async () => {
		writeFileSync(
			join(dir, "evals", "slow.ts"),
			`export default { id: "slow/model", turn: (request) => new Promise((_resolve, reject) => {
	request.signal.addEventListener("abort", () => reject(new Error("interrupted")));
}) };\n`,
		);
		const io = { ...fakeIO(), cwd: dir };
		const running = runProgram(program, ["eval", "weather.eval.ts", "--model", "scripted:evals/slow.ts"], io);
		await new Promise((resolve) => setTimeout(resolve, 300));
		io.interrupt();
		expect(await running).toBe(130);
		expect(io.out()).toContain("the trial stopped on an error: interrupted");
		expect(io.out()).toContain("paris weather  0/3 passed");
	});

	it("exits 2 without --model, or without scenario files, saying what to do", async () => {
		const noModel = await run([]);
		expect(noModel.code).toBe(2);
		expect(noModel.err).toContain("--model <provider>/<id>");
		const empty = join(dir, "empty");
		mkdirSync(empty, { recursive: true });
		const none = await run(["empty", "--model", "scripted:evals/model.ts"]);
		expect(none.code).toBe(2);
		expect(none.err).toContain("no scenario files (*.eval.ts, *.eval.js, *.eval.json) found in empty");
	});

	it("takes a JSON scenario file, patterns as { $regex }", async () => {
		writeFileSync(
			join(dir, "evals", "save.eval.json"),
			JSON.stringify({
				name: "json save",
				prompt: "Save a report saying it is sunny.",
				world: { files: { "header.txt": "" } },
				tools: { extensions: ["../tools/weather.ts"] },
				expect: {
					calls: [{ tool: "save_report", args: { text: { $regex: "^sun" } } }],
					answer: { $regex: "saved", flags: "i" },
				},
			}),
		);
		const { code, out } = await run(["evals/save.eval.json", "--model", "scripted:evals/model.ts"]);
		expect(out).toContain("json save  1/1 passed");
		expect(code).toBe(0);
	});
});

describe("toolsmith eval --record", () => {
	it("writes each trial as a fixture that toolsmith test replays green", async () => {
		const { code } = await run(["weather.eval.ts", "--model", "scripted:evals/model.ts", "--record", "recorded"]);
		expect(code).toBe(1);
		const files = readdirSync(join(dir, "recorded")).sort();
		expect(files).toEqual([
			"paris-weather-1.fixture.json",
			"paris-weather-2.fixture.json",
			"paris-weather-3.fixture.json",
			"save-report-1.fixture.json",
			"save-report-2.fixture.json",
		]);
		const fixture = JSON.parse(readFileSync(join(dir, "recorded", "save-report-1.fixture.json"), "utf8"));
		expect(fixture).toMatchObject({
			name: "save report #1",
			extensions: ["../tools/weather.ts"],
			files: { "header.txt": "Report: " },
			steps: [
				{
					calls: [{ tool: "save_report", args: { text: "sunny" }, expect: { isError: false, text: "saved" } }],
					expect: { files: { "report.txt": "Report: sunny" } },
				},
			],
		});
		expect(existsSync(join(dir, "recorded", "a"))).toBe(false);
		const replay = await runCli(["test", "recorded"], { cwd: dir });
		expect(replay.stderr).toBe("");
		expect(replay.stdout).toContain("5 fixtures passed");
		expect(replay.code).toBe(0);
	});
});
