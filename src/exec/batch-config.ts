/**
 * One batch's config put together from the tools, the hooks and the caller's other options, field
 * by field. Hosts build one for every batch, and in V8 spreading an object and then adding keys
 * takes a microsecond or two; a literal of known fields takes nanoseconds. The `satisfies` check
 * makes a field added to `ExecuteToolCallsConfig` a compile error here until it is passed on.
 */
import type { ExecuteToolCallsConfig } from "./types.js";

type Hooks = Pick<ExecuteToolCallsConfig, "beforeToolCall" | "afterToolCall">;
type Options = Omit<ExecuteToolCallsConfig, "tools" | "beforeToolCall" | "afterToolCall">;
/** What a registry snapshot gives a batch: its tools, and those only nested calls may reach. */
type Tools = Pick<ExecuteToolCallsConfig, "tools" | "callableTools">;

/**
 * The batch's config: the snapshot's `tools`, `hooks`, and the caller's `options` (whose
 * `callableTools`, when given, replace the snapshot's).
 */
export function batchConfig({ tools, callableTools }: Tools, hooks: Hooks, options: Options): ExecuteToolCallsConfig {
	// Every field of the config, each possibly undefined (which the executor reads as absent).
	const config = {
		tools,
		toolExecution: options.toolExecution,
		maxConcurrency: options.maxConcurrency,
		beforeToolCall: hooks.beforeToolCall,
		afterToolCall: hooks.afterToolCall,
		signal: options.signal,
		passSignalThrough: options.passSignalThrough,
		onEvent: options.onEvent,
		shouldSkipRemaining: options.shouldSkipRemaining,
		callableTools: options.callableTools ?? callableTools,
	} satisfies Record<keyof ExecuteToolCallsConfig, unknown>;
	return config;
}
