import { describe, expect, it } from "vitest";
import type { ToolCall } from "../../../src/contract/content.js";
import type { AgentTool } from "../../../src/contract/tool.js";
import type { AfterToolCallContext, AfterToolCallResult, ToolCallHookContext } from "../../../src/exec/types.js";
import { composeAfter, composeBefore } from "../../../src/extensions/_host-hooks.js";

const toolCall: ToolCall = { type: "toolCall", id: "c1", name: "t", arguments: {} };
const callContext: ToolCallHookContext = { toolCall, tool: {} as AgentTool, args: {} };
const resultContext = (): AfterToolCallContext => ({
	...callContext,
	result: { content: [{ type: "text", text: "raw" }], details: { n: 1 } },
	isError: false,
});
const text = (value: string) => [{ type: "text" as const, text: value }];

describe("composeBefore", () => {
	it("returns either hook alone when the other is missing", () => {
		const hook = () => undefined;
		expect(composeBefore(hook, undefined)).toBe(hook);
		expect(composeBefore(undefined, hook)).toBe(hook);
		expect(composeBefore(undefined, undefined)).toBeUndefined();
	});

	it("runs the second only when the first let the call through", async () => {
		const seen: string[] = [];
		const hook = composeBefore(
			(context) => {
				seen.push("first");
				return (context.args as { deny?: boolean }).deny ? { block: true, reason: "no" } : undefined;
			},
			() => {
				seen.push("second");
				return { block: false };
			},
		)!;
		expect(await hook(callContext)).toEqual({ block: false });
		expect(await hook({ ...callContext, args: { deny: true } })).toEqual({ block: true, reason: "no" });
		expect(seen).toEqual(["first", "second", "first"]);
	});
});

describe("composeAfter", () => {
	it("returns either hook alone when the other is missing", () => {
		const hook = () => undefined;
		expect(composeAfter(hook, undefined)).toBe(hook);
		expect(composeAfter(undefined, hook)).toBe(hook);
	});

	it("shows the second hook the result as the first patched it, and merges their answers", async () => {
		let seen: AfterToolCallContext | undefined;
		const hook = composeAfter(
			() => ({ content: text("first"), isError: true, terminate: true }),
			(context) => {
				seen = context;
				return { details: "second" };
			},
		)!;
		expect(await hook(resultContext())).toEqual({
			content: text("first"),
			details: "second",
			isError: true,
			terminate: true,
		});
		expect(seen?.result).toEqual({ content: text("first"), details: { n: 1 } });
		expect(seen?.isError).toBe(true);
	});

	it("lets the second hook's fields win, and answers with one hook's answer when the other has none", async () => {
		const first = (): AfterToolCallResult => ({ content: text("first"), details: 1 });
		expect(await composeAfter(first, () => ({ details: 2, isError: true }))!(resultContext())).toEqual({
			content: text("first"),
			details: 2,
			isError: true,
		});
		expect(await composeAfter(first, () => undefined)!(resultContext())).toEqual(first());
		expect(await composeAfter(() => undefined, first)!(resultContext())).toEqual(first());
	});

	it("leaves content and isError as they were for the second hook when the first answers null for them", async () => {
		let seen: AfterToolCallContext | undefined;
		const hook = composeAfter(
			() => ({ content: null, details: null, isError: null }) as unknown as AfterToolCallResult,
			(context) => {
				seen = context;
				return undefined;
			},
		)!;
		await hook(resultContext());
		expect(seen?.result).toEqual({ content: text("raw"), details: null });
		expect(seen?.isError).toBe(false);
	});
});
