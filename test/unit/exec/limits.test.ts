/** One set of argument limits (depth, size), whether the arguments come as an object or a JSON string. */
import { describe, expect, it } from "vitest";
import { MAX_ARGUMENT_CHARS, MAX_DEPTH } from "../../../src/exec/json.js";
import { Type } from "../../../src/index.js";
import { executeToolCalls, validateToolArguments } from "../../../src/runtime.js";
import { call, text, tool } from "./_helpers.js";

function nested(levels: number): unknown {
	let value: unknown = 1;
	for (let i = 0; i < levels; i++) value = { a: value };
	return value;
}

const spellings = [
	["an object", (value: unknown) => value],
	["a JSON string", (value: unknown) => JSON.stringify(value)],
] as const;

const withPrepare = [false, true] as const;

describe.each(spellings)("arguments as %s", (_label, spell) => {
	it.each(withPrepare)(
		"a value 99,999 levels deep is refused, naming the limit (prepareArguments %s)",
		async (prepare) => {
			// Built as text: building the object and serializing it would recurse 99,999 levels.
			const deepText = `${'{"a":'.repeat(99_999)}1${"}".repeat(99_999)}`;
			const raw = spell === spellings[0][1] ? nested(99_999) : deepText;
			let ran = false;
			const t = tool(
				"deep",
				async () => {
					ran = true;
					return text("ran");
				},
				{ parameters: Type.Object({ a: Type.Any() }), ...(prepare ? { prepareArguments: (a: unknown) => a } : {}) },
			);
			const { results } = await executeToolCalls([call("1", "deep", raw)], { tools: [t] });
			expect(ran).toBe(false);
			expect(results[0]?.isError).toBe(true);
			expect(results[0]?.details).toEqual({ code: "E_INVALID_ARGS" });
			const block = results[0]?.content[0];
			expect(block?.type === "text" ? block.text : "").toContain(`more than ${MAX_DEPTH} levels deep`);
		},
	);

	it("the depth limit is the same: 510 levels pass, 600 do not", () => {
		const schema = { name: "t", parameters: Type.Object({ a: Type.Any() }) };
		expect(validateToolArguments(schema, spell(nested(510))).ok).toBe(true);
		const refused = validateToolArguments(schema, spell(nested(600)));
		expect(refused.ok).toBe(false);
		if (!refused.ok) expect(refused.error.message).toContain(`${MAX_DEPTH} levels deep`);
	});

	it("arguments past the size limit are refused, naming it; just under it pass", () => {
		const schema = { name: "t", parameters: Type.Object({ s: Type.String() }) };
		const over = validateToolArguments(schema, spell({ s: "x".repeat(MAX_ARGUMENT_CHARS) }));
		expect(over.ok).toBe(false);
		if (!over.ok) {
			expect(over.error.code).toBe("E_INVALID_ARGS");
			expect(over.error.message).toContain(`${MAX_ARGUMENT_CHARS} characters`);
		}
		expect(validateToolArguments(schema, spell({ s: "x".repeat(MAX_ARGUMENT_CHARS - 100) })).ok).toBe(true);
	});
});
