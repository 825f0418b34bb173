/**
 * The executor against the reference 1.x agent loop (`@earendil-works/pi-agent-core` 1.6.0, under
 * Node 22 in a child process: test/compat/_executor-1x.mjs) on what 1.x fixed: a parallel batch
 * runs no tool before every call is prepared (a slow `beforeToolCall` on its last call), an abort
 * from that hook gives every call `Operation aborted` with the same events, result messages
 * carry `durationMs`, the time `execute` took, a result that sets `isError: true` is an error, and a
 * blocking `beforeToolCall` may ask to terminate. Skips unless `npm run compat:setup` installed 1.6.0.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../../src/exec/execute.js";
import type { BeforeToolCallResult, ToolExecutionEvent } from "../../../src/runtime.js";
import { compatDir, listReleases } from "../../compat/_releases.js";
import { call, firstText, text, tool } from "../../unit/exec/_helpers.js";

interface Side {
	log: string[];
	events: string[];
	results: { id: string; text: string; isError: boolean; durationMs?: number }[];
}

const release = listReleases().find((r) => r.spec === "@earendil-works/pi-coding-agent@1.6.0");
const usable = release?.installed === true && release.node !== undefined;

interface Outcomes {
	results: { id: string; text: string; isError: boolean; details: unknown }[];
	ends: [string, boolean][];
	afterSaw: [string, boolean][];
	terminated: boolean;
}

type OutcomeScenarios = Record<
	"returnedError" | "blockedTerminate" | "blockedOnly" | "terminateWithoutBlock",
	Outcomes
>;

function reference(): { slowLastHook: Side; abortInHook: Side; outcomes: OutcomeScenarios } {
	const modules = dirname(dirname((release as { packageDir: string }).packageDir));
	const run = spawnSync(release?.node as string, [join(compatDir, "_executor-1x.mjs"), modules], {
		encoding: "utf8",
		timeout: 60_000,
	});
	if (run.status !== 0) throw new Error(`the reference run failed: ${run.stderr}`);
	return JSON.parse(run.stdout);
}

async function ours(
	ids: string[],
	hook: (id: string, log: string[], abort: () => void) => Promise<undefined> | undefined,
): Promise<Side> {
	const log: string[] = [];
	const events: string[] = [];
	const controller = new AbortController();
	const t = tool("t", async (id) => {
		log.push(`run:${id}`);
		await new Promise((resolve) => setTimeout(resolve, 30));
		return text(id);
	});
	const { results } = await executeToolCalls(
		ids.map((id) => call(id, "t")),
		{
			tools: [t],
			signal: controller.signal,
			beforeToolCall: ({ toolCall }) => hook(toolCall.id, log, () => controller.abort()),
			onEvent: (e: ToolExecutionEvent) => {
				if (e.type !== "tool_execution_update") events.push(`${e.type.slice(15)}:${e.toolCallId}`);
			},
		},
	);
	return {
		log,
		events,
		results: results.map((r) => ({
			id: r.toolCallId,
			text: firstText(r),
			isError: r.isError,
			durationMs: r.durationMs,
		})),
	};
}

/** The scenario of `outcomes` in test/compat/_executor-1x.mjs, through toolsmith. */
async function ourOutcomes(calls: [string, string][], blocks: Record<string, BeforeToolCallResult>): Promise<Outcomes> {
	const returning = (name: string, extra: { isError?: boolean; terminate?: boolean }) =>
		tool(name, async (id) => ({ ...text(`${name} ${id}`), details: { id }, ...extra }));
	const tools = [returning("fails", { isError: true }), returning("stop", { terminate: true }), returning("ok", {})];
	const ends: [string, boolean][] = [];
	const afterSaw: [string, boolean][] = [];
	const { results, terminate } = await executeToolCalls(
		calls.map(([id, name]) => call(id, name)),
		{
			tools,
			beforeToolCall: async ({ toolCall }) => blocks[toolCall.id],
			afterToolCall: async ({ toolCall, isError }) => {
				afterSaw.push([toolCall.id, isError]);
				return undefined;
			},
			onEvent: (e) => {
				if (e.type === "tool_execution_end") ends.push([e.toolCallId, e.isError]);
			},
		},
	);
	return {
		results: results.map((r) => ({ id: r.toolCallId, text: firstText(r), isError: r.isError, details: r.details })),
		ends,
		afterSaw,
		terminated: terminate,
	};
}

describe.skipIf(!usable)("executeToolCalls against the reference 1.6.0 agent loop", () => {
	it("makes a returned isError: true an error and lets a blocked call ask to terminate, as 1.6.0 does", async () => {
		const theirs = reference().outcomes;
		const mine: OutcomeScenarios = {
			returnedError: await ourOutcomes(
				[
					["1", "fails"],
					["2", "ok"],
				],
				{},
			),
			blockedTerminate: await ourOutcomes(
				[
					["1", "stop"],
					["2", "ok"],
				],
				{ 2: { block: true, reason: "not now", terminate: true } },
			),
			blockedOnly: await ourOutcomes(
				[
					["1", "stop"],
					["2", "ok"],
				],
				{ 2: { block: true, reason: "not now" } },
			),
			terminateWithoutBlock: await ourOutcomes([["1", "ok"]], { 1: { terminate: true } }),
		};
		for (const name of Object.keys(theirs) as (keyof OutcomeScenarios)[]) {
			const [a, b] = [mine[name], theirs[name]];
			// A blocked call's details are toolsmith's error code (`{ code: "E_BLOCKED" }`), the reference's `{}`.
			const shape = (o: Outcomes) => o.results.map((r) => [r.id, r.text, r.isError]);
			expect(shape(a), name).toEqual(shape(b));
			expect(a.ends, name).toEqual(b.ends);
			expect(a.afterSaw, name).toEqual(b.afterSaw);
			expect(a.terminated, name).toBe(b.terminated);
		}
		// The tool's own details stay on a returned error, in both.
		expect(mine.returnedError.results[0]).toEqual(theirs.returnedError.results[0]);
		expect(theirs.returnedError.results[0]?.isError).toBe(true);
		expect(theirs.blockedTerminate.terminated).toBe(true);
		expect(theirs.blockedOnly.terminated).toBe(false);
	}, 60_000);

	it("prepares the whole parallel batch first, aborts alike, and measures durationMs alike", async () => {
		const theirs = reference();
		const slowLastHook = await ours(["1", "2", "3"], async (id, log) => {
			if (id !== "3") return undefined;
			log.push("hook:3");
			await new Promise((resolve) => setTimeout(resolve, 40));
			log.push("hook:3 done");
			return undefined;
		});
		const abortInHook = await ours(["1", "2"], (id, _log, abort) => {
			if (id === "2") abort();
			return undefined;
		});
		for (const [name, mine, reference] of [
			["slow last hook", slowLastHook, theirs.slowLastHook],
			["abort in hook", abortInHook, theirs.abortInHook],
		] as const) {
			expect(mine.log, name).toEqual(reference.log);
			expect(mine.events, name).toEqual(reference.events);
			const shape = (side: Side) => side.results.map((r) => [r.id, r.text, r.isError, r.durationMs === undefined]);
			expect(shape(mine), name).toEqual(shape(reference));
		}
		expect(theirs.slowLastHook.log).toEqual(["hook:3", "hook:3 done", "run:1", "run:2", "run:3"]);
		for (const side of [slowLastHook, theirs.slowLastHook]) {
			for (const r of side.results) {
				expect(r.durationMs).toBeGreaterThanOrEqual(25);
				expect(r.durationMs).toBeLessThan(200);
			}
		}
	}, 60_000);
});
