import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolExecutionEvent } from "../../../src/contract/events.js";
import type { TSchema } from "../../../src/contract/schema.js";
import { validateToolArguments } from "../../../src/exec/validate.js";
import { createExtensionHost, type ExtensionHost } from "../../../src/extensions/node-host.js";
import { renderToolCall, renderToolResult, toolRenderersFor } from "../../../src/render/renderer.js";
import { plainTheme } from "../../../src/render/theme.js";
import { findRelease, referenceSession } from "../../compat/_reference.js";
import { typeCheckAgainstRelease } from "./_pi-typecheck.js";

const here = dirname(fileURLToPath(import.meta.url));
const fixture = join(here, "..", "..", "fixtures", "pi-1x-nested", "index.ts");
const release = findRelease("@earendil-works", "1.6.0");
const OWN = ["lookup", "secret", "gather"];
const CALL = { id: "call_1", name: "gather", args: { key: "alpha" } };
const WIDTH = 30;
const PROBES = [
	{
		name: "lookup",
		args: { key: "alpha" },
		result: { content: [{ type: "text" as const, text: "alpha = 1" }], details: {} },
		width: WIDTH,
	},
	{ name: "gather", args: { key: "alpha" }, result: undefined, width: WIDTH },
];

/**
 * Where toolsmith differs from 1.6.0 on purpose (docs/pi-compat.md, "Nested calls against 1.6.0"),
 * each with the exact form on both sides: the comparison replaces each by its name, and fails when
 * a side shows another form.
 */
const DIFFERENCES = {
	/** The executor's own error texts (docs/executor.md, "Error texts"). */
	validationText: {
		toolsmith: (text: string) =>
			text.startsWith('Invalid arguments for tool "lookup":\n  - /key: missing, expected string'),
		reference: (text: string) => text.startsWith('Validation failed for tool "lookup":') && text.includes("key"),
	},
	notFoundText: {
		toolsmith: (text: string) =>
			text === "Tool secret not found. Available tools: read, bash, edit, write, gather, lookup.",
		reference: (text: string) => text === "Tool secret not found",
	},
	/** The executor's error results carry `details: { code, … }` (docs/executor.md); 1.6.0's carry `{}`. */
	errorDetails: {
		toolsmith: (details: unknown) =>
			typeof details === "object" &&
			details !== null &&
			/^E_[A-Z_]+$/.test(String((details as { code?: unknown }).code)),
		reference: (details: unknown) =>
			typeof details === "object" && details !== null && Object.keys(details).length === 0,
	},
	/**
	 * toolsmith's result message keeps the tool's `structuredContent` (MCP and replay read it from
	 * there); 1.6.0's message leaves it out (its `tool_execution_end` event carries it).
	 */
	messageStructuredContent: true,
} as const;

type Side = "toolsmith" | "reference";

/** A deep copy of `value` with the differences above replaced by their names; counts what it replaced. */
function settle(value: unknown, side: Side, seen: Map<string, number>): unknown {
	const note = (name: string) => {
		seen.set(name, (seen.get(name) ?? 0) + 1);
		return `<${name}>`;
	};
	if (typeof value === "string") {
		if (DIFFERENCES.validationText[side](value)) return note("validationText");
		if (DIFFERENCES.notFoundText[side](value)) return note("notFoundText");
		return value;
	}
	if (Array.isArray(value)) return value.map((item) => settle(item, side, seen));
	if (typeof value !== "object" || value === null) return value;
	const entries = Object.entries(value).map(([key, item]): [string, unknown] => {
		if (key === "durationMs") return [key, typeof item];
		return [key, settle(item, side, seen)];
	});
	const copy = Object.fromEntries(entries) as Record<string, unknown>;
	// An error outcome, message or end event: its details are the executor's (or 1.6.0's empty ones).
	if (copy.isError !== true) return copy;
	const holder = "details" in copy ? copy : (copy.result as Record<string, unknown> | undefined);
	if (holder && "details" in holder && DIFFERENCES.errorDetails[side](holder.details)) {
		holder.details = note("errorDetails");
	}
	return copy;
}

interface Run {
	active: string[];
	callable: string[];
	declared: { name: string; description: string }[];
	events: ReturnType<typeof eventOf>[];
	/** The end events' `isError` and result, by call id. */
	endResults: Record<string, { isError?: boolean; result?: unknown }>;
	message: Record<string, unknown>;
	rendered: { name: string; call: string[] | null; result: string[] | null }[];
}

/** The parts of a run both sides report, in one shape. */
function comparable(sent: Run, side: Side) {
	// As the reference's report crossed a process boundary: undefined fields gone.
	const run = JSON.parse(JSON.stringify(sent)) as Run;
	const seen = new Map<string, number>();
	const { role, toolCallId, toolName, content, details, isError, durationMs, nestedCalls, structuredContent } =
		run.message;
	const message = settle(
		{ role, toolCallId, toolName, content, details, isError, durationMs, nestedCalls },
		side,
		seen,
	);
	return {
		view: {
			active: run.active,
			callable: run.callable,
			declared: run.declared.filter((d) => OWN.includes(d.name)),
			events: run.events,
			endResults: settle(run.endResults, side, seen),
			message,
			rendered: run.rendered,
		},
		messageStructuredContent: structuredContent,
		seen: Object.fromEntries([...seen].sort()),
	};
}

function eventOf(e: {
	type: string;
	toolCallId: string;
	toolName: string;
	parentToolCallId?: string;
	isError?: boolean;
	durationMs?: number;
}) {
	return {
		type: e.type,
		toolCallId: e.toolCallId,
		toolName: e.toolName,
		...(e.parentToolCallId !== undefined ? { parentToolCallId: e.parentToolCallId } : {}),
		...(e.isError !== undefined ? { isError: e.isError } : {}),
		// An end event measures the call when the tool ran.
		...(e.type === "tool_execution_end" ? { ran: e.durationMs !== undefined } : {}),
	};
}

describe("a pi 1.6.0 extension whose tool calls other tools", () => {
	let cwd: string;
	let host: ExtensionHost;
	let mine: Run;

	beforeAll(async () => {
		cwd = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-pi-1x-nested-")));
		host = createExtensionHost({ paths: [fixture], cwd });
		await host.ready;
		const snapshot = host.registry.snapshot();
		const events: ToolExecutionEvent[] = [];
		const { results } = await host.execute([{ type: "toolCall", id: CALL.id, name: CALL.name, arguments: CALL.args }], {
			onEvent: (event) => events.push(event),
		});
		const draw = (probe: (typeof PROBES)[number]) => {
			const renderers = toolRenderersFor(host.runtime, probe.name, host.registry.get(probe.name)?.definition);
			const drawn = (lines: readonly string[]) => lines.map((line) => line.trimEnd());
			return {
				name: probe.name,
				call: renderers?.renderCall
					? drawn(renderToolCall(renderers, probe.args, plainTheme, probe.width, { name: probe.name }).lines)
					: null,
				result:
					probe.result && renderers?.renderResult
						? drawn(
								renderToolResult(
									renderers,
									probe.result,
									{ expanded: false, isPartial: false },
									plainTheme,
									probe.width,
								).lines,
							)
						: null,
			};
		};
		mine = {
			active: snapshot.active.map((entry) => entry.name),
			callable: snapshot.callable.map((entry) => entry.name),
			declared: snapshot.declarations().map(({ name, description }) => ({ name, description })),
			events: events.filter((e) => e.type !== "tool_execution_update").map(eventOf),
			endResults: Object.fromEntries(
				events.flatMap((e) =>
					e.type === "tool_execution_end" ? [[e.toolCallId, { isError: e.isError, result: e.result }]] : [],
				),
			),
			message: { ...(results[0] as unknown as Record<string, unknown>) },
			rendered: PROBES.map(draw),
		};
	}, 60_000);
	afterAll(async () => {
		await host?.close();
		rmSync(cwd, { recursive: true, force: true });
	});

	it("runs the nested calls through validation, hooks and the callable set, with ids <id>/<n>", () => {
		expect(mine.callable).toEqual(["read", "bash", "edit", "write", "lookup", "gather"]);
		expect(mine.active).toEqual(["read", "bash", "edit", "write", "secret", "gather"]);
		expect(mine.events).toEqual([
			{ type: "tool_execution_start", toolCallId: "call_1", toolName: "gather" },
			// Only the first nested call runs its tool: validation, the handler and the callable set refuse the rest.
			...(
				[
					["1", "lookup", false, true],
					["2", "lookup", true, false],
					["3", "lookup", true, false],
					["4", "secret", true, false],
				] as const
			).flatMap(([n, toolName, isError, ran]) => [
				{ type: "tool_execution_start", toolCallId: `call_1/${n}`, toolName, parentToolCallId: "call_1" },
				{ type: "tool_execution_end", toolCallId: `call_1/${n}`, toolName, parentToolCallId: "call_1", isError, ran },
			]),
			{ type: "tool_execution_end", toolCallId: "call_1", toolName: "gather", isError: false, ran: true },
		]);
		const details = mine.message.details as {
			callable: string[];
			outcomes: { id: string; isError: boolean; text: string; structuredContent?: unknown }[];
			heard: string[];
		};
		expect(details.callable).toEqual(["bash", "edit", "gather", "lookup", "read", "write"]);
		expect(details.outcomes.map((o) => [o.id, o.isError])).toEqual([
			["call_1/1", false],
			["call_1/2", true],
			["call_1/3", true],
			["call_1/4", true],
		]);
		expect(details.outcomes[1]?.text).toContain('Invalid arguments for tool "lookup"');
		expect(details.outcomes[2]?.text).toBe("lookup of blocked keys is not allowed");
		expect(details.outcomes[3]?.text).toMatch(/^Tool secret not found/);
		expect(details.heard).toEqual([
			"call gather call_1 parent=-",
			"call lookup call_1/1 parent=call_1",
			"result lookup call_1/1 parent=call_1 error=false",
			"call lookup call_1/3 parent=call_1",
		]);
		expect((mine.message.nestedCalls as { complete: boolean }).complete).toBe(true);
	});

	it("returns structuredContent that fits lookup's outputSchema", () => {
		const outputSchema = host.registry.get("lookup")?.definition.outputSchema as TSchema;
		const structured = (mine.endResults["call_1/1"]?.result as { structuredContent?: unknown } | undefined)
			?.structuredContent;
		expect(structured).toEqual({ key: "alpha", value: 1 });
		const checked = validateToolArguments({ name: "lookup output", parameters: outputSchema }, structured);
		expect(checked.ok && checked.value === structured).toBe(true);
		expect(validateToolArguments({ name: "lookup output", parameters: outputSchema }, { key: "a" }).ok).toBe(false);
	});

	it("draws lookup's calls and results with the extension's renderer", () => {
		expect(mine.rendered).toEqual([
			{ name: "lookup", call: ["lookup alpha in the table of", "known keys"], result: ["= alpha = 1"] },
			{ name: "gather", call: null, result: null },
		]);
	});

	it.runIf(release !== undefined)(
		"behaves as in the 1.6.0 release's own session, but for the differences named",
		async () => {
			if (!release) return;
			const reference = await referenceSession(release, [fixture], cwd, [], {
				turn: [CALL],
				render: PROBES,
			});
			expect(reference.errors).toEqual([]);
			const turn = reference.turn;
			if (!turn) throw new Error("the reference session took no turn");
			const theirs: Run = {
				active: reference.active,
				callable: reference.callable,
				declared: reference.declared,
				events: turn.events.filter((e) => e.type !== "tool_execution_update").map(eventOf),
				endResults: Object.fromEntries(
					turn.events.flatMap((e) =>
						e.type === "tool_execution_end" ? [[e.toolCallId, { isError: e.isError, result: e.result }]] : [],
					),
				),
				message: turn.results[0] ?? {},
				rendered: reference.rendered,
			};
			const ours = comparable(mine, "toolsmith");
			const ref = comparable(theirs, "reference");
			expect(ours.view).toEqual(ref.view);
			// Every difference named was met, as often on both sides.
			expect(ours.seen).toEqual({ errorDetails: 9, notFoundText: 4, validationText: 4 });
			expect(ref.seen).toEqual(ours.seen);
			// The result message: toolsmith keeps structuredContent, 1.6.0 leaves it to the end event.
			expect(DIFFERENCES.messageStructuredContent).toBe(true);
			expect(ours.messageStructuredContent).toEqual({ key: "alpha", value: 1 });
			expect(ref.messageStructuredContent).toBeUndefined();
			const end = (ref.view.endResults as Run["endResults"]).call_1?.result as
				| { structuredContent?: unknown }
				| undefined;
			expect(end?.structuredContent).toEqual({ key: "alpha", value: 1 });
		},
		180_000,
	);

	it.runIf(release !== undefined)(
		"type-checks against the 1.6.0 release's own declarations",
		async () => {
			if (!release) return;
			const output = await typeCheckAgainstRelease(release.dir, cwd, [fixture]);
			expect(output).toBe("");
		},
		180_000,
	);
});
