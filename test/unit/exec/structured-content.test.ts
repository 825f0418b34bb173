/** `structuredContent` (pi 1.x) travels from a tool's result to its message; after-call hooks follow the drop rule. */
import { describe, expect, it } from "vitest";
import type { ToolCall } from "../../../src/contract/content.js";
import { Type } from "../../../src/contract/schema.js";
import type { AgentTool } from "../../../src/contract/tool.js";
import { executeToolCalls } from "../../../src/exec/execute.js";
import type { AfterToolCallResult } from "../../../src/exec/types.js";
import { composeAfter } from "../../../src/extensions/_host-hooks.js";

const tool: AgentTool = {
	name: "count",
	label: "count",
	description: "Counts.",
	parameters: Type.Object({}),
	async execute() {
		return { content: [{ type: "text", text: "3 items" }], details: { raw: true }, structuredContent: { count: 3 } };
	},
};
const call: ToolCall = { type: "toolCall", id: "c1", name: "count", arguments: {} };

async function run(after?: () => AfterToolCallResult | undefined) {
	const {
		results: [message],
	} = await executeToolCalls([call], {
		tools: [tool],
		...(after ? { afterToolCall: async () => after() } : {}),
	});
	return message;
}

describe("structuredContent", () => {
	it("reaches the result message beside content and details", async () => {
		expect(await run()).toMatchObject({ structuredContent: { count: 3 }, details: { raw: true }, isError: false });
	});

	it("a hook that replaces content without structuredContent drops it; one that returns both keeps its own", async () => {
		expect((await run(() => ({ content: [{ type: "text", text: "[redacted]" }] })))?.structuredContent).toBeUndefined();
		expect(
			(await run(() => ({ content: [{ type: "text", text: "[redacted]" }], structuredContent: { count: 0 } })))
				?.structuredContent,
		).toEqual({ count: 0 });
		// details alone keep it.
		expect((await run(() => ({ details: { other: 1 } })))?.structuredContent).toEqual({ count: 3 });
	});

	it("composed hooks: the second sees the first one's drop, and the answer keeps the rule", async () => {
		let seen: unknown = "unset";
		const after = composeAfter(
			async () => ({ content: [{ type: "text", text: "first" }] }),
			async (context) => {
				seen = context.result.structuredContent;
				return { details: { second: true } };
			},
		);
		const {
			results: [message],
		} = await executeToolCalls([call], { tools: [tool], afterToolCall: after });
		expect(seen).toBeUndefined();
		expect(message?.structuredContent).toBeUndefined();
		expect(message?.details).toEqual({ second: true });
	});
});
