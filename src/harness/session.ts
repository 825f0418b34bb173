/**
 * Recorded agent sessions: the JSONL session files of the pi coding agent, reduced to what a tool
 * author can test against — the tool-call batches, what each call returned, and the working folder.
 *
 * Two layouts are read. Version 1 is a plain list of entries in order. Versions 2 and later link
 * entries into a tree (`id`/`parentId`), so one file can hold several branches of a conversation;
 * only the active branch counts: the path from the last entry back to the root.
 *
 * Runtime-neutral: `parseSession` takes the file's text. `loadSession` (`toolsmith-sdk/harness`, Node
 * only) reads a file and calls it.
 */
import type { NestedCalls, ToolCall, ToolResultContent } from "../contract/content.js";
import { errorMessage } from "../contract/errors.js";
import { parseNestedCalls } from "./_nested-lines.js";

/** `{ nestedCalls }` when a result message holds a readable record of nested calls. */
function nestedOf(value: unknown): { nestedCalls?: NestedCalls } {
	const nested = value === undefined ? undefined : parseNestedCalls(value);
	return nested ? { nestedCalls: nested } : {};
}

/** What a call returned, as the session recorded it. */
export interface RecordedResult {
	readonly content: readonly ToolResultContent[];
	readonly details: unknown;
	readonly isError: boolean;
	/** 1-based line of the result message in the session file. */
	readonly line: number;
	/** Milliseconds since the epoch, when the session has it. */
	readonly timestamp: number | undefined;
	/** The calls the tool made through `ctx.executeTool` (pi 1.x records them on the result), when it made any. */
	readonly nestedCalls?: NestedCalls;
}

/** One tool call of a recorded batch. */
export interface RecordedCall {
	/** Position among all calls of the session, from 0. */
	readonly index: number;
	/** The batch (assistant message) this call belongs to. */
	readonly batch: number;
	readonly toolCall: ToolCall;
	/**
	 * The recorded result, or `undefined` when the session holds none (the call never ran: the
	 * assistant message ended in an error or was aborted, or the session stopped before it ran).
	 */
	readonly result: RecordedResult | undefined;
}

/** The tool calls of one assistant message, in the order the model sent them. */
export interface RecordedBatch {
	/** Position among the batches of the session, from 0. */
	readonly index: number;
	/** 1-based line of the assistant message in the session file. */
	readonly line: number;
	/** The entry id in tree sessions; `undefined` in version 1 files. */
	readonly entryId: string | undefined;
	/** How the assistant message ended (`toolUse`, `error`, `aborted`, …), when recorded. */
	readonly stopReason: string | undefined;
	/** How many user messages came before this batch (the user may change files between turns). */
	readonly turn: number;
	/**
	 * Commands the user ran in the session's shell (pi's `!command`) since the previous batch. They
	 * may have changed files the recording knows nothing about.
	 */
	readonly userCommands: readonly string[];
	readonly calls: readonly RecordedCall[];
}

/** Counts that summarize a session; handy in reports and tests. */
export interface SessionFigures {
	readonly batches: number;
	readonly calls: number;
	/** Calls per tool name. */
	readonly callsByTool: Readonly<Record<string, number>>;
	/** Calls with a recorded result. */
	readonly results: number;
	/** Calls without a recorded result. */
	readonly missingResults: number;
	/** Recorded results with `isError: true`. */
	readonly errors: number;
	/** Recorded errors per tool name. */
	readonly errorsByTool: Readonly<Record<string, number>>;
}

/** A recorded agent session, as `parseSession` reads it: its working folder and its tool calls in batches, each with its recorded result. */
export interface RecordedSession {
	/** The session format version: 1 (linear) or 2+ (tree). */
	readonly version: number;
	readonly id: string | undefined;
	/** The folder the agent worked in; relative paths in tool calls resolve against it. */
	readonly cwd: string;
	readonly batches: readonly RecordedBatch[];
	/** Every call of every batch, in order (the same objects as in `batches`). */
	readonly calls: readonly RecordedCall[];
	readonly figures: SessionFigures;
	/**
	 * Problems that did not stop parsing, each naming the line: unparsable lines (a session cut
	 * off mid-write), results without a matching call, entries whose parent is missing.
	 */
	readonly warnings: readonly string[];
}

/** Thrown for text that is not a session at all (no header, no entries); the message says why. */
export class SessionParseError extends Error {
	override readonly name = "SessionParseError";
	/** 1-based line the problem is on, when there is one. */
	readonly line: number | undefined;

	constructor(message: string, line?: number) {
		super(message);
		this.line = line;
	}
}

/** Options for `parseSession` and `loadSession`. */
export interface ParseSessionOptions {
	/** Names the source in messages (a file path); default `session`. */
	readonly source?: string;
	/**
	 * The working folder to use when the header has none (or to override it). Session headers
	 * normally carry it.
	 */
	readonly cwd?: string;
}

interface Entry {
	readonly raw: Record<string, unknown>;
	readonly line: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asString(value: unknown): string | undefined {
	return typeof value === "string" ? value : undefined;
}

/** Tool result content as recorded: an array of blocks, or (in some writers) a bare string. */
function normalizeContent(value: unknown): ToolResultContent[] {
	if (typeof value === "string") return [{ type: "text", text: value }];
	if (!Array.isArray(value)) return [];
	const blocks: ToolResultContent[] = [];
	for (const block of value) {
		if (!isRecord(block)) continue;
		if (block.type === "text" && typeof block.text === "string") blocks.push({ type: "text", text: block.text });
		else if (block.type === "image" && typeof block.data === "string") {
			blocks.push({
				type: "image",
				data: block.data,
				mimeType: asString(block.mimeType) ?? "application/octet-stream",
			});
		}
	}
	return blocks;
}

function splitLines(text: string, source: string, warnings: string[]): Entry[] {
	const entries: Entry[] = [];
	let start = 0;
	let lineNo = 0;
	while (start <= text.length) {
		let end = text.indexOf("\n", start);
		if (end === -1) end = text.length;
		lineNo++;
		const line = text.slice(start, end).trim();
		start = end + 1;
		if (line === "") continue;
		let value: unknown;
		try {
			value = JSON.parse(line);
		} catch (error) {
			warnings.push(`${source}:${lineNo}: not valid JSON (${errorMessage(error)}); line skipped`);
			continue;
		}
		if (!isRecord(value) || typeof value.type !== "string") {
			warnings.push(`${source}:${lineNo}: not a session entry (an object with a "type"); line skipped`);
			continue;
		}
		entries.push({ raw: value, line: lineNo });
	}
	return entries;
}

/**
 * The entries of the active branch, oldest first: the path from the last entry that has an id back
 * to the root. Entries without an id (version 1 files) are taken as a linear list.
 */
function activeBranch(entries: readonly Entry[], source: string, warnings: string[]): Entry[] {
	const withIds = entries.filter((entry) => typeof entry.raw.id === "string");
	if (withIds.length === 0) return [...entries];
	const byId = new Map<string, Entry>();
	for (const entry of withIds) {
		const id = entry.raw.id as string;
		if (byId.has(id))
			warnings.push(`${source}:${entry.line}: duplicate entry id ${JSON.stringify(id)}; the later one wins`);
		byId.set(id, entry);
	}
	const path: Entry[] = [];
	const seen = new Set<string>();
	let current: Entry | undefined = withIds[withIds.length - 1];
	while (current) {
		const id = current.raw.id as string;
		if (seen.has(id)) {
			warnings.push(`${source}:${current.line}: the parent links loop back to ${JSON.stringify(id)}; branch cut there`);
			break;
		}
		seen.add(id);
		path.push(current);
		const parentId = current.raw.parentId;
		if (typeof parentId !== "string") break;
		const parent = byId.get(parentId);
		if (!parent) {
			warnings.push(
				`${source}:${current.line}: parent ${JSON.stringify(parentId)} is not in the file; the branch starts here`,
			);
			break;
		}
		current = parent;
	}
	return path.reverse();
}

function countBy(calls: readonly RecordedCall[], keep: (call: RecordedCall) => boolean): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const call of calls) {
		if (!keep(call)) continue;
		const name = call.toolCall.name;
		counts[name] = (counts[name] ?? 0) + 1;
	}
	return counts;
}

/** The summary counts of a parsed session. */
export function sessionFigures(batches: readonly RecordedBatch[]): SessionFigures {
	const calls = batches.flatMap((batch) => batch.calls);
	const results = calls.filter((call) => call.result !== undefined).length;
	const errors = calls.filter((call) => call.result?.isError === true).length;
	return {
		batches: batches.length,
		calls: calls.length,
		callsByTool: countBy(calls, () => true),
		results,
		missingResults: calls.length - results,
		errors,
		errorsByTool: countBy(calls, (call) => call.result?.isError === true),
	};
}

/**
 * Parse the text of a session file. Lines that are not JSON entries are skipped with a warning
 * (a session cut off while it was written still yields its complete entries). Throws a
 * `SessionParseError` only when the text has no session entries at all or no working folder
 * (neither in the header nor in `options.cwd`).
 */
export function parseSession(text: string, options: ParseSessionOptions = {}): RecordedSession {
	const source = options.source ?? "session";
	const warnings: string[] = [];
	const entries = splitLines(text.startsWith("\uFEFF") ? text.slice(1) : text, source, warnings);
	if (entries.length === 0) {
		throw new SessionParseError(`${source}: no session entries found (expected JSON lines with a "type" field)`);
	}
	const header = entries.find((entry) => entry.raw.type === "session");
	const headerVersion = header?.raw.version;
	const version = typeof headerVersion === "number" ? headerVersion : 1;
	const cwd = options.cwd ?? asString(header?.raw.cwd);
	if (cwd === undefined || cwd === "") {
		throw new SessionParseError(
			`${source}: the session header has no "cwd"; pass the working folder as the cwd option`,
			header?.line,
		);
	}

	const body = entries.filter((entry) => entry.raw.type !== "session");
	const branch = activeBranch(body, source, warnings);

	const batches: RecordedBatch[] = [];
	const calls: RecordedCall[] = [];
	const pending = new Map<string, { batch: number; position: number }>();
	const results = new Map<number, RecordedResult>();
	let turn = 0;
	let userCommands: string[] = [];

	for (const entry of branch) {
		if (entry.raw.type !== "message") continue;
		const message = entry.raw.message;
		if (!isRecord(message)) {
			warnings.push(`${source}:${entry.line}: message entry without a message object; skipped`);
			continue;
		}
		const role = message.role;
		if (role === "user") {
			turn++;
			continue;
		}
		if (role === "bashExecution") {
			const command = asString(message.command);
			if (command !== undefined) userCommands.push(command);
			continue;
		}
		if (role === "assistant") {
			const content = Array.isArray(message.content) ? message.content : [];
			const toolCalls: ToolCall[] = [];
			for (const block of content) {
				if (!isRecord(block) || block.type !== "toolCall") continue;
				const id = asString(block.id);
				const name = asString(block.name);
				if (id === undefined || name === undefined) {
					warnings.push(`${source}:${entry.line}: a tool call without id or name; skipped`);
					continue;
				}
				toolCalls.push({ type: "toolCall", id, name, arguments: block.arguments });
			}
			if (toolCalls.length === 0) continue;
			const batchIndex = batches.length;
			const batchCalls: RecordedCall[] = [];
			for (const toolCall of toolCalls) {
				const index = calls.length;
				if (pending.has(toolCall.id)) {
					warnings.push(`${source}:${entry.line}: tool call id ${JSON.stringify(toolCall.id)} is used twice`);
				}
				pending.set(toolCall.id, { batch: batchIndex, position: index });
				// The result is filled in below, once its message is seen.
				const call: RecordedCall = { index, batch: batchIndex, toolCall, result: undefined };
				batchCalls.push(call);
				calls.push(call);
			}
			batches.push({
				index: batchIndex,
				line: entry.line,
				entryId: asString(entry.raw.id),
				stopReason: asString(message.stopReason),
				turn,
				userCommands,
				calls: batchCalls,
			});
			userCommands = [];
			continue;
		}
		if (role === "toolResult") {
			const id = asString(message.toolCallId);
			const owner = id === undefined ? undefined : pending.get(id);
			if (!owner || id === undefined) {
				warnings.push(`${source}:${entry.line}: a tool result for unknown call ${JSON.stringify(id)}; ignored`);
				continue;
			}
			pending.delete(id);
			const timestamp = message.timestamp;
			results.set(owner.position, {
				content: normalizeContent(message.content),
				details: message.details,
				isError: message.isError === true,
				line: entry.line,
				timestamp: typeof timestamp === "number" ? timestamp : undefined,
				...nestedOf(message.nestedCalls),
			});
		}
	}

	// Attach results (calls are immutable records, so they are rebuilt once here).
	const finalCalls: RecordedCall[] = calls.map((call) => ({ ...call, result: results.get(call.index) }));
	const finalBatches: RecordedBatch[] = batches.map((batch) => ({
		...batch,
		calls: batch.calls.map((call) => finalCalls[call.index]!),
	}));

	return {
		version,
		id: asString(header?.raw.id),
		cwd,
		batches: finalBatches,
		calls: finalCalls,
		figures: sessionFigures(finalBatches),
		warnings,
	};
}
