/**
 * Running a toolsmith extension inside the pi coding agent: `toPiExtension(extension)` is a pi
 * extension whose tools, handlers and commands are the toolsmith extension's, with the toolsmith
 * `ctx` (an env, UI, cwd, signal) built from pi's. Node-only (`toolsmith-sdk/node`): pi gives tools
 * no env, so each call gets a `NodeExecutionEnv` working in pi's `ctx.cwd`, or the env the options
 * name (an `SshExecutionEnv`, to run the tools on another machine).
 */

import type { ExecutionEnv } from "../contract/env.js";
import { exposureOf, isToolCallable, isToolExposure } from "../contract/exposure.js";
import type { Theme } from "../contract/render.js";
import type { TSchema } from "../contract/schema.js";
import type {
	AgentToolResult,
	AgentToolUpdateCallback,
	ToolAnnotations,
	ToolContext,
	ToolDefinition,
	ToolExposure,
	ToolNamespace,
	ToolUI,
} from "../contract/tool.js";
import { toolSnippet } from "../prompt/tools-prompt.js";
import { type RenderableTool, renderToolCall, renderToolResult } from "../render/renderer.js";
import type {
	ExtensionAPI,
	ExtensionContext,
	ExtensionExecResult,
	ExtensionFactory,
	ExtensionState,
	McpServerConfig,
	RegisteredMcpServer,
	ToolInfo,
} from "./api.js";
import { envForCwd } from "./node-compat/state.js";

/** The part of pi's `ctx` toolsmith reads. */
export interface PiContext {
	readonly cwd: string;
	readonly hasUI?: boolean;
	readonly signal?: AbortSignal;
	readonly ui?: {
		select?(title: string, options: string[]): Promise<string | undefined>;
		confirm?(title: string, message: string): Promise<boolean>;
		input?(title: string, placeholder?: string): Promise<string | undefined>;
		notify?(message: string, type?: "info" | "warning" | "error"): void;
	};
	/** pi 1.x: the tools `executeTool` can reach. */
	readonly tools?: ToolContext["tools"];
	/** pi 1.x: runs another tool through pi's pipeline. */
	readonly executeTool?: ToolContext["executeTool"];
}

/** The part of pi's theme toolsmith renderers are given (as a toolsmith `Theme`). */
export interface PiTheme {
	fg(color: string, text: string): string;
	bg?(color: string, text: string): string;
	bold?(text: string): string;
	italic?(text: string): string;
	underline?(text: string): string;
	inverse?(text: string): string;
	strikethrough?(text: string): string;
}

/** What pi's TUI draws: lines no wider than `width`. */
export interface PiComponent {
	render(width: number): string[];
	invalidate(): void;
}

/** The part of pi's render context toolsmith passes on. */
export interface PiRenderContext {
	readonly toolCallId?: string;
	readonly cwd?: string;
	readonly args?: unknown;
	readonly isError?: boolean;
}

/** A tool in the shape pi's `registerTool` takes. */
export interface PiToolDefinition {
	readonly name: string;
	readonly label: string;
	readonly description: string;
	readonly parameters: TSchema;
	readonly promptSnippet: string;
	readonly promptGuidelines?: string[];
	readonly executionMode?: "sequential" | "parallel";
	/** The pi 1.x fields, passed on as the definition has them (0.73 ignores them). */
	readonly outputSchema?: ToolDefinition["outputSchema"];
	readonly exposure?: ToolDefinition["exposure"];
	readonly namespace?: ToolDefinition["namespace"];
	readonly annotations?: ToolDefinition["annotations"];
	readonly defaultActive?: boolean;
	readonly constrainedSampling?: ToolDefinition["constrainedSampling"];
	readonly renderShell?: ToolDefinition["renderShell"];
	reachesTools?: ToolDefinition["reachesTools"];
	prepareLoadout?: ToolDefinition["prepareLoadout"];
	prepareArguments?(args: unknown): unknown;
	execute(
		toolCallId: string,
		params: unknown,
		signal: AbortSignal | undefined,
		onUpdate: ((partial: AgentToolResult<unknown>) => void) | undefined,
		ctx: PiContext,
	): Promise<AgentToolResult<unknown>>;
	renderCall?(args: unknown, theme: PiTheme, context?: PiRenderContext): PiComponent;
	renderResult?(
		result: AgentToolResult<unknown>,
		options: { readonly expanded: boolean; readonly isPartial: boolean },
		theme: PiTheme,
		context?: PiRenderContext,
	): PiComponent;
}

/** The part of pi's extension API a toolsmith extension is served through. */
export interface PiExtensionAPI {
	registerTool(tool: PiToolDefinition): void;
	/** pi 1.x returns a function that removes the handler; earlier releases return nothing. */
	on(event: string, handler: (event: never, ctx: PiContext) => unknown): unknown;
	registerCommand(
		name: string,
		options: { description?: string; handler: (args: string, ctx: PiContext) => unknown },
	): void;
	registerFlag(
		name: string,
		options: { description?: string; type: "boolean" | "string"; default?: boolean | string },
	): void;
	getFlag(name: string): boolean | string | undefined;
	exec(
		command: string,
		args: string[],
		options?: { signal?: AbortSignal; timeout?: number; cwd?: string },
	): Promise<ExtensionExecResult>;
	getAllTools(): readonly {
		readonly name: string;
		readonly description: string;
		readonly parameters: TSchema;
		/** pi 1.x only. */
		readonly exposure?: ToolExposure;
		readonly namespace?: ToolNamespace;
		readonly annotations?: ToolAnnotations;
		readonly promptGuidelines?: readonly string[];
	}[];
	getActiveTools(): string[];
	setActiveTools(names: string[]): void;
	readonly events: ExtensionAPI["events"];
	/** pi 1.x only. */
	registerToolRenderer?(
		resolver: (
			toolName: string,
			next: () => Pick<PiToolDefinition, "renderCall" | "renderResult"> | undefined,
		) => Pick<PiToolDefinition, "renderCall" | "renderResult"> | undefined,
	): void;
	/** pi 1.x only. */
	registerMcpServer?(name: string, config: McpServerConfig): void;
	/** pi 1.x only. */
	unregisterMcpServer?(name: string): void;
	/** pi 1.x only. */
	getMcpServers?(): RegisteredMcpServer[];
}

/** Options for `toPiExtension`. */
export interface ToPiExtensionOptions {
	/** What `ctx.extension.path` says under pi (pi does not tell an extension its path). Default `"pi"`. */
	readonly path?: string;
	/**
	 * The env the tools' `ctx.env` is. Default: a `NodeExecutionEnv` in pi's `ctx.cwd`, pi's own
	 * disk and processes. Give one env (an `SshExecutionEnv`, so the tools run on another machine
	 * while pi runs here) or a function of pi's `ctx.cwd` that makes one (called once per folder,
	 * the env kept). `ctx.cwd` is then the env's `cwd`. The env stays yours to close: an SSH env's
	 * connection ends with its `close()`, in a `session_shutdown` handler say.
	 */
	readonly env?: ExecutionEnv | ((cwd: string) => ExecutionEnv);
}

/** Which env a call gets, from pi's `ctx.cwd`. */
type EnvFor = (cwd: string) => ExecutionEnv;

/** The env option as a function of pi's `ctx.cwd`: the node env there, the one env, or the made one kept per folder. */
function envResolver(option: ToPiExtensionOptions["env"]): EnvFor {
	if (option === undefined) return envForCwd;
	if (typeof option !== "function") return () => option;
	const made = new Map<string, ExecutionEnv>();
	return (cwd) => {
		let env = made.get(cwd);
		if (!env) {
			env = option(cwd);
			made.set(cwd, env);
		}
		return env;
	};
}

function uiFrom(ui: PiContext["ui"]): ToolUI {
	return {
		select: async (title, options) => ui?.select?.(title, [...options]),
		confirm: async (title, message) => (await ui?.confirm?.(title, message)) ?? false,
		input: async (title, placeholder) => ui?.input?.(title, placeholder),
		notify(message, level) {
			try {
				ui?.notify?.(message, level);
			} catch {
				// a notification is best effort, as in toolsmith's own hosts
			}
		},
	};
}

function contextFrom(ctx: PiContext, path: string, envFor: EnvFor, signal?: AbortSignal): ExtensionContext {
	const callSignal = signal ?? ctx.signal;
	const env = envFor(ctx.cwd);
	return {
		env,
		cwd: envFor === envForCwd ? ctx.cwd : env.cwd,
		hasUI: ctx.hasUI === true,
		ui: uiFrom(ctx.ui),
		extension: { path },
		...(callSignal ? { signal: callSignal } : {}),
		// Under pi 1.x, nested calls go through pi's own pipeline.
		...(typeof ctx.executeTool === "function"
			? { executeTool: ctx.executeTool.bind(ctx), tools: ctx.tools ?? [] }
			: {}),
	};
}

/** pi's theme as a toolsmith theme; a color pi does not know leaves the text as it is. */
function themeFrom(theme: PiTheme): Theme {
	const style = (apply: ((text: string) => string) | undefined) => (text: string) => {
		try {
			return apply ? apply.call(theme, text) : text;
		} catch {
			return text;
		}
	};
	const paint = (apply: ((color: string, text: string) => string) | undefined) => (color: string, text: string) => {
		try {
			return apply ? apply.call(theme, color, text) : text;
		} catch {
			return text;
		}
	};
	const fg = paint(theme.fg);
	return {
		name: "pi",
		fg,
		bg: paint(theme.bg),
		bold: style(theme.bold),
		italic: style(theme.italic),
		dim: (text) => fg("dim", text),
		underline: style(theme.underline),
		strikethrough: style(theme.strikethrough),
		inverse: style(theme.inverse),
	};
}

/** A component that draws what `draw(width)` gives, through toolsmith's renderer host (and its fallbacks). */
function component(draw: (width: number) => string[]): PiComponent {
	return { render: draw, invalidate() {} };
}

function piTool(definition: ToolDefinition, path: string, envFor: EnvFor): PiToolDefinition {
	const tool: PiToolDefinition = {
		name: definition.name,
		label: definition.label,
		description: definition.description,
		parameters: definition.parameters,
		// pi leaves a tool without a snippet out of its "Available tools" list; toolsmith lists every
		// tool, with the description's first sentence as the fallback.
		promptSnippet: toolSnippet(definition),
		...(definition.promptGuidelines ? { promptGuidelines: [...definition.promptGuidelines] } : {}),
		...(definition.executionMode ? { executionMode: definition.executionMode } : {}),
		...(definition.prepareArguments ? { prepareArguments: (args) => definition.prepareArguments?.(args) } : {}),
		...(definition.outputSchema !== undefined ? { outputSchema: definition.outputSchema } : {}),
		...(definition.exposure !== undefined ? { exposure: definition.exposure } : {}),
		...(definition.namespace !== undefined ? { namespace: definition.namespace } : {}),
		...(definition.annotations !== undefined ? { annotations: definition.annotations } : {}),
		...(definition.defaultActive !== undefined ? { defaultActive: definition.defaultActive } : {}),
		...(definition.constrainedSampling !== undefined ? { constrainedSampling: definition.constrainedSampling } : {}),
		...(definition.renderShell !== undefined ? { renderShell: definition.renderShell } : {}),
		...(definition.reachesTools ? { reachesTools: (input) => definition.reachesTools?.(input) ?? [] } : {}),
		...(definition.prepareLoadout ? { prepareLoadout: (loadout) => definition.prepareLoadout?.(loadout) } : {}),
		execute: (toolCallId, params, signal, onUpdate, ctx) =>
			definition.execute(
				toolCallId,
				params as never,
				signal,
				onUpdate as AgentToolUpdateCallback<unknown> | undefined,
				contextFrom(ctx, path, envFor, signal),
			),
	};
	Object.assign(tool, piRenderers(definition));
	return tool;
}

/** pi renderers drawing through toolsmith's renderer host, for the renderers `definition` has. */
function piRenderers(definition: RenderableTool): Pick<PiToolDefinition, "renderCall" | "renderResult"> {
	const tool: Pick<PiToolDefinition, "renderCall" | "renderResult"> = {};
	if (definition.renderCall) {
		tool.renderCall = (args, theme, context) =>
			component(
				(width) =>
					renderToolCall(definition, args, themeFrom(theme), width, {
						...(context?.toolCallId ? { toolCallId: context.toolCallId } : {}),
						...(context?.cwd ? { cwd: context.cwd } : {}),
					}).lines,
			);
	}
	if (definition.renderResult) {
		tool.renderResult = (result, options, theme, context) =>
			component(
				(width) =>
					renderToolResult(definition, result, options, themeFrom(theme), width, {
						...(context?.toolCallId ? { toolCallId: context.toolCallId } : {}),
						...(context?.cwd ? { cwd: context.cwd } : {}),
						...(context && "args" in context ? { args: context.args } : {}),
						isError: context?.isError ?? false,
					}).lines,
			);
	}
	return tool;
}

function stateStore(): ExtensionState {
	const values = new Map<string, unknown>();
	return {
		keep<T>(key: string, init: () => T): T {
			if (!values.has(key)) values.set(key, init());
			return values.get(key) as T;
		},
		set: (key, value) => void values.set(key, value),
		delete: (key) => values.delete(key),
	};
}

/**
 * A pi extension serving a toolsmith extension: name it in the package's `pi.extensions` manifest
 * (next to `toolsmith.extensions`, which names the toolsmith extension itself) and the reference
 * agent loads the same tools.
 *
 * Under pi, every call gets a `ctx` whose `env` is a `NodeExecutionEnv` working in pi's `ctx.cwd`
 * (the real disk and processes, as pi's own tools), with pi's UI, `hasUI` and the call's signal;
 * `options.env` names another env, such as an `SshExecutionEnv` to run the tools on another
 * machine (handlers and commands get it too; `ctx.cwd` is then its folder).
 * Renderers draw through toolsmith's renderer host into pi components, with pi's theme colors.
 * Tools without a `promptSnippet` get the description's first sentence, as under toolsmith.
 * `api.state` lasts as long as this module instance (pi's `/reload` starts it afresh);
 * `unregisterTool` takes the tool out of pi's active tools; `getAllTools` reports `source: "pi"`.
 * @example
 * // src/pi.ts, named in package.json: "pi": { "extensions": ["./src/pi.ts"] }
 * import { toPiExtension } from "toolsmith-sdk/node";
 * import extension from "./index.js";
 * export default toPiExtension(extension);
 * @example
 * // The same tools, run on a build box over SSH while pi runs here:
 * import { SshExecutionEnv, toPiExtension } from "toolsmith-sdk/node";
 * import extension from "./index.js";
 * const env = new SshExecutionEnv({ destination: "me@buildbox", cwd: "/srv/app" });
 * export default toPiExtension(extension, { env });
 */
export function toPiExtension(
	extension: ExtensionFactory,
	options: ToPiExtensionOptions = {},
): (pi: PiExtensionAPI) => Promise<void> {
	const path = options.path ?? "pi";
	const envFor = envResolver(options.env);
	const state = stateStore();
	return async (pi) => {
		const api: ExtensionAPI = {
			registerTool(definition: ToolDefinition) {
				pi.registerTool(piTool(definition, path, envFor));
			},
			unregisterTool(name) {
				pi.setActiveTools(pi.getActiveTools().filter((active) => active !== name));
			},
			on(event, handler) {
				const off = pi.on(event, (payload: never, ctx) => handler(payload, contextFrom(ctx, path, envFor)));
				// A release whose `on` returns nothing cannot remove a handler: the function does nothing there.
				return typeof off === "function" ? () => void (off as () => unknown)() : () => {};
			},
			events: pi.events,
			exec: (command, args, execOptions) => pi.exec(command, [...args], execOptions ? { ...execOptions } : undefined),
			getAllTools(): ToolInfo[] {
				const active = new Set(pi.getActiveTools());
				return pi.getAllTools().map((tool): ToolInfo => {
					const exposure = exposureOf({ exposure: isToolExposure(tool.exposure) ? tool.exposure : undefined });
					return {
						name: tool.name,
						description: tool.description,
						parameters: tool.parameters,
						...(tool.promptGuidelines ? { promptGuidelines: tool.promptGuidelines } : {}),
						exposure,
						...(tool.namespace ? { namespace: tool.namespace } : {}),
						...(tool.annotations ? { annotations: tool.annotations } : {}),
						source: "pi",
						active: active.has(tool.name),
						callable: isToolCallable(exposure, active.has(tool.name)),
					};
				});
			},
			getActiveTools: () => pi.getActiveTools(),
			setActiveTools: (names) => pi.setActiveTools([...names]),
			registerCommand(name, command) {
				pi.registerCommand(name, {
					...(command.description !== undefined ? { description: command.description } : {}),
					handler: (args, ctx) => command.handler(args, contextFrom(ctx, path, envFor)),
				});
			},
			registerFlag: (name, flag) => pi.registerFlag(name, flag),
			getFlag: (name) => pi.getFlag(name),
			state,
			registerToolRenderer(resolver) {
				// pi's renderers are not toolsmith's: the resolver's next() answers undefined under pi, and
				// when it chooses nothing pi's own next resolver (or the tool) draws the call.
				pi.registerToolRenderer?.((toolName, next) => {
					const chosen = resolver(toolName, () => undefined);
					return chosen ? piRenderers({ name: toolName, ...chosen }) : next();
				});
			},
			registerMcpServer: (name, config) => pi.registerMcpServer?.(name, config),
			unregisterMcpServer: (name) => pi.unregisterMcpServer?.(name),
			getMcpServers: () => pi.getMcpServers?.() ?? [],
		};
		await extension(api);
	};
}
