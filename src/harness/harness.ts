/**
 * The test harness: tools run exactly as in production (the same registry, extension runtime and
 * executor) on a MemoryExecutionEnv, so a test needs neither a model nor a disk.
 *
 * Runtime-neutral. `createMemoryHarness` takes extensions as factories (functions); the Node entry
 * `createTestHarness` also loads extension files through the real loader.
 */

import type { Static } from "@sinclair/typebox";
import type { ToolCall, ToolResultMessage } from "../contract/content.js";
import type { ToolExecutionEvent } from "../contract/events.js";
import type { ToolDefinition } from "../contract/tool.js";
import { MemoryExecutionEnv, type MemorySeedFile, type ScriptedCommand } from "../env/memory.js";
import type { ScriptedOutput } from "../env/memory-shell.js";
import { batchConfig } from "../exec/batch-config.js";
import { executeToolCalls } from "../exec/execute.js";
import type { ExecuteToolCallsResult } from "../exec/types.js";
import type { ExtensionDiagnostic, ExtensionFactory } from "../extensions/api.js";
import type { ToolRegistry } from "../extensions/registry.js";
import { createExtensionRuntime, type ExtensionRuntime } from "../extensions/runtime.js";
import type { createBashTool } from "../tools/bash.js";
import { createBuiltinTools } from "../tools/builtins.js";
import type { createEditTool } from "../tools/edit.js";
import type { createReadTool } from "../tools/read.js";
import type { createWriteTool } from "../tools/write.js";

/** An extension given as code: its factory, and the path it is known by (for diagnostics). */
export type InlineExtension = ExtensionFactory | { readonly path: string; readonly factory: ExtensionFactory };

/** The `builtins` option: `true` (default), `false`, or your own list. */
export type HarnessBuiltins = boolean | readonly ToolDefinition[];

/** The built-in tools as the types know them: literal names and their parameter schemas. */
export type BuiltinToolDefinition =
	| ReturnType<typeof createReadTool>
	| ReturnType<typeof createBashTool>
	| ReturnType<typeof createEditTool>
	| ReturnType<typeof createWriteTool>;

/**
 * Call arguments by tool name, for the tools whose name is a literal type (`defineTool` keeps it).
 * A tool whose name is only known as `string` adds nothing.
 */
export type ToolArguments<TTool extends ToolDefinition> = {
	[T in TTool as string extends T["name"] ? never : T["name"]]: Static<T["parameters"]>;
};

/** The arguments a harness checks: those of `tools`, and those of the built-ins they do not replace. */
export type HarnessArguments<TTool extends ToolDefinition, TBuiltins extends HarnessBuiltins> = Flatten<
	Omit<ToolArguments<BuiltinsOf<TBuiltins>>, keyof ToolArguments<TTool>> & ToolArguments<TTool>
>;

type BuiltinsOf<TBuiltins extends HarnessBuiltins> = TBuiltins extends false
	? never
	: TBuiltins extends readonly (infer TBuiltin extends ToolDefinition)[]
		? TBuiltin
		: BuiltinToolDefinition;

/** One object type instead of an intersection, so editors show the arguments plainly. */
type Flatten<T> = { [K in keyof T]: T[K] };

/**
 * What `call` accepts for `name`: the schema's type for a known tool, anything for another one.
 * An indexed access rather than a conditional type keeps a typed harness assignable to a plain
 * `TestHarness`.
 */
export type HarnessCallArguments<TArguments, TName extends string> = (TArguments & Record<string, unknown>)[TName];

/** Options for `createMemoryHarness`: your tools, the built-ins, inline extensions, and the memory world they run in. */
export interface MemoryHarnessOptions<
	TTool extends ToolDefinition = ToolDefinition,
	TBuiltins extends HarnessBuiltins = HarnessBuiltins,
> {
	/** Your tools. A tool named like a built-in replaces it. */
	readonly tools?: readonly TTool[];
	/** The built-in read, write, edit and bash tools: `true` (default), `false`, or your own list. */
	readonly builtins?: TBuiltins;
	/** Extensions to run, as factories; each gets the real ExtensionAPI. */
	readonly extensions?: readonly InlineExtension[];
	/** Files to start with, by path relative to `cwd` (or absolute). */
	readonly files?: Readonly<Record<string, MemorySeedFile>>;
	/** The scripted shell (see `MemoryExecutionEnv`). */
	readonly commands?: readonly ScriptedCommand[];
	/** The answer to a command no script matches (default: exit 127 naming the command). */
	readonly unmatched?: ScriptedOutput | ((command: string) => ScriptedOutput);
	/** The working folder of the memory env; default `/project`. */
	readonly cwd?: string;
	/** Fixed mtimes make results reproducible; default: a clock that starts at 0 and never moves. */
	readonly clock?: () => number;
	/** The executor's mode for `batch` (default parallel, as in production). */
	readonly toolExecution?: "parallel" | "sequential";
	/** Only these tools are visible to calls (default: all). */
	readonly activeTools?: readonly string[];
}

/** A call as tests like to write it: `{ name, arguments }` (or `args`), with an optional id. */
export type HarnessCall =
	| ToolCall
	| { readonly name: string; readonly arguments?: unknown; readonly args?: unknown; readonly id?: string };

/** Options for one harness call: an abort signal and the tool call's id. */
export interface HarnessCallOptions {
	readonly signal?: AbortSignal;
	readonly id?: string;
}

/**
 * `TArguments` maps the names of the tools known at the type level to their arguments (see
 * `HarnessArguments`); `call` checks its arguments against them.
 */
export interface TestHarness<TArguments extends object = Record<never, never>> {
	readonly env: MemoryExecutionEnv;
	readonly registry: ToolRegistry;
	readonly runtime: ExtensionRuntime;
	/** Every execution event of every call so far, in order. */
	readonly events: ToolExecutionEvent[];
	/** Registration and extension diagnostics so far. */
	readonly diagnostics: ExtensionDiagnostic[];
	/**
	 * Run one call; resolves with its result message (errors are results, never rejections). For a
	 * tool known at the type level, `args` must match its schema; any other name (a tool an
	 * extension registers) takes any value.
	 */
	call<TName extends string>(
		name: TName,
		args?: HarnessCallArguments<TArguments, TName>,
		options?: HarnessCallOptions,
	): Promise<ToolResultMessage>;
	/** Run the calls as one batch, exactly as an agent loop would. */
	batch(
		calls: readonly HarnessCall[],
		options?: { readonly signal?: AbortSignal; readonly toolExecution?: "parallel" | "sequential" },
	): Promise<ExecuteToolCallsResult>;
	/** Every file now in the env: path (relative to cwd) → content. */
	files(options?: { readonly under?: string }): Record<string, string>;
	/** Files created, modified and deleted since the start. */
	changes(): { created: string[]; modified: string[]; deleted: string[] };
	/** The commands run so far (the env's command log). */
	commands(): readonly string[];
}

let callCounter = 0;

/** Normalize the short call forms to a `ToolCall`. */
export function toToolCall(call: HarnessCall, index = 0): ToolCall {
	const raw = call as { type?: unknown; id?: unknown; name: string; arguments?: unknown; args?: unknown };
	const id = typeof raw.id === "string" ? raw.id : `call_${++callCounter}_${index}`;
	const args = raw.arguments !== undefined ? raw.arguments : raw.args !== undefined ? raw.args : {};
	return { type: "toolCall", id, name: raw.name, arguments: args };
}

export function inlinePath(extension: InlineExtension, index: number): string {
	return typeof extension === "function" ? `<inline extension ${index + 1}>` : extension.path;
}

/**
 * The harness core: a MemoryExecutionEnv, a registry with the built-ins (unless turned off) and
 * your tools, and the given extensions activated (their `session_start` handlers run with reason
 * `startup`). Rejects only for an unusable seed (see `MemoryExecutionEnv`).
 */
export async function createMemoryHarness<
	TTool extends ToolDefinition = ToolDefinition,
	TBuiltins extends HarnessBuiltins = true,
>(options: MemoryHarnessOptions<TTool, TBuiltins> = {}): Promise<TestHarness<HarnessArguments<TTool, TBuiltins>>> {
	const { env, runtime, diagnostics } = prepareHarness(options);
	const inline = options.extensions ?? [];
	for (let i = 0; i < inline.length; i++) {
		const extension = inline[i]!;
		const factory = typeof extension === "function" ? extension : extension.factory;
		await runtime.activate(inlinePath(extension, i), factory);
	}
	return finishHarness(runtime, env, diagnostics, options);
}

/** The env and runtime of a harness, with the built-ins and `tools` registered. */
export function prepareHarness(options: Omit<MemoryHarnessOptions, "extensions">): {
	env: MemoryExecutionEnv;
	runtime: ExtensionRuntime;
	diagnostics: ExtensionDiagnostic[];
} {
	const env = new MemoryExecutionEnv({
		cwd: options.cwd ?? "/project",
		clock: options.clock ?? (() => 0),
		...(options.files ? { files: options.files } : {}),
		...(options.commands ? { commands: options.commands } : {}),
		...(options.unmatched ? { unmatched: options.unmatched } : {}),
	});
	const diagnostics: ExtensionDiagnostic[] = [];
	const builtins =
		options.builtins === false ? [] : Array.isArray(options.builtins) ? options.builtins : createBuiltinTools();
	const runtime = createExtensionRuntime({
		env,
		builtins: builtins as readonly ToolDefinition[],
		onDiagnostic: (diagnostic) => {
			if (!diagnostics.includes(diagnostic)) diagnostics.push(diagnostic);
		},
	});
	for (const tool of options.tools ?? []) {
		for (const diagnostic of runtime.registry.register(tool).diagnostics) {
			if (!diagnostics.includes(diagnostic)) diagnostics.push(diagnostic);
		}
	}
	return { env, runtime, diagnostics };
}

/** Wire a prepared runtime into a harness (shared by the Node entry, which loads files first). */
export async function finishHarness<TArguments extends object = Record<never, never>>(
	runtime: ExtensionRuntime,
	env: MemoryExecutionEnv,
	diagnostics: ExtensionDiagnostic[],
	options: Pick<MemoryHarnessOptions, "toolExecution" | "activeTools">,
): Promise<TestHarness<TArguments>> {
	if (runtime.extensions().length > 0) await runtime.emit({ type: "session_start", reason: "startup" });
	if (options.activeTools) runtime.registry.setActiveTools(options.activeTools);
	const events: ToolExecutionEvent[] = [];

	const batch: TestHarness<TArguments>["batch"] = async (calls, batchOptions = {}) => {
		const config = runtime.registry.snapshot().executorConfig();
		return executeToolCalls(
			calls.map((call, index) => toToolCall(call, index)),
			batchConfig(config, config, {
				toolExecution: batchOptions.toolExecution ?? options.toolExecution,
				signal: batchOptions.signal,
				onEvent: (event) => events.push(event),
			}),
		);
	};

	return {
		env,
		registry: runtime.registry,
		runtime,
		events,
		diagnostics,
		batch,
		async call(name, args, callOptions = {}) {
			const { results } = await batch(
				[{ name, arguments: args ?? {}, ...(callOptions.id ? { id: callOptions.id } : {}) }],
				callOptions.signal ? { signal: callOptions.signal } : {},
			);
			return results[0]!;
		},
		files: (filesOptions) => env.snapshot(filesOptions),
		changes: () => env.changes(),
		commands: () => env.commandLog.map((entry) => entry.command),
	};
}
