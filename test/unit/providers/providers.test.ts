import { describe, expect, it } from "vitest";
import { StringEnum, Type } from "../../../src/index.js";
import {
	checkToolName,
	compatibilityReport,
	compileToolSchema,
	parseToolCalls,
	type ToolProvider,
	toAnthropicTools,
	toGoogleTools,
	toOpenAIChatTools,
	toOpenAIResponsesTools,
	toProviderToolResult,
} from "../../../src/providers/index.js";
import { executeToolCalls, type ToolCall, type ToolResultMessage } from "../../../src/runtime.js";

const weather = {
	name: "get_weather",
	label: "Weather",
	description: "Look up the weather.",
	parameters: Type.Object({
		city: Type.String({ description: "City name" }),
		unit: Type.Optional(Type.Union([Type.Literal("celsius"), Type.Literal("fahrenheit")])),
		days: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
	}),
	execute: async (_id: string, params: unknown) => ({
		content: [{ type: "text" as const, text: `sunny in ${(params as { city: string }).city}` }],
		details: {},
	}),
};

/**
 * One fixture per provider, shaped after each provider's public API reference: a response with two
 * calls of `get_weather`, one of them with its arguments as the provider sends them.
 */
interface ProviderCase {
	readonly provider: ToolProvider;
	readonly response: unknown;
	/** Ids the parsed calls must carry. */
	readonly ids: readonly string[];
	readonly tools: () => unknown[];
	/** Where the parameters sit in one converted tool. */
	readonly parametersOf: (converted: unknown) => Record<string, unknown>;
	readonly nameOf: (converted: unknown) => string;
	/** Text and error flag read back out of a converted tool result. */
	readonly readResult: (converted: unknown) => { id?: string; text: string; isError: boolean; images: number };
}

const cases: ProviderCase[] = [
	{
		provider: "openai-chat",
		response: {
			id: "chatcmpl-1",
			object: "chat.completion",
			choices: [
				{
					index: 0,
					finish_reason: "tool_calls",
					message: {
						role: "assistant",
						content: null,
						tool_calls: [
							{ id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
							{
								id: "call_b",
								type: "function",
								function: { name: "get_weather", arguments: '{"city":"Oslo","unit":"celsius"}' },
							},
						],
					},
				},
			],
		},
		ids: ["call_a", "call_b"],
		tools: () => toOpenAIChatTools([weather]),
		parametersOf: (t) => (t as { function: { parameters: Record<string, unknown> } }).function.parameters,
		nameOf: (t) => (t as { type: string; function: { name: string } }).function.name,
		readResult: (r) => {
			const m = r as { role: string; tool_call_id: string; content: string };
			expect(m.role).toBe("tool");
			return {
				id: m.tool_call_id,
				text: m.content,
				isError: false,
				images: (m.content.match(/\[image:/g) ?? []).length,
			};
		},
	},
	{
		provider: "openai-responses",
		response: {
			id: "resp_1",
			object: "response",
			output: [
				{ type: "reasoning", id: "rs_1", summary: [] },
				{ type: "function_call", id: "fc_1", call_id: "call_a", name: "get_weather", arguments: '{"city":"Paris"}' },
				{
					type: "function_call",
					id: "fc_2",
					call_id: "call_b",
					name: "get_weather",
					arguments: '{"city":"Oslo","unit":"celsius"}',
				},
			],
		},
		ids: ["call_a", "call_b"],
		tools: () => toOpenAIResponsesTools([weather]),
		parametersOf: (t) => (t as { parameters: Record<string, unknown> }).parameters,
		nameOf: (t) => (t as { name: string }).name,
		readResult: (r) => {
			const o = r as { type: string; call_id: string; output: string | { type: string; text?: string }[] };
			expect(o.type).toBe("function_call_output");
			const parts = typeof o.output === "string" ? [{ type: "input_text", text: o.output }] : o.output;
			return {
				id: o.call_id,
				text: parts
					.filter((p) => p.type === "input_text")
					.map((p) => p.text)
					.join("\n"),
				isError: false,
				images: parts.filter((p) => p.type === "input_image").length,
			};
		},
	},
	{
		provider: "anthropic",
		response: {
			id: "msg_1",
			type: "message",
			role: "assistant",
			stop_reason: "tool_use",
			content: [
				{ type: "text", text: "Checking both." },
				{ type: "tool_use", id: "toolu_a", name: "get_weather", input: { city: "Paris" } },
				{ type: "tool_use", id: "toolu_b", name: "get_weather", input: { city: "Oslo", unit: "celsius" } },
			],
		},
		ids: ["toolu_a", "toolu_b"],
		tools: () => toAnthropicTools([weather]),
		parametersOf: (t) => (t as { input_schema: Record<string, unknown> }).input_schema,
		nameOf: (t) => (t as { name: string }).name,
		readResult: (r) => {
			const b = r as {
				type: string;
				tool_use_id: string;
				content: { type: string; text?: string }[];
				is_error?: boolean;
			};
			expect(b.type).toBe("tool_result");
			return {
				id: b.tool_use_id,
				text: b.content
					.filter((c) => c.type === "text")
					.map((c) => c.text)
					.join("\n"),
				isError: b.is_error === true,
				images: b.content.filter((c) => c.type === "image").length,
			};
		},
	},
	{
		provider: "google",
		response: {
			candidates: [
				{
					content: {
						role: "model",
						parts: [
							{ functionCall: { name: "get_weather", args: { city: "Paris" } } },
							{ functionCall: { name: "get_weather", args: { city: "Oslo", unit: "celsius" } } },
						],
					},
					finishReason: "STOP",
				},
			],
		},
		ids: ["gemini-call-0-get_weather", "gemini-call-1-get_weather"],
		tools: () => toGoogleTools([weather])[0]?.functionDeclarations ?? [],
		parametersOf: (t) => (t as { parameters: Record<string, unknown> }).parameters,
		nameOf: (t) => (t as { name: string }).name,
		readResult: (r) => {
			const f = (
				r as { functionResponse: { name: string; response: { output?: string; error?: string }; parts?: unknown[] } }
			).functionResponse;
			expect(f.name).toBe("get_weather");
			return {
				text: f.response.output ?? f.response.error ?? "",
				isError: f.response.error !== undefined,
				images: f.parts?.length ?? 0,
			};
		},
	},
];

describe.each(cases)("$provider", (c) => {
	it("converts a tool to the provider's format with name, description and an object schema", () => {
		const [converted] = c.tools();
		expect(c.nameOf(converted)).toBe("get_weather");
		expect(JSON.stringify(converted)).toContain("Look up the weather.");
		const parameters = c.parametersOf(converted);
		expect(parameters.type).toBe("object");
		expect(Object.keys(parameters.properties as object)).toEqual(["city", "unit", "days"]);
		// The literal union reaches every provider as a plain enum.
		expect((parameters.properties as Record<string, { enum?: unknown[] }>).unit?.enum).toEqual([
			"celsius",
			"fahrenheit",
		]);
		// Plain JSON: no TypeBox symbols leak.
		expect(JSON.parse(JSON.stringify(parameters))).toEqual(parameters);
		expect(Object.getOwnPropertySymbols(parameters)).toEqual([]);
	});

	it("parses the tool calls of a response, in order, with stable ids", () => {
		const calls = parseToolCalls(c.response, c.provider);
		expect(calls.map((call) => call.id)).toEqual(c.ids);
		expect(calls.map((call) => call.name)).toEqual(["get_weather", "get_weather"]);
		expect(calls.map((call) => call.arguments)).toEqual([{ city: "Paris" }, { city: "Oslo", unit: "celsius" }]);
		expect(parseToolCalls(c.response, c.provider)).toEqual(calls);
	});

	it("round-trips: parsed calls run through the executor and come back as provider results", async () => {
		const calls = parseToolCalls(c.response, c.provider);
		const { results } = await executeToolCalls(calls, { tools: [weather] });
		const back = results.map((r) => c.readResult(toProviderToolResult(r, c.provider)));
		expect(back.map((b) => b.text)).toEqual(["sunny in Paris", "sunny in Oslo"]);
		for (const [i, b] of back.entries()) if (b.id !== undefined) expect(b.id).toBe(c.ids[i]);
	});

	it("carries error results and images where the provider has them", () => {
		const message: ToolResultMessage = {
			role: "toolResult",
			toolCallId: c.ids[0] as string,
			toolName: "get_weather",
			content: [
				{ type: "text", text: "no such city" },
				{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
			],
			details: undefined,
			isError: true,
			timestamp: 0,
		};
		const read = c.readResult(toProviderToolResult(message, c.provider));
		expect(read.text.split("\n")[0]).toBe("no such city");
		expect(read.images).toBe(1);
		const hasErrorFlag = c.provider === "anthropic" || c.provider === "google";
		expect(read.isError).toBe(hasErrorFlag);
	});

	it("yields no calls, rather than throwing, for junk", () => {
		for (const junk of [null, 5, "x", {}, { choices: 5 }, { output: [null] }, { content: [1] }, { candidates: [{}] }]) {
			expect(parseToolCalls(junk, c.provider)).toEqual([]);
		}
	});

	it("reports a schema it cannot take as an error, never a silent drop", () => {
		const bad = Type.Object({ when: Type.Date() });
		const compiled = compileToolSchema(bad, c.provider);
		expect(compiled.errors.map((e) => [e.path, e.kind])).toEqual([["/properties/when", "non-json-type"]]);
		const root = compileToolSchema(Type.String(), c.provider);
		expect(root.errors.map((e) => e.kind)).toContain("root-not-object");
	});
});

describe("OpenAI chat arguments", () => {
	it("keeps malformed argument JSON as a string so the executor can report it", async () => {
		const response = {
			choices: [
				{
					message: {
						tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city": ' } }],
					},
				},
			],
		};
		const calls: ToolCall[] = parseToolCalls(response, "openai-chat");
		expect(calls[0]?.arguments).toBe('{"city": ');
		const { results } = await executeToolCalls(calls, { tools: [weather] });
		expect(results[0]?.isError).toBe(true);
		expect(results[0]?.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("not valid JSON") });
	});

	it("drops __proto__ keys while parsing", () => {
		const response = [
			{ id: "c1", type: "function", function: { name: "x", arguments: '{"__proto__": {"p": 1}, "a": 1}' } },
		];
		const [parsed] = parseToolCalls(response, "openai-chat");
		expect(parsed?.arguments).toEqual({ a: 1 });
		expect(Object.keys(parsed?.arguments as object)).toEqual(["a"]);
	});
});

describe("compileToolSchema", () => {
	const schema = Type.Object(
		{
			city: Type.String({ format: "uri" }),
			unit: Type.Optional(Type.Union([Type.Literal("c"), Type.Literal("f")])),
			level: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(2)])),
			note: Type.Optional(Type.Union([Type.String(), Type.Null()])),
			mode: Type.Optional(StringEnum(["a", "b"], { default: "a" })),
			tags: Type.Array(Type.Object({ k: Type.String() })),
			kind: Type.Literal("fixed"),
			size: Type.Unsafe<number | null>({ type: ["number", "null"], exclusiveMinimum: 0 }),
		},
		{ additionalProperties: false },
	);

	it("lists Google's rewrites: enums, nullable, const, removed keywords", () => {
		const { schema: out, rewrites, errors } = compileToolSchema(schema, "google");
		expect(errors).toEqual([]);
		expect(rewrites.map((r) => `${r.kind} ${r.path}`)).toEqual([
			"keyword-removed /properties/city/format",
			"literal-union-to-enum /properties/unit",
			"literal-union-to-enum /properties/level",
			"enum-stringified /properties/level",
			"null-union-to-nullable /properties/note",
			"const-to-enum /properties/kind",
			"type-array-to-nullable /properties/size",
			"keyword-removed /properties/size/exclusiveMinimum",
			"keyword-removed /additionalProperties",
		]);
		expect(out.properties).toMatchObject({
			level: { type: "string", enum: ["1", "2"] },
			note: { type: "string", nullable: true },
			kind: { type: "string", enum: ["fixed"] },
			size: { type: "number", nullable: true },
		});
		expect(out.additionalProperties).toBeUndefined();
	});

	it("makes OpenAI strict schemas closed with every property required and optional ones nullable", () => {
		const { schema: out, rewrites, errors } = compileToolSchema(schema, "openai-chat", { strict: true });
		expect(errors).toEqual([]);
		expect(out.required).toEqual(["city", "unit", "level", "note", "mode", "tags", "kind", "size"]);
		expect(out.properties).toMatchObject({
			unit: { type: ["string", "null"], enum: ["c", "f", null] },
			note: { anyOf: [{ type: "string" }, { type: "null" }] },
			mode: { type: ["string", "null"], description: 'Default: "a".' },
			tags: { items: { additionalProperties: false, required: ["k"] } },
		});
		expect(rewrites.filter((r) => r.kind === "optional-to-nullable").map((r) => r.path)).toEqual([
			"/properties/unit",
			"/properties/level",
			"/properties/note",
			"/properties/mode",
		]);
		expect(rewrites.some((r) => r.kind === "keyword-removed" && r.path === "/properties/city/format")).toBe(true);
	});

	it("leaves a non-strict OpenAI or Anthropic schema as TypeBox wrote it, apart from enums", () => {
		for (const provider of ["openai-chat", "anthropic"] as const) {
			const { rewrites, errors, schema: out } = compileToolSchema(schema, provider);
			expect(errors).toEqual([]);
			expect(rewrites.map((r) => r.kind)).toEqual(["literal-union-to-enum", "literal-union-to-enum"]);
			expect((out.properties as Record<string, unknown>).size).toEqual({
				type: ["number", "null"],
				exclusiveMinimum: 0,
			});
		}
	});

	it("reports constructs a provider cannot take", () => {
		const tree = Type.Recursive((This) => Type.Object({ name: Type.String(), children: Type.Array(This) }));
		expect(compileToolSchema(tree, "google").errors.map((e) => e.kind)).toEqual(["recursive-ref"]);
		const strictTree = compileToolSchema(tree, "openai-chat", { strict: true });
		expect(strictTree.errors).toEqual([]);
		expect(strictTree.schema.properties).toMatchObject({ children: { items: { $ref: "#" } } });

		const map = Type.Object({ scores: Type.Record(Type.String(), Type.Number()) });
		expect(compileToolSchema(map, "google").errors.map((e) => `${e.kind} ${e.path}`)).toEqual([
			"unsupported-keyword /properties/scores/patternProperties",
		]);
		const open = Type.Object({ env: Type.Object({}, { additionalProperties: Type.String() }) });
		expect(compileToolSchema(open, "openai-chat", { strict: true }).errors.map((e) => e.kind)).toEqual(["open-object"]);
		expect(compileToolSchema(open, "openai-chat").errors).toEqual([]);
		const not = Type.Object({ x: Type.Not(Type.String()) });
		expect(compileToolSchema(not, "google").errors.map((e) => e.kind)).toEqual(["unsupported-keyword"]);
		const numberConst = Type.Object({ x: Type.Literal(3) });
		expect(compileToolSchema(numberConst, "google").errors.map((e) => e.kind)).toEqual(["unsupported-const"]);
	});

	it("inlines references and merges allOf objects where the provider needs it", () => {
		const point = Type.Object({ x: Type.Number() }, { $id: "Point" });
		const shape = Type.Object({
			from: Type.Ref(point),
			to: Type.Ref(point),
			style: Type.Intersect([Type.Object({ color: Type.String() }), Type.Object({ width: Type.Number() })]),
			$defs: Type.Optional(Type.Unknown()),
		});
		const withDefs = { ...shape, $defs: { Point: point } };
		const { schema: out, rewrites, errors } = compileToolSchema(withDefs, "google");
		expect(errors).toEqual([]);
		expect(out.properties).toMatchObject({
			from: { type: "object", properties: { x: { type: "number" } } },
			style: { type: "object", properties: { color: { type: "string" }, width: { type: "number" } } },
		});
		expect(rewrites.map((r) => r.kind)).toEqual(["ref-inlined", "ref-inlined", "all-of-merged"]);
	});

	it("fails strict mode past its limits", () => {
		let deep: ReturnType<typeof Type.Object> = Type.Object({ leaf: Type.String() });
		for (let i = 0; i < 11; i++) deep = Type.Object({ next: deep });
		expect(compileToolSchema(deep, "openai-chat", { strict: true }).errors.map((e) => e.kind)).toEqual([
			"limit-exceeded",
		]);
		const many = Type.Object({ x: StringEnum(Array.from({ length: 1001 }, (_, i) => `v${i}`)) });
		expect(compileToolSchema(many, "openai-responses", { strict: true }).errors.map((e) => e.kind)).toEqual([
			"limit-exceeded",
		]);
	});
});

describe("tool converters", () => {
	const mapTool = {
		...weather,
		name: "env",
		parameters: Type.Object({ vars: Type.Record(Type.String(), Type.String()) }),
	};
	const badName = { ...weather, name: "bad name!" };

	it("throw one clear error listing every tool a provider would reject", () => {
		expect(() => toGoogleTools([weather, mapTool, badName])).toThrowError(
			/2 tool\(s\) cannot be sent to google:\n- env\/properties\/vars\/patternProperties: .*\n- bad name!: name " ", "!" not allowed/,
		);
	});

	it("leave rejected tools out on request", () => {
		expect(toGoogleTools([weather, mapTool], { invalid: "omit" })[0]?.functionDeclarations.map((d) => d.name)).toEqual([
			"get_weather",
		]);
	});

	it("fall back to strict: false per tool when a schema cannot be strict, and say so", () => {
		const open = {
			...weather,
			name: "open",
			parameters: Type.Object({ env: Type.Object({}, { additionalProperties: Type.String() }) }),
		};
		const tools = toOpenAIChatTools([weather, open], { strict: true });
		expect(tools.map((t) => [t.function.name, t.function.strict])).toEqual([
			["get_weather", true],
			["open", false],
		]);
		const report = compatibilityReport([weather, open], "openai-chat", { strict: true });
		expect(report.map((r) => [r.name, r.ok, r.strictFallback, r.errors.map((e) => e.kind)])).toEqual([
			["get_weather", true, false, []],
			["open", true, true, ["open-object"]],
		]);
		expect(toOpenAIResponsesTools([weather], { strict: true })[0]?.strict).toBe(true);
	});
});

describe("checkToolName", () => {
	it("judges a name that is not a string (a null-prototype object) without throwing", () => {
		const report = checkToolName(Object.create(null) as string);
		expect(report.portable).toBe(false);
	});

	it("gives a verdict per provider", () => {
		expect(checkToolName("read_file").portable).toBe(true);
		const dotted = checkToolName("fs.read");
		expect([dotted.openai.ok, dotted.anthropic.ok, dotted.google.ok, dotted.mcp.ok]).toEqual([
			false,
			false,
			true,
			true,
		]);
		const digit = checkToolName("9lives");
		expect([digit.openai.ok, digit.google.ok]).toEqual([true, false]);
		expect(digit.google.problem).toBe("the name must start with a letter or _");
		const colon = checkToolName("ns:tool");
		expect([colon.openai.ok, colon.google.ok, colon.mcp.ok]).toEqual([false, true, false]);
		const long = checkToolName("a".repeat(65));
		expect([long.openai.ok, long.google.ok, long.mcp.ok]).toEqual([false, false, true]);
		expect(long.openai.problem).toBe("the name has 65 characters; at most 64 are allowed");
		expect(checkToolName("a".repeat(129)).mcp.ok).toBe(false);
		expect(checkToolName("").openai.problem).toBe("the name is empty");
		expect(checkToolName("héllo").anthropic.problem).toBe('"é" not allowed (only letters, digits, _ and -)');
	});
});
