/** The bounded record of the calls one model-issued call's tool made through `ctx.executeTool`. */
import type { NestedCallRecord, NestedCalls, Usage } from "../contract/content.js";
import type { AgentToolResult } from "../contract/tool.js";

/** The bounds of a record (those of pi 1.x). */
export const NESTED_CALL_LIMITS = {
	maxCalls: 256,
	maxArgumentBytesPerCall: 8 * 1024,
	maxArgumentBytesTotal: 32 * 1024,
	maxErrorChars: 500,
} as const;

type Entry = { -readonly [K in keyof NestedCallRecord]: NestedCallRecord[K] };

const encoder = new TextEncoder();

/** Collects the nested calls of one model-issued call, those of nested tools included. */
export class NestedRecorder {
	private readonly calls: Entry[] = [];
	private readonly startedAt = new Map<Entry, number>();
	private complete = true;
	private argumentBytes = 0;
	/** The summed usage of every nested result, dropped calls included. */
	usage: Usage | undefined = undefined;

	/** Records a call as it starts; undefined when the record is full. */
	start(id: string, name: string, args: unknown): Entry | undefined {
		if (this.calls.length >= NESTED_CALL_LIMITS.maxCalls) {
			this.complete = false;
			return undefined;
		}
		const entry: Entry = { id, name, status: "unfinished" };
		let json: string | undefined;
		try {
			json = JSON.stringify(args ?? {});
		} catch {
			json = undefined;
		}
		const bytes = json === undefined ? 0 : encoder.encode(json).length;
		if (
			json === undefined ||
			bytes > NESTED_CALL_LIMITS.maxArgumentBytesPerCall ||
			this.argumentBytes + bytes > NESTED_CALL_LIMITS.maxArgumentBytesTotal
		) {
			entry.argumentsBytes = bytes;
			this.complete = false;
		} else {
			// A copy: the caller may change its object afterwards.
			entry.arguments = JSON.parse(json);
			this.argumentBytes += bytes;
		}
		this.calls.push(entry);
		this.startedAt.set(entry, performance.now());
		return entry;
	}

	finish(entry: Entry | undefined, isError: boolean, result: AgentToolResult<unknown>): void {
		if (result.usage) this.usage = this.usage ? addUsage(this.usage, result.usage) : result.usage;
		if (!entry) return;
		entry.status = isError ? "error" : "ok";
		entry.durationMs = Math.round(performance.now() - (this.startedAt.get(entry) ?? performance.now()));
		this.startedAt.delete(entry);
		if (isError) {
			const text = textOf(result);
			if (text) entry.error = text.slice(0, NESTED_CALL_LIMITS.maxErrorChars);
		}
	}

	/** A copy of the record so far; undefined when no nested call was made. */
	snapshot(): NestedCalls | undefined {
		if (this.calls.length === 0 && this.complete) return undefined;
		const calls = this.calls.map((entry) => ({ ...entry }));
		return { calls, complete: this.complete && calls.every((entry) => entry.status !== "unfinished") };
	}
}

function textOf(result: AgentToolResult<unknown>): string {
	const parts: string[] = [];
	for (const block of result.content ?? []) if (block.type === "text") parts.push(block.text);
	return parts.join("\n");
}

/** The sum of two usages, field by field (a field absent from both stays absent). */
export function addUsage(a: Usage, b: Usage): Usage {
	const sum: { -readonly [K in keyof Usage]: Usage[K] } = {};
	for (const key of ["input", "output", "cacheRead", "cacheWrite", "totalTokens"] as const) {
		if (a[key] !== undefined || b[key] !== undefined) sum[key] = (a[key] ?? 0) + (b[key] ?? 0);
	}
	if (a.cost || b.cost) {
		const cost: Record<string, number> = {};
		for (const source of [a.cost, b.cost]) {
			if (!source) continue;
			for (const [key, value] of Object.entries(source)) {
				if (typeof value === "number") cost[key] = (cost[key] ?? 0) + value;
			}
		}
		sum.cost = cost;
	}
	return sum;
}
