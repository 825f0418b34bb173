/**
 * The inspector page's model of the server (src/inspector/page/state.ts): the event stream folded
 * into state, and the helpers its views share.
 */
import { describe, expect, it } from "vitest";
import {
	applyEvent,
	argsSummary,
	contentBlocks,
	EMPTY_MODEL,
	formatDuration,
	MAX_RELOADS,
	mergeCall,
	nestedChildren,
	type PageModel,
	prettyJson,
} from "../../../src/inspector/page/state.js";
import type {
	InspectorCall,
	InspectorNestedCall,
	InspectorReload,
	InspectorState,
	InspectorTool,
} from "../../../src/inspector/protocol.js";

const tool = (name: string): InspectorTool => ({
	name,
	label: name,
	description: `${name} tool`,
	kind: "extension",
	source: `${name}.ts`,
	mode: "parallel",
	parameters: { type: "object", properties: {} },
	diagnostics: [],
});

const call = (id: string, extra: Partial<InspectorCall> = {}): InspectorCall => ({
	id,
	tool: "hello",
	args: { name: "Ada" },
	startedAt: 1000,
	status: "running",
	renderedCall: { lines: ["hello Ada"] },
	updates: [],
	recordable: true,
	...extra,
});

const state = (extra: Partial<InspectorState> = {}): InspectorState => ({
	cwd: "/work",
	env: "node",
	tools: [tool("hello")],
	diagnostics: [],
	reloads: [],
	calls: [],
	prompt: "## Tools",
	...extra,
});

const reload = (extra: Partial<InspectorReload> = {}): InspectorReload => ({
	at: 5000,
	path: "/work/hello.ts",
	kind: "reload",
	ok: true,
	durationMs: 12,
	added: [],
	removed: [],
	changed: ["hello"],
	lines: ["reloaded hello.ts (12 ms)"],
	diagnostics: [],
	...extra,
});

const nestedCall = (toolCallId: string, extra: Partial<InspectorNestedCall> = {}): InspectorNestedCall => ({
	toolCallId,
	parentToolCallId: toolCallId.slice(0, toolCallId.lastIndexOf("/")),
	tool: "tick",
	args: { n: 2 },
	status: "running",
	renderedCall: { lines: ["tick to 2"] },
	updates: [],
	...extra,
});

function fold(events: Parameters<typeof applyEvent>[1][], model: PageModel = EMPTY_MODEL): PageModel {
	return events.reduce((current, event) => applyEvent(current, event).model, model);
}

describe("applyEvent", () => {
	it("takes the whole state from hello", () => {
		const model = fold([{ type: "hello", state: state({ calls: [call("call-1")], reloads: [reload()] }) }]);
		expect(model).toMatchObject({ loaded: true, cwd: "/work", env: "node", prompt: "## Tools" });
		expect(model.calls.map((c) => c.id)).toEqual(["call-1"]);
		expect(model.reloads).toHaveLength(1);
	});

	it("appends a reload to the log, replaces tools, diagnostics and prompt, keeps the calls, and marks what changed", () => {
		const before = fold([{ type: "hello", state: state({ calls: [call("call-1")] }) }]);
		const diagnostic = { severity: "error" as const, message: "boom", text: "error hello.ts:3:7 boom" };
		const applied = applyEvent(before, {
			type: "reload",
			reload: reload({ added: ["bye"], changed: ["hello"], ok: false, diagnostics: [diagnostic] }),
			state: state({ tools: [tool("hello"), tool("bye")], diagnostics: [diagnostic], prompt: "## Tools v2" }),
		});
		expect(applied.marked).toEqual(["bye", "hello"]);
		expect(applied.model.tools.map((t) => t.name)).toEqual(["hello", "bye"]);
		expect(applied.model.diagnostics).toEqual([diagnostic]);
		expect(applied.model.prompt).toBe("## Tools v2");
		expect(applied.model.calls.map((c) => c.id)).toEqual(["call-1"]);
		expect(applied.model.reloads.map((r) => r.lines[0])).toEqual(["reloaded hello.ts (12 ms)"]);
	});

	it("does not log the same reload twice, and keeps the last reloads only", () => {
		const event = { type: "reload" as const, reload: reload(), state: state() };
		expect(fold([event, event]).reloads).toHaveLength(1);
		const many = Array.from({ length: MAX_RELOADS + 5 }, (_, index) => ({
			type: "reload" as const,
			reload: reload({ at: index }),
			state: state(),
		}));
		const model = fold(many);
		expect(model.reloads).toHaveLength(MAX_RELOADS);
		expect(model.reloads[0]!.at).toBe(5);
	});

	it("takes tools and diagnostics from a diagnostic event", () => {
		const diagnostic = { severity: "warning" as const, message: "slow", text: "warning hello.ts slow" };
		const model = fold([
			{ type: "hello", state: state() },
			{ type: "diagnostic", diagnostic, state: state({ diagnostics: [diagnostic] }) },
		]);
		expect(model.diagnostics).toEqual([diagnostic]);
	});

	it("inserts a call, appends its updates, and replaces it when it ends", () => {
		const update = { atMs: 200, rendered: { lines: ["3 to go"] }, partial: { content: [] } };
		let model = fold([
			{ type: "hello", state: state() },
			{ type: "call", call: call("call-1") },
			{ type: "call", call: call("call-2") },
			{ type: "update", id: "call-1", update },
			{ type: "update", id: "call-9", update },
		]);
		expect(model.calls.map((c) => [c.id, c.updates.length])).toEqual([
			["call-1", 1],
			["call-2", 0],
		]);
		model = fold([{ type: "call", call: call("call-1", { status: "ok", durationMs: 400, updates: [update] }) }], model);
		expect(model.calls[0]).toMatchObject({ id: "call-1", status: "ok", durationMs: 400 });
		expect(model.calls).toHaveLength(2);
	});
});

describe("eval progress", () => {
	const trial = (n: number, passed: boolean) => ({
		trial: n,
		passed,
		turns: 2,
		ended: "answer",
		answer: "",
		durationMs: 1,
		calls: [],
		failures: [],
	});
	const event = (run: string, n: number, passed: boolean) => ({
		type: "eval-trial" as const,
		run,
		scenario: "paris weather",
		trials: 3,
		trial: trial(n, passed),
	});

	it("counts the trials each run has ended and passed, run by run", () => {
		const model = fold([
			event("eval-1", 2, true),
			event("eval-2", 1, false),
			event("eval-1", 1, false),
			event("eval-1", 3, true),
		]);
		expect(model.evalProgress).toEqual({
			"eval-1": { scenario: "paris weather", trials: 3, ended: 3, passed: 2 },
			"eval-2": { scenario: "paris weather", trials: 3, ended: 1, passed: 0 },
		});
		expect(model.calls).toEqual([]);
	});
});

describe("nested calls", () => {
	const update = { atMs: 5, rendered: { lines: ["… tick 1/2"] }, partial: null };
	it("puts each nested call under its call, appends its updates, and replaces it when it ends", () => {
		let model = fold([
			{ type: "hello", state: state() },
			{ type: "call", call: call("call-1") },
			{ type: "call", call: call("call-2") },
			{ type: "nested", id: "call-1", call: nestedCall("call-1/1") },
			{ type: "nested-update", id: "call-1", toolCallId: "call-1/1", parentToolCallId: "call-1", update },
			{ type: "nested", id: "call-1", call: nestedCall("call-1/1/1") },
			{ type: "nested-update", id: "call-1", toolCallId: "call-1/9", parentToolCallId: "call-1", update },
		]);
		expect(model.calls[0]?.nested?.map((n) => [n.toolCallId, n.status, n.updates.length])).toEqual([
			["call-1/1", "running", 1],
			["call-1/1/1", "running", 0],
		]);
		expect(model.calls[1]?.nested).toBeUndefined();
		model = fold(
			[{ type: "nested", id: "call-1", call: nestedCall("call-1/1", { status: "ok", durationMs: 40 }) }],
			model,
		);
		// The page's updates stay when the end event carries fewer; a late start does not undo the end.
		expect(model.calls[0]?.nested?.[0]).toMatchObject({ status: "ok", durationMs: 40, updates: [update] });
		model = fold([{ type: "nested", id: "call-1", call: nestedCall("call-1/1") }], model);
		expect(model.calls[0]?.nested?.[0]?.status).toBe("ok");
		expect(nestedChildren(model.calls[0]?.nested, "call-1").map((n) => n.toolCallId)).toEqual(["call-1/1"]);
		expect(nestedChildren(model.calls[0]?.nested, "call-1/1").map((n) => n.toolCallId)).toEqual(["call-1/1/1"]);
		// The call's end (from the server, listing them) keeps them.
		model = fold(
			[{ type: "call", call: call("call-1", { status: "ok", nested: [nestedCall("call-1/1", { status: "ok" })] }) }],
			model,
		);
		expect(model.calls[0]?.nested?.map((n) => n.toolCallId)).toEqual(["call-1/1", "call-1/1/1"]);
		expect(model.calls[0]?.nested?.[0]?.updates).toEqual([update]);
	});
});

describe("mergeCall", () => {
	const update = { atMs: 1, rendered: { lines: ["x"] }, partial: null };
	it("keeps the updates the page collected when the server's copy has fewer", () => {
		const mine = call("call-1", { updates: [update, update] });
		const merged = mergeCall(mine, call("call-1", { status: "ok", updates: [update] }));
		expect(merged.status).toBe("ok");
		expect(merged.updates).toHaveLength(2);
		expect(mergeCall(undefined, mine)).toBe(mine);
		const theirs = call("call-1", { updates: [update, update, update] });
		expect(mergeCall(mine, theirs)).toBe(theirs);
	});
});

describe("contentBlocks", () => {
	it("shows text, images with a base64 body and an image type, and anything else as JSON", () => {
		const blocks = contentBlocks({
			content: [
				{ type: "text", text: "<b>not html</b>" },
				{ type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
				{ type: "image", mimeType: 'image/png" onerror="x', data: "AAAA" },
				{ type: "image", mimeType: "text/html", data: "AAAA" },
				{ type: "image", mimeType: "image/png", data: "AA AA);" },
				{ type: "resource", uri: "file:///x" },
			],
		});
		expect(blocks.map((block) => block.type)).toEqual(["text", "image", "other", "other", "other", "other"]);
		expect(blocks[0]).toEqual({ type: "text", text: "<b>not html</b>" });
		expect(contentBlocks(undefined)).toEqual([]);
		expect(contentBlocks({ content: "x" })).toEqual([]);
	});
});

describe("formatting", () => {
	it("formats durations, JSON and argument summaries", () => {
		expect(formatDuration(12.4)).toBe("12 ms");
		expect(formatDuration(2400)).toBe("2.40 s");
		expect(formatDuration(12_345)).toBe("12.3 s");
		expect(formatDuration(185_000)).toBe("3 min 5 s");
		expect(formatDuration(-1)).toBe("—");
		expect(prettyJson(undefined)).toBe("(none)");
		expect(prettyJson({ a: [1] })).toBe('{\n  "a": [\n    1\n  ]\n}');
		expect(argsSummary({ text: "x".repeat(100) }, 20)).toBe('{"text":"xxxxxxxxxx…');
	});
});
