/**
 * The renderer host: turns what `renderCall` / `renderResult` return into lines, and falls back to
 * something useful (the tool name, the text content) when a renderer is missing, throws, or returns
 * something that is not renderable. A broken renderer never hides a result.
 */
import type { ToolResultContent } from "../contract/content.js";
import { describeValue, errorMessage } from "../contract/errors.js";
import type { RenderContext, RenderOutput, RenderResultOptions, Theme } from "../contract/render.js";
import type { AgentToolResult, ToolDefinition } from "../contract/tool.js";
import { expandTabs, stripAnsi, truncateToWidth } from "./width.js";

/** What to do with lines wider than the width: cut them (with `…`), or keep them as they are. */
export type RenderOverflow = "truncate" | "keep";

/** Options for `renderToLines`: what to do with lines wider than the width. */
export interface RenderToLinesOptions {
	/** `truncate` (default) cuts each line to `width` columns; `keep` leaves long lines alone. */
	readonly overflow?: RenderOverflow;
}

/** Lines a renderer produced (or the fallback produced), plus why the fallback was used. */
export interface RenderedBlock {
	readonly lines: string[];
	/** Set when the tool's renderer threw or returned something unusable; `lines` is then the fallback. */
	readonly error?: string;
	/** True when `lines` came from the fallback rather than the tool's renderer. */
	readonly fallback: boolean;
}

/** The part of a definition the host needs: a name and, maybe, renderers and their `renderShell`. */
export type RenderableTool = Pick<ToolDefinition, "name" | "renderCall" | "renderResult" | "renderShell">;

/** Options for `renderToolResult`: overflow, and how many lines the fallback preview shows. */
export interface RenderToolResultOptions extends RenderToLinesOptions {
	/** Lines of text content the fallback shows when not expanded (default 10). */
	readonly previewLines?: number;
}

function isComponent(value: unknown): value is { render(width: number): unknown } {
	return typeof value === "object" && value !== null && typeof (value as { render?: unknown }).render === "function";
}

function describe(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "an array with a non-string item";
	return typeof value === "object" ? "an object without render(width)" : typeof value;
}

function splitLines(text: string): string[] {
	return text.replace(/\r\n?/g, "\n").split("\n");
}

/**
 * The lines of a renderer's output: a string is split on newlines, lines are taken as they are (a
 * line holding newlines is split too), a component is asked to `render(width)`. Tabs become spaces.
 * Throws a `TypeError` when the output (or what a component returns) is none of these, and lets a
 * component's own error through; `renderToolCall`/`renderToolResult` catch both.
 */
export function renderToLines(output: RenderOutput, width: number, options: RenderToLinesOptions = {}): string[] {
	const cols = Math.max(1, Math.floor(width));
	let raw: readonly unknown[];
	if (typeof output === "string") {
		raw = output === "" ? [] : splitLines(output);
	} else if (Array.isArray(output)) {
		raw = output;
	} else if (isComponent(output)) {
		const rendered = output.render(cols);
		if (!Array.isArray(rendered)) {
			throw new TypeError(`render(width) returned ${describe(rendered)}; it must return an array of strings`);
		}
		raw = rendered;
	} else {
		throw new TypeError(
			`renderer returned ${describe(output)}; return a string, an array of strings, or an object with render(width)`,
		);
	}
	const lines: string[] = [];
	for (const item of raw) {
		if (typeof item !== "string") {
			throw new TypeError(
				`renderer output holds ${item === null ? "null" : typeof item} where a string line was expected`,
			);
		}
		for (const line of item.includes("\n") || item.includes("\r") ? splitLines(item) : [item]) {
			const expanded = expandTabs(line);
			lines.push(options.overflow === "keep" ? expanded : truncateToWidth(expanded, cols));
		}
	}
	return lines;
}

function compactJson(value: unknown): string {
	try {
		return JSON.stringify(value) ?? describeValue(value);
	} catch {
		// cycles, BigInt, a throwing toJSON or proxy trap
		return describeValue(value);
	}
}

function isEmptyArgs(args: unknown): boolean {
	if (args === undefined) return true;
	if (typeof args !== "object" || args === null) return false;
	try {
		return Object.keys(args).length === 0;
	} catch {
		return false;
	}
}

/** What a call looks like without a renderer: the tool name in bold, the arguments as compact JSON. */
export function fallbackCallLines(name: string, args: unknown, theme: Theme): string[] {
	const title = theme.bold(theme.fg("toolTitle", describeValue(name)));
	return [isEmptyArgs(args) ? title : `${title} ${theme.fg("muted", compactJson(args))}`];
}

// Everything but tab and newline below 0x20, DEL and the C1 controls.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * Tool output shown as is could move the cursor, clear the screen or recolor what follows; the
 * fallback shows its text only (a renderer that wants color uses the theme).
 */
export function sanitizeText(text: string): string {
	return stripAnsi(text).replace(/\r\n?/g, "\n").replace(CONTROL, "");
}

function contentLines(content: readonly ToolResultContent[] | undefined): string[] {
	const lines: string[] = [];
	for (const block of content ?? []) {
		if (block.type === "text") {
			const blockLines = splitLines(
				sanitizeText(typeof block.text === "string" ? block.text : describeValue(block.text)),
			);
			// A final newline ends the last line; it does not start an empty one.
			if (blockLines.length > 1 && blockLines[blockLines.length - 1] === "") blockLines.pop();
			lines.push(...blockLines);
		} else if (block.type === "image") {
			const bytes = typeof block.data === "string" ? Math.floor((block.data.length * 3) / 4) : 0;
			lines.push(sanitizeText(`[image ${describeValue(block.mimeType)}, ${bytes} bytes]`));
		}
	}
	while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
	return lines;
}

/**
 * What a result looks like without a renderer: its text content (images as a one-line note), in the
 * error color for errors. Not expanded, only the first `previewLines` lines and a count of the rest.
 */
export function fallbackResultLines(
	result: Pick<AgentToolResult<unknown>, "content">,
	options: RenderResultOptions,
	theme: Theme,
	context: RenderContext = {},
	previewLines = 10,
): string[] {
	const role = context.isError ? "error" : "toolOutput";
	const all = contentLines(result.content);
	const shown = options.expanded || all.length <= previewLines ? all : all.slice(0, previewLines);
	const lines = shown.map((line) => theme.fg(role, line));
	if (shown.length < all.length) lines.push(theme.fg("muted", `… ${all.length - shown.length} more lines`));
	return lines;
}

function finish(lines: string[], width: number, options: RenderToLinesOptions): string[] {
	return renderToLines(lines, width, options);
}

/**
 * A fallback block from `lines()`, or, when even that throws (a result whose content cannot be
 * read: a revoked Proxy, a throwing getter), one line saying so: the renderer never throws.
 */
function lastResort(
	lines: () => string[],
	theme: Theme,
	width: number,
	options: RenderToLinesOptions,
	error: string | undefined,
): RenderedBlock {
	try {
		return { lines: lines(), fallback: true, ...(error === undefined ? {} : { error }) };
	} catch (failure) {
		const why = `the fallback could not show it either: ${errorMessage(failure)}`;
		return {
			lines: finish([theme.fg("error", sanitizeText(`(cannot show this: ${errorMessage(failure)})`))], width, options),
			fallback: true,
			error: error === undefined ? why : `${error}; ${why}`,
		};
	}
}

/**
 * Render a call with the tool's `renderCall`, or fall back to its name and arguments. With no
 * definition (an unknown tool), `name` is used for the fallback. Never throws.
 */
export function renderToolCall(
	definition: RenderableTool | undefined,
	args: unknown,
	theme: Theme,
	width: number,
	context: RenderContext & { readonly name?: string } = {},
	options: RenderToLinesOptions = {},
): RenderedBlock {
	const name = describeValue(definition?.name ?? context.name ?? "(unknown tool)");
	const fallback = (error?: string): RenderedBlock =>
		lastResort(() => finish(fallbackCallLines(name, args, theme), width, options), theme, width, options, error);
	const render = definition?.renderCall;
	if (!render) return fallback();
	try {
		return {
			lines: renderToLines(render.call(definition, args as never, theme, context), width, options),
			fallback: false,
		};
	} catch (error) {
		return fallback(`renderCall of ${name} failed: ${errorMessage(error)}`);
	}
}

/**
 * Render a (partial or final) result with the tool's `renderResult`, or fall back to the text
 * content. Never throws.
 */
export function renderToolResult(
	definition: RenderableTool | undefined,
	result: AgentToolResult<unknown>,
	renderOptions: RenderResultOptions,
	theme: Theme,
	width: number,
	context: RenderContext = {},
	options: RenderToolResultOptions = {},
): RenderedBlock {
	const fallback = (error?: string): RenderedBlock =>
		lastResort(
			() => finish(fallbackResultLines(result, renderOptions, theme, context, options.previewLines), width, options),
			theme,
			width,
			options,
			error,
		);
	const render = definition?.renderResult;
	if (!render) return fallback();
	try {
		return {
			lines: renderToLines(render.call(definition, result, renderOptions, theme, context), width, options),
			fallback: false,
		};
	} catch (error) {
		return fallback(`renderResult of ${describeValue(definition?.name ?? "tool")} failed: ${errorMessage(error)}`);
	}
}

/** What `toolRenderersFor` needs of an extension runtime: its `resolveToolRenderers`, when it has one. */
export interface ToolRendererSource {
	resolveToolRenderers?(
		toolName: string,
		base: () => Pick<ToolDefinition, "renderCall" | "renderResult" | "renderShell"> | undefined,
	): Pick<ToolDefinition, "renderCall" | "renderResult" | "renderShell"> | undefined;
}

/**
 * What to draw calls to `name` with in a host: `definition` (the registered tool, or undefined)
 * passed through the `registerToolRenderer` resolvers of `runtime` (an extension runtime), as something `renderToolCall` and
 * `renderToolResult` take. Without a runtime (or one without resolvers), `definition` itself.
 */
export function toolRenderersFor(
	runtime: ToolRendererSource | undefined,
	name: string,
	definition: RenderableTool | undefined,
): RenderableTool | undefined {
	if (!runtime?.resolveToolRenderers) return definition;
	const chosen = runtime.resolveToolRenderers(name, () => definition);
	if (chosen === definition) return definition;
	if (!chosen) return undefined;
	// `this` of a resolver's renderers is the object it returned, as a definition's is the definition.
	const renderCall = chosen.renderCall;
	const renderResult = chosen.renderResult;
	return {
		name,
		...(chosen.renderShell === undefined ? {} : { renderShell: chosen.renderShell }),
		...(renderCall ? { renderCall: (...args: Parameters<typeof renderCall>) => renderCall.apply(chosen, args) } : {}),
		...(renderResult
			? { renderResult: (...args: Parameters<typeof renderResult>) => renderResult.apply(chosen, args) }
			: {}),
	};
}

/** pi's default `outputPad`: the columns of padding a default frame gives on each side. */
export const DEFAULT_OUTPUT_PAD = 1;

/**
 * Whether the tool's renderers draw their own frame (`renderShell: "self"`) or the host frames
 * them (`"default"`, also for a tool without renderers or an unknown value).
 */
export function toolShell(definition: RenderableTool | undefined): "default" | "self" {
	return definition?.renderShell === "self" ? "self" : "default";
}

/**
 * Where a host draws a tool's output: the columns it indents it by and the width its renderers
 * get. Under the default shell, the host's frame indents by `indent` columns (toolsmith's hosts
 * indent results by 2); under `renderShell: "self"`, the renderers draw their own frame, so there
 * is no indent and they get the whole width (and `outputPad` in their context to apply).
 */
export function shellLayout(
	definition: RenderableTool | undefined,
	width: number,
	indent: number,
): { readonly indent: string; readonly width: number } {
	if (toolShell(definition) === "self") return { indent: "", width };
	return { indent: " ".repeat(indent), width: Math.max(1, width - indent) };
}

/** What `renderToolBlock` draws: the call, and the result once there is one. */
export interface ToolBlockInput {
	readonly args: unknown;
	readonly result?: AgentToolResult<unknown>;
	readonly renderOptions?: RenderResultOptions;
}

/**
 * A whole tool row laid out as pi 1.6.0's tool row lays it out, without colors: a blank line, then
 * under the default shell a frame around the call's and the result's lines (a blank line above
 * and below, each line indented by `outputPad` columns, the renderers drawing at the width less
 * both paddings); under `renderShell: "self"` the renderers' lines as they drew them at the whole
 * width (they get `outputPad` in their context and apply it themselves), and nothing at all when
 * they drew nothing (a default frame with nothing in it is left out, the blank line stays). Missing or failing renderers fall back as in `renderToolCall` and
 * `renderToolResult`. Never throws.
 */
export function renderToolBlock(
	definition: RenderableTool | undefined,
	input: ToolBlockInput,
	theme: Theme,
	width: number,
	context: RenderContext & { readonly name?: string } = {},
	options: RenderToolResultOptions = {},
): RenderedBlock {
	const cols = Math.max(1, Math.floor(width));
	const pad = Math.max(0, Math.floor(context.outputPad ?? DEFAULT_OUTPUT_PAD));
	const self = toolShell(definition) === "self";
	const inner = self ? cols : Math.max(1, cols - 2 * pad);
	const withPad = { ...context, outputPad: pad, width: inner };
	const call = renderToolCall(definition, input.args, theme, inner, withPad, options);
	const result =
		input.result === undefined
			? undefined
			: renderToolResult(
					definition,
					input.result,
					input.renderOptions ?? { expanded: false, isPartial: false },
					theme,
					inner,
					withPad,
					options,
				);
	const lines = [...call.lines, ...(result?.lines ?? [])];
	const errors = [call.error, result?.error].filter((e): e is string => e !== undefined);
	const block = (drawn: string[]): RenderedBlock => ({
		lines: drawn,
		fallback: call.fallback || (result?.fallback ?? false),
		...(errors.length > 0 ? { error: errors.join("; ") } : {}),
	});
	if (self) return block(lines.length === 0 ? [] : ["", ...lines]);
	// An empty frame draws nothing; the blank line above the row stays.
	if (lines.length === 0) return block([""]);
	const indent = " ".repeat(pad);
	return block(["", "", ...lines.map((line) => indent + line), ""]);
}
