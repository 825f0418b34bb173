/**
 * Results JSON cannot hold (cyclic, too deep, too large, a BigInt, a getter, `toJSON` or proxy
 * trap that throws) become `E_BAD_RESULT` naming what and where, in every mode; the other calls
 * of the batch are unaffected, and the messages always serialize. A tool definition whose `name`
 * or `executionMode` getter throws fails its own calls only.
 */
import { describe, expect, it } from "vitest";
import type { AgentTool, AgentToolResult } from "../../../src/index.js";
import { type ExecuteToolCallsConfig, executeToolCalls, type ToolExecutionEvent } from "../../../src/runtime.js";
import { call, firstText, text, tool } from "./_helpers.js";

function nested(levels: number): Record<string, unknown> {
	const root: Record<string, unknown> = {};
	let node = root;
	for (let i = 0; i < levels; i++) {
		const next: Record<string, unknown> = {};
		node.a = next;
		node = next;
	}
	return root;
}

/** [what, the result the tool returns, a pattern the error text must match]. */
function badResults(): [string, () => AgentToolResult<unknown>, RegExp][] {
	const throwing = () => {
		throw new Error("trap went off");
	};
	return [
		[
			"cyclic details",
			() => {
				const b: Record<string, unknown> = {};
				const a = { b };
				b.back = a;
				return { content: [{ type: "text", text: "x" }], details: { a } };
			},
			/details\.a is cyclic \(details\.a\.b\.back refers back to it\)/,
		],
		[
			"details nested too deep",
			() => ({ content: [{ type: "text", text: "x" }], details: nested(600) }),
			/details is nested more than 512 levels deep/,
		],
		[
			"details too large",
			() => ({
				content: [{ type: "text", text: "x" }],
				details: { big: [Array(9).fill("y".repeat(2 * 1024 * 1024))] },
			}),
			/more than 16777216 characters as JSON, the limit \(counted up to details\.big\[0\]\[\d\]\)/,
		],
		[
			"text content too large",
			() => ({ content: [{ type: "text", text: "z".repeat(17 * 1024 * 1024) }], details: {} }),
			/more than 16777216 characters as JSON/,
		],
		[
			"a BigInt in details",
			() => ({ content: [{ type: "text", text: "x" }], details: { n: [1, 2n] } }),
			/details\.n\[1\] is a BigInt/,
		],
		[
			"a getter that throws in details",
			() => {
				const details = {};
				Object.defineProperty(details, "g", { enumerable: true, get: throwing });
				return { content: [{ type: "text", text: "x" }], details: { inner: details } };
			},
			/details\.inner\.g cannot be read \(trap went off\)/,
		],
		[
			"a toJSON that throws in details",
			() => ({ content: [{ type: "text", text: "x" }], details: { t: { toJSON: throwing } } }),
			/details\.t cannot be read \(trap went off\)/,
		],
		[
			"a Proxy whose traps throw in details",
			() => ({
				content: [{ type: "text", text: "x" }],
				details: { p: new Proxy({}, { get: throwing, ownKeys: throwing }) },
			}),
			/details\.p cannot be read \(trap went off\)/,
		],
		[
			"a cyclic extra key in a content block",
			() => {
				const block: Record<string, unknown> = { type: "text", text: "x" };
				block.self = block;
				return { content: [block as { type: "text"; text: string }], details: {} };
			},
			/content\[0\] is cyclic/,
		],
	];
}

const modes: [string, Partial<ExecuteToolCallsConfig>][] = [
	["parallel", {}],
	["parallel with onEvent", { onEvent: () => {} }],
	["sequential", { toolExecution: "sequential" }],
	["sequential with onEvent", { toolExecution: "sequential", onEvent: () => {} }],
];

function expectSerializable(value: unknown): void {
	expect(() => JSON.stringify(value)).not.toThrow();
}

describe("a result JSON cannot hold becomes E_BAD_RESULT", () => {
	for (const [mode, extra] of modes) {
		for (const [what, make, pattern] of badResults()) {
			it(`${what}, ${mode}`, async () => {
				const events: ToolExecutionEvent[] = [];
				const config: ExecuteToolCallsConfig = {
					...extra,
					tools: [tool("bad", async () => make()), tool("good", async () => text("fine"))],
					...(extra.onEvent ? { onEvent: (e: ToolExecutionEvent) => events.push(e) } : {}),
				};
				const { results } = await executeToolCalls([call("1", "bad"), call("2", "good")], config);
				expect(results[0]?.isError).toBe(true);
				expect(results[0]?.details).toMatchObject({ code: "E_BAD_RESULT" });
				expect(firstText(results[0] as never)).toMatch(pattern);
				expect(firstText(results[1] as never)).toBe("fine");
				expect(results[1]?.isError).toBe(false);
				expectSerializable(results);
				if (extra.onEvent) {
					const ends = events.filter((e) => e.type === "tool_execution_end");
					expect(ends).toHaveLength(2);
					expectSerializable(ends);
				}
			});
		}
	}
});

describe("an afterToolCall patch JSON cannot hold becomes E_BAD_RESULT", () => {
	for (const [mode, extra] of modes) {
		for (const [what, make, pattern] of badResults()) {
			it(`${what}, ${mode}`, async () => {
				const config: ExecuteToolCallsConfig = {
					...extra,
					tools: [tool("patched", async () => text("ok")), tool("good", async () => text("fine"))],
					afterToolCall: async ({ toolCall }) => {
						if (toolCall.name !== "patched") return undefined;
						const bad = make();
						return { content: bad.content, details: bad.details };
					},
				};
				const { results } = await executeToolCalls([call("1", "patched"), call("2", "good")], config);
				expect(results[0]?.isError).toBe(true);
				expect(results[0]?.details).toMatchObject({ code: "E_BAD_RESULT" });
				expect(firstText(results[0] as never)).toMatch(/afterToolCall hook returned a malformed result/);
				expect(firstText(results[0] as never)).toMatch(pattern);
				expect(firstText(results[1] as never)).toBe("fine");
				expectSerializable(results);
			});
		}
	}
});

describe("results JSON can hold pass unchanged", () => {
	it("keeps shared (not cyclic) objects, toJSON values, and nesting at the limit", async () => {
		const shared = { s: 1 };
		const details = { one: shared, two: shared, when: new Date(0), deep: nested(500) };
		const { results } = await executeToolCalls([call("1", "ok")], {
			tools: [tool("ok", async () => ({ content: [{ type: "text", text: "x" }], details }))],
		});
		expect(results[0]?.isError).toBe(false);
		expect(results[0]?.details).toBe(details);
	});
});

describe("a tool definition whose getters throw", () => {
	function throwingTool(field: "name" | "executionMode"): AgentTool {
		const t = tool("hostile", async () => text("ran")) as unknown as Record<string, unknown>;
		Object.defineProperty(t, field, {
			get() {
				throw new Error(`${field} getter`);
			},
		});
		return t as unknown as AgentTool;
	}

	for (const [mode, extra] of modes) {
		for (const many of [false, true]) {
			const padding = many ? Array.from({ length: 10 }, (_, i) => tool(`pad${i}`, async () => text("pad"))) : [];
			it(`a throwing name getter only hides that tool, ${mode}${many ? ", many tools" : ""}`, async () => {
				const { results } = await executeToolCalls([call("1", "hostile"), call("2", "good")], {
					...extra,
					tools: [throwingTool("name"), ...padding, tool("good", async () => text("fine"))],
				});
				expect(results[0]?.details).toMatchObject({ code: "E_TOOL_NOT_FOUND" });
				expect(firstText(results[1] as never)).toBe("fine");
			});
			it(`a throwing executionMode getter fails that tool's calls only, ${mode}${many ? ", many tools" : ""}`, async () => {
				const { results } = await executeToolCalls([call("1", "hostile"), call("2", "good")], {
					...extra,
					tools: [throwingTool("executionMode"), ...padding, tool("good", async () => text("fine"))],
				});
				expect(results[0]?.isError).toBe(true);
				expect(results[0]?.details).toMatchObject({ code: "E_TOOL_FAILED" });
				expect(firstText(results[0] as never)).toMatch(/executionMode threw: executionMode getter/);
				expect(firstText(results[1] as never)).toBe("fine");
				expect(results[1]?.isError).toBe(false);
			});
		}
	}
});
