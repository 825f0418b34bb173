import type { AgentTool, AgentToolResult, TSchema } from "../../../src/index.js";
import { Type } from "../../../src/index.js";
import type { ToolCall, ToolExecutionEvent } from "../../../src/runtime.js";

export interface Deferred<T> {
	readonly promise: Promise<T>;
	resolve(value: T): void;
	reject(reason: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
	let resolve!: (value: T) => void;
	let reject!: (reason: unknown) => void;
	const promise = new Promise<T>((res, rej) => {
		resolve = res;
		reject = rej;
	});
	return { promise, resolve, reject };
}

export function text(value: string): AgentToolResult<unknown> {
	return { content: [{ type: "text", text: value }], details: {} };
}

export function call(id: string, name: string, args: unknown = {}): ToolCall {
	return { type: "toolCall", id, name, arguments: args };
}

export function tool(
	name: string,
	execute: AgentTool["execute"],
	extra: Partial<Omit<AgentTool, "name" | "execute">> = {},
): AgentTool {
	return {
		name,
		label: name,
		description: `The ${name} tool.`,
		parameters: (extra.parameters ?? Type.Object({})) as TSchema,
		...extra,
		execute,
	};
}

/** Lets pending promise callbacks run. */
export async function flush(times = 5): Promise<void> {
	for (let i = 0; i < times; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

export function eventLog(events: ToolExecutionEvent[]): string[] {
	return events.map((e) => `${e.type.replace("tool_execution_", "")}:${e.toolCallId}`);
}

export function firstText(result: { content: readonly { type: string; text?: string }[] }): string {
	const block = result.content[0];
	return block && block.type === "text" ? (block.text ?? "") : "";
}

/**
 * A deep merge written the careless way many tools do: it walks `__proto__` and
 * `constructor.prototype` straight into Object.prototype when its input carries those keys.
 */
export function carelessMerge(target: Record<string, unknown>, source: unknown): void {
	if (typeof source !== "object" || source === null) return;
	for (const key of Object.keys(source)) {
		const value = (source as Record<string, unknown>)[key];
		if (typeof value === "object" && value !== null) {
			if (!target[key]) target[key] = {};
			carelessMerge(target[key] as Record<string, unknown>, value);
		} else target[key] = value;
	}
}
