/** The `read` tool: one page of a text file, or an image. */

import { type Static, Type } from "@sinclair/typebox";
import type { ExecutionEnv } from "../contract/env.js";
import type { Theme } from "../contract/render.js";
import { countLineBreaks } from "../contract/text.js";
import { type AgentToolResult, defineTool, type ToolDefinition } from "../contract/tool.js";
import { specialFileWords } from "../env/errors.js";
import { BINARY_SNIFF_BYTES, looksBinary, sniffImageMime } from "./_image.js";
import { resolveToolPath, stripAtPrefix, throwIfAborted } from "./_paths.js";
import { argText, field, previewLines, resultText, titleLine } from "./_render.js";
import { toBase64, utf8Length, utf8LengthBetween } from "./_utf8.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, type TruncationResult } from "./truncate.js";

/** The TypeBox schema of the `read` tool's arguments: `path`, and optional `offset` and `limit` in lines. */
export const readToolParameters = Type.Object({
	path: Type.String({ description: "File to read, relative to the working folder or absolute" }),
	offset: Type.Optional(Type.Number({ description: "First line to show, counting from 1" })),
	limit: Type.Optional(Type.Number({ description: "How many lines to show at most" })),
});

/** The arguments of a `read` call. */
export type ReadToolParams = Static<typeof readToolParameters>;

/** The `details` of a `read` result: the file size, the truncation of the page when it was cut, and what was done with an image. */
export interface ReadToolDetails {
	/**
	 * Set when the page was cut by the line or byte budget. `totalLines` and `totalBytes` describe
	 * the text from `offset` to the end of the file; for a file too large to count, `totalLines` is
	 * only the number of lines seen (a lower bound).
	 */
	readonly truncation?: TruncationResult;
	/** Size of the file in bytes. */
	readonly fileSize: number;
	/** Exact number of lines (`split("\n")` semantics), when it was counted. */
	readonly totalLines?: number;
	/** Set for images. */
	readonly image?: { readonly mimeType: string; readonly bytes: number; readonly omitted: boolean };
}

/** Options for `createReadTool`: page budgets, the size up to which files get an exact line count, and the largest image returned. */
export interface ReadToolOptions {
	/** Line budget of one page. Default `DEFAULT_MAX_LINES` (2000). */
	readonly maxLines?: number;
	/** Byte budget of one page. Default `DEFAULT_MAX_BYTES` (50 KB). */
	readonly maxBytes?: number;
	/**
	 * Files up to this many bytes get an exact line count in continuation notices; larger ones are
	 * described by size, so a page never costs a scan of a huge file. Default 16 MB.
	 */
	readonly countLinesUpTo?: number;
	/** Larger images are described but not attached (they are never resized). Default 5 MB. */
	readonly maxImageBytes?: number;
}

const FIRST_CHUNK = 64 * 1024;
const NEXT_CHUNK = 1024 * 1024;
const NEWLINE = 10;

/**
 * One chunk of the file. Positions inside it (`units`) are characters of `text` when it has text,
 * else bytes: a string's native `indexOf` finds line breaks several times faster than a byte
 * array's. `toByte` turns a position into a byte offset within the chunk; it is absent where the
 * two agree (bytes, pure ASCII).
 */
interface Chunk {
	/** Byte offset of the chunk in the file. */
	readonly offset: number;
	/** Length in bytes. */
	readonly length: number;
	/** Length in positions. */
	readonly units: number;
	readonly bytes: Uint8Array | undefined;
	readonly text: string | undefined;
	readonly toByte: ((unit: number) => number) | undefined;
}

const chunkDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * The chunk as a string when it is pure ASCII. A decoding as long as the bytes without U+FFFD
 * came from one byte per character (every multi-byte sequence decodes to fewer characters), so
 * it is ASCII.
 */
function asciiText(bytes: Uint8Array): string | undefined {
	const text = chunkDecoder.decode(bytes);
	return text.length === bytes.length && text.indexOf("\uFFFD") === -1 ? text : undefined;
}

/** Byte offsets of positions in a text, counted on from the position asked for last. */
function byteCursor(text: string): (unit: number) => number {
	let unit = 0;
	let byte = 0;
	return (to) => {
		if (to < unit) {
			unit = 0;
			byte = 0;
		}
		byte += utf8LengthBetween(text, unit, to);
		unit = to;
		return byte;
	};
}

const headEncoder = new TextEncoder();

/** The first bytes of a text chunk, enough to recognize any supported image. */
function headBytes(text: string): Uint8Array {
	return headEncoder.encode(text.slice(0, 32));
}

/** `looksBinary` for a text chunk: a NUL among its first `BINARY_SNIFF_BYTES` bytes. */
function textLooksBinary(text: string): boolean {
	const at = text.indexOf("\0");
	return at !== -1 && utf8LengthBetween(text, 0, at) < BINARY_SNIFF_BYTES;
}

/** Sequential chunks of a file through `env.readRange`; only the current chunk is held. */
class ChunkReader {
	position = 0;
	/** Cleared at the first chunk that is not ASCII: later ones are not decoded in vain. */
	private ascii = true;
	/** Set once `whole` returned the file: it held exactly `fileSize` bytes, so nothing follows. */
	private ended = false;

	/** Whether the chunks handed out so far hold the whole file. */
	get atEnd(): boolean {
		return this.ended;
	}
	constructor(
		private readonly env: ExecutionEnv,
		private readonly path: string,
		private readonly displayPath: string,
		private readonly signal: AbortSignal | undefined,
	) {}

	/**
	 * A small file whole, as one text chunk taken from the env's text (an env may hold the text
	 * already, and then nothing is encoded or decoded). Undefined when the file is larger, or when
	 * the text is not exactly its `fileSize` bytes (invalid bytes, a change since the size was
	 * taken): the bytes decide then.
	 */
	async whole(fileSize: number): Promise<Chunk | undefined> {
		if (fileSize > FIRST_CHUNK || this.position !== 0) return undefined;
		const read = await this.env.readTextFile(this.path, this.signal ? { signal: this.signal } : undefined);
		throwIfAborted(this.signal);
		if (!read.ok) throw readFailure(this.displayPath, read.error.code, read.error.message);
		const text = read.value;
		if (text.indexOf("\uFFFD") !== -1 || utf8Length(text) !== fileSize) return undefined;
		this.position = fileSize;
		this.ended = true;
		const ascii = text.length === fileSize;
		return {
			offset: 0,
			length: fileSize,
			units: text.length,
			bytes: undefined,
			text,
			toByte: ascii ? undefined : byteCursor(text),
		};
	}

	/** The next chunk, or an empty one at the end of the file. */
	async next(): Promise<Chunk> {
		const offset = this.position;
		if (this.ended)
			return { offset, length: 0, units: 0, bytes: new Uint8Array(0), text: undefined, toByte: undefined };
		const size = offset === 0 ? FIRST_CHUNK : NEXT_CHUNK;
		const result = await this.env.readRange(this.path, offset, size, this.signal ? { signal: this.signal } : undefined);
		throwIfAborted(this.signal);
		if (!result.ok) throw readFailure(this.displayPath, result.error.code, result.error.message);
		const bytes = result.value;
		this.position += bytes.length;
		const text = this.ascii && bytes.length > 0 ? asciiText(bytes) : undefined;
		if (text === undefined) this.ascii = false;
		return { offset, length: bytes.length, units: bytes.length, bytes, text, toByte: undefined };
	}
}

function readFailure(path: string, code: string, message: string): Error {
	if (code === "not_found") return new Error(`Could not read ${path}: the file does not exist.`);
	if (code === "is_directory")
		return new Error(`Could not read ${path}: it is a folder, not a file. Use bash (ls) to list it.`);
	return new Error(`Could not read ${path}: ${message}`);
}

function shellQuote(path: string): string {
	return /^[\w./@:+-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`;
}

/** Number of line breaks in the chunk from `from` on. */
function countNewlines(chunk: Chunk, from: number): number {
	if (chunk.text !== undefined) return countLineBreaks(chunk.text, from);
	let count = 0;
	const bytes = chunk.bytes as Uint8Array;
	for (let at = bytes.indexOf(NEWLINE, from); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) count++;
	return count;
}

interface PageScan {
	/** File offset where the page starts. */
	readonly startByte: number;
	/** File offset where the page ends (exclusive, before the newline of its last line). */
	readonly endByte: number;
	/** Lines in the page. */
	readonly lines: number;
	/** Bytes the page costs under the budget (line bytes plus separating newlines). */
	readonly bytes: number;
	readonly stop: "end" | "limit" | "lines" | "bytes" | "firstLine";
	/** Length of the first line when it alone is over the byte budget. */
	readonly firstLineBytes: number;
	/** Lines known so far: exact when `exact`. */
	readonly totalLines: number;
	readonly exact: boolean;
	/** Where the page starts and ends as positions in the first chunk, -1 when outside it. */
	readonly startUnit: number;
	readonly endUnit: number;
}

/**
 * Find the page: skip to line `startLine` counting newlines chunk by chunk (earlier chunks are
 * dropped), then take whole lines while both budgets allow, with the same decisions as
 * `truncateHead` on the selected text. Stops as soon as the page is decided; counts the remaining
 * lines only when `countRest` allows it.
 */
/** Bytes a line of `length` bytes adds to a page of `taken` lines: the line, and the newline before it. */
function lineCost(length: number, taken: number): number {
	return taken > 0 ? length + 1 : length;
}

/**
 * Why a line of `length` bytes cannot join a page of `taken` lines and `bytes` bytes: the first
 * line alone is over the budget, or the page would be; undefined when the line fits.
 */
function lineRefusal(
	length: number,
	taken: number,
	bytes: number,
	maxBytes: number,
): "firstLine" | "bytes" | undefined {
	if (taken === 0 && length > maxBytes) return "firstLine";
	if (bytes + lineCost(length, taken) > maxBytes) return "bytes";
	return undefined;
}

async function scanPage(
	reader: ChunkReader,
	first: Chunk,
	startLine: number,
	limit: number,
	maxLines: number,
	maxBytes: number,
	countRest: boolean,
): Promise<PageScan | { beyond: number }> {
	// A whole file from its first line, within the byte budget: counting its lines decides whether
	// it is the page (the common read of a small file), without taking it line by line.
	if (startLine === 0 && first.text !== undefined && reader.atEnd && first.length <= maxBytes) {
		const totalLines = countLineBreaks(first.text) + 1;
		if (totalLines <= maxLines && totalLines <= limit) {
			return {
				startByte: 0,
				endByte: first.length,
				lines: totalLines,
				bytes: first.length,
				stop: "end",
				firstLineBytes: 0,
				totalLines,
				exact: true,
				startUnit: 0,
				endUnit: first.units,
			};
		}
	}
	let chunk = first;
	let newlines = 0;
	let startByte = startLine === 0 ? 0 : -1;
	let lineStart = 0;
	let taken = 0;
	let bytes = 0;
	let endByte = 0;
	let stop: PageScan["stop"] | undefined;
	let firstLineBytes = 0;
	let lookingForLineEnd = false;
	let pos = 0;
	let startUnit = startLine === 0 ? 0 : -1;
	let endUnit = -1;
	if (limit === 0 && startLine === 0) stop = "limit";

	while (true) {
		const { bytes: data, text, length: size, toByte } = chunk;
		const base = chunk.offset;
		const inFirst = chunk === first;
		while (stop === undefined || lookingForLineEnd) {
			const nl = text !== undefined ? text.indexOf("\n", pos) : (data as Uint8Array).indexOf(NEWLINE, pos);
			if (startByte === -1) {
				if (nl === -1) break;
				newlines++;
				pos = nl + 1;
				if (newlines === startLine) {
					startByte = base + (toByte ? toByte(pos) : pos);
					startUnit = inFirst ? pos : -1;
					lineStart = startByte;
					if (limit === 0) stop = "limit";
				}
				continue;
			}
			// Byte offset of the line break in the file.
			const nlByte = nl === -1 ? -1 : base + (toByte ? toByte(nl) : nl);
			if (lookingForLineEnd) {
				if (nl === -1) break;
				firstLineBytes = nlByte - lineStart;
				lookingForLineEnd = false;
				break;
			}
			if (nl === -1) {
				// A line still open at the end of the chunk: stop early when it can no longer fit.
				const partial = base + size - lineStart;
				if (taken === 0 && partial > maxBytes) {
					stop = "firstLine";
					lookingForLineEnd = true;
				} else if (taken > 0 && bytes + partial + 1 > maxBytes) stop = "bytes";
				break;
			}
			newlines++;
			pos = nl + 1;
			const length = nlByte - lineStart;
			const refused = lineRefusal(length, taken, bytes, maxBytes);
			if (refused !== undefined) {
				stop = refused;
				if (refused === "firstLine") firstLineBytes = length;
				break;
			}
			bytes += lineCost(length, taken);
			taken++;
			endByte = nlByte;
			endUnit = inFirst ? nl : -1;
			lineStart = nlByte + 1;
			// This line ended with a newline, so another line (maybe empty) follows it.
			if (taken === limit) stop = "limit";
			else if (taken === maxLines) stop = "lines";
		}
		if (stop !== undefined && !lookingForLineEnd) break;
		if (pos < chunk.units && stop === undefined && startByte !== -1) pos = chunk.units;
		const previous = chunk;
		chunk = await reader.next();
		pos = 0;
		if (chunk.length === 0) {
			// End of file: the text after the last newline is the last line.
			if (startByte === -1) return { beyond: newlines + 1 };
			if (lookingForLineEnd) {
				firstLineBytes = chunk.offset - lineStart;
				lookingForLineEnd = false;
				break;
			}
			if (stop !== undefined) break;
			const length = chunk.offset - lineStart;
			const refused = lineRefusal(length, taken, bytes, maxBytes);
			if (refused !== undefined) {
				stop = refused;
				if (refused === "firstLine") firstLineBytes = length;
			} else {
				bytes += lineCost(length, taken);
				taken++;
				endByte = chunk.offset;
				endUnit = previous === first ? first.units : -1;
				stop = "end";
			}
			return {
				startByte,
				endByte,
				lines: taken,
				bytes,
				stop,
				firstLineBytes,
				totalLines: newlines + 1,
				exact: true,
				startUnit,
				endUnit,
			};
		}
	}
	if (startByte === -1) startByte = 0;
	// The page is decided. Count the lines after it when that is affordable.
	let exact = chunk.length === 0;
	if (countRest && !exact) {
		newlines += countNewlines(chunk, pos);
		for (let next = await reader.next(); next.length > 0; next = await reader.next()) {
			newlines += countNewlines(next, 0);
		}
		exact = true;
	}
	return {
		startByte,
		endByte,
		lines: taken,
		bytes,
		stop: stop ?? "end",
		firstLineBytes,
		totalLines: newlines + 1,
		exact,
		startUnit,
		endUnit,
	};
}

/**
 * The `read` tool. Pages through text files with `env.readRange`, so the cost follows the page,
 * not the file; returns png, jpeg, gif, webp and bmp files (recognized by content) as images.
 */
export function createReadTool(
	options: ReadToolOptions = {},
): ToolDefinition<typeof readToolParameters, ReadToolDetails, "read"> {
	const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
	const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
	const countLinesUpTo = options.countLinesUpTo ?? 16 * 1024 * 1024;
	const maxImageBytes = options.maxImageBytes ?? 5 * 1024 * 1024;
	return defineTool({
		name: "read",
		label: "read",
		annotations: { readOnlyHint: true, openWorldHint: false },
		description: `Read a file. Text files come back one page at a time: at most ${maxLines} lines or ${formatSize(maxBytes)}, whichever is reached first, and a cut page ends with a notice giving the offset to continue from. Use offset (first line, from 1) and limit (number of lines) to read other parts; to read a whole large file, keep calling with the offset from the notice until the end. Images (png, jpeg, gif, webp, bmp) are returned as image attachments.`,
		promptSnippet: "Read file contents (text pages or images)",
		promptGuidelines: ["Use read to look at files rather than cat, head or sed."],
		parameters: readToolParameters,
		async execute(_toolCallId, { path, offset, limit }, signal, _onUpdate, ctx) {
			throwIfAborted(signal);
			const displayPath = stripAtPrefix(path);
			const absolutePath = resolveToolPath(ctx, path);
			const info = await ctx.env.fileInfo(absolutePath);
			throwIfAborted(signal);
			if (!info.ok) throw readFailure(displayPath, info.error.code, info.error.message);
			if (info.value.kind === "directory") throw readFailure(displayPath, "is_directory", "");
			// A FIFO or a device may block forever or never end: refused from its metadata, never opened.
			if (info.value.kind !== "file") {
				throw new Error(
					`Could not read ${displayPath}: it is ${specialFileWords(info.value.kind)}, not a regular file. read only reads regular files; use bash (with head -c or timeout) if you really need its bytes.`,
				);
			}
			const fileSize = info.value.size;
			const reader = new ChunkReader(ctx.env, absolutePath, displayPath, signal);
			const first = (await reader.whole(fileSize)) ?? (await reader.next());

			const mimeType = sniffImageMime(first.bytes ?? headBytes(first.text ?? ""));
			if (mimeType) return readImage(ctx.env, absolutePath, displayPath, mimeType, fileSize, maxImageBytes, signal);
			if (first.bytes ? looksBinary(first.bytes) : textLooksBinary(first.text ?? "")) {
				throw new Error(
					`Could not read ${displayPath}: it is a binary file (it contains NUL bytes), not text or a supported image (png, jpeg, gif, webp, bmp).`,
				);
			}

			const startLine = offset ? Math.max(0, Math.floor(offset) - 1) : 0;
			const lineLimit = limit === undefined ? Number.POSITIVE_INFINITY : Math.max(0, Math.floor(limit));
			const scan = await scanPage(reader, first, startLine, lineLimit, maxLines, maxBytes, fileSize <= countLinesUpTo);
			if ("beyond" in scan) throw new Error(`Offset ${offset} is beyond end of file (${scan.beyond} lines total)`);

			const firstShown = startLine + 1;
			const total = scan.exact ? scan.totalLines : undefined;
			const page = await pageText(ctx.env, absolutePath, displayPath, first, scan, signal);
			const truncated = scan.stop === "lines" || scan.stop === "bytes" || scan.stop === "firstLine";
			const details: ReadToolDetails = { fileSize, ...(total !== undefined ? { totalLines: total } : {}) };
			if (!truncated) {
				let text = page;
				if (scan.stop === "limit") {
					const next = startLine + scan.lines + 1;
					text +=
						total !== undefined
							? `\n\n[${total - (startLine + scan.lines)} more lines in file. Use offset=${next} to continue.]`
							: `\n\n[More lines follow in this ${formatSize(fileSize)} file. Use offset=${next} to continue.]`;
				}
				return { content: [{ type: "text", text }], details };
			}
			const selectedLines = total !== undefined ? Math.min(lineLimit, total - startLine) : Math.max(scan.lines + 1, 0);
			const truncation: TruncationResult = {
				content: page,
				truncated: true,
				truncatedBy: scan.stop === "lines" ? "lines" : "bytes",
				totalLines: selectedLines,
				totalBytes: fileSize - scan.startByte,
				outputLines: scan.lines,
				outputBytes: scan.bytes,
				lastLinePartial: false,
				firstLineExceedsLimit: scan.stop === "firstLine",
				maxLines,
				maxBytes,
			};
			let text: string;
			if (scan.stop === "firstLine") {
				text = `[Line ${firstShown} is ${formatSize(scan.firstLineBytes)}, exceeds ${formatSize(maxBytes)} limit. Use bash: sed -n '${firstShown}p' ${shellQuote(displayPath)} | head -c ${maxBytes}]`;
			} else {
				const last = firstShown + scan.lines - 1;
				const of = total !== undefined ? `of ${total}` : `of a ${formatSize(fileSize)} file`;
				const budget = scan.stop === "bytes" ? ` (${formatSize(maxBytes)} limit)` : "";
				text = `${page}\n\n[Showing lines ${firstShown}-${last} ${of}${budget}. Use offset=${last + 1} to continue.]`;
			}
			return { content: [{ type: "text", text }], details: { ...details, truncation } };
		},
		renderCall(args, theme: Theme) {
			const offset = field(args, "offset");
			const limit = field(args, "limit");
			let range = "";
			if (typeof offset === "number" || typeof limit === "number") {
				const from = typeof offset === "number" ? offset : 1;
				range = theme.fg("warning", `:${from}${typeof limit === "number" ? `-${from + limit - 1}` : ""}`);
			}
			return titleLine(theme, "read", `${argText(theme, field(args, "path"))}${range}`);
		},
		renderResult(result, options, theme, context) {
			const lines = previewLines(theme, resultText(result), { expanded: options.expanded, maxLines: 10 });
			if (context?.isError) return lines.map((l) => theme.fg("error", l));
			return lines;
		},
	});
}

/** The page's text: a slice of the first chunk's text when that holds the page, else read again. */
async function pageText(
	env: ExecutionEnv,
	absolutePath: string,
	displayPath: string,
	first: Chunk,
	scan: PageScan,
	signal: AbortSignal | undefined,
): Promise<string> {
	if (scan.endByte <= scan.startByte) return "";
	if (first.text !== undefined && scan.startUnit !== -1 && scan.endUnit !== -1) {
		return first.text.slice(scan.startUnit, scan.endUnit);
	}
	const bytes = await env.readRange(
		absolutePath,
		scan.startByte,
		scan.endByte - scan.startByte,
		signal ? { signal } : undefined,
	);
	throwIfAborted(signal);
	if (!bytes.ok) throw readFailure(displayPath, bytes.error.code, bytes.error.message);
	// ignoreBOM keeps a byte-order mark visible, as the file really has one.
	return new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes.value);
}

async function readImage(
	env: ExecutionEnv,
	absolutePath: string,
	displayPath: string,
	mimeType: string,
	fileSize: number,
	maxImageBytes: number,
	signal: AbortSignal | undefined,
): Promise<AgentToolResult<ReadToolDetails>> {
	if (fileSize > maxImageBytes) {
		return {
			content: [
				{
					type: "text",
					text: `Read image file [${mimeType}]\n[Image omitted: it is ${formatSize(fileSize)}, over the ${formatSize(maxImageBytes)} limit for inline images.]`,
				},
			],
			details: { fileSize, image: { mimeType, bytes: fileSize, omitted: true } },
		};
	}
	const bytes = await env.readBinaryFile(absolutePath, signal ? { signal } : undefined);
	throwIfAborted(signal);
	if (!bytes.ok) throw readFailure(displayPath, bytes.error.code, bytes.error.message);
	return {
		content: [
			{ type: "text", text: `Read image file [${mimeType}]` },
			{ type: "image", data: toBase64(bytes.value), mimeType },
		],
		details: { fileSize, image: { mimeType, bytes: bytes.value.length, omitted: false } },
	};
}
