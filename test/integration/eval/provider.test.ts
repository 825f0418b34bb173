import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { ToolResultMessage } from "../../../src/contract/content.js";
import { createEvalModel } from "../../../src/eval/node-model.js";
import type { EvalMessage, EvalModelTool } from "../../../src/eval/types.js";
import { toAnthropicTools, toOpenAIChatTools, toOpenAIResponsesTools } from "../../../src/providers/tools.js";
import { descriptionLedScript, type Script, type ScriptedServer, startScriptedServer } from "./_openai-server.js";

const readTool: EvalModelTool = {
	name: "read_file",
	description: "Read a file. The path is relative to the project.",
	parameters: {
		type: "object",
		properties: {
			path: { type: "string", description: "Path relative to the project" },
			limit: { type: "integer", minimum: 1 },
		},
		required: ["path"],
	},
};
const writeTool: EvalModelTool = {
	name: "write_file",
	description: "Write a file.",
	parameters: {
		type: "object",
		properties: { path: { type: "string" }, content: { type: "string" } },
		required: ["path", "content"],
		additionalProperties: false,
	},
};

let script: Script = () => ({ text: "" });
let server: ScriptedServer;
let agentDir: string;

beforeAll(async () => {
	server = await startScriptedServer((request, index) => script(request, index));
});
afterAll(async () => {
	await server.close();
});
beforeEach(() => {
	server.requests.length = 0;
	agentDir = mkdtempSync(join(tmpdir(), "toolsmith-eval-pi-"));
	vi.stubEnv("PI_CODING_AGENT_DIR", agentDir);
});
afterEach(() => {
	vi.unstubAllEnvs();
	vi.unstubAllGlobals();
	rmSync(agentDir, { recursive: true, force: true });
});

describe("createEvalModel against an OpenAI-compatible server", () => {
	it("gives a text-only turn, with usage", async () => {
		script = () => ({ text: "All done, nothing to change.", usage: { prompt_tokens: 42, completion_tokens: 7 } });
		const model = await createEvalModel("openai-compatible/test-model", { baseUrl: server.baseUrl });
		expect(model.id).toBe("openai-compatible/test-model");
		const turn = await model.turn({ system: "You are terse.", messages: [{ role: "user", text: "Hi" }], tools: [] });
		expect(turn).toEqual({
			text: "All done, nothing to change.",
			toolCalls: [],
			usage: { inputTokens: 42, outputTokens: 7 },
		});
		const [request] = server.requests;
		expect(request?.path).toBe("/v1/chat/completions");
		expect(request?.body.model).toBe("test-model");
		expect(request?.body.stream).toBe(true);
		expect(request?.body.stream_options).toEqual({ include_usage: true });
		expect(request?.body.messages).toEqual([
			{ role: "system", content: "You are terse." },
			{ role: "user", content: "Hi" },
		]);
	});

	it("parses two parallel tool calls whose arguments came in pieces", async () => {
		script = () => ({
			toolCalls: [
				{ id: "call_a", name: "read_file", arguments: { path: "src/index.ts", limit: 20 } },
				{ id: "call_b", name: "write_file", arguments: { path: "notes.md", content: "# Notes\nline two" } },
			],
			usage: { prompt_tokens: 100, completion_tokens: 30 },
		});
		const model = await createEvalModel("openai-compatible/test-model", { baseUrl: server.baseUrl });
		const turn = await model.turn({
			system: "",
			messages: [{ role: "user", text: "Read and write" }],
			tools: [readTool, writeTool],
		});
		expect(turn.text).toBe("");
		expect(turn.toolCalls).toEqual([
			{ type: "toolCall", id: "call_a", name: "read_file", arguments: { path: "src/index.ts", limit: 20 } },
			{
				type: "toolCall",
				id: "call_b",
				name: "write_file",
				arguments: { path: "notes.md", content: "# Notes\nline two" },
			},
		]);
		expect(turn.usage).toEqual({ inputTokens: 100, outputTokens: 30 });
	});

	it("passes arguments through as given, even when they are not valid JSON or the tool is unknown", async () => {
		script = () => ({
			toolCalls: [
				{ id: "call_x", name: "read_file", arguments: '{"path": "a.txt", ' },
				{ id: "call_y", name: "no_such_tool", arguments: { anything: 1 } },
			],
		});
		const model = await createEvalModel("openai-compatible/test-model", { baseUrl: server.baseUrl });
		const turn = await model.turn({ system: "", messages: [{ role: "user", text: "go" }], tools: [readTool] });
		expect(turn.toolCalls).toEqual([
			{ type: "toolCall", id: "call_x", name: "read_file", arguments: '{"path": "a.txt", ' },
			{ type: "toolCall", id: "call_y", name: "no_such_tool", arguments: { anything: 1 } },
		]);
	});

	it("sends the tools as toolsmith's converters make them", async () => {
		script = () => ({ text: "ok" });
		const model = await createEvalModel("openai-compatible/test-model", { baseUrl: server.baseUrl });
		await model.turn({ system: "", messages: [{ role: "user", text: "go" }], tools: [readTool, writeTool] });
		const sent = server.requests[0]?.body.tools;
		const converted = toOpenAIChatTools([readTool, writeTool]);
		expect(sent).toHaveLength(2);
		expect(sent?.map((tool) => tool.function.name)).toEqual(["read_file", "write_file"]);
		for (const [index, tool] of converted.entries()) {
			expect(sent?.[index]?.type).toBe("function");
			expect(sent?.[index]?.function.description).toBe(tool.function.description);
			expect(sent?.[index]?.function.parameters).toEqual(tool.function.parameters);
		}
	});

	it("sends the history: user text, assistant text with tool calls, tool results", async () => {
		script = () => ({ text: "Done." });
		const result = (id: string, name: string, text: string, isError = false): ToolResultMessage => ({
			role: "toolResult",
			toolCallId: id,
			toolName: name,
			content: [{ type: "text", text }],
			details: undefined,
			isError,
			timestamp: 0,
		});
		const messages: EvalMessage[] = [
			{ role: "user", text: "Fix the README" },
			{
				role: "assistant",
				text: "Reading it first.",
				toolCalls: [
					{ type: "toolCall", id: "c1", name: "read_file", arguments: { path: "README.md" } },
					{ type: "toolCall", id: "c2", name: "write_file", arguments: { path: "x" } },
				],
			},
			{
				role: "tool",
				results: [
					result("c1", "read_file", "# Title"),
					result("c2", "write_file", "Validation failed: content is required", true),
				],
			},
		];
		const model = await createEvalModel("openai-compatible/test-model", { baseUrl: server.baseUrl });
		const turn = await model.turn({ system: "sys", messages, tools: [readTool, writeTool] });
		expect(turn.text).toBe("Done.");
		expect(server.requests[0]?.body.messages).toEqual([
			{ role: "system", content: "sys" },
			{ role: "user", content: "Fix the README" },
			{
				role: "assistant",
				content: "Reading it first.",
				tool_calls: [
					{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"README.md"}' } },
					{ id: "c2", type: "function", function: { name: "write_file", arguments: '{"path":"x"}' } },
				],
			},
			{ role: "tool", tool_call_id: "c1", content: "# Title" },
			{ role: "tool", tool_call_id: "c2", content: "Validation failed: content is required" },
		]);
	});

	it("reports the cost where the server reports it (OpenRouter's usage.cost)", async () => {
		script = () => ({ text: "cheap", usage: { prompt_tokens: 3, completion_tokens: 1, cost: 0.00012 } });
		const model = await createEvalModel("openai-compatible/test-model", { baseUrl: server.baseUrl });
		const turn = await model.turn({ system: "", messages: [{ role: "user", text: "go" }], tools: [] });
		expect(turn.usage).toEqual({ inputTokens: 3, outputTokens: 1, costUsd: 0.00012 });
	});

	it("rejects with the abort reason when aborted mid-stream, and the server sees the stream cut", async () => {
		const controller = new AbortController();
		script = () => {
			setTimeout(() => controller.abort(new Error("stop here")), 60);
			return {
				text: "a long answer that streams slowly",
				toolCalls: [{ name: "read_file", arguments: { path: "a" } }],
				chunkDelayMs: 25,
			};
		};
		const model = await createEvalModel("openai-compatible/test-model", { baseUrl: server.baseUrl });
		await expect(
			model.turn({
				system: "",
				messages: [{ role: "user", text: "go" }],
				tools: [readTool],
				signal: controller.signal,
			}),
		).rejects.toThrow("stop here");
		await vi.waitFor(() => expect(server.aborted).toBe(1), { timeout: 2000 });
	});

	it("rejects an already aborted request without sending it", async () => {
		const model = await createEvalModel("openai-compatible/test-model", { baseUrl: server.baseUrl });
		const controller = new AbortController();
		controller.abort(new Error("never"));
		await expect(
			model.turn({ system: "", messages: [{ role: "user", text: "go" }], tools: [], signal: controller.signal }),
		).rejects.toThrow("never");
		expect(server.requests).toHaveLength(0);
	});

	it("rejects with the server's error", async () => {
		script = () => ({ status: 400, text: "model not found" });
		const model = await createEvalModel("openai-compatible/test-model", { baseUrl: server.baseUrl });
		await expect(model.turn({ system: "", messages: [{ role: "user", text: "go" }], tools: [] })).rejects.toThrow(
			/model not found/,
		);
	});

	it("sends the key as a bearer token, and takes any provider name with a base URL", async () => {
		script = () => ({ text: "ok" });
		const model = await createEvalModel("ollama/qwen3:8b", { baseUrl: server.baseUrl, apiKey: "sk-local" });
		expect(model.id).toBe("ollama/qwen3:8b");
		await model.turn({ system: "", messages: [{ role: "user", text: "go" }], tools: [] });
		expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-local");
		expect(server.requests[0]?.body.model).toBe("qwen3:8b");
	});
});

describe("createEvalModel with pi's models.json", () => {
	it("takes a custom provider's base URL, key (by variable name) and headers", async () => {
		script = () => ({ text: "ok" });
		vi.stubEnv("MY_LOCAL_KEY", "sk-from-env");
		writeFileSync(
			join(agentDir, "models.json"),
			JSON.stringify({
				providers: {
					local: {
						baseUrl: server.baseUrl,
						api: "openai-completions",
						apiKey: "MY_LOCAL_KEY",
						headers: { "x-team": "evals" },
						models: [{ id: "llama3.1:8b" }],
					},
				},
			}),
		);
		const model = await createEvalModel("local/llama3.1:8b");
		await model.turn({ system: "", messages: [{ role: "user", text: "go" }], tools: [] });
		expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-from-env");
		expect(server.requests[0]?.headers["x-team"]).toBe("evals");
		expect(server.requests[0]?.body.model).toBe("llama3.1:8b");
	});

	it("refuses to run a shell command for a key", async () => {
		writeFileSync(
			join(agentDir, "models.json"),
			JSON.stringify({ providers: { vault: { baseUrl: server.baseUrl, apiKey: "!op read secret" } } }),
		);
		await expect(createEvalModel("vault/some-model")).rejects.toThrow(/shell command/);
	});

	it("names the providers it knows when the provider is unknown", async () => {
		await expect(createEvalModel("nowhere/model")).rejects.toThrow(/Unknown model provider "nowhere"/);
		await expect(createEvalModel("no-slash")).rejects.toThrow(/provider\/model-id/);
		await expect(createEvalModel("openai-compatible/x")).rejects.toThrow(/base URL/);
	});
});

describe("createEvalModel without a key", () => {
	it.each([
		["openai/gpt-4.1-mini", /OPENAI_API_KEY/],
		["anthropic/claude-sonnet-4-5", /ANTHROPIC_API_KEY/],
		["google/gemini-2.5-flash", /GOOGLE_GENERATIVE_AI_API_KEY or GEMINI_API_KEY/],
	])("%s fails before any request, naming the variable", async (spec, variable) => {
		for (const name of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"]) {
			vi.stubEnv(name, "");
		}
		const fetchSpy = vi.fn(() => Promise.reject(new Error("no network in this test")));
		vi.stubGlobal("fetch", fetchSpy);
		await expect(createEvalModel(spec)).rejects.toThrow(variable);
		expect(fetchSpy).not.toHaveBeenCalled();
	});

	it("creates the model when the key is in the environment (nothing sent until a turn)", async () => {
		vi.stubEnv("ANTHROPIC_API_KEY", "sk-ant-test");
		vi.stubEnv("GEMINI_API_KEY", "g-test");
		vi.stubEnv("GOOGLE_GENERATIVE_AI_API_KEY", "");
		vi.stubEnv("OPENAI_API_KEY", "sk-test");
		const fetchSpy = vi.fn(() => Promise.reject(new Error("no network in this test")));
		vi.stubGlobal("fetch", fetchSpy);
		for (const spec of ["openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-5", "google/gemini-2.5-flash"]) {
			expect((await createEvalModel(spec)).id).toBe(spec);
		}
		expect(fetchSpy).not.toHaveBeenCalled();
	});
});

describe("the scripted server", () => {
	it("answers a non-streamed request with one JSON body", async () => {
		script = () => ({ toolCalls: [{ id: "c9", name: "read_file", arguments: { path: "a" } }] });
		const response = await fetch(`${server.baseUrl}/chat/completions`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "go" }] }),
		});
		const body = (await response.json()) as { choices: { message: { tool_calls: unknown[] } }[] };
		expect(body.choices[0]?.message.tool_calls).toEqual([
			{ id: "c9", type: "function", function: { name: "read_file", arguments: '{"path":"a"}' } },
		]);
	});

	it("lets a tool's description lead the scripted model, with a seeded pass rate between 0 and 1", async () => {
		const led = {
			tool: "read_file",
			clear: /relative to the project/,
			right: { path: "src/a.ts" },
			wrong: { path: "/src/a.ts" },
			wrongRate: 0.5,
		};
		const rightRate = async (description: string, seed: number) => {
			script = descriptionLedScript({ ...led, seed });
			const model = await createEvalModel("openai-compatible/test-model", { baseUrl: server.baseUrl });
			const tools = [{ ...readTool, description }];
			let right = 0;
			for (let trial = 0; trial < 20; trial += 1) {
				const turn = await model.turn({ system: "", messages: [{ role: "user", text: "read a.ts" }], tools });
				if ((turn.toolCalls[0]?.arguments as { path?: string } | undefined)?.path === "src/a.ts") right += 1;
			}
			return right / 20;
		};
		expect(await rightRate("Read a file. The path is relative to the project.", 7)).toBe(1);
		const ambiguous = await rightRate("Read a file.", 7);
		expect(ambiguous).toBeGreaterThan(0);
		expect(ambiguous).toBeLessThan(1);
		expect(await rightRate("Read a file.", 7)).toBe(ambiguous);
	});
});

describe("createEvalModel with the hosted providers (requests captured, no network)", () => {
	const nullableTool: EvalModelTool = {
		name: "read_file",
		description: "Read a file.",
		parameters: {
			type: "object",
			properties: {
				path: { type: "string" },
				encoding: { anyOf: [{ type: "string" }, { type: "null" }] },
			},
			required: ["path"],
		},
	};
	const capture = () => {
		const requests: { url: string; headers: Headers; body: Record<string, unknown> }[] = [];
		vi.stubGlobal(
			"fetch",
			vi.fn(async (url: string | URL, init?: RequestInit) => {
				requests.push({ url: String(url), headers: new Headers(init?.headers), body: JSON.parse(String(init?.body)) });
				return new Response(JSON.stringify({ error: { message: "captured" } }), {
					status: 400,
					headers: { "content-type": "application/json" },
				});
			}),
		);
		return requests;
	};
	const turn = async (spec: string) => {
		const model = await createEvalModel(spec);
		await expect(
			model.turn({ system: "sys", messages: [{ role: "user", text: "go" }], tools: [nullableTool] }),
		).rejects.toThrow();
	};

	it("sends OpenAI the Responses API's converted tools, with the key", async () => {
		vi.stubEnv("OPENAI_API_KEY", "sk-openai");
		const requests = capture();
		await turn("openai/gpt-4.1-mini");
		expect(requests[0]?.url).toBe("https://api.openai.com/v1/responses");
		expect(requests[0]?.headers.get("authorization")).toBe("Bearer sk-openai");
		const [converted] = toOpenAIResponsesTools([nullableTool]);
		expect(requests[0]?.body.tools).toEqual([
			expect.objectContaining({ type: "function", name: "read_file", parameters: converted?.parameters }),
		]);
	});

	it("sends Anthropic the converted input schema, with the key", async () => {
		vi.stubEnv("ANTHROPIC_API_KEY", "sk-ant");
		const requests = capture();
		await turn("anthropic/claude-sonnet-4-5");
		expect(requests[0]?.url).toBe("https://api.anthropic.com/v1/messages");
		expect(requests[0]?.headers.get("x-api-key")).toBe("sk-ant");
		const [converted] = toAnthropicTools([nullableTool]);
		expect(requests[0]?.body.tools).toEqual([
			expect.objectContaining({ name: "read_file", input_schema: converted?.input_schema }),
		]);
	});

	it("sends Google a schema that keeps what toolsmith's Google dialect says (nullable fields)", async () => {
		vi.stubEnv("GOOGLE_GENERATIVE_AI_API_KEY", "");
		vi.stubEnv("GEMINI_API_KEY", "g-key");
		const requests = capture();
		await turn("google/gemini-2.5-flash");
		expect(requests[0]?.url).toMatch(/generativelanguage\.googleapis\.com\/v1beta\/models\/gemini-2\.5-flash:/);
		expect(requests[0]?.headers.get("x-goog-api-key")).toBe("g-key");
		const tools = requests[0]?.body.tools as { functionDeclarations: { name: string; parameters: unknown }[] }[];
		expect(tools[0]?.functionDeclarations[0]?.parameters).toEqual({
			type: "object",
			properties: { path: { type: "string" }, encoding: { type: "string", nullable: true } },
			required: ["path"],
		});
	});
});
