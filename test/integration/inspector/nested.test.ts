/**
 * Nested calls in the inspector's server: a tool that calls another through `ctx.executeTool`
 * (test/fixtures/nested-relay) run from the API. The event stream carries each nested call's start,
 * its partial updates and its end with `parentToolCallId`, drawn with the called tool's renderers;
 * the calling call's result carries the `nestedCalls` record and the call in the state lists them.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
	CallStarted,
	InspectorCall,
	InspectorEvent,
	InspectorNestedCall,
	InspectorState,
} from "../../../src/inspector/protocol.js";
import { eventStream, type Inspected, startInspected } from "./_server.js";

let assets: string;
let it_: Inspected;

beforeAll(async () => {
	assets = mkdtempSync(join(tmpdir(), "toolsmith-inspector-assets-"));
	writeFileSync(join(assets, "index.html"), '<script type="module" src="app.js?token=__TOKEN__"></script>');
	writeFileSync(join(assets, "app.js"), "export {};");
	writeFileSync(join(assets, "app.css"), "body{}");
	it_ = await startInspected({ assetsDir: assets, extensions: [], files: ["test/fixtures/nested-relay/relay.ts"] });
});

afterAll(async () => {
	await it_?.close();
	rmSync(assets, { recursive: true, force: true });
});

/** Starts a `relay` call through the page's API and returns its call id. */
async function startRelay(args: { n: number; intervalMs: number }): Promise<string> {
	const response = await fetch(it_.url("/api/call"), {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ tool: "relay", args }),
	});
	return ((await response.json()) as CallStarted).id;
}

const plain = (lines: readonly string[] | undefined) => stripVTControlCharacters((lines ?? []).join("\n"));

describe("nested calls in the inspector", () => {
	it("streams each nested call's start, updates and end under its caller, and keeps them on the call", async () => {
		const events = eventStream(it_.url("/api/events"));
		try {
			await events.next((e) => e.type === "hello");
			const id = await startRelay({ n: 3, intervalMs: 10 });
			const end = (await events.next((e) => e.type === "call" && e.call.id === id && e.call.status !== "running")) as {
				call: InspectorCall;
			};
			const mine = events.seen.filter(
				(e): e is Extract<InspectorEvent, { type: "nested" | "nested-update" }> =>
					(e.type === "nested" || e.type === "nested-update") && e.id === id,
			);
			// Start, three updates, end of the first nested call; start and end of the refused one.
			expect(
				mine.map((e) =>
					e.type === "nested"
						? `${e.call.toolCallId} ${e.call.status} parent=${e.call.parentToolCallId}`
						: `${e.toolCallId} update ${plain(e.update.rendered.lines)} parent=${e.parentToolCallId}`,
				),
			).toEqual([
				`${id}/1 running parent=${id}`,
				`${id}/1 update … tick 1/3 parent=${id}`,
				`${id}/1 update … tick 2/3 parent=${id}`,
				`${id}/1 update … tick 3/3 parent=${id}`,
				`${id}/1 ok parent=${id}`,
				`${id}/2 running parent=${id}`,
				`${id}/2 error parent=${id}`,
			]);
			// The nested events come before the caller's end.
			const endIndex = events.seen.findIndex(
				(e) => e.type === "call" && e.call.id === id && e.call.status !== "running",
			);
			expect(events.seen.indexOf(mine.at(-1)!)).toBeLessThan(endIndex);

			const call = end.call;
			expect(call.status).toBe("ok");
			expect(call.nested?.map((n) => [n.toolCallId, n.tool, n.status])).toEqual([
				[`${id}/1`, "tick", "ok"],
				[`${id}/2`, "tick", "error"],
			]);
			const [counted, refused] = call.nested as InspectorNestedCall[];
			// Drawn with tick's own renderers (tick is codemode: callable, not active).
			expect(plain(counted?.renderedCall.lines)).toBe("tick to 3");
			expect(plain(counted?.renderedResult?.lines)).toBe("= counted to 3");
			expect(counted?.updates.map((u) => plain(u.rendered.lines))).toEqual(["… tick 1/3", "… tick 2/3", "… tick 3/3"]);
			expect(counted?.args).toEqual({ n: 3, intervalMs: 10 });
			expect(counted?.result).toMatchObject({ content: [{ type: "text", text: "counted to 3" }], isError: false });
			expect(counted?.durationMs).toBeGreaterThanOrEqual(0);
			expect(plain(refused?.renderedResult?.lines)).toMatch(/^tick failed: Invalid arguments for tool "tick"/);
			expect(refused?.result).toMatchObject({ isError: true });

			// The caller's result has the executor's bounded record of them.
			expect(call.result).toMatchObject({
				content: [{ type: "text", text: `${id}/1: counted to 3; ${id}/2: refused` }],
				nestedCalls: {
					complete: true,
					calls: [
						{ id: `${id}/1`, name: "tick", status: "ok", arguments: { n: 3, intervalMs: 10 } },
						{ id: `${id}/2`, name: "tick", status: "error", arguments: { n: "many" } },
					],
				},
			});
			// The caller's own partial updates stay its own.
			expect(call.updates.map((u) => u.partial)).toEqual([
				{ content: [{ type: "text", text: "relayed 1" }], details: { heard: ["tick 1/3"] } },
				{ content: [{ type: "text", text: "relayed 2" }], details: { heard: ["tick 1/3", "tick 2/3"] } },
				{ content: [{ type: "text", text: "relayed 3" }], details: { heard: ["tick 1/3", "tick 2/3", "tick 3/3"] } },
			]);

			// A page that connects later gets them in the state.
			const state = (await (await fetch(it_.url("/api/state"))).json()) as InspectorState;
			const stored = state.calls.find((c) => c.id === id);
			expect(stored?.nested?.map((n) => n.toolCallId)).toEqual([`${id}/1`, `${id}/2`]);
		} finally {
			events.close();
		}
	});

	it("lists a running call's nested calls in the state before the call ends", async () => {
		const events = eventStream(it_.url("/api/events"));
		try {
			await events.next((e) => e.type === "hello");
			const id = await startRelay({ n: 20, intervalMs: 100 });
			await events.next((e) => e.type === "nested-update" && e.id === id);
			const state = (await (await fetch(it_.url("/api/state"))).json()) as InspectorState;
			const running = state.calls.find((c) => c.id === id);
			expect(running?.status).toBe("running");
			expect(running?.nested?.map((n) => [n.toolCallId, n.status])).toEqual([[`${id}/1`, "running"]]);
			await fetch(it_.url("/api/abort"), {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: JSON.stringify({ id }),
			});
			const end = (await events.next((e) => e.type === "call" && e.call.id === id && e.call.status !== "running")) as {
				call: InspectorCall;
			};
			expect(end.call.status).toBe("aborted");
			expect(end.call.nested?.[0]?.status).toBe("error");
		} finally {
			events.close();
		}
	});
});
