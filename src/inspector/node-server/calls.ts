/**
 * Calls on the page: one started from the page, run through the session with abort; one made at the
 * `dev --ui` prompt, followed; each shown as running now, its updates and nested calls as they come,
 * its end (Node only).
 */
import type { ToolResultMessage } from "../../contract/content.js";
import { errorMessage } from "../../contract/errors.js";
import type { ToolExecutionEvent } from "../../contract/events.js";
import { DEFAULT_OUTPUT_PAD, renderToolCall, renderToolResult, shellLayout } from "../../render/renderer.js";
import { ansiTheme } from "../../render/theme.js";
import type { CallStarted, InspectorNestedCall, InspectorUpdate, Json } from "../protocol.js";
import { broadcast, callableRenderersOf, renderersOf, replaceCall, type ServerState } from "./state.js";
import { toJson, view } from "./views.js";

/** Partial updates kept per call (the latest ones). */
const MAX_UPDATES = 500;
/** Nested calls kept per call (the first ones, as the `nestedCalls` record keeps them). */
const MAX_NESTED = 256;
/** Partial updates kept per nested call (the latest ones). */
const MAX_NESTED_UPDATES = 100;
/** Columns renderers get when the page does not say (and for calls made at the `dev --ui` prompt). */
export const DEFAULT_WIDTH = 100;

/** The nested calls of one call, as they are drawn and kept. */
interface NestedCalls {
	/** The page's id of the call. */
	readonly id: string;
	/** The id the executor and the tool see. */
	readonly toolCallId: string;
	readonly width: number;
	readonly list: InspectorNestedCall[];
	readonly byId: Map<string, { index: number; started: number; updates: InspectorUpdate[] }>;
}

/** The running call in the state holds the list as it grows (a page that connects now sees it). */
function keepNestedInState(state: ServerState, nested: NestedCalls): void {
	const index = state.calls.findIndex((c) => c.id === nested.id);
	const stored = state.calls[index];
	if (stored && stored.nested !== nested.list) state.calls[index] = { ...stored, nested: nested.list };
}

/**
 * Handles `event` when it is one of a nested call of the call (a call its tool makes through
 * `ctx.executeTool`, or theirs): drawn with the renderers of the tool it calls, broadcast as a
 * `nested` or `nested-update` event. Returns whether it was one.
 */
function onNestedEvent(state: ServerState, nested: NestedCalls, event: ToolExecutionEvent): boolean {
	const { id, list, byId, width } = nested;
	const parent = event.parentToolCallId;
	if (parent === undefined || !event.toolCallId.startsWith(`${nested.toolCallId}/`)) return false;
	const renderContext = (args: Json) => ({ toolCallId: event.toolCallId, cwd: state.cwd, args, width: width - 2 });
	if (event.type === "tool_execution_start") {
		if (list.length >= MAX_NESTED || byId.has(event.toolCallId)) return true;
		const args = toJson(event.args);
		const call: InspectorNestedCall = {
			toolCallId: event.toolCallId,
			parentToolCallId: parent,
			tool: event.toolName,
			args,
			status: "running",
			renderedCall: view(
				renderToolCall(callableRenderersOf(state, event.toolName), args, ansiTheme, width - 2, {
					...renderContext(args),
					name: event.toolName,
				}),
			),
			updates: [],
		};
		byId.set(event.toolCallId, { index: list.length, started: performance.now(), updates: [] });
		list.push(call);
		keepNestedInState(state, nested);
		broadcast(state, { type: "nested", id, call });
		return true;
	}
	const known = byId.get(event.toolCallId);
	const current = known ? list[known.index] : undefined;
	if (!known || !current) return true;
	const context = renderContext(current.args);
	if (event.type === "tool_execution_update") {
		const update: InspectorUpdate = {
			atMs: Math.round(performance.now() - known.started),
			rendered: view(
				renderToolResult(
					callableRenderersOf(state, current.tool),
					event.partialResult,
					{ expanded: true, isPartial: true },
					ansiTheme,
					width - 2,
					context,
				),
			),
			partial: toJson(event.partialResult),
		};
		known.updates.push(update);
		if (known.updates.length > MAX_NESTED_UPDATES) known.updates.shift();
		list[known.index] = { ...current, updates: [...known.updates] };
		broadcast(state, { type: "nested-update", id, toolCallId: event.toolCallId, parentToolCallId: parent, update });
		return true;
	}
	const result = { content: event.result.content, details: event.result.details };
	const call: InspectorNestedCall = {
		...current,
		status: event.isError ? "error" : "ok",
		...(event.durationMs !== undefined ? { durationMs: event.durationMs } : {}),
		renderedResult: view(
			renderToolResult(
				callableRenderersOf(state, current.tool),
				result,
				{ expanded: true, isPartial: false },
				ansiTheme,
				width - 2,
				{ ...context, isError: event.isError },
			),
		),
		result: toJson({ ...result, isError: event.isError }),
		updates: [...known.updates],
	};
	list[known.index] = call;
	broadcast(state, { type: "nested", id, call });
	return true;
}

/** A call followed on the page: its events as they come, then its end. */
interface TrackedCall {
	onEvent(event: ToolExecutionEvent): void;
	end(message: ToolResultMessage | undefined, failure: string | undefined, aborted: boolean): void;
}

/**
 * A call's life on the page: shown as running now, its updates as they come, its end. `id` is the
 * page's; `toolCallId` the one the executor and the tool see.
 */
function trackCall(
	state: ServerState,
	id: string,
	toolCallId: string,
	toolName: string,
	args: Json,
	width: number,
): TrackedCall {
	const { cwd, session } = state;
	const definition = renderersOf(state, toolName);
	// The result pane is inset under the call, unless the tool draws its own frame (renderShell "self").
	const resultWidth = shellLayout(definition, width, 2).width;
	const context = { toolCallId, cwd, args, width: resultWidth, outputPad: DEFAULT_OUTPUT_PAD };
	const base = {
		id,
		tool: toolName,
		args,
		startedAt: Date.now(),
		renderedCall: view(renderToolCall(definition, args, ansiTheme, width, { ...context, name: toolName })),
		recordable: session.recorder !== undefined,
	};
	const updates: InspectorUpdate[] = [];
	replaceCall(state, { ...base, status: "running", updates });
	const started = performance.now();
	const nested: NestedCalls = { id, toolCallId, width, list: [], byId: new Map() };
	return {
		onEvent(event) {
			if (onNestedEvent(state, nested, event)) return;
			if (event.type !== "tool_execution_update" || event.toolCallId !== toolCallId) return;
			const update: InspectorUpdate = {
				atMs: Math.round(performance.now() - started),
				rendered: view(
					renderToolResult(
						definition,
						event.partialResult,
						{ expanded: true, isPartial: true },
						ansiTheme,
						resultWidth,
						context,
					),
				),
				partial: toJson(event.partialResult),
			};
			updates.push(update);
			if (updates.length > MAX_UPDATES) updates.shift();
			broadcast(state, { type: "update", id, update });
		},
		end(message, failure, aborted) {
			const status = aborted ? "aborted" : message && !message.isError && !failure ? "ok" : "error";
			const result = message
				? { content: message.content, details: message.details }
				: {
						content: [{ type: "text" as const, text: failure ?? "the host returned no result" }],
						details: undefined,
					};
			replaceCall(state, {
				...base,
				status,
				durationMs: Math.round(performance.now() - started),
				updates,
				...(nested.list.length > 0 ? { nested: [...nested.list] } : {}),
				renderedResult: view(
					renderToolResult(definition, result, { expanded: true, isPartial: false }, ansiTheme, resultWidth, {
						...context,
						isError: message?.isError ?? true,
					}),
				),
				result: toJson(message ?? { content: result.content, isError: true }),
				recordable: session.recorder !== undefined && !aborted && message !== undefined,
			});
		},
	};
}

/** Runs a call the page asked for through the session; resolves at once with its id. */
export function startCall(state: ServerState, toolName: string, args: Json, width: number): CallStarted {
	const id = `call-${++state.callCounter}`;
	const tracked = trackCall(state, id, id, toolName, args, width);
	const controller = new AbortController();
	state.running.set(id, () => controller.abort());
	void (async () => {
		let message: ToolResultMessage | undefined;
		let failure: string | undefined;
		try {
			const outcome = await state.session.execute(
				[{ type: "toolCall", id, name: toolName, arguments: args }],
				{ signal: controller.signal, onEvent: tracked.onEvent },
				"page",
			);
			message = outcome.results[0];
		} catch (error) {
			failure = `the host failed to run the call: ${errorMessage(error)}`;
		}
		state.running.delete(id);
		tracked.end(message, failure, controller.signal.aborted);
	})();
	return { id };
}

/** Calls made at the `dev --ui` prompt show in the history too; Abort on the page aborts their batch. */
export function followTerminalCalls(state: ServerState): void {
	state.unsubscribe.push(
		state.session.onBatch((batch) => {
			if (batch.origin !== "terminal") return undefined;
			const tracked = batch.calls.map((call) => {
				const id = `terminal-${++state.terminalCounter}`;
				state.running.set(id, batch.abort);
				return {
					id,
					call,
					view: trackCall(state, id, call.id, call.name, toJson(call.arguments), DEFAULT_WIDTH),
				};
			});
			return {
				onEvent: (event) => {
					for (const t of tracked) t.view.onEvent(event);
				},
				end: (results, aborted) => {
					for (const t of tracked) {
						state.running.delete(t.id);
						const message = results.find((r) => r.toolCallId === t.call.id);
						t.view.end(message, message ? undefined : "the host returned no result", aborted);
					}
				},
			};
		}),
	);
}
