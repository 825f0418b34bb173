/**
 * What the page knows of the server, as data with no DOM: the state the event stream builds up
 * (`applyEvent`), and small pure helpers the views share (durations, JSON, content blocks).
 */
import type {
	InspectorCall,
	InspectorDiagnostic,
	InspectorEvent,
	InspectorNestedCall,
	InspectorReload,
	InspectorState,
	InspectorTool,
	InspectorToolsState,
	Json,
} from "../protocol.js";

/** The page's copy of the server's state. */
export interface PageModel {
	readonly connected: boolean;
	/** Whether a `hello` (or `/api/state`) arrived yet. */
	readonly loaded: boolean;
	readonly cwd: string;
	readonly env: string;
	readonly tools: readonly InspectorTool[];
	readonly diagnostics: readonly InspectorDiagnostic[];
	readonly prompt: string;
	/** Oldest first. */
	readonly reloads: readonly InspectorReload[];
	/** Oldest first. */
	readonly calls: readonly InspectorCall[];
	/** Trials ended so far of each eval run, by run id, as its `eval-trial` events tell (a run's page shows it while it waits). */
	readonly evalProgress: Readonly<Record<string, EvalProgress>>;
}

/** How far an eval run has come: trials ended, of how many, and how many passed. */
export interface EvalProgress {
	readonly scenario: string;
	readonly ended: number;
	readonly passed: number;
	readonly trials: number;
}

export const EMPTY_MODEL: PageModel = {
	connected: false,
	loaded: false,
	cwd: "",
	env: "",
	tools: [],
	diagnostics: [],
	prompt: "",
	reloads: [],
	calls: [],
	evalProgress: {},
};

/** Reloads the log keeps, as the server does. */
export const MAX_RELOADS = 200;

/** The model after a full state (`hello`, `GET /api/state`). */
export function fromState(model: PageModel, state: InspectorState): PageModel {
	return { ...withTools(model, state), reloads: state.reloads.slice(-MAX_RELOADS), calls: state.calls };
}

/** The tools, diagnostics and prompt of `state`; the page's own reload log and calls stay. */
function withTools(model: PageModel, state: InspectorToolsState): PageModel {
	return {
		...model,
		loaded: true,
		cwd: state.cwd,
		env: state.env,
		tools: state.tools,
		diagnostics: state.diagnostics,
		prompt: state.prompt,
	};
}

function sameReload(a: InspectorReload, b: InspectorReload): boolean {
	return a.at === b.at && a.path === b.path && a.kind === b.kind && a.lines.join("\n") === b.lines.join("\n");
}

/**
 * A call as the server sent it, in place of the page's copy: the updates the page collected from
 * `update` events stay when the server's copy has fewer (it may have been taken before they came).
 */
export function mergeCall(existing: InspectorCall | undefined, incoming: InspectorCall): InspectorCall {
	if (!existing) return incoming;
	const updates = incoming.updates.length >= existing.updates.length ? incoming.updates : existing.updates;
	// Nested calls the page heard of that the server's copy does not list yet stay too.
	let nested = incoming.nested;
	for (const call of existing.nested ?? []) nested = withNested(nested, call);
	if (updates === incoming.updates && nested === incoming.nested) return incoming;
	return {
		...incoming,
		updates,
		...(nested !== undefined ? { nested } : {}),
	};
}

/**
 * `list` with `call` in place of the nested call of its id (appended when new); the updates the page
 * collected stay when `call` has fewer, and a finished call is not turned back into a running one.
 */
export function withNested(
	list: readonly InspectorNestedCall[] | undefined,
	call: InspectorNestedCall,
): readonly InspectorNestedCall[] {
	const all = list ?? [];
	const index = all.findIndex((n) => n.toolCallId === call.toolCallId);
	if (index < 0) return [...all, call];
	const existing = all[index]!;
	if (existing.status !== "running" && call.status === "running") return all;
	const merged = call.updates.length >= existing.updates.length ? call : { ...call, updates: existing.updates };
	return all.map((n, at) => (at === index ? merged : n));
}

/** The nested calls of `list` that `parentToolCallId` made, in the order they started. */
export function nestedChildren(
	list: readonly InspectorNestedCall[] | undefined,
	parentToolCallId: string,
): InspectorNestedCall[] {
	return (list ?? []).filter((n) => n.parentToolCallId === parentToolCallId);
}

export interface Applied {
	readonly model: PageModel;
	/** Tools a reload added or changed (the page marks them for a moment). */
	readonly marked: readonly string[];
}

/** The model after one event of the stream. */
export function applyEvent(model: PageModel, event: InspectorEvent): Applied {
	switch (event.type) {
		case "hello":
			return { model: fromState(model, event.state), marked: [] };
		case "reload": {
			const last = model.reloads.at(-1);
			const reloads =
				last && sameReload(last, event.reload) ? model.reloads : [...model.reloads, event.reload].slice(-MAX_RELOADS);
			return {
				model: { ...withTools(model, event.state), reloads },
				marked: [...event.reload.added, ...event.reload.changed],
			};
		}
		case "diagnostic":
			return { model: withTools(model, event.state), marked: [] };
		case "call": {
			const index = model.calls.findIndex((call) => call.id === event.call.id);
			const calls =
				index < 0
					? [...model.calls, event.call]
					: model.calls.map((call, at) => (at === index ? mergeCall(call, event.call) : call));
			return { model: { ...model, calls }, marked: [] };
		}
		case "update": {
			const calls = model.calls.map((call) =>
				call.id === event.id ? { ...call, updates: [...call.updates, event.update] } : call,
			);
			return { model: { ...model, calls }, marked: [] };
		}
		case "nested": {
			const calls = model.calls.map((call) =>
				call.id === event.id ? { ...call, nested: withNested(call.nested, event.call) } : call,
			);
			return { model: { ...model, calls }, marked: [] };
		}
		case "nested-update": {
			const calls = model.calls.map((call) =>
				call.id === event.id && call.nested
					? {
							...call,
							nested: call.nested.map((n) =>
								n.toolCallId === event.toolCallId ? { ...n, updates: [...n.updates, event.update] } : n,
							),
						}
					: call,
			);
			return { model: { ...model, calls }, marked: [] };
		}
		case "eval-trial": {
			const before = model.evalProgress[event.run];
			const progress: EvalProgress = {
				scenario: event.scenario,
				trials: event.trials,
				ended: (before?.ended ?? 0) + 1,
				passed: (before?.passed ?? 0) + (event.trial.passed ? 1 : 0),
			};
			return { model: { ...model, evalProgress: { ...model.evalProgress, [event.run]: progress } }, marked: [] };
		}
		default:
			return { model, marked: [] };
	}
}

/** A duration for people: `840 ms`, `2.4 s`, `3 min 5 s`. */
export function formatDuration(ms: number): string {
	if (!Number.isFinite(ms) || ms < 0) return "—";
	if (ms < 1000) return `${Math.round(ms)} ms`;
	if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
	const minutes = Math.floor(ms / 60_000);
	return `${minutes} min ${Math.round((ms - minutes * 60_000) / 1000)} s`;
}

/** A clock time for the logs: `14:03:07`. */
export function formatClock(epochMs: number): string {
	const date = new Date(epochMs);
	return [date.getHours(), date.getMinutes(), date.getSeconds()].map((part) => String(part).padStart(2, "0")).join(":");
}

/** JSON for a `<pre>`: two-space indentation; `undefined` shown as such. */
export function prettyJson(value: Json | undefined): string {
	return value === undefined ? "(none)" : JSON.stringify(value, null, 2);
}

/** One content block of a result, as the page shows it. */
export type ContentView =
	| { readonly type: "text"; readonly text: string }
	| { readonly type: "image"; readonly mimeType: string; readonly data: string }
	| { readonly type: "other"; readonly json: Json };

/** An image type that fits in a `data:` URL as it is (an `<img>` runs no script, SVG included). */
const IMAGE_TYPE = /^image\/[a-z0-9.+-]+$/i;

/**
 * The content blocks of a result (or of a partial update): text, images whose type and base64 data
 * fit a `data:` URL, and anything else as JSON.
 */
export function contentBlocks(result: Json | undefined): ContentView[] {
	if (typeof result !== "object" || result === null || Array.isArray(result)) return [];
	const content = result.content;
	if (!Array.isArray(content)) return [];
	return content.map((block): ContentView => {
		if (typeof block === "object" && block !== null && !Array.isArray(block)) {
			if (block.type === "text" && typeof block.text === "string") return { type: "text", text: block.text };
			if (
				block.type === "image" &&
				typeof block.mimeType === "string" &&
				IMAGE_TYPE.test(block.mimeType) &&
				typeof block.data === "string" &&
				/^[A-Za-z0-9+/]*={0,2}$/.test(block.data)
			) {
				return { type: "image", mimeType: block.mimeType.toLowerCase(), data: block.data };
			}
		}
		return { type: "other", json: block };
	});
}

/** A member of a JSON object, if the value is one. */
export function member(value: Json | undefined, key: string): Json | undefined {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
	return Object.hasOwn(value, key) ? value[key] : undefined;
}

/** Arguments in one short line, for the history. */
export function argsSummary(args: Json, max = 60): string {
	const text = JSON.stringify(args) ?? "";
	return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
