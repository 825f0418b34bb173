/**
 * `call <tool> [json-args]` in the `dev` loop: the call drawn as its tool's renderers say, its
 * partial results live (redrawn in place on a terminal, a line per change when piped), the calls it
 * makes through `ctx.executeTool` drawn at their depth, then the result and its status.
 */
import type { ToolResultMessage } from "../contract/content.js";
import { errorMessage } from "../contract/errors.js";
import type { ToolExecutionEndEvent, ToolExecutionEvent, ToolExecutionUpdateEvent } from "../contract/events.js";
import type { AgentToolResult } from "../contract/tool.js";
import {
	DEFAULT_OUTPUT_PAD,
	type RenderableTool,
	renderToolCall,
	renderToolResult,
	shellLayout,
	toolRenderersFor,
} from "../render/renderer.js";
import {
	activeTools,
	clearLive,
	type DevLoopState,
	fail,
	LIVE_LINES,
	out,
	printBlock,
	width,
} from "./_dev-loop-state.js";

/** One call as it is drawn: its id, the columns it was started with, and its nested calls. */
interface CallDrawing {
	readonly toolCallId: string;
	readonly cols: number;
	/** The arguments each nested call started with, drawn when it ends. */
	readonly nestedArgs: Map<string, unknown>;
	/** The last partial line printed of each nested call (piped output prints a line only when it changes). */
	readonly nestedLast: Map<string, string>;
	/** The last partial line printed of the call itself (piped). */
	lastPartial: string;
}

/** What draws calls to `toolName`, among the callable tools too. */
function nestedRenderers(state: DevLoopState, toolName: string): RenderableTool | undefined {
	const snapshot = state.host.registry.snapshot();
	const entry = [...snapshot.active, ...(snapshot.callable ?? [])].find((t) => t.name === toolName);
	return toolRenderersFor(state.host.runtime, toolName, entry?.definition);
}

/** A nested call's partial result, shown as the call's own are, at its depth. */
function drawNestedPartial(state: DevLoopState, drawing: CallDrawing, event: ToolExecutionUpdateEvent): void {
	const { theme } = state;
	const depth = event.toolCallId.split("/").length - 1;
	const indent = "  ".repeat(depth);
	const inner = Math.max(20, drawing.cols - indent.length - 4);
	const nested = {
		toolCallId: event.toolCallId,
		cwd: state.cwd,
		args: drawing.nestedArgs.get(event.toolCallId),
		width: inner,
	};
	const block = renderToolResult(
		nestedRenderers(state, event.toolName),
		event.partialResult,
		{ expanded: state.expanded, isPartial: true },
		theme,
		inner,
		nested,
		{ overflow: state.overflow },
	);
	if (state.interactive) {
		clearLive(state);
		const shown = block.lines
			.slice(-LIVE_LINES)
			.map((l, i) => (i === 0 ? `${indent}  ${theme.fg("muted", "…")} ${l}` : `${indent}    ${l}`));
		if (shown.length > 0) out(state, shown.join("\n"));
		state.liveLines = shown.length;
	} else {
		const last = [...block.lines].reverse().find((l) => l.trim() !== "") ?? "";
		if (last !== drawing.nestedLast.get(event.toolCallId)) {
			out(state, `${indent}  ${theme.fg("muted", "…")} ${last} ${theme.fg("muted", `· ${event.toolCallId}`)}`);
		}
		drawing.nestedLast.set(event.toolCallId, last);
	}
}

/** A nested call that ended: its call line, its result and its status, at its depth. */
function drawNested(state: DevLoopState, drawing: CallDrawing, event: ToolExecutionEndEvent): void {
	const { theme, overflow, expanded } = state;
	const depth = event.toolCallId.split("/").length - 1;
	const indent = "  ".repeat(depth);
	const renderers = nestedRenderers(state, event.toolName);
	const args = drawing.nestedArgs.get(event.toolCallId);
	drawing.nestedArgs.delete(event.toolCallId);
	drawing.nestedLast.delete(event.toolCallId);
	const inner = Math.max(20, drawing.cols - indent.length - 4);
	const nested = { toolCallId: event.toolCallId, cwd: state.cwd, args, width: inner };
	clearLive(state);
	const drawnCall = renderToolCall(renderers, args, theme, inner, { ...nested, name: event.toolName }, { overflow });
	printBlock(state, { ...drawnCall, lines: drawnCall.lines.map((l, i) => (i === 0 ? `↳ ${l}` : `  ${l}`)) }, indent);
	const drawnResult = renderToolResult(
		renderers,
		event.result,
		{ expanded, isPartial: false },
		theme,
		inner,
		{ ...nested, isError: event.isError },
		{ overflow },
	);
	printBlock(state, drawnResult, `${indent}    `);
	const status = event.isError ? theme.fg("error", "✗ error") : theme.fg("success", "✓ ok");
	const ms = event.durationMs === undefined ? "" : ` · ${event.durationMs} ms`;
	out(state, `${indent}  ${status} ${theme.fg("muted", `· ${event.toolCallId}${ms}`)}`);
}

/** `call <tool> [json-args]`: runs the call through the host's executor and draws it. */
export async function callTool(state: DevLoopState, rest: string): Promise<void> {
	const { host, theme, cwd, overflow } = state;
	const match = /^(\S+)\s*([\s\S]*)$/.exec(rest.trim());
	if (!match) {
		fail(state, 'usage: call <tool> [json-args], e.g. call read {"path":"README.md"}');
		return;
	}
	const name = match[1]!;
	const argsText = match[2]!.trim();
	let args: unknown = {};
	if (argsText !== "") {
		try {
			args = JSON.parse(argsText);
		} catch (error) {
			fail(
				state,
				`call ${name}: the arguments are not valid JSON (${errorMessage(error)}); write them as one JSON object`,
			);
			return;
		}
	}
	const entry = activeTools(host).find((t) => t.name === name);
	// Drawn as the extensions' tool renderers say, for any tool (an MCP server's too).
	const definition = toolRenderersFor(host.runtime, name, entry?.definition);
	const toolCallId = `call-${++state.callCounter}`;
	const cols = width(state);
	// Results are indented under the call, unless the tool draws its own frame (renderShell "self").
	const shell = shellLayout(definition, cols, 2);
	const context = { toolCallId, cwd, args, width: shell.width, outputPad: DEFAULT_OUTPUT_PAD };
	printBlock(state, renderToolCall(definition, args, theme, cols, { ...context, name }, { overflow }), "");

	const controller = new AbortController();
	state.running = controller;
	state.armedToExit = false;
	const started = performance.now();
	const drawing: CallDrawing = { toolCallId, cols, nestedArgs: new Map(), nestedLast: new Map(), lastPartial: "" };
	const onEvent = (event: ToolExecutionEvent) => {
		if (state.finished) return;
		if (event.parentToolCallId !== undefined && event.toolCallId.startsWith(`${toolCallId}/`)) {
			if (event.type === "tool_execution_start") drawing.nestedArgs.set(event.toolCallId, event.args);
			else if (event.type === "tool_execution_update") drawNestedPartial(state, drawing, event);
			else drawNested(state, drawing, event);
			return;
		}
		if (event.type !== "tool_execution_update" || event.toolCallId !== toolCallId) return;
		const block = renderToolResult(
			definition,
			event.partialResult,
			{ expanded: state.expanded, isPartial: true },
			theme,
			shell.width,
			context,
			{ overflow },
		);
		if (state.interactive) {
			clearLive(state);
			const shown = block.lines.slice(-LIVE_LINES).map((l) => `${shell.indent}${l}`);
			if (shown.length > 0) out(state, shown.join("\n"));
			state.liveLines = shown.length;
		} else {
			const last = [...block.lines].reverse().find((l) => l.trim() !== "") ?? "";
			if (last !== drawing.lastPartial) out(state, `  ${theme.fg("muted", "…")} ${last}`);
			drawing.lastPartial = last;
		}
	};
	let message: ToolResultMessage | undefined;
	try {
		const outcome = await host.execute([{ type: "toolCall", id: toolCallId, name, arguments: args }], {
			signal: controller.signal,
			onEvent,
		});
		message = outcome.results[0];
	} catch (error) {
		// The executor never rejects; a host that does is reported rather than killing the loop.
		clearLive(state);
		out(state, theme.fg("error", `✗ the host failed to run the call: ${errorMessage(error)}`));
		return;
	} finally {
		state.running = undefined;
		clearLive(state);
	}
	if (state.finished) return;
	state.hostLog.flush();
	const ms = Math.round(performance.now() - started);
	if (!message) {
		out(state, theme.fg("error", "✗ the host returned no result"));
		return;
	}
	const result: AgentToolResult<unknown> = { content: message.content, details: message.details };
	printBlock(
		state,
		renderToolResult(
			definition,
			result,
			{ expanded: state.expanded, isPartial: false },
			theme,
			shell.width,
			{ ...context, isError: message.isError },
			{ overflow },
		),
		shell.indent,
	);
	const status = controller.signal.aborted
		? theme.fg("warning", "✗ aborted")
		: message.isError
			? theme.fg("error", "✗ error")
			: theme.fg("success", "✓ ok");
	out(state, `${status} ${theme.fg("muted", `· ${ms} ms`)}`);
}
