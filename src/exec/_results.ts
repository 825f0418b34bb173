/** Checking what tools and hooks return, and building the executor's own error results. */
import { describeValue, type ToolsmithErrorCode } from "../contract/errors.js";
import type { AgentToolResult } from "../contract/tool.js";
import type { ToolErrorDetails } from "./types.js";

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

/** Why `value` is not an `AgentToolResult`, or undefined when it is one. */
export function resultProblem(value: unknown): string | undefined {
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		return `it returned ${describe(value)} instead of an object { content, details }`;
	}
	const problem = contentProblem((value as { content?: unknown }).content);
	if (problem) return problem;
	const added = (value as { addedToolNames?: unknown }).addedToolNames;
	if (added !== undefined && !(Array.isArray(added) && added.every((n) => typeof n === "string"))) {
		return "its addedToolNames is not an array of strings";
	}
	return undefined;
}

function describe(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "an array";
	if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
	if (typeof value === "object") return "an object";
	return typeof value === "undefined" ? "undefined" : `${typeof value} ${describeValue(value)}`;
}
