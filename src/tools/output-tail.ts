/**
 * Command output with bounded memory: the last bytes for display, counters for the whole stream,
 * and, once the output outgrows the budget, a spill file in the env holding all of it.
 *
 * The tail is kept as raw bytes and decoded only when a snapshot is taken (at most a few times a
 * second), so a command printing gigabytes costs a byte copy per chunk rather than a decode of
 * every byte. Raw bytes cannot split a character between chunks; where the kept tail starts in
 * the middle of one, the decoder skips the partial bytes.
 */
import type { ExecutionEnv } from "../contract/env.js";
import { type TruncationResult, truncateTail } from "./truncate.js";

const NEWLINE = 10;
/** Size of the blocks output is copied into on its way to the spill file. */
const BLOCK_BYTES = 1024 * 1024;
/**
 * First size of the staging block. Most commands print a few lines, so the block starts small and
 * doubles as output arrives; a full-size block up front would cost a megabyte per command.
 */
const FIRST_BLOCK_BYTES = 4096;
/**
 * Staged bytes waiting for the spill file above which the command is held back (see `backlog`).
 * A fast producer outruns the file appends; without a bound, the queue of blocks grows with it.
 */
const BACKLOG_BYTES = 4 * BLOCK_BYTES;

const finalDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

export interface OutputSnapshot {
	readonly content: string;
	readonly truncation: TruncationResult;
	readonly fullOutputPath: string | undefined;
	/** What was removed from `content` (see `stripControl`); undefined when nothing was. */
	readonly stripped: StrippedCounts | undefined;
}

/** How the spill file ended up. */
export interface SpillOutcome {
	/** The file, once created. */
	readonly path: string | undefined;
	/** Why it could not be created, or why a write to it failed (nothing was appended after that). */
	readonly error: string | undefined;
	/** Bytes the file holds. */
	readonly savedBytes: number;
	/** Writing stopped at the cap on the spill file's size. */
	readonly capped: boolean;
}

/** What `stripControl` removed: terminal escape sequences, and other control characters. */
export interface StrippedCounts {
	/** ANSI/VT escape sequences (colors, cursor moves, titles), each removed whole. */
	readonly escapeSequences: number;
	/** Control characters other than tab, newline and carriage return: C0, DEL and C1. */
	readonly controlCharacters: number;
}

/**
 * Terminal escape sequences, removed whole so no `[31m` is left behind: CSI (`ESC [ … final`,
 * also the one-character C1 CSI), OSC (`ESC ] … BEL` or `… ESC \`), DCS/SOS/PM/APC strings ending
 * in `ESC \`, and the short `ESC <intermediates> <final>` forms (`ESC 7`, `ESC ( B`, `ESC c`).
 */
const ESCAPE_SEQUENCE =
	// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
	/\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[ -/]*[0-~]/g;
/** Control characters kept out of the model's text: C0 except tab, newline, carriage return; DEL; C1. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g;
/** Quick test: does the text hold anything `stripControl` would remove? */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const ANY_CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/;

/**
 * `text` without terminal escape sequences and control characters other than tab, newline and
 * carriage return, plus where each removal happened (as offsets into the returned text), so the
 * counts can be limited to the part of the text that is kept.
 */
export function stripControl(text: string): { text: string; escapes: number[]; controls: number[] } {
	const escapes: number[] = [];
	const controls: number[] = [];
	if (!ANY_CONTROL.test(text)) return { text, escapes, controls };
	let removed = 0;
	const withoutEscapes = text.replace(ESCAPE_SEQUENCE, (match: string, offset: number) => {
		escapes.push(offset - removed);
		removed += match.length;
		return "";
	});
	removed = 0;
	const clean = withoutEscapes.replace(CONTROL, (match: string, offset: number) => {
		controls.push(offset - removed);
		removed += match.length;
		return "";
	});
	// Escape offsets are into the text before the controls went: a control at clean offset
	// `controls[c]` sat at `controls[c] + c` there, so move each escape back past those before it.
	let c = 0;
	for (let i = 0; i < escapes.length; i++) {
		const at = escapes[i] as number;
		while (c < controls.length && (controls[c] as number) + c < at) c++;
		escapes[i] = at - c;
	}
	return { text: clean, escapes, controls };
}

export class OutputTail {
	private chunks: Uint8Array[] = [];
	private chunkBytes = 0;
	/** Whether the oldest kept byte starts a line (the byte dropped before it was a newline). */
	private startsAtLine = true;
	private totalBytes = 0;
	private totalLines = 1;
	private lastLineBytes = 0;
	/**
	 * Output not yet in the spill file (everything, until spilling starts), copied into compact
	 * blocks: a pipe's chunks are views into larger buffers, and holding them would pin those.
	 */
	private unsaved: Uint8Array[] = [];
	/** Bytes in `unsaved`. */
	private unsavedBytes = 0;
	/** Wakes the caller held back by `backlog`, once the queue is short again. */
	private wake: (() => void) | undefined;
	private waiting: Promise<void> | undefined;
	private block = new Uint8Array(0);
	private blockUsed = 0;
	/**
	 * Whether output is copied into blocks yet. Most commands print less than the tail keeps, and
	 * while nothing was dropped from the tail or spilled, the tail's chunks are the whole output:
	 * they are copied only once either happens.
	 */
	private staging = false;
	/** A block has filled up and gone: the output is large, so the next one starts at full size. */
	private filledBlock = false;
	private spilling = false;
	private spillPath: Promise<string | undefined> | undefined;
	private writer: Promise<void> | undefined;
	private writing = false;
	private spillError: string | undefined;
	/** Bytes appended to the spill file without error. */
	private savedBytes = 0;
	/** Writing stopped at `maxSpillBytes`. */
	private capped = false;
	/** Runs once the spill file exists (the bash tool's sweep of old spill files); awaited by `close`. */
	private sweeping: Promise<void> | undefined;
	private readonly keepBytes: number;

	constructor(
		private readonly env: ExecutionEnv,
		private readonly maxLines: number,
		private readonly maxBytes: number,
		private readonly tempPrefix: string,
		private readonly maxSpillBytes: number = Number.POSITIVE_INFINITY,
		private readonly onSpillCreated?: (path: string) => Promise<void>,
	) {
		this.keepBytes = Math.max(2 * maxBytes, 4096);
	}

	append(data: Uint8Array): void {
		if (data.length === 0) return;
		this.totalBytes += data.length;
		const newlines = countNewlines(data);
		const last = newlines > 0 ? data.lastIndexOf(NEWLINE) : -1;
		this.totalLines += newlines;
		this.lastLineBytes = last === -1 ? this.lastLineBytes + data.length : data.length - last - 1;

		this.chunks.push(data);
		this.chunkBytes += data.length;
		if (!this.spilling && (this.totalBytes > this.maxBytes || this.totalLines > this.maxLines)) this.spilling = true;
		if (this.staging) this.stage(data);
		else if (this.spilling || this.chunkBytes - (this.chunks[0]?.length ?? 0) >= this.keepBytes) {
			// About to spill or to drop a chunk from the tail: until now the tail held all the output.
			this.staging = true;
			for (const chunk of this.chunks) this.stage(chunk);
		}
		while (this.chunks.length > 1 && this.chunkBytes - (this.chunks[0]?.length ?? 0) >= this.keepBytes) {
			const dropped = this.chunks.shift() as Uint8Array;
			this.chunkBytes -= dropped.length;
			this.startsAtLine = dropped[dropped.length - 1] === NEWLINE;
		}
		if (this.spilling && this.unsaved.length > 0) this.flush();
	}

	private stage(data: Uint8Array): void {
		let at = 0;
		while (at < data.length) {
			const wanted = Math.min(BLOCK_BYTES, this.blockUsed + data.length - at);
			if (wanted > this.block.length) this.grow(wanted);
			const take = Math.min(data.length - at, this.block.length - this.blockUsed);
			this.block.set(data.subarray(at, at + take), this.blockUsed);
			this.blockUsed += take;
			at += take;
			if (this.blockUsed === BLOCK_BYTES) {
				this.unsaved.push(this.block);
				this.unsavedBytes += BLOCK_BYTES;
				this.block = new Uint8Array(0);
				this.blockUsed = 0;
				this.filledBlock = true;
			}
		}
	}

	/** Make room for `wanted` staged bytes (at most `BLOCK_BYTES`), doubling the block. */
	private grow(wanted: number): void {
		let size = this.filledBlock ? BLOCK_BYTES : Math.max(FIRST_BLOCK_BYTES, this.block.length);
		while (size < wanted) size *= 2;
		const next = new Uint8Array(Math.min(size, BLOCK_BYTES));
		if (this.blockUsed > 0) next.set(this.block.subarray(0, this.blockUsed));
		this.block = next;
	}

	/**
	 * A promise while more output waits for the spill file than the bound allows, settling once
	 * the queue is short again; undefined otherwise. Returned from the exec listener, it makes the
	 * env stop reading until the file has caught up.
	 */
	backlog(): Promise<void> | undefined {
		if (this.unsavedBytes <= BACKLOG_BYTES) return undefined;
		this.waiting ??= new Promise<void>((resolve) => {
			this.wake = resolve;
		});
		return this.waiting;
	}

	private release(): void {
		const wake = this.wake;
		this.wake = undefined;
		this.waiting = undefined;
		wake?.();
	}

	/** Bytes of the last (possibly unfinished) line. */
	get lastLineSize(): number {
		return this.lastLineBytes;
	}

	private flush(): void {
		if (this.writing) return;
		this.writing = true;
		this.writer = this.drain();
	}

	/** Writes pending chunks in batches: while one append runs, new chunks gather into the next. */
	private async drain(): Promise<void> {
		try {
			this.spillPath ??= this.env.createTempFile({ prefix: this.tempPrefix, suffix: ".log" }).then((created) => {
				if (created.ok) {
					if (this.onSpillCreated) this.sweeping = this.onSpillCreated(created.value).catch(() => undefined);
					return created.value;
				}
				this.spillError = created.error.message;
				return undefined;
			});
			const path = await this.spillPath;
			while (this.unsaved.length > 0) {
				const batch = this.unsaved.shift() as Uint8Array;
				this.unsavedBytes -= batch.length;
				// After a failed write the file stays a clean prefix of the output: nothing more is
				// appended (a later append could succeed and leave a gap). Past the cap, likewise.
				if (path !== undefined && this.spillError === undefined && !this.capped) {
					const room = this.maxSpillBytes - this.savedBytes;
					const part = batch.length > room ? batch.subarray(0, Math.max(0, room)) : batch;
					if (part.length < batch.length) this.capped = true;
					if (part.length > 0) {
						const appended = await this.env.appendFile(path, part);
						if (appended.ok) this.savedBytes += part.length;
						else this.spillError = appended.error.message;
					}
				}
				if (this.unsavedBytes <= BACKLOG_BYTES / 2) this.release();
			}
		} finally {
			this.writing = false;
			// Whatever ended the loop, nobody may stay held back.
			this.release();
		}
	}

	/** Waits until everything is in the spill file; undefined when there is nothing to wait for. */
	close(): Promise<void> | undefined {
		if (!this.spilling && !this.writing) return undefined;
		return this.finish();
	}

	private async finish(): Promise<void> {
		if (this.spilling && this.blockUsed > 0) {
			this.unsaved.push(this.block.subarray(0, this.blockUsed));
			this.unsavedBytes += this.blockUsed;
			this.block = new Uint8Array(0);
			this.blockUsed = 0;
		}
		while (this.writing || (this.spilling && this.unsaved.length > 0)) {
			if (!this.writing) this.flush();
			await this.writer;
		}
		if (this.sweeping) await this.sweeping;
	}

	/** Whether output went to a spill file (`fullOutput` then says where). */
	get spilled(): boolean {
		return this.spillPath !== undefined;
	}

	/**
	 * The spill file's path once spilling started, or the reason it could not be written; when a
	 * write failed, how many bytes the file holds (its size: a failed append may have written part).
	 */
	async fullOutput(): Promise<SpillOutcome> {
		const path = this.spillPath ? await this.spillPath : undefined;
		let savedBytes = this.savedBytes;
		if (path !== undefined && this.spillError !== undefined) {
			const info = await this.env.fileInfo(path);
			if (info.ok) savedBytes = info.value.size;
		}
		return { path, error: this.spillError, savedBytes, capped: this.capped };
	}

	/** Known without waiting: the spill path has been created. */
	private knownPath: string | undefined;

	/** The current tail within both budgets. `complete` is false while output may still arrive. */
	snapshot(complete: boolean): Omit<OutputSnapshot, "fullOutputPath"> {
		// The spill file keeps the raw bytes; only the text for the model is stripped.
		const bytes = concat(this.chunks);
		let start = 0;
		// Skip continuation bytes of a character whose first bytes were dropped.
		if (!this.startsAtLine) while (start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
		// A complete decode leaves no state behind, so one decoder serves every final snapshot; a
		// partial one may keep an unfinished character, so it gets a decoder of its own.
		const decoder = complete ? finalDecoder : new TextDecoder("utf-8", { ignoreBOM: true });
		let text = decoder.decode(bytes.subarray(start), { stream: !complete });
		if (!this.startsAtLine) {
			const newline = text.indexOf("\n");
			if (newline !== -1) text = text.slice(newline + 1);
		}
		const stripped = stripControl(text);
		const tail = truncateTail(stripped.text, { maxLines: this.maxLines, maxBytes: this.maxBytes });
		// The tail is a suffix of the stripped text: count only what was removed from that part.
		const cut = stripped.text.length - tail.content.length;
		const escapeSequences = countFrom(stripped.escapes, cut);
		const controlCharacters = countFrom(stripped.controls, cut);
		const truncated = this.totalLines > this.maxLines || this.totalBytes > this.maxBytes;
		const truncation: TruncationResult = {
			...tail,
			truncated,
			truncatedBy: truncated ? (tail.truncatedBy ?? (this.totalBytes > this.maxBytes ? "bytes" : "lines")) : null,
			totalLines: this.totalLines,
			totalBytes: this.totalBytes,
		};
		return {
			content: tail.content,
			truncation,
			stripped: escapeSequences + controlCharacters > 0 ? { escapeSequences, controlCharacters } : undefined,
		};
	}

	/** The spill path if it is already known (for partial updates, which must not wait). */
	pathIfKnown(): string | undefined {
		if (this.knownPath === undefined && this.spillPath)
			void this.spillPath.then((path) => {
				this.knownPath = path;
			});
		return this.knownPath;
	}
}

/**
 * Newline bytes in `data`, four bytes at a time: command output can be hundreds of megabytes, and
 * this runs on every chunk. For each 32-bit word, a byte's high bit ends up set exactly when the
 * byte equals `\n` (no borrow between bytes, unlike the shorter has-zero trick).
 */
function countNewlines(data: Uint8Array): number {
	let count = 0;
	let i = 0;
	const length = data.length;
	while (i < length && ((data.byteOffset + i) & 3) !== 0) {
		if (data[i] === NEWLINE) count++;
		i++;
	}
	const words = (length - i) >>> 2;
	const view = new Uint32Array(data.buffer, data.byteOffset + i, words);
	for (let w = 0; w < words; w++) {
		const x = (view[w] ?? 0) ^ 0x0a0a0a0a;
		const y = ~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x | 0x7f7f7f7f);
		count += Math.imul(y >>> 7, 0x01010101) >>> 24;
	}
	for (i += words * 4; i < length; i++) if (data[i] === NEWLINE) count++;
	return count;
}

/** How many of the ascending `offsets` are at or after `from`. */
function countFrom(offsets: readonly number[], from: number): number {
	let low = 0;
	let high = offsets.length;
	while (low < high) {
		const mid = (low + high) >>> 1;
		if ((offsets[mid] as number) < from) low = mid + 1;
		else high = mid;
	}
	return offsets.length - low;
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
	if (chunks.length === 1) return chunks[0] as Uint8Array;
	let length = 0;
	for (const chunk of chunks) length += chunk.length;
	const out = new Uint8Array(length);
	let at = 0;
	for (const chunk of chunks) {
		out.set(chunk, at);
		at += chunk.length;
	}
	return out;
}
