import { TypeCompiler } from "@sinclair/typebox/compiler";
import { describe, expect, it, vi } from "vitest";
import { StringEnum, type TSchema, Type } from "../../../src/index.js";
import { assertToolArguments, ToolArgumentsError, validateToolArguments } from "../../../src/runtime.js";

const params = Type.Object({
	path: Type.String(),
	offset: Type.Optional(Type.Integer({ minimum: 1 })),
	ratio: Type.Optional(Type.Number()),
	recursive: Type.Optional(Type.Boolean()),
	mode: Type.Optional(StringEnum(["fast", "safe"], { default: "safe" })),
	edits: Type.Optional(Type.Array(Type.Object({ oldText: Type.String(), newText: Type.String() }))),
	level: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(2)])),
	nullable: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
const tool = { name: "files", parameters: params };

function value(args: unknown): unknown {
	const result = validateToolArguments(tool, args);
	if (!result.ok) throw new Error(result.error.message);
	return result.value;
}

function failure(args: unknown, schemaTool: { name: string; parameters: TSchema } = tool): ToolArgumentsError {
	const result = validateToolArguments(schemaTool, args);
	if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
	return result.error;
}

describe("validateToolArguments", () => {
	it("returns valid arguments with defaults filled in", () => {
		expect(value({ path: "a" })).toEqual({ path: "a", mode: "safe" });
	});

	it("repairs the usual model slips", () => {
		expect(
			value({
				path: 42,
				offset: "3",
				ratio: " 0.5 ",
				recursive: "TRUE",
				level: "2",
				edits: '[{"oldText": "a", "newText": "b"}]',
			}),
		).toEqual({
			path: "42",
			offset: 3,
			ratio: 0.5,
			recursive: true,
			level: 2,
			mode: "safe",
			edits: [{ oldText: "a", newText: "b" }],
		});
	});

	it("drops null in an optional field (so its default applies) but keeps it where null is allowed", () => {
		expect(value({ path: "a", offset: null, mode: null, nullable: null })).toEqual({
			path: "a",
			mode: "safe",
			nullable: null,
		});
	});

	it("does not coerce what is not a slip", () => {
		const error = failure({ path: "a", offset: "2.5", recursive: "yes", ratio: "1e400" });
		expect(error.issues.map((i) => i.path)).toEqual(["/offset", "/ratio", "/recursive"]);
	});

	it("never modifies the caller's object", () => {
		const args = { path: 1, offset: "2", edits: [{ oldText: 1, newText: 2 }], mode: null };
		const snapshot = structuredClone(args);
		value(args);
		expect(args).toEqual(snapshot);
	});

	it("accepts a JSON string and reports invalid JSON with the parser's message", () => {
		expect(value('{"path": "x"}')).toEqual({ path: "x", mode: "safe" });
		const error = failure('{"path": ');
		expect(error.code).toBe("E_INVALID_JSON");
		expect(error.message).toMatch(/not valid JSON \(.+\)/);
	});

	it("treats missing and empty arguments as an empty object", () => {
		expect(validateToolArguments({ name: "none", parameters: Type.Object({}) }, undefined)).toEqual({
			ok: true,
			value: {},
		});
		expect(validateToolArguments({ name: "none", parameters: Type.Object({}) }, "  ")).toEqual({ ok: true, value: {} });
	});

	it("lists every failing path with the expected type and the received value, then the arguments", () => {
		const error = failure({ offset: 0, mode: "turbo", edits: [{ oldText: "a" }, 7], level: 3 });
		expect(error.code).toBe("E_INVALID_ARGS");
		expect(error).toBeInstanceOf(ToolArgumentsError);
		expect(error.message.split("\n\n")[0]).toMatchInlineSnapshot(`
			"Invalid arguments for tool "files":
			  - /path: missing, expected string
			  - /offset: expected integer to be greater or equal to 1, received 0
			  - /mode: expected "fast" | "safe", received "turbo"
			  - /edits/0/newText: missing, expected string
			  - /edits/1: expected object, received 7
			  - /level: expected 1 | 2, received 3"
		`);
		expect(error.message).toContain('Received arguments:\n{\n  "offset": 0,');
		expect(error.message.endsWith("Fix the listed fields and call the tool again.")).toBe(true);
	});

	it("names unexpected properties and the allowed ones", () => {
		const closed = { name: "closed", parameters: Type.Object({ a: Type.String() }, { additionalProperties: false }) };
		expect(failure({ a: "x", b: 1 }, closed).issues[0]?.message).toBe(
			"/b: unexpected property (allowed: a), received 1",
		);
	});

	it("cuts the received arguments at 2 KB", () => {
		const error = failure({ path: 5, ratio: "x", blob: "y".repeat(100_000) });
		const received = error.message.split("Received arguments:\n")[1] ?? "";
		expect(received.length).toBeLessThan(2300);
		expect(received).toContain("[cut at 2048 characters]");
	});

	it("strips __proto__ and undeclared constructor/prototype keys at every depth", () => {
		const schema = Type.Object({ a: Type.Optional(Type.Any()), constructor: Type.Optional(Type.String()) });
		const result = validateToolArguments(
			{ name: "x", parameters: schema },
			'{"__proto__": {"x": 1}, "constructor": "declared", "a": {"constructor": {"prototype": {"y": 1}}, "__proto__": 1}}',
		);
		expect(result).toEqual({ ok: true, value: { constructor: "declared", a: {} } });
		expect(Object.getPrototypeOf((result as { value: object }).value)).toBe(Object.prototype);
		expect(({} as Record<string, unknown>).x).toBeUndefined();
	});

	it("validates plain JSON Schema and Type.Unsafe schemas by translating them", () => {
		const plain = {
			name: "plain",
			parameters: Type.Unsafe({
				type: "object",
				properties: {
					unit: { type: "string", enum: ["c", "f"] },
					days: { type: "integer", minimum: 1 },
					when: { type: "string", format: "date-time" },
					note: { type: ["string", "null"] },
				},
				required: ["unit"],
				additionalProperties: false,
			}),
		};
		expect(validateToolArguments(plain, { unit: "c", days: "3", when: "now", note: null })).toEqual({
			ok: true,
			value: { unit: "c", days: 3, when: "now", note: null },
		});
		expect(failure({ unit: "k", days: 0, extra: 1 }, plain).issues.map((i) => i.path)).toEqual([
			"/extra",
			"/unit",
			"/days",
		]);
	});

	it("reports a schema that cannot be compiled instead of throwing", () => {
		const broken = { name: "broken", parameters: Type.Ref("Nowhere") };
		expect(failure({}, broken).code).toBe("E_INVALID_TOOL");
	});

	it("has a throwing variant", () => {
		expect(assertToolArguments(tool, { path: "p" })).toEqual({ path: "p", mode: "safe" });
		expect(() => assertToolArguments(tool, {})).toThrow(ToolArgumentsError);
	});

	it("compiles each schema object once", () => {
		const spy = vi.spyOn(TypeCompiler, "Compile");
		try {
			const t = { name: "c", parameters: Type.Object({ n: Type.Number() }) };
			validateToolArguments(t, { n: 1 });
			validateToolArguments(t, { n: "x" });
			validateToolArguments(t, { n: 2 });
			expect(spy).toHaveBeenCalledTimes(1);
			validateToolArguments({ name: "c", parameters: Type.Object({ n: Type.Number() }) }, { n: 1 });
			expect(spy).toHaveBeenCalledTimes(2);
		} finally {
			spy.mockRestore();
		}
	});
});
