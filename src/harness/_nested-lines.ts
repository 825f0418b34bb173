/**
 * The nested calls of a result (`nestedCalls`, toolsmith's and pi 1.x's alike) as lines for
 * reports and comparisons. Runtime-neutral.
 */
import type { NestedCallRecord, NestedCalls } from "../contract/content.js";

/** What two records of the same call must agree on: `call-1/1 tick ok {"n":3}` (no error text, whose wording may differ). */
export function nestedCallKey(call: NestedCallRecord): string {
	const args =
		call.arguments !== undefined
			? ` ${JSON.stringify(call.arguments)}`
			: call.argumentsBytes !== undefined
				? ` (arguments of ${call.argumentsBytes} bytes left out)`
				: "";
	return `${call.id} ${call.name} ${call.status}${args}`;
}

/** One nested call for people: its key and the start of its error. */
export function nestedCallLine(call: NestedCallRecord): string {
	const first = call.error?.split("\n")[0];
	if (first === undefined) return nestedCallKey(call);
	return `${nestedCallKey(call)}: ${JSON.stringify(first.length > 120 ? `${first.slice(0, 120)}…` : first)}`;
}

/** A `nestedCalls` value read from a file, or undefined when it is not one. */
export function parseNestedCalls(value: unknown): NestedCalls | undefined {
	if (typeof value !== "object" || value === null) return undefined;
	const { calls, complete } = value as { calls?: unknown; complete?: unknown };
	if (!Array.isArray(calls)) return undefined;
	const records: NestedCallRecord[] = [];
	for (const item of calls) {
		if (typeof item !== "object" || item === null) return undefined;
		const r = item as Record<string, unknown>;
		if (typeof r.id !== "string" || typeof r.name !== "string") return undefined;
		if (r.status !== "ok" && r.status !== "error" && r.status !== "unfinished") return undefined;
		records.push({
			id: r.id,
			name: r.name,
			status: r.status,
			...(r.arguments !== undefined ? { arguments: r.arguments } : {}),
			...(typeof r.argumentsBytes === "number" ? { argumentsBytes: r.argumentsBytes } : {}),
			...(typeof r.durationMs === "number" ? { durationMs: r.durationMs } : {}),
			...(typeof r.error === "string" ? { error: r.error } : {}),
		});
	}
	return { calls: records, complete: complete !== false };
}
