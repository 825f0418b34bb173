/**
 * The executor against the reference's agent loop, on seeded random batches of tool calls. Each
 * batch runs (a) through the reference's `Agent`, driven by its scripted (faux) model: one
 * assistant message holding the batch's calls, then a final text message; and (b) through
 * toolsmith's `executeToolCalls`. Both sides get equivalent tools, each built with its own `Type`.
 * The comparison covers the results given to the model, what each tool received, the sequential
 * veto, which calls overlapped, the start, update and end events, and the terminate rule. Where the
 * two differ by design, the difference must be one docs/executor.md documents ("Differences from
 * the reference"): a coercion of its table, or one of its other listed differences.
 *
 * Shared by test/integration/exec/pi-agent-differential.test.ts and `npm run compat executor`.
 * The reference is only called, never copied.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ToolCall, ToolResultMessage } from "../../src/contract/content.js";
import type { ToolExecutionEvent } from "../../src/contract/events.js";
import { Type as OurType } from "../../src/contract/schema.js";
import type { AgentTool } from "../../src/contract/tool.js";
import { executeToolCalls } from "../../src/exec/execute.js";
import { importPeer, peersDir } from "../bench/_peer.js";
import {
	cellKey,
	type DocumentedDifference,
	differenceIndex,
	documentedDifferences,
	executorDoc,
	type Outcome,
	type ReferenceAi,
	type ReferenceToolCall,
	type TypeBuilder,
} from "./_coercion-differences.js";

// ---------------------------------------------------------------------------------------------
// The reference's surface, as far as the differential uses it.

interface TextResult {
	content: { type: "text"; text: string }[];
	details: unknown;
	isError?: boolean;
	terminate?: boolean;
}

type UpdateCallback = (partial: TextResult) => void;

/** A tool both sides can run: the shape of the reference's `AgentTool` and of ours. */
interface SharedTool {
	name: string;
	label: string;
	description: string;
	parameters: unknown;
	executionMode?: "sequential" | "parallel";
	execute(id: string, params: unknown, signal?: AbortSignal, onUpdate?: UpdateCallback): Promise<TextResult>;
}

interface ReferenceEvent {
	type: string;
	toolCallId?: string;
	args?: unknown;
	partialResult?: TextResult;
	isError?: boolean;
}

interface ReferenceMessage {
	role: string;
	toolCallId?: string;
	content?: unknown;
	isError?: boolean;
}

interface ReferenceAgent {
	subscribe(listener: (event: ReferenceEvent) => void): () => void;
	prompt(text: string): Promise<void>;
	readonly state: { readonly messages: readonly ReferenceMessage[]; readonly errorMessage?: string };
}

/** `beforeToolCall` as both releases take it (1.x also reads `terminate`). */
type BeforeHook = (context: {
	toolCall: { id: string };
}) => Promise<{ block: boolean; reason: string; terminate?: boolean } | undefined>;

interface ReferenceAgentModule {
	Agent: new (options: {
		initialState: { model: unknown; tools: SharedTool[]; systemPrompt?: string };
		toolExecution?: "parallel" | "sequential";
		beforeToolCall?: BeforeHook;
		streamFn?: unknown;
	}) => ReferenceAgent;
}

interface FauxRegistration {
	getModel(): unknown;
	setResponses(responses: unknown[]): void;
	getPendingResponseCount(): number;
	unregister(): void;
}

interface ReferenceLoop extends ReferenceAi {
	registerFauxProvider(): FauxRegistration;
	fauxToolCall(name: string, args: Record<string, unknown>, options: { id: string }): ReferenceToolCall;
	fauxAssistantMessage(content: string | ReferenceToolCall[], options?: { stopReason?: string }): unknown;
}

/** The reference's agent loop and scripted model, or undefined when the benchmark peers are not installed. */
export interface Reference {
	/** The release of pi-agent-core, as docs/executor.md names it in a difference that only one has ("0.73.1"). */
	readonly release: string;
	readonly ai: ReferenceLoop;
	readonly Agent: ReferenceAgentModule["Agent"];
	/** The stream function the Agent needs (1.x has no default). */
	readonly streamFn?: unknown;
}

/** The reference 0.73 line (`@mariozechner/pi-agent-core`) from the benchmark peers, in this process. */
export async function loadReference(): Promise<Reference | undefined> {
	try {
		const ai = await importPeer<ReferenceLoop>("@mariozechner/pi-ai");
		const core = await importPeer<ReferenceAgentModule>("@mariozechner/pi-agent-core");
		const manifest = JSON.parse(
			readFileSync(join(peersDir, "node_modules", "@mariozechner", "pi-agent-core", "package.json"), "utf8"),
		) as { version: string };
		return { release: manifest.version, ai, Agent: core.Agent };
	} catch {
		return undefined;
	}
}

/**
 * The reference 1.x line (`@earendil-works/pi-agent-core`, pi-ai's `/compat` entry, TypeBox 1.x) from
 * the `node_modules` folder of an installed release. 1.x needs Node 22: see `runDifferentialIn1x`.
 */
export async function loadReference1x(modules: string): Promise<Reference> {
	const load = <T>(path: string): Promise<T> => import(pathToFileURL(join(modules, path)).href) as Promise<T>;
	const ai = await load<ReferenceLoop & { streamSimple: unknown }>("@earendil-works/pi-ai/dist/compat.js");
	const core = await load<ReferenceAgentModule>("@earendil-works/pi-agent-core/dist/index.js");
	const { Type } = await load<{ Type: TypeBuilder }>("typebox/build/index.mjs");
	const manifest = JSON.parse(
		readFileSync(join(modules, "@earendil-works", "pi-agent-core", "package.json"), "utf8"),
	) as {
		version: string;
	};
	return { release: manifest.version, ai: { ...ai, Type }, Agent: core.Agent, streamFn: ai.streamSimple };
}

// ---------------------------------------------------------------------------------------------
// The batches.

/** A seeded PRNG (mulberry32): the same seed gives the same batches. */
export function prng(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** The tools of the differential, by what they do. */
const TOOL_KINDS = {
	/** Echoes the arguments it received. */
	echo: {},
	/** Throws after its wait. */
	boom: { throws: true },
	/** Echoes; declares `executionMode: "sequential"`. */
	seq: { sequential: true },
	/** Declared `sequential` but never called: must not serialize a batch. */
	idle_seq: { sequential: true },
	/** Returns `terminate: true`. */
	stop: { terminate: true },
	/** Two updates after its wait. */
	progress: { updates: "after" },
	/** One update as `execute` starts (synchronously, before its wait), two after its wait. */
	progress_now: { updates: "early" },
	/** Returns a result that sets `isError: true` (reporting a failure without throwing, pi 1.x). */
	fails: { returnsError: true },
} as const satisfies Record<string, ToolBehavior>;

interface ToolBehavior {
	throws?: boolean;
	sequential?: boolean;
	terminate?: boolean;
	updates?: "after" | "early";
	returnsError?: boolean;
}

type ToolName = keyof typeof TOOL_KINDS;

/** The argument fields, and the schema kind of each (a name of the coercion table). */
const FIELD_KINDS = {
	tag: "String",
	n: "Optional(Number)",
	i: "Optional(Integer)",
	b: "Optional(Boolean)",
	s: "Optional(String)",
} as const;

type Field = keyof typeof FIELD_KINDS;

function parametersOf(t: TypeBuilder): unknown {
	return t.Object({
		tag: t.String(),
		ms: t.Optional(t.Integer()),
		n: t.Optional(t.Number()),
		i: t.Optional(t.Integer()),
		b: t.Optional(t.Boolean()),
		s: t.Optional(t.String()),
	});
}

/** What a call does to its arguments, as the generator chose it. */
export type Variation =
	| "valid"
	| "coercible"
	| "documented coercion"
	| "missing required"
	| "extra property"
	| "wrong type"
	| "unknown tool";

export interface CallSpec {
	readonly id: string;
	readonly name: string;
	readonly args: Record<string, unknown>;
	readonly variation: Variation;
	/** The field whose value the variation chose, and that value. */
	readonly probe?: { readonly field: Field; readonly value: unknown };
	/** `beforeToolCall` blocks the call (reason `blocked <id>`), asking to terminate or not. */
	readonly block?: { readonly terminate: boolean };
}

export interface BatchSpec {
	readonly index: number;
	readonly calls: readonly CallSpec[];
	/** The host asks for sequential execution (the reference's `toolExecution`, our config's). */
	readonly sequentialConfig: boolean;
}

/** Values both implementations repair the same way, per field (checked, not assumed: see `compareBatch`). */
const COERCIBLE: Record<Exclude<Field, "tag">, readonly unknown[]> = {
	n: ["5", "-2.5", "1e3", " 7 ", "0.25"],
	i: ["7", "-3", "1.5e1", "+4"],
	b: ["true", "false", "TRUE"],
	s: [5, -1.5, true, false],
};

/** Values both implementations refuse, per field. */
const WRONG: Record<Field, readonly unknown[]> = {
	tag: [5, true, [], {}],
	n: ["abc", "5px", [], {}, "NaN"],
	i: ["x", [2], {}],
	b: ["maybe", "yes", [], {}],
	s: [{}, [1], ["a"]],
};

function pick<T>(random: () => number, list: readonly T[]): T {
	return list[Math.floor(random() * list.length)] as T;
}

function validArgs(random: () => number): Record<string, unknown> {
	const args: Record<string, unknown> = { tag: pick(random, ["a", "b", "c", "long tag"]) };
	// No wait (the tool settles at once), or a short one; rarely sent as a numeric string.
	const ms = pick(random, [0, 0, 1, 2, 3, 5, 8]);
	if (ms > 0 || random() < 0.5) args.ms = random() < 0.1 ? String(ms) : ms;
	if (random() < 0.5) args.n = pick(random, [0, 1.5, -2, 1e6]);
	if (random() < 0.4) args.i = pick(random, [0, 3, -7]);
	if (random() < 0.4) args.b = random() < 0.5;
	if (random() < 0.4) args.s = pick(random, ["", "x", "hello world"]);
	return args;
}

/** The documented coercions the generator can send: those for a kind of the tools' fields. */
function usableDifferences(rows: readonly DocumentedDifference[]): { field: Field; row: DocumentedDifference }[] {
	const out: { field: Field; row: DocumentedDifference }[] = [];
	for (const row of rows) {
		for (const [field, kind] of Object.entries(FIELD_KINDS) as [Field, string][]) {
			if (row.kind === kind) out.push({ field, row });
		}
	}
	return out;
}

function makeCall(
	random: () => number,
	id: string,
	name: ToolName,
	differences: readonly { field: Field; row: DocumentedDifference }[],
): CallSpec {
	const args = validArgs(random);
	const roll = random();
	if (roll < 0.45) return { id, name, args, variation: "valid" };
	if (roll < 0.6) {
		const field = pick(random, ["n", "i", "b", "s"] as const);
		const value = pick(random, COERCIBLE[field]);
		args[field] = value;
		return { id, name, args, variation: "coercible", probe: { field, value } };
	}
	if (roll < 0.72 && differences.length > 0) {
		const { field, row } = pick(random, differences);
		args[field] = row.input;
		return { id, name, args, variation: "documented coercion", probe: { field, value: row.input } };
	}
	if (roll < 0.8) {
		delete args.tag;
		return { id, name, args, variation: "missing required" };
	}
	if (roll < 0.9) {
		args[pick(random, ["extra", "path", "verbose"])] = pick(random, [1, "x", null, { deep: true }]);
		return { id, name, args, variation: "extra property" };
	}
	const field = pick(random, ["tag", "n", "i", "b", "s"] as const);
	const value = pick(random, WRONG[field]);
	args[field] = value;
	return { id, name, args, variation: "wrong type", probe: { field, value } };
}

/** `count` batches from `seed`, about three calls each (one to six). */
export function generateBatches(seed: number, count: number, rows = documentedDifferences()): BatchSpec[] {
	const random = prng(seed);
	const differences = usableDifferences(rows);
	const batches: BatchSpec[] = [];
	const called: ToolName[] = ["echo", "boom", "seq", "stop", "progress", "progress_now", "fails"];
	const weights = [0.32, 0.11, 0.05, 0.12, 0.16, 0.06, 0.06];
	for (let index = 0; index < count; index++) {
		const size = 1 + Math.floor(random() * 6) - (random() < 0.3 ? 0 : Math.floor(random() * 2));
		const allStop = random() < 0.06;
		const calls: CallSpec[] = [];
		for (let c = 0; c < Math.max(1, size); c++) {
			const id = `b${index}c${c}`;
			if (!allStop && random() < 0.07) {
				const name = pick(random, ["nope", "Echo", "echo2", "idle"]);
				calls.push({ id, name, args: validArgs(random), variation: "unknown tool" });
				continue;
			}
			let name: ToolName = "stop";
			if (!allStop) {
				let roll = random();
				name = "echo";
				for (let k = 0; k < called.length; k++) {
					roll -= weights[k] as number;
					if (roll < 0) {
						name = called[k] as ToolName;
						break;
					}
				}
			}
			const spec = allStop
				? { id, name, args: validArgs(random), variation: "valid" as const }
				: makeCall(random, id, name, differences);
			// Calls whose arguments are valid as sent may be blocked by `beforeToolCall`: often in a batch
			// of stop calls (a blocked call that asks to terminate can end the turn), rarely elsewhere.
			const blockRoll = random();
			if (spec.variation === "valid" && blockRoll < (allStop ? 0.35 : 0.08)) {
				calls.push({ ...spec, block: { terminate: allStop || random() < 0.5 } });
			} else calls.push(spec);
		}
		batches.push({ index, calls, sequentialConfig: random() < 0.08 });
	}
	return batches;
}

// ---------------------------------------------------------------------------------------------
// Running one batch on each side.

/** What one side did with a batch. */
export interface SideRun {
	/** The results given to the model, in the order given. */
	readonly results: readonly { toolCallId: string; isError: boolean; text: string }[];
	/** Start, update and end events, as `kind:id` with their payloads. */
	readonly events: readonly SideEvent[];
	/** Tool bodies entering and leaving, in order (`begin`/`end`). */
	readonly exec: readonly { phase: "begin" | "end"; id: string }[];
	/** The arguments each executed tool received, by call id. */
	readonly received: ReadonlyMap<string, Record<string, unknown>>;
	/** The calls `beforeToolCall` blocked (it was asked, and said block). */
	readonly blocked: ReadonlySet<string>;
	/** Whether the loop stopped after the batch (the reference: did not ask the model again). */
	readonly terminate: boolean;
}

export interface SideEvent {
	readonly kind: "start" | "update" | "end";
	readonly id: string;
	readonly args?: unknown;
	readonly text?: string;
	readonly isError?: boolean;
}

function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

function stableJson(value: unknown): string {
	if (typeof value !== "object" || value === null) return JSON.stringify(value);
	if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
	const record = value as Record<string, unknown>;
	return `{${Object.keys(record)
		.sort()
		.map((key) => `${JSON.stringify(key)}:${stableJson(record[key])}`)
		.join(",")}}`;
}

const text = (value: string): TextResult => ({ content: [{ type: "text", text: value }], details: {} });

/**
 * Makes the order in which waiting tools finish independent of timer jitter: a tool that waited
 * (`ms` > 0) finishes only when no tool that began and has not finished has a lower rank (its `ms`,
 * then its place in the batch), and each finish is a macrotask after the previous one, so both
 * executors have reported the previous call before the next finishes. Every running call of a
 * parallel batch has begun before any wait is over (both executors start them all at once), so
 * waiting tools finish in rank order; in a batch run one call at a time each finishes when ready.
 */
class FinishOrder {
	private readonly running = new Map<string, number>();
	private readonly ready = new Map<string, () => void>();
	private pumping = false;

	begin(id: string, rank: number): void {
		this.running.set(id, rank);
	}

	/** Settles when `id` may finish. */
	finish(id: string): Promise<void> {
		return new Promise((resolve) => {
			this.ready.set(id, resolve);
			this.schedule();
		});
	}

	private schedule(): void {
		if (this.pumping) return;
		this.pumping = true;
		setImmediate(() => {
			this.pumping = false;
			let next: string | undefined;
			for (const [id, rank] of this.running)
				if (next === undefined || rank < (this.running.get(next) as number)) next = id;
			const release = next === undefined ? undefined : this.ready.get(next);
			if (next === undefined || !release) return;
			this.running.delete(next);
			this.ready.delete(next);
			release();
			if (this.ready.size > 0) this.schedule();
		});
	}
}

/** The tools, built with `t`, logging into `exec` and `received`. */
function buildTools(
	t: TypeBuilder,
	exec: { phase: "begin" | "end"; id: string }[],
	received: Map<string, Record<string, unknown>>,
	batch: BatchSpec,
): SharedTool[] {
	const parameters = parametersOf(t);
	const order = new FinishOrder();
	const place = new Map(batch.calls.map((c, index) => [c.id, index]));
	return (Object.entries(TOOL_KINDS) as [ToolName, (typeof TOOL_KINDS)[ToolName]][]).map(([name, kind]) => {
		const behavior: ToolBehavior = kind;
		const tool: SharedTool = {
			name,
			label: name,
			description: `The ${name} tool of the differential.`,
			parameters,
			async execute(id, params, _signal, onUpdate) {
				const args = params as Record<string, unknown>;
				received.set(id, args);
				exec.push({ phase: "begin", id });
				if (behavior.updates === "early") onUpdate?.(text(`${id} early`));
				const ms = typeof args.ms === "number" ? args.ms : 0;
				if (ms > 0) {
					order.begin(id, ms * 1000 + (place.get(id) ?? 0));
					await sleep(ms);
					await order.finish(id);
				}
				if (behavior.updates) {
					onUpdate?.(text(`${id} 1/2`));
					onUpdate?.(text(`${id} 2/2`));
				}
				exec.push({ phase: "end", id });
				if (behavior.throws) throw new Error(`boom ${id}`);
				const result = text(`${name}:${id}:${stableJson(args)}`);
				if (behavior.returnsError) return { ...result, isError: true };
				return behavior.terminate ? { ...result, terminate: true } : result;
			},
		};
		if (behavior.sequential) tool.executionMode = "sequential";
		return tool;
	});
}

/**
 * The batch's `beforeToolCall`, for both sides: blocks the calls the batch says to block (logging
 * them into `blocked`), lets the others through. Undefined when the batch blocks nothing.
 */
function blockingHook(batch: BatchSpec, blocked: Set<string>): BeforeHook | undefined {
	const blocks = new Map(batch.calls.flatMap((c) => (c.block ? [[c.id, c.block] as const] : [])));
	if (blocks.size === 0) return undefined;
	return async ({ toolCall }) => {
		const block = blocks.get(toolCall.id);
		if (!block) return undefined;
		blocked.add(toolCall.id);
		return { block: true, reason: `blocked ${toolCall.id}`, ...(block.terminate ? { terminate: true } : {}) };
	};
}

function firstText(content: unknown): string {
	if (!Array.isArray(content)) return "";
	const block = content[0] as { type?: unknown; text?: unknown } | undefined;
	return block?.type === "text" && typeof block.text === "string" ? block.text : "";
}

/** Runs one batch through the reference's Agent and its scripted model. */
export async function runReference(reference: Reference, faux: FauxRegistration, batch: BatchSpec): Promise<SideRun> {
	const exec: { phase: "begin" | "end"; id: string }[] = [];
	const received = new Map<string, Record<string, unknown>>();
	const tools = buildTools(reference.ai.Type, exec, received, batch);
	const calls = batch.calls.map((c) => reference.ai.fauxToolCall(c.name, c.args, { id: c.id }));
	faux.setResponses([
		reference.ai.fauxAssistantMessage(calls, { stopReason: "toolUse" }),
		reference.ai.fauxAssistantMessage("done"),
	]);
	const blocked = new Set<string>();
	const beforeToolCall = blockingHook(batch, blocked);
	const agent = new reference.Agent({
		initialState: { model: faux.getModel(), tools, systemPrompt: "" },
		...(batch.sequentialConfig ? { toolExecution: "sequential" as const } : {}),
		...(beforeToolCall ? { beforeToolCall } : {}),
		...(reference.streamFn ? { streamFn: reference.streamFn } : {}),
	});
	const events: SideEvent[] = [];
	agent.subscribe((event) => {
		const id = event.toolCallId ?? "";
		if (event.type === "tool_execution_start") events.push({ kind: "start", id, args: event.args });
		else if (event.type === "tool_execution_update")
			events.push({ kind: "update", id, args: event.args, text: firstText(event.partialResult?.content) });
		else if (event.type === "tool_execution_end") events.push({ kind: "end", id, isError: event.isError === true });
	});
	await agent.prompt("Run the tools.");
	if (agent.state.errorMessage) throw new Error(`the reference's agent failed: ${agent.state.errorMessage}`);
	const results = agent.state.messages
		.filter((m) => m.role === "toolResult")
		.map((m) => ({ toolCallId: m.toolCallId ?? "", isError: m.isError === true, text: firstText(m.content) }));
	// The scripted final message is still queued when the loop stopped after the batch.
	return { results, events, exec, received, blocked, terminate: faux.getPendingResponseCount() === 1 };
}

/** Runs one batch through toolsmith's executor. */
export async function runToolsmith(batch: BatchSpec): Promise<SideRun> {
	const exec: { phase: "begin" | "end"; id: string }[] = [];
	const received = new Map<string, Record<string, unknown>>();
	const tools = buildTools(OurType as unknown as TypeBuilder, exec, received, batch) as unknown as AgentTool[];
	const calls: ToolCall[] = batch.calls.map((c) => ({ type: "toolCall", id: c.id, name: c.name, arguments: c.args }));
	const events: SideEvent[] = [];
	const onEvent = (event: ToolExecutionEvent): void => {
		if (event.type === "tool_execution_start") events.push({ kind: "start", id: event.toolCallId, args: event.args });
		else if (event.type === "tool_execution_update")
			events.push({
				kind: "update",
				id: event.toolCallId,
				args: event.args,
				text: firstText(event.partialResult.content),
			});
		else events.push({ kind: "end", id: event.toolCallId, isError: event.isError });
	};
	const blocked = new Set<string>();
	const beforeToolCall = blockingHook(batch, blocked);
	const { results, terminate } = await executeToolCalls(calls, {
		tools,
		onEvent,
		...(batch.sequentialConfig ? { toolExecution: "sequential" as const } : {}),
		...(beforeToolCall ? { beforeToolCall } : {}),
	});
	return {
		results: results.map((r: ToolResultMessage) => ({
			toolCallId: r.toolCallId,
			isError: r.isError,
			text: firstText(r.content),
		})),
		events,
		exec,
		received,
		blocked,
		terminate,
	};
}

// ---------------------------------------------------------------------------------------------
// Comparing.

/**
 * The differences docs/executor.md lists under "Differences from the reference" (the coercion
 * table, and the other items), by the bold label each item starts with. The comparison accepts no
 * other.
 */
export const BEHAVIOR_DIFFERENCES = {
	errorTexts: "Error texts",
	updateArguments: "Update arguments",
	finishTogether: "Calls that finish together",
	coercion: "Coercion",
	returnedErrors: "Returned errors",
	blockedTerminate: "Blocked calls that terminate",
} as const;

function differencesSection(markdown: string): string {
	return markdown.slice(markdown.indexOf("## Differences from the reference"));
}

/** The labels of `BEHAVIOR_DIFFERENCES` that docs/executor.md does not list (it must list them all). */
export function undocumentedLabels(markdown = readFileSync(executorDoc, "utf8")): string[] {
	const section = differencesSection(markdown);
	return Object.values(BEHAVIOR_DIFFERENCES).filter((label) => !section.includes(`**${label}.**`));
}

/**
 * The releases each difference of docs/executor.md holds for: an item that starts
 * `**Label.** Against 0.73.1 only:` holds for that release alone; an item without such a note
 * holds for every release. The differential accepts a difference only for its releases.
 */
export function documentedReleases(markdown = readFileSync(executorDoc, "utf8")): Map<string, string[] | undefined> {
	const section = differencesSection(markdown);
	const releases = new Map<string, string[] | undefined>();
	for (const label of Object.values(BEHAVIOR_DIFFERENCES)) {
		const at = section.indexOf(`**${label}.**`);
		if (at < 0) continue;
		const note = /^ Against ([0-9.]+(?:(?:, | and )[0-9.]+)*) only:/.exec(section.slice(at + label.length + 5));
		releases.set(label, note ? (note[1] as string).split(/, | and /) : undefined);
	}
	return releases;
}

/** The properties compared, in the order the summary prints them. */
export const PROPERTIES = [
	"results order",
	"result outcome",
	"arguments received",
	"sequential veto",
	"overlap",
	"start events",
	"end events",
	"updates",
	"update arguments",
	"event interleaving",
	"terminate",
] as const;

export type Property = (typeof PROPERTIES)[number];

export type Verdict =
	| { readonly kind: "agree" }
	| { readonly kind: "documented"; readonly differences: readonly string[] }
	| { readonly kind: "undocumented"; readonly detail: string };

const AGREE: Verdict = { kind: "agree" };
const documented = (...differences: string[]): Verdict => ({ kind: "documented", differences });
const undocumented = (detail: string): Verdict => ({ kind: "undocumented", detail });

function same(a: unknown, b: unknown): boolean {
	return stableJson(a) === stableJson(b);
}

/** A field's outcome on one side: `invalid` when the call was refused before its tool ran. */
function observedOutcome(run: SideRun, call: CallSpec, field: Field): Outcome {
	const args = run.received.get(call.id);
	if (!args) return "invalid";
	return Object.hasOwn(args, field) ? JSON.stringify(args[field]) : "dropped";
}

/** Pairs of calls whose tool bodies overlapped, as `a+b` (a before b in source order). */
function overlaps(run: SideRun, order: readonly string[], keep: (id: string) => boolean): string[] {
	const open = new Set<string>();
	const pairs = new Set<string>();
	for (const { phase, id } of run.exec) {
		if (!keep(id)) continue;
		if (phase === "begin") {
			for (const other of open) {
				const [a, b] = order.indexOf(other) < order.indexOf(id) ? [other, id] : [id, other];
				pairs.add(`${a}+${b}`);
			}
			open.add(id);
		} else open.delete(id);
	}
	return [...pairs].sort();
}

/** Whether one side ran the batch one call at a time: each call's events before the next call's start. */
function ranSequentially(run: SideRun): boolean {
	const ended = new Set<string>();
	let current: string | undefined;
	for (const event of run.events) {
		if (event.kind === "start") {
			if (current !== undefined && !ended.has(current)) return false;
			current = event.id;
		} else if (event.id !== current) return false;
		if (event.kind === "end") ended.add(event.id);
	}
	return run.exec.every((entry, index) => index % 2 === (entry.phase === "begin" ? 0 : 1));
}

const eventKey = (e: SideEvent): string => `${e.kind}:${e.id}${e.text !== undefined ? `:${e.text}` : ""}`;

/** Whether a call's tool ran without waiting (no timer): such calls all settle while the batch launches. */
function settledAtOnce(run: SideRun, id: string): boolean {
	const args = run.received.get(id);
	return args !== undefined && !(typeof args.ms === "number" && args.ms > 0);
}

/**
 * `events` with each run of consecutive end events of calls that settled at once put in source
 * order: such calls finish in the same synchronous stretch, so no order among them is the true one.
 */
function tiesInSourceOrder(run: SideRun, events: readonly SideEvent[], order: readonly string[]): SideEvent[] {
	const out: SideEvent[] = [];
	let tie: SideEvent[] = [];
	const flush = () => {
		out.push(...tie.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id)));
		tie = [];
	};
	for (const event of events) {
		if (event.kind === "end" && settledAtOnce(run, event.id)) tie.push(event);
		else {
			flush();
			out.push(event);
		}
	}
	flush();
	return out;
}

/** Whether the batch must run one call at a time: the host asks, or a called tool is sequential (the veto). */
function runsSequentially(batch: BatchSpec): boolean {
	return (
		batch.sequentialConfig ||
		batch.calls.some((c) => Object.hasOwn(TOOL_KINDS, c.name) && "sequential" in TOOL_KINDS[c.name as ToolName])
	);
}

/** Compares what both sides did with one batch, property by property. */
export function compareBatch(
	batch: BatchSpec,
	theirs: SideRun,
	ours: SideRun,
	index: ReadonlyMap<string, DocumentedDifference>,
): Record<Property, Verdict> {
	const order = batch.calls.map((c) => c.id);
	const byId = new Map(batch.calls.map((c) => [c.id, c]));
	const verdicts = {} as Record<Property, Verdict>;
	const known = new Set<string>(Object.keys(TOOL_KINDS));

	// What each tool received, and the calls whose documented coercion made one side refuse them.
	const diverging = new Set<string>();
	const argumentProblems: string[] = [];
	let argumentDifferences = 0;
	for (const call of batch.calls) {
		if (!known.has(call.name)) continue;
		const probe = call.probe;
		if (!probe) {
			if (!same(theirs.received.get(call.id), ours.received.get(call.id)))
				argumentProblems.push(
					`${call.id} (${call.variation}) received ${stableJson(theirs.received.get(call.id))} in the reference, ${stableJson(ours.received.get(call.id))} in toolsmith`,
				);
			continue;
		}
		const kind = FIELD_KINDS[probe.field];
		const row = index.get(cellKey(kind, probe.value));
		const reference = observedOutcome(theirs, call, probe.field);
		const toolsmith = observedOutcome(ours, call, probe.field);
		const expected = row ? { reference: row.reference, toolsmith: row.toolsmith } : undefined;
		if (expected) {
			if (reference !== expected.reference || toolsmith !== expected.toolsmith) {
				argumentProblems.push(
					`${call.id}: ${stableJson(probe.value)} in ${kind} gave ${reference} in the reference and ${toolsmith} in toolsmith; docs/executor.md:${row?.line} says ${expected.reference} and ${expected.toolsmith}`,
				);
			} else argumentDifferences++;
			if ((reference === "invalid") !== (toolsmith === "invalid")) diverging.add(call.id);
		} else if (reference !== toolsmith) {
			argumentProblems.push(
				`${call.id}: ${stableJson(probe.value)} in ${kind} gave ${reference} in the reference and ${toolsmith} in toolsmith, a difference the table of docs/executor.md lacks`,
			);
		} else if (!same(theirs.received.get(call.id), ours.received.get(call.id))) {
			argumentProblems.push(`${call.id}: the other arguments differ`);
		}
	}
	verdicts["arguments received"] =
		argumentProblems.length > 0
			? undocumented(argumentProblems.join("; "))
			: argumentDifferences > 0
				? documented(BEHAVIOR_DIFFERENCES.coercion)
				: AGREE;
	const keep = (id: string) => !diverging.has(id);
	const coercionOr = (verdict: Verdict): Verdict =>
		verdict.kind === "agree" && diverging.size > 0 ? documented(BEHAVIOR_DIFFERENCES.coercion) : verdict;

	// The results given to the model.
	const theirOrder = theirs.results.map((r) => r.toolCallId);
	const ourOrder = ours.results.map((r) => r.toolCallId);
	verdicts["results order"] =
		same(theirOrder, order) && same(ourOrder, order)
			? AGREE
			: undocumented(`source ${order.join(",")}; reference ${theirOrder.join(",")}; toolsmith ${ourOrder.join(",")}`);

	const outcomeProblems: string[] = [];
	let wording = false;
	let coerced = false;
	let returnedError = false;
	for (const [position, id] of order.entries()) {
		const a = theirs.results[position];
		const b = ours.results[position];
		const call = byId.get(id) as CallSpec;
		if (!a || !b) {
			outcomeProblems.push(`${id}: missing result`);
			continue;
		}
		if (diverging.has(id)) {
			coerced = true;
			continue;
		}
		const ranOnBoth = theirs.received.has(id) && ours.received.has(id);
		if (call.name === "fails" && ranOnBoth && !a.isError && b.isError) {
			// The reference 0.73 ignores `isError` on a returned result; the text is compared below.
			returnedError = true;
		} else if (a.isError !== b.isError) {
			outcomeProblems.push(
				`${id} (${call.variation}): isError ${a.isError} in the reference, ${b.isError} in toolsmith`,
			);
			continue;
		}
		if (a.text === b.text) continue;
		// The executor's own error texts are worded differently; what a tool returns or throws is not.
		const refused = a.isError && !theirs.received.has(id) && !ours.received.has(id);
		const unknown = !known.has(call.name);
		if (refused && unknown && b.text.startsWith(`${a.text}. `)) wording = true;
		else if (refused && !unknown && /^Validation failed/.test(a.text) && /^Invalid arguments/.test(b.text))
			wording = true;
		else if (ranOnBoth && call.probe && index.has(cellKey(FIELD_KINDS[call.probe.field], call.probe.value)))
			coerced = true;
		else
			outcomeProblems.push(
				`${id} (${call.variation}): ${JSON.stringify(a.text)} in the reference, ${JSON.stringify(b.text)} in toolsmith`,
			);
	}
	const outcomeLabels = [
		wording ? BEHAVIOR_DIFFERENCES.errorTexts : "",
		coerced ? BEHAVIOR_DIFFERENCES.coercion : "",
		returnedError ? BEHAVIOR_DIFFERENCES.returnedErrors : "",
	].filter(Boolean);
	verdicts["result outcome"] =
		outcomeProblems.length > 0
			? undocumented(outcomeProblems.join("; "))
			: outcomeLabels.length > 0
				? documented(...outcomeLabels)
				: AGREE;

	// Scheduling: the sequential veto and which calls overlapped.
	const expectSequential = runsSequentially(batch);
	const theirSequential = ranSequentially(theirs);
	const ourSequential = ranSequentially(ours);
	const theirPairs = overlaps(theirs, order, keep);
	const ourPairs = overlaps(ours, order, keep);
	// A parallel batch shows it when two tools that wait ran on both sides: they must overlap.
	const waiting = order.filter((id) => keep(id) && theirs.received.has(id) && !settledAtOnce(theirs, id));
	const vetoHolds = expectSequential
		? theirSequential && ourSequential && theirPairs.length === 0 && ourPairs.length === 0
		: waiting.length < 2 || (theirPairs.length > 0 && ourPairs.length > 0);
	verdicts["sequential veto"] = vetoHolds
		? AGREE
		: undocumented(
				`expected ${expectSequential ? "sequential" : "parallel"}; the reference ran ${theirSequential ? "one call at a time" : "calls together"} (overlaps ${theirPairs.join(" ") || "none"}), toolsmith ${ourSequential ? "one call at a time" : "calls together"} (overlaps ${ourPairs.join(" ") || "none"})`,
			);
	verdicts.overlap = same(theirPairs, ourPairs)
		? coercionOr(AGREE)
		: undocumented(`reference ${theirPairs.join(" ") || "none"}; toolsmith ${ourPairs.join(" ") || "none"}`);

	// Events.
	const theirEvents = theirs.events.filter((e) => keep(e.id));
	const ourEvents = ours.events.filter((e) => keep(e.id));
	const starts = (events: readonly SideEvent[]) =>
		events.filter((e) => e.kind === "start").map((e) => `${e.id}${stableJson(e.args)}`);
	const expectedStarts = batch.calls.filter((c) => keep(c.id)).map((c) => `${c.id}${stableJson(c.args)}`);
	verdicts["start events"] =
		same(starts(theirEvents), expectedStarts) && same(starts(ourEvents), expectedStarts)
			? coercionOr(AGREE)
			: undocumented(`reference ${starts(theirEvents).join(" ")}; toolsmith ${starts(ourEvents).join(" ")}`);

	/** Calls of the tool that returns `isError: true` that ran on both sides, and ended an error in toolsmith only. */
	const returnedErrors = new Set(
		batch.calls
			.filter((c) => c.name === "fails" && theirs.received.has(c.id) && ours.received.has(c.id))
			.filter(
				(c) =>
					theirEvents.some((e) => e.kind === "end" && e.id === c.id && !e.isError) &&
					ourEvents.some((e) => e.kind === "end" && e.id === c.id && e.isError),
			)
			.map((c) => c.id),
	);
	const ends = (events: readonly SideEvent[], masked = false) =>
		events
			.filter((e) => e.kind === "end")
			.map((e) => `${e.id}:${masked && returnedErrors.has(e.id) ? "returned error" : e.isError}`);
	/** Calls refused before they ran must end right after their start. */
	const refusedEndsLate = (run: SideRun, events: readonly SideEvent[]) =>
		events.filter(
			(e, i) =>
				e.kind === "end" && !run.received.has(e.id) && !(events[i - 1]?.kind === "start" && events[i - 1]?.id === e.id),
		);
	const lateTheirs = refusedEndsLate(theirs, theirEvents);
	const lateOurs = refusedEndsLate(ours, ourEvents);
	const endsTied = (run: SideRun, events: readonly SideEvent[], masked = false) =>
		ends(tiesInSourceOrder(run, events, order), masked);
	const masked = returnedErrors.size > 0;
	const maskLabel = masked ? [BEHAVIOR_DIFFERENCES.returnedErrors] : [];
	if (lateTheirs.length > 0 || lateOurs.length > 0) {
		verdicts["end events"] = undocumented(
			`reference ${ends(theirEvents).join(" ")}; toolsmith ${ends(ourEvents).join(" ")}; refused calls ending late: ${[...lateTheirs, ...lateOurs].map((e) => e.id).join(" ")}`,
		);
	} else if (same(ends(theirEvents), ends(ourEvents))) verdicts["end events"] = coercionOr(AGREE);
	else if (masked && same(ends(theirEvents, true), ends(ourEvents, true)))
		verdicts["end events"] = documented(...maskLabel);
	else if (same(endsTied(theirs, theirEvents, masked), endsTied(ours, ourEvents, masked)))
		verdicts["end events"] = documented(BEHAVIOR_DIFFERENCES.finishTogether, ...maskLabel);
	else
		verdicts["end events"] = undocumented(
			`reference ${ends(theirEvents).join(" ")}; toolsmith ${ends(ourEvents).join(" ")}`,
		);

	const updates = (events: readonly SideEvent[]) =>
		order.map((id) => events.filter((e) => e.kind === "update" && e.id === id).map((e) => e.text));
	verdicts.updates = same(updates(theirEvents), updates(ourEvents))
		? coercionOr(AGREE)
		: undocumented(`reference ${stableJson(updates(theirEvents))}; toolsmith ${stableJson(updates(ourEvents))}`);

	// Update arguments: the reference sends the arguments as the model sent them, we the validated ones.
	let updateArgs: Verdict = AGREE;
	const theirUpdates = theirEvents.filter((e) => e.kind === "update");
	for (const event of ourEvents.filter((e) => e.kind === "update")) {
		const call = byId.get(event.id) as CallSpec;
		const theirArgs = theirUpdates.find((e) => e.id === event.id)?.args;
		if (same(event.args, theirArgs)) continue;
		if (same(theirArgs, call.args) && same(event.args, ours.received.get(call.id))) {
			updateArgs = documented(BEHAVIOR_DIFFERENCES.updateArguments);
		} else {
			updateArgs = undocumented(
				`${event.id}: update args ${stableJson(theirArgs)} in the reference, ${stableJson(event.args)} in toolsmith`,
			);
			break;
		}
	}
	verdicts["update arguments"] = updateArgs;

	// The whole sequence of events: as it is, or with ties put in source order.
	const theirSequence = theirEvents.map(eventKey);
	const ourSequence = ourEvents.map(eventKey);
	const theirTied = tiesInSourceOrder(theirs, theirEvents, order).map(eventKey);
	const ourTied = tiesInSourceOrder(ours, ourEvents, order).map(eventKey);
	if (same(theirSequence, ourSequence)) verdicts["event interleaving"] = coercionOr(AGREE);
	else if (same(theirTied, ourTied)) verdicts["event interleaving"] = documented(BEHAVIOR_DIFFERENCES.finishTogether);
	else
		verdicts["event interleaving"] = undocumented(
			`reference ${theirSequence.join(" ")}; toolsmith ${ourSequence.join(" ")}`,
		);

	// Terminate: only when every result asks to, so only when every call ran the stop tool (a call a
	// documented coercion refuses on one side only stops that side from terminating).
	// A call `beforeToolCall` blocked asking to terminate counts as asking (1.x); `blockedAsks: false`
	// is the rule of the reference 0.73, where a blocked call never asks.
	const expectTerminate = (run: SideRun, blockedAsks = true) =>
		batch.calls.length > 0 &&
		batch.calls.every(
			(c) =>
				(c.name === "stop" && run.received.has(c.id)) ||
				(blockedAsks && c.block?.terminate === true && run.blocked.has(c.id)),
		);
	const theirRule = theirs.terminate === expectTerminate(theirs);
	const theirOldRule = !theirRule && theirs.terminate === expectTerminate(theirs, false);
	const terminateProblems = [
		!theirRule && !theirOldRule ? `the reference ${theirs.terminate ? "stopped" : "went on"}` : "",
		ours.terminate !== expectTerminate(ours) ? `toolsmith ${ours.terminate ? "stopped" : "went on"}` : "",
	].filter(Boolean);
	verdicts.terminate =
		terminateProblems.length > 0
			? undocumented(`${terminateProblems.join(", ")} against the rule (stop only when every result asks to)`)
			: theirs.terminate === ours.terminate
				? AGREE
				: theirOldRule
					? documented(BEHAVIOR_DIFFERENCES.blockedTerminate)
					: documented(BEHAVIOR_DIFFERENCES.coercion);
	return verdicts;
}

/**
 * `verdicts` with each documented difference that docs/executor.md does not document for
 * `release` turned into an undocumented one.
 */
export function forRelease(
	verdicts: Record<Property, Verdict>,
	release: string,
	releases: ReadonlyMap<string, readonly string[] | undefined>,
): Record<Property, Verdict> {
	const out = { ...verdicts };
	for (const property of PROPERTIES) {
		const verdict = verdicts[property];
		if (verdict.kind !== "documented") continue;
		const foreign = verdict.differences.filter((label) => {
			const only = releases.get(label);
			return !releases.has(label) || (only !== undefined && !only.includes(release));
		});
		if (foreign.length > 0)
			out[property] = undocumented(
				foreign
					.map((label) =>
						releases.has(label)
							? `"${label}" is documented for ${releases.get(label)?.join(", ")} only, not ${release}`
							: `"${label}" is not in docs/executor.md`,
					)
					.join("; "),
			);
	}
	return out;
}

// ---------------------------------------------------------------------------------------------
// The whole run.

export interface PropertySummary {
	agree: number;
	documented: Record<string, number>;
	/** Batches with a documented difference (one may have several). */
	batchesDocumented: number;
	undocumented: { batch: number; detail: string }[];
}

export interface DifferentialReport {
	/** The reference's release (of pi-agent-core). */
	readonly release: string;
	readonly seed: number;
	readonly batches: number;
	readonly calls: number;
	/** Batches the veto (or the host) made sequential, and batches whose every call asked to terminate. */
	readonly sequentialBatches: number;
	readonly terminatingBatches: number;
	readonly properties: Record<Property, PropertySummary>;
	/** Batches on which every property agrees. */
	readonly fullyAgreeing: number;
	/** For each documented difference, the batches that show it (in any property). */
	readonly differenceBatches: Record<string, number>;
	/** Batches with an undocumented disagreement. */
	readonly undocumentedBatches: number;
	/** Whether every disagreement is a documented one. */
	readonly ok: boolean;
}

/** The seed from `TOOLSMITH_DIFF_SEED`, or `fallback`. */
export function seedFromEnv(fallback: number): number {
	const raw = process.env.TOOLSMITH_DIFF_SEED;
	if (raw === undefined || raw === "") return fallback;
	const seed = Number(raw);
	if (!Number.isInteger(seed)) throw new Error(`TOOLSMITH_DIFF_SEED must be an integer, got ${JSON.stringify(raw)}`);
	return seed;
}

/** Runs `count` batches from `seed` on both sides and compares them. */
export async function runDifferential(reference: Reference, seed: number, count: number): Promise<DifferentialReport> {
	const rows = documentedDifferences();
	const index = differenceIndex(rows, reference.release);
	const releases = documentedReleases();
	const batches = generateBatches(seed, count, rows);
	const properties = {} as Record<Property, PropertySummary>;
	for (const p of PROPERTIES) properties[p] = { agree: 0, documented: {}, batchesDocumented: 0, undocumented: [] };
	let fullyAgreeing = 0;
	let undocumentedBatches = 0;
	const differenceBatches: Record<string, number> = {};
	const faux = reference.ai.registerFauxProvider();
	try {
		for (const batch of batches) {
			const theirs = await runReference(reference, faux, batch);
			const ours = await runToolsmith(batch);
			const verdicts = forRelease(compareBatch(batch, theirs, ours, index), reference.release, releases);
			const all = PROPERTIES.map((p) => verdicts[p]);
			if (all.every((v) => v.kind === "agree")) fullyAgreeing++;
			if (all.some((v) => v.kind === "undocumented")) undocumentedBatches++;
			for (const label of new Set(all.flatMap((v) => (v.kind === "documented" ? v.differences : []))))
				differenceBatches[label] = (differenceBatches[label] ?? 0) + 1;
			for (const property of PROPERTIES) {
				const verdict = verdicts[property];
				const summary = properties[property];
				if (verdict.kind === "agree") summary.agree++;
				else if (verdict.kind === "documented") {
					summary.batchesDocumented++;
					for (const label of verdict.differences) summary.documented[label] = (summary.documented[label] ?? 0) + 1;
				} else summary.undocumented.push({ batch: batch.index, detail: verdict.detail });
			}
		}
	} finally {
		faux.unregister();
	}
	const ok = PROPERTIES.every((p) => properties[p].undocumented.length === 0);
	const calls = batches.reduce((sum, b) => sum + b.calls.length, 0);
	const sequentialBatches = batches.filter(runsSequentially).length;
	const terminatingBatches = batches.filter((b) => b.calls.every((c) => c.name === "stop")).length;
	return {
		release: reference.release,
		seed,
		batches: batches.length,
		calls,
		sequentialBatches,
		terminatingBatches,
		properties,
		fullyAgreeing,
		differenceBatches,
		undocumentedBatches,
		ok,
	};
}

const compatDir = dirname(fileURLToPath(import.meta.url));
const jitiCli = join(compatDir, "..", "..", "node_modules", "jiti", "lib", "jiti-cli.mjs");

/**
 * Runs the differential against the reference 1.x, which needs Node 22, in a child process of
 * `node` (test/compat/_executor-differential-1x.ts, loaded through jiti): `modules` is the
 * `node_modules` folder of the installed release. Rejects with the child's output when it fails.
 */
export function runDifferentialIn1x(
	node: string,
	modules: string,
	seed: number,
	count: number,
): Promise<DifferentialReport> {
	const script = join(compatDir, "_executor-differential-1x.ts");
	return new Promise((resolve, reject) => {
		execFile(
			node,
			[jitiCli, script, modules, String(seed), String(count)],
			{ encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: 600_000 },
			(error, stdout, stderr) => {
				if (error) {
					reject(new Error(`the differential against ${modules} failed: ${error.message}\n${stderr}`));
					return;
				}
				try {
					resolve(JSON.parse(stdout) as DifferentialReport);
				} catch {
					reject(new Error(`the differential against ${modules} printed no report:\n${stdout}\n${stderr}`));
				}
			},
		);
	});
}

/** One line per property, then the first undocumented disagreements with their batches. */
export function formatReport(report: DifferentialReport, detailLimit = 5): string[] {
	const differences = Object.entries(report.differenceBatches)
		.map(([label, n]) => `${label} ${n}`)
		.join(", ");
	const lines = [
		`pi-agent-core ${report.release}, seed ${report.seed}: ${report.batches} batches, ${report.calls} calls; ${report.sequentialBatches} batches sequential (veto or host), ${report.terminatingBatches} of stop calls only`,
		`  ${report.fullyAgreeing} batches agree fully; documented differences by batch: ${differences || "none"}; ${report.undocumentedBatches} batches with an undocumented one`,
	];
	for (const property of PROPERTIES) {
		const s = report.properties[property];
		const documentedCount = s.batchesDocumented;
		const which = Object.entries(s.documented)
			.map(([label, n]) => `${label} ${n}`)
			.join(", ");
		lines.push(
			`${s.undocumented.length === 0 ? "✓" : "✗"} ${property}: ${s.agree} agree, ${documentedCount} documented difference${documentedCount === 1 ? "" : "s"}${which ? ` (${which})` : ""}, ${s.undocumented.length} undocumented`,
		);
		for (const u of s.undocumented.slice(0, detailLimit)) lines.push(`    batch ${u.batch}: ${u.detail}`);
	}
	return lines;
}
