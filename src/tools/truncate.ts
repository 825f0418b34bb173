/**
 * Output limits shared by the built-in tools, and helpers for tools of your own.
 *
 * Two budgets apply together, lines and bytes, and whichever runs out first decides. Head
 * truncation (for reading files) keeps the start; tail truncation (for command output) keeps the
 * end, where errors and summaries usually are.
 */
import { utf8Length, utf8Suffix } from "./_utf8.js";

/** Default line budget of tool output. */
export const DEFAULT_MAX_LINES = 2000;
/** Default byte budget of tool output (UTF-8 bytes). */
export const DEFAULT_MAX_BYTES = 50 * 1024;
/** Default character budget of `truncateLine`. */
export const DEFAULT_MAX_LINE_CHARS = 500;

/** Budgets for the truncation helpers: lines and UTF-8 bytes. */
export interface TruncationOptions {
	/** Line budget; `DEFAULT_MAX_LINES` when absent. */
	readonly maxLines?: number;
	/** Byte budget (UTF-8); `DEFAULT_MAX_BYTES` when absent. */
	readonly maxBytes?: number;
}

/** What a truncation kept and what it dropped. Lines are counted as `text.split("\n").length`. */
export interface TruncationResult {
	/** The text that was kept. */
	content: string;
	/** Whether anything was dropped. */
	truncated: boolean;
	/** Which budget ran out first; `null` when nothing was dropped. */
	truncatedBy: "lines" | "bytes" | null;
	/** Lines of the input. */
	totalLines: number;
	/** UTF-8 bytes of the input. */
	totalBytes: number;
	/** Lines kept. */
	outputLines: number;
	/** UTF-8 bytes kept. */
	outputBytes: number;
	/** Tail truncation only: the kept text starts in the middle of the input's last line. */
	lastLinePartial: boolean;
	/** Head truncation only: the first line alone is over the byte budget, so nothing was kept. */
	firstLineExceedsLimit: boolean;
	maxLines: number;
	maxBytes: number;
}

/** A byte count for people: `512B`, `50.0KB`, `1.5MB`. */
export function formatSize(bytes: number): string {
	if (bytes < 1024) return `${bytes}B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
	return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

function untouched(content: string, totalLines: number, totalBytes: number, maxLines: number, maxBytes: number) {
	return {
		content,
		truncated: false,
		truncatedBy: null,
		totalLines,
		totalBytes,
		outputLines: totalLines,
		outputBytes: totalBytes,
		lastLinePartial: false,
		firstLineExceedsLimit: false,
		maxLines,
		maxBytes,
	} satisfies TruncationResult;
}

/** The budgets, the lines and the byte size of `content`, and its untouched result when it fits. */
function measure(content: string, options: TruncationOptions) {
	const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
	const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
	let lineCount = 1;
	for (let at = content.indexOf("\n"); at !== -1 && lineCount <= maxLines; at = content.indexOf("\n", at + 1))
		lineCount++;
	const totalBytes = utf8Length(content);
	// Content that fits is returned as it is, without splitting it into lines.
	if (lineCount <= maxLines && totalBytes <= maxBytes) {
		return {
			maxLines,
			maxBytes,
			lines: [],
			totalBytes,
			whole: untouched(content, lineCount, totalBytes, maxLines, maxBytes),
		};
	}
	const lines = content.split("\n");
	return { maxLines, maxBytes, lines, totalBytes, whole: undefined };
}

/**
 * Keep the first lines of `content` that fit both budgets. Only whole lines are kept: when the
 * first line alone is over the byte budget the result is empty with `firstLineExceedsLimit`.
 */
export function truncateHead(content: string, options: TruncationOptions = {}): TruncationResult {
	const { maxLines, maxBytes, lines, totalBytes, whole } = measure(content, options);
	if (whole) return whole;
	const firstBytes = utf8Length(lines[0] ?? "");
	if (firstBytes > maxBytes) {
		return {
			content: "",
			truncated: true,
			truncatedBy: "bytes",
			totalLines: lines.length,
			totalBytes,
			outputLines: 0,
			outputBytes: 0,
			lastLinePartial: false,
			firstLineExceedsLimit: true,
			maxLines,
			maxBytes,
		};
	}
	let kept = 0;
	let bytes = 0;
	let truncatedBy: "lines" | "bytes" = "lines";
	while (kept < lines.length && kept < maxLines) {
		// Every line after the first also costs the newline that separates it from the previous one.
		const cost = utf8Length(lines[kept] ?? "") + (kept > 0 ? 1 : 0);
		if (bytes + cost > maxBytes) {
			truncatedBy = "bytes";
			break;
		}
		bytes += cost;
		kept++;
	}
	if (kept >= maxLines) truncatedBy = "lines";
	return {
		content: lines.slice(0, kept).join("\n"),
		truncated: true,
		truncatedBy,
		totalLines: lines.length,
		totalBytes,
		outputLines: kept,
		outputBytes: bytes,
		lastLinePartial: false,
		firstLineExceedsLimit: false,
		maxLines,
		maxBytes,
	};
}

/**
 * Keep the last lines of `content` that fit both budgets. When the last line alone is over the
 * byte budget, its end is kept (cut on a character boundary) and `lastLinePartial` is set.
 */
export function truncateTail(content: string, options: TruncationOptions = {}): TruncationResult {
	const { maxLines, maxBytes, lines, totalBytes, whole } = measure(content, options);
	if (whole) return whole;
	let first = lines.length;
	let bytes = 0;
	let truncatedBy: "lines" | "bytes" = "lines";
	let lastLinePartial = false;
	let partial: string | undefined;
	while (first > 0 && lines.length - first < maxLines) {
		const line = lines[first - 1] ?? "";
		const cost = utf8Length(line) + (first < lines.length ? 1 : 0);
		if (bytes + cost > maxBytes) {
			truncatedBy = "bytes";
			if (first === lines.length) {
				partial = utf8Suffix(line, maxBytes);
				bytes = utf8Length(partial);
				lastLinePartial = true;
			}
			break;
		}
		bytes += cost;
		first--;
	}
	const keptLines = partial !== undefined ? [partial] : lines.slice(first);
	if (keptLines.length >= maxLines && bytes <= maxBytes) truncatedBy = "lines";
	const kept = keptLines.join("\n");
	return {
		content: kept,
		truncated: true,
		truncatedBy,
		totalLines: lines.length,
		totalBytes,
		outputLines: keptLines.length,
		outputBytes: utf8Length(kept),
		lastLinePartial,
		firstLineExceedsLimit: false,
		maxLines,
		maxBytes,
	};
}

/** Cut one line to `maxChars` characters, marking the cut with `... [truncated]`. */
export function truncateLine(
	line: string,
	maxChars: number = DEFAULT_MAX_LINE_CHARS,
): { text: string; wasTruncated: boolean } {
	if (line.length <= maxChars) return { text: line, wasTruncated: false };
	return { text: `${line.slice(0, maxChars)}... [truncated]`, wasTruncated: true };
}
