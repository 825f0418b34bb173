/**
 * The test harness: tools run exactly as in production (the same registry, extension runtime and
 * executor) on a MemoryExecutionEnv, so a test needs neither a model nor a disk.
 *
 * Runtime-neutral. `createMemoryHarness` takes extensions as factories (functions); the Node entry
 * `createTestHarness` also loads extension files through the real loader.
 */
import type { ToolCall, ToolResultMessage } from "../contract/content.js";
import type { ToolExecutionEvent } from "../contract/events.js";
import type { ToolDefinition } from "../contract/tool.js";
import { MemoryExecutionEnv, type MemorySeedFile, type ScriptedCommand, type ScriptedOutput } from "../env/memory.js";
import type { ExecuteToolCallsResult } from "../exec/index.js";
import { executeToolCalls } from "../exec/index.js";
import type { ExtensionDiagnostic, ExtensionFactory } from "../extensions/api.js";
import type { ToolRegistry } from "../extensions/registry.js";
import { createExtensionRuntime, type ExtensionRuntime } from "../extensions/runtime.js";
import { createBuiltinTools } from "../tools/index.js";

/** An extension given as code: its factory, and the path it is known by (for diagnostics). */
export type InlineExtension = ExtensionFactory | { readonly path: string; readonly factory: ExtensionFactory };

export interface MemoryHarnessOptions {
	/** Your tools. A tool named like a built-in replaces it. */
	readonly tools?: readonly ToolDefinition[];
	/** The built-in read, write, edit and bash tools: `true` (default), `false`, or your own list. */
	readonly builtins?: boolean | readonly ToolDefinition[];
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

export interface HarnessCallOptions {
	readonly signal?: AbortSignal;
	readonly id?: string;
}

export interface TestHarness {
	readonly env: MemoryExecutionEnv;
	readonly registry: ToolRegistry;
	readonly runtime: ExtensionRuntime;
	/** Every execution event of every call so far, in order. */
	readonly events: ToolExecutionEvent[];
	/** Registration and extension diagnostics so far. */
	readonly diagnostics: ExtensionDiagnostic[];
	/** Run one call; resolves with its result message (errors are results, never rejections). */
	call(name: string, args?: unknown, options?: HarnessCallOptions): Promise<ToolResultMessage>;
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

/** Normalise the short call forms to a `ToolCall`. */
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
export async function createMemoryHarness(options: MemoryHarnessOptions = {}): Promise<TestHarness> {
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
export async function finishHarness(
	runtime: ExtensionRuntime,
	env: MemoryExecutionEnv,
	diagnostics: ExtensionDiagnostic[],
	options: Pick<MemoryHarnessOptions, "toolExecution" | "activeTools">,
): Promise<TestHarness> {
	if (runtime.extensions().length > 0) await runtime.emit({ type: "session_start", reason: "startup" });
	if (options.activeTools) runtime.registry.setActiveTools(options.activeTools);
	const events: ToolExecutionEvent[] = [];

	const batch: TestHarness["batch"] = async (calls, batchOptions = {}) => {
		const config = runtime.registry.snapshot().executorConfig();
		const mode = batchOptions.toolExecution ?? options.toolExecution;
		return executeToolCalls(
			calls.map((call, index) => toToolCall(call, index)),
			{
				...config,
				...(mode ? { toolExecution: mode } : {}),
				...(batchOptions.signal ? { signal: batchOptions.signal } : {}),
				onEvent: (event) => events.push(event),
			},
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
