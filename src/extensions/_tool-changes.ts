/** What a reload changed in one extension's tools: the names it added and removed, and the tools whose definition differs. */
import type { ToolDefinition } from "../contract/tool.js";
import type { ToolEntry } from "./registry.js";

/** An extension's tools at one moment: name → `toolSignature`. */
export type ToolSignatures = ReadonlyMap<string, string>;

/** The tool names a reload added, removed and changed, each in the registry's order. */
export interface ToolChanges {
	readonly added: string[];
	readonly removed: string[];
	readonly changed: string[];
}

/** What makes two versions of a tool differ for the model or a UI (functions by their source). */
export function toolSignature(definition: ToolDefinition): string {
	// Function.prototype.toString, not String(fn): an own `toString` or a proxy trap cannot throw or lie.
	const source = (fn: unknown) => {
		if (typeof fn !== "function") return null;
		try {
			return Function.prototype.toString.call(fn);
		} catch {
			return "(a function whose source cannot be read)";
		}
	};
	try {
		return JSON.stringify([
			definition.label,
			definition.description,
			definition.parameters,
			definition.promptSnippet,
			definition.promptGuidelines,
			definition.executionMode,
			source(definition.execute),
			source(definition.prepareArguments),
			source(definition.renderCall),
			source(definition.renderResult),
		]);
	} catch {
		return `unserializable:${Math.random()}`;
	}
}

/** The signatures of the winning tools the extension at `path` provides among `entries`. */
export function signaturesOf(entries: readonly ToolEntry[], path: string): ToolSignatures {
	return new Map(
		entries
			.filter((entry) => entry.source.kind === "extension" && entry.source.path === path)
			.map((entry) => [entry.name, toolSignature(entry.definition)] as const),
	);
}

/** What changed from `before` to `after`. */
export function toolChanges(before: ToolSignatures, after: ToolSignatures): ToolChanges {
	return {
		added: [...after.keys()].filter((name) => !before.has(name)),
		removed: [...before.keys()].filter((name) => !after.has(name)),
		changed: [...after.keys()].filter((name) => before.has(name) && before.get(name) !== after.get(name)),
	};
}
