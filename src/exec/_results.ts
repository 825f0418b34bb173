/** Checking what tools and hooks return, and building the executor's own error results. */
import { describeValue, errorMessage, type ToolsmithErrorCode } from "../contract/errors.js";
import type { AgentToolResult } from "../contract/tool.js";
import { MAX_DEPTH } from "./json.js";
import type { ToolErrorDetails } from "./types.js";

/**
 * A result (its `content`, `details`, `usage` and `addedToolNames` together) counted as more than
 * this many characters of JSON is refused (16 MiB, as for arguments). Counted as `sizeLeft` counts
 * arguments: strings and keys by length, a character or a few for everything else, so the count
 * is a lower bound of the JSON's length.
 */
export const MAX_RESULT_CHARS = 16 * 1024 * 1024;

export function errorResult(
	text: string,
	code: ToolsmithErrorCode,
	extra?: Omit<ToolErrorDetails, "code">,
): AgentToolResult<ToolErrorDetails> {
	return { content: [{ type: "text", text }], details: extra ? { code, ...extra } : { code } };
}

/** Why `content` is not a valid list of blocks, or undefined when it is. */
export function contentProblem(content: unknown): string | undefined {
	if (!Array.isArray(content)) {
		return `its content is ${content === undefined ? "missing" : describe(content)}, not an array of blocks`;
	}
	for (let i = 0; i < content.length; i++) {
		const block: unknown = content[i];
		if (typeof block !== "object" || block === null) return `content[${i}] is ${describe(block)}, not a block`;
		const { type } = block as { type?: unknown };
		if (type === "text") {
			if (typeof (block as { text?: unknown }).text !== "string")
				return `content[${i}] is a text block without a string "text"`;
		} else if (type === "image") {
			const { data, mimeType } = block as { data?: unknown; mimeType?: unknown };
			if (typeof data !== "string") return `content[${i}] is an image block without base64 "data"`;
			if (typeof mimeType !== "string" || !mimeType.startsWith("image/")) {
				return `content[${i}] is an image block without an "image/…" mimeType`;
			}
		} else {
			return `content[${i}] has unknown type ${describe(type)} (expected "text" or "image")`;
		}
	}
	return undefined;
}

/**
 * Reads each field of `value` once (a getter that throws throws here, not later) into a plain
 * result, or says why `value` is not an `AgentToolResult`: a malformed shape, or fields JSON cannot
 * hold (see `resultJsonProblem`). The plain result has `content` and `details`, and the optional
 * fields only when they are set.
 */
export function readResult(value: unknown): { result: AgentToolResult<unknown> } | { problem: string } {
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		return { problem: `it returned ${describe(value)} instead of an object { content, details }` };
	}
	const raw = value as Partial<AgentToolResult<unknown>>;
	const content: unknown = raw.content;
	const left = plainTextLeft(content);
	if (left < 0) {
		const problem = contentProblem(content);
		if (problem) return { problem };
	}
	const details: unknown = raw.details;
	const added: unknown = raw.addedToolNames;
	if (added !== undefined && !(Array.isArray(added) && added.every((n) => typeof n === "string"))) {
		return { problem: "its addedToolNames is not an array of strings" };
	}
	const usage: unknown = raw.usage;
	const blocks = content as AgentToolResult["content"];
	const names = added as string[] | undefined;
	const jsonProblem =
		left < 0 ? resultJsonProblem(blocks, details, usage, names) : restJsonProblem(left, details, usage, names);
	if (jsonProblem) return { problem: jsonProblem };
	const terminate = raw.terminate;
	const structuredContent = raw.structuredContent;
	const result: AgentToolResult<unknown> = { content: blocks, details };
	if (usage !== undefined) result.usage = usage as AgentToolResult["usage"];
	if (names !== undefined) result.addedToolNames = names;
	if (terminate !== undefined) result.terminate = terminate;
	if (structuredContent !== undefined) result.structuredContent = structuredContent;
	return { result };
}

/** One walk over values for `jsonProblem`: the budget left, and where the walk is. */
interface JsonWalk {
	left: number;
	/** The depth of the value being read, for the path of a getter that throws. */
	depth: number;
	/** The objects from the field down to the one being read, by depth (1 is the field). */
	readonly objects: unknown[];
	/** The key or index each of `objects` has in its parent (the field's name at depth 1). */
	readonly keys: (string | number)[];
}

/**
 * Why `content`, `details`, `usage` and `addedToolNames` (already checked for shape) cannot be
 * written as JSON, or undefined when they can: a cycle, nesting deeper than `MAX_DEPTH`, more
 * than `MAX_RESULT_CHARS` characters, a BigInt, or a getter, `toJSON` or proxy trap that throws.
 * Text and image blocks without other keys, and `details` that is not an object, are counted
 * without a walk. Stops at the first problem; the budget bounds the work.
 */
export function resultJsonProblem(
	content: readonly unknown[],
	details: unknown,
	usage: unknown,
	addedToolNames: readonly string[] | undefined,
): string | undefined {
	let left = MAX_RESULT_CHARS;
	for (let i = 0; i < content.length; i++) {
		const block = content[i] as { type: string; text?: string; data?: string; mimeType?: string };
		const size = plainBlockSize(block);
		if (size >= 0) {
			left -= size;
			if (left < 0) return tooLarge(`content[${i}]`);
			continue;
		}
		const walk = newWalk(left);
		const problem = fieldProblem(walk, "content", block, i);
		if (problem) return problem;
		left = walk.left;
	}
	return restJsonProblem(left, details, usage, addedToolNames);
}

/**
 * The budget left after `content` when it holds only text blocks with no other keys (the usual
 * result), counted in one pass; -1 when it holds anything else (or is not an array of blocks).
 */
function plainTextLeft(content: unknown): number {
	if (!Array.isArray(content)) return -1;
	let left = MAX_RESULT_CHARS;
	for (let i = 0; i < content.length; i++) {
		const block: unknown = content[i];
		if (typeof block !== "object" || block === null) return -1;
		const { type, text } = block as { type?: unknown; text?: unknown };
		if (type !== "text" || typeof text !== "string") return -1;
		let keys = 0;
		for (const key in block) {
			if (key !== "type" && key !== "text") return -1;
			keys++;
		}
		if (keys !== 2) return -1;
		left -= text.length + 24;
	}
	return left;
}

function newWalk(left: number): JsonWalk {
	return { left, depth: 1, objects: [], keys: [] };
}

/** `resultJsonProblem` for the fields after `content`, with `left` of the budget. */
function restJsonProblem(
	budget: number,
	details: unknown,
	usage: unknown,
	addedToolNames: readonly string[] | undefined,
): string | undefined {
	let left = budget;
	if (addedToolNames !== undefined) {
		for (const name of addedToolNames) left -= name.length + 3;
		if (left < 0) return tooLarge("addedToolNames");
	}
	if (details === undefined && usage === undefined) return undefined;
	if (typeof details === "string") {
		left -= details.length + 2;
		if (left < 0) return tooLarge("details");
	} else if (typeof details === "object" || typeof details === "bigint") {
		if (details !== null) {
			const walk = newWalk(left);
			const problem = fieldProblem(walk, "details", details, undefined);
			if (problem) return problem;
			left = walk.left;
		}
	}
	if (typeof usage === "object" && usage !== null) return fieldProblem(newWalk(left), "usage", usage, undefined);
	return undefined;
}

/** The JSON size of a text or image block with no other keys, or -1 when it has other keys. */
function plainBlockSize(block: { type: string; text?: string; data?: string; mimeType?: string }): number {
	let keys = 0;
	if (block.type === "text") {
		for (const key in block) {
			if (key !== "type" && key !== "text") return -1;
			keys++;
		}
		return keys === 2 ? (block.text as string).length + 24 : -1;
	}
	for (const key in block) {
		if (key !== "type" && key !== "data" && key !== "mimeType") return -1;
		keys++;
	}
	return keys === 3 ? (block.data as string).length + (block.mimeType as string).length + 40 : -1;
}

/** `jsonProblem` for the field `name` (or its item `index`), with a path and a reason when it throws. */
function fieldProblem(walk: JsonWalk, name: string, value: unknown, index: number | undefined): string | undefined {
	walk.keys.length = 0;
	walk.objects.length = 0;
	walk.keys[1] = name;
	let depth = 1;
	if (index !== undefined) {
		walk.objects[1] = undefined;
		walk.keys[2] = index;
		depth = 2;
	}
	walk.depth = depth;
	try {
		return jsonProblem(walk, value, depth, true);
	} catch (error) {
		return `${pathOf(walk, walk.depth)} cannot be read (${errorMessage(error)}), so it cannot be written as JSON`;
	}
}

/** Why `value`, at `depth`, cannot be written as JSON, or undefined; spends `walk.left`. */
function jsonProblem(walk: JsonWalk, value: unknown, depth: number, callToJson: boolean): string | undefined {
	switch (typeof value) {
		case "string":
			walk.left -= value.length + 2;
			return walk.left < 0 ? tooLarge(pathOf(walk, depth)) : undefined;
		case "object":
			if (value === null) break;
			return objectProblem(walk, value, depth, callToJson);
		case "bigint": {
			const toJSON = callToJson ? (value as unknown as { toJSON?: unknown }).toJSON : undefined;
			if (typeof toJSON === "function") return jsonProblem(walk, toJSON.call(value, keyOf(walk, depth)), depth, false);
			return `${pathOf(walk, depth)} is a BigInt, which JSON cannot represent; convert it to a string or a number`;
		}
		default:
			// numbers, booleans; undefined, functions and symbols are left out (or null in an array)
			break;
	}
	walk.left -= 4;
	return walk.left < 0 ? tooLarge(pathOf(walk, depth)) : undefined;
}

function objectProblem(walk: JsonWalk, value: object, depth: number, callToJson: boolean): string | undefined {
	walk.depth = depth;
	if (depth > MAX_DEPTH) return deepProblem(walk, value, depth);
	walk.objects[depth] = value;
	if (callToJson) {
		const toJSON = (value as { toJSON?: unknown }).toJSON;
		if (typeof toJSON === "function") {
			return jsonProblem(walk, toJSON.call(value, keyOf(walk, depth)), depth, false);
		}
	}
	if (Array.isArray(value)) {
		const length = value.length;
		walk.left -= 2 + length;
		if (walk.left < 0) return tooLarge(pathOf(walk, depth));
		for (let i = 0; i < length; i++) {
			walk.keys[depth + 1] = i;
			walk.depth = depth + 1;
			const problem = jsonProblem(walk, value[i], depth + 1, true);
			if (problem) return problem;
		}
		return undefined;
	}
	const keys = Object.keys(value);
	walk.left -= 2;
	for (const key of keys) {
		walk.keys[depth + 1] = key;
		walk.depth = depth + 1;
		const item: unknown = (value as Record<string, unknown>)[key];
		if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
		walk.left -= key.length + 4;
		const problem = jsonProblem(walk, item, depth + 1, true);
		if (problem) return problem;
	}
	return walk.left < 0 ? tooLarge(pathOf(walk, depth)) : undefined;
}

/** Past `MAX_DEPTH`: a cycle when an object repeats on the way down (named by both paths), else plain depth. */
function deepProblem(walk: JsonWalk, value: object, depth: number): string {
	walk.objects[depth] = value;
	for (let later = 2; later <= depth; later++) {
		const object = walk.objects[later];
		for (let earlier = 1; earlier < later; earlier++) {
			if (walk.objects[earlier] === object) {
				return `${pathOf(walk, earlier)} is cyclic (${pathOf(walk, later)} refers back to it), which JSON cannot represent`;
			}
		}
	}
	return `${pathOf(walk, 1)} is nested more than ${MAX_DEPTH} levels deep, the limit`;
}

function tooLarge(path: string): string {
	return `the result is more than ${MAX_RESULT_CHARS} characters as JSON, the limit (counted up to ${path}); return less, or write large data to a file and return its path`;
}

/** The key JSON would pass to `toJSON` for the value at `depth`. */
function keyOf(walk: JsonWalk, depth: number): string {
	return String(walk.keys[depth] ?? "");
}

const PATH_SEGMENTS = 12;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `details.a[3]["b c"]` for the value at `depth`; long paths keep their first segments. */
function pathOf(walk: JsonWalk, depth: number): string {
	let path = String(walk.keys[1]);
	const last = Math.min(depth, PATH_SEGMENTS);
	for (let d = 2; d <= last; d++) {
		const key = walk.keys[d];
		if (typeof key === "number") path += `[${key}]`;
		else if (IDENTIFIER.test(String(key))) path += `.${key}`;
		else path += `[${JSON.stringify(key)}]`;
	}
	return depth > last ? `${path}…` : path;
}

function describe(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "an array";
	if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
	if (typeof value === "object") return "an object";
	return typeof value === "undefined" ? "undefined" : `${typeof value} ${describeValue(value)}`;
}
