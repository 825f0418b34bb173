/**
 * `McpStdioTransport`: MCP over a pair of streams (stdin and stdout), one JSON-RPC message a line,
 * with a bound on the size of a message that a client cannot make the server break. A line over the
 * bound is not kept: it is read past (keeping only its top-level `id`), answered with a JSON-RPC
 * error naming the limit, and the next line is served as usual. So memory stays bounded whatever a
 * client sends, a line without an end included. Node-only.
 */
import type { Readable, Writable } from "node:stream";
import { errorMessage } from "../contract/errors.js";
import { observer } from "../shared/listeners.js";
import { EnvelopeScanner } from "./_envelope-scan.js";
import { mcpTypes } from "./_node-sdk.js";
import { formatBytes } from "./node-request.js";

/**
 * Largest MCP message accepted, in bytes of UTF-8 (a stdio line, an HTTP request body): the
 * executor's 16 MiB of arguments, plus 1 MiB for the rest of the message.
 */
export const MCP_MAX_MESSAGE_BYTES = 17 * 1024 * 1024;

/** JSON-RPC's code for a message that is not a valid request (here: one over the size limit). */
const JSONRPC_INVALID_REQUEST = -32_600;
/** JSON-RPC's code for a message that is not JSON. */
const JSONRPC_PARSE_ERROR = -32_700;

const NEWLINE = 0x0a;

/** Options of `McpStdioTransport`. */
export interface McpStdioTransportOptions {
	/** Where messages come from, a line each. Default `process.stdin`. */
	readonly stdin?: Readable;
	/** Where messages go. Default `process.stdout`. */
	readonly stdout?: Writable;
	/** Largest message accepted, in bytes. Default `MCP_MAX_MESSAGE_BYTES` (17 MiB). */
	readonly maxMessageBytes?: number;
	/** Hears what was refused and why the transport closed; never stdout. */
	readonly log?: (message: string) => void;
}

/**
 * A server transport for MCP over stdio that refuses oversized messages instead of closing, and
 * says why it closed (`closed`). Give it to `createMcpServer(...).connect`. Its message type is
 * `object` (a JSON-RPC message) so that toolsmith's declarations need none of the SDK's.
 */
export class McpStdioTransport {
	/** Set by the server it is connected to: called once, when the transport closed. */
	onclose?: () => void;
	/** Set by the server: hears a message that could not be read (it was answered already). */
	onerror?: (error: Error) => void;
	/** Set by the server: each JSON-RPC message read, in order. */
	onmessage?: (message: object) => void;

	/** Resolves once the transport closed, with the reason (`stdin closed`, say). */
	readonly closed: Promise<string>;

	readonly #stdin: Readable;
	readonly #stdout: Writable;
	readonly #max: number;
	readonly #log: (message: string) => void;
	#resolveClosed: (reason: string) => void = () => {};
	#started = false;
	// The SDK's check of a JSON-RPC message, loaded by `start`.
	#parse: (value: unknown) => object = () => {
		throw new Error("McpStdioTransport is not started (connect starts it).");
	};
	#isClosed = false;
	// The line being read: its chunks while under the limit, else a scanner reading past it.
	#chunks: Buffer[] = [];
	#size = 0;
	#skipping: EnvelopeScanner | undefined;

	constructor(options: McpStdioTransportOptions = {}) {
		this.#stdin = options.stdin ?? process.stdin;
		this.#stdout = options.stdout ?? process.stdout;
		this.#max = options.maxMessageBytes ?? MCP_MAX_MESSAGE_BYTES;
		if (!Number.isInteger(this.#max) || this.#max < 1) {
			throw new RangeError(`maxMessageBytes must be a positive integer, not ${String(options.maxMessageBytes)}`);
		}
		this.#log = observer(options.log);
		this.closed = new Promise((resolve) => {
			this.#resolveClosed = resolve;
		});
	}

	/** Start reading (`connect` calls it); throws when called twice. */
	async start(): Promise<void> {
		if (this.#started) throw new Error("McpStdioTransport is already started (connect starts it).");
		this.#started = true;
		const { JSONRPCMessageSchema } = await mcpTypes();
		this.#parse = (value) => JSONRPCMessageSchema.parse(value);
		// Closed while the SDK was loading: nothing is read.
		if (this.#isClosed) return;
		this.#stdin.on("data", this.#onData);
		this.#stdin.on("end", this.#onEnd);
		this.#stdin.on("close", this.#onEnd);
		this.#stdin.on("error", this.#onInputError);
		this.#stdout.on("error", this.#onOutputError);
	}

	/** Write one message (a line of JSON); resolves once the output took it. */
	send(message: object): Promise<void> {
		return this.#write(message);
	}

	/** Stop reading; idempotent. `closed` then resolves with `closed by the server`. */
	async close(): Promise<void> {
		this.#finish("closed by the server");
	}

	readonly #onData = (chunk: Buffer | string): void => {
		let data = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
		while (data.length > 0 && !this.#isClosed) {
			const end = data.indexOf(NEWLINE);
			const part = end === -1 ? data : data.subarray(0, end);
			this.#take(part);
			if (end === -1) return;
			this.#endLine();
			data = data.subarray(end + 1);
		}
	};

	readonly #onEnd = (): void => {
		this.#finish("stdin closed");
	};

	readonly #onInputError = (error: Error): void => {
		this.#finish(`stdin failed: ${errorMessage(error)}`);
	};

	readonly #onOutputError = (error: Error): void => {
		this.#finish(`stdout failed: ${errorMessage(error)}`);
	};

	/** Add bytes to the line being read, switching to reading past it once it passes the limit. */
	#take(part: Buffer): void {
		if (part.length === 0) return;
		if (this.#skipping) {
			this.#skipping.push(part);
			return;
		}
		if (this.#size + part.length <= this.#max) {
			this.#chunks.push(part);
			this.#size += part.length;
			return;
		}
		const scanner = new EnvelopeScanner();
		for (const chunk of this.#chunks) scanner.push(chunk);
		scanner.push(part);
		this.#skipping = scanner;
		this.#size += part.length;
		this.#chunks = [];
	}

	#endLine(): void {
		const skipped = this.#skipping;
		const chunks = this.#chunks;
		this.#skipping = undefined;
		this.#chunks = [];
		this.#size = 0;
		if (skipped) {
			this.#refuseOversized(skipped);
			return;
		}
		let line = chunks.length === 1 ? (chunks[0] as Buffer).toString("utf8") : Buffer.concat(chunks).toString("utf8");
		if (line.endsWith("\r")) line = line.slice(0, -1);
		if (line.trim() === "") return;
		let message: object;
		try {
			message = this.#parse(JSON.parse(line));
		} catch (error) {
			this.#log(`Refused a message that is not JSON-RPC: ${errorMessage(error).split("\n")[0] ?? ""}`);
			this.onerror?.(error instanceof Error ? error : new Error(errorMessage(error)));
			this.#answerError(null, JSONRPC_PARSE_ERROR, "Parse error: the message is not a JSON-RPC message.");
			return;
		}
		this.onmessage?.(message);
	}

	#refuseOversized(scanner: EnvelopeScanner): void {
		const envelope = scanner.envelope();
		const text = `Request too large: MCP messages over stdio are limited to ${formatBytes(this.#max)} (${this.#max} bytes).`;
		const what = envelope.id !== undefined ? `request ${JSON.stringify(envelope.id)}` : "a message";
		this.#log(`Refused ${what} over the ${formatBytes(this.#max)} message limit.`);
		// A notification gets no answer; anything else does, with its id when it could be read.
		if (envelope.isObject && envelope.hasMethod && !envelope.hasId) return;
		this.#answerError(envelope.id ?? null, JSONRPC_INVALID_REQUEST, text, { maxMessageBytes: this.#max });
	}

	#answerError(id: string | number | null, code: number, message: string, data?: Record<string, unknown>): void {
		const answer = { jsonrpc: "2.0", id, error: { code, message, ...(data ? { data } : {}) } };
		this.#write(answer).catch(() => {});
	}

	#write(message: object): Promise<void> {
		if (this.#isClosed) return Promise.reject(new Error("The stdio transport is closed."));
		return new Promise((resolve, reject) => {
			let text: string;
			try {
				text = `${JSON.stringify(message)}\n`;
			} catch (error) {
				reject(error);
				return;
			}
			// A failed write also fails the stream, which closes the transport (`#onOutputError`).
			if (this.#stdout.write(text)) return resolve();
			const done = (): void => {
				this.#stdout.off("drain", done);
				this.#stdout.off("close", done);
				resolve();
			};
			this.#stdout.on("drain", done);
			this.#stdout.on("close", done);
		});
	}

	#finish(reason: string): void {
		if (this.#isClosed) return;
		this.#isClosed = true;
		this.#stdin.off("data", this.#onData);
		this.#stdin.off("end", this.#onEnd);
		this.#stdin.off("close", this.#onEnd);
		// The error listeners stay: a late stream error must not become an uncaught one.
		if (this.#stdin.listenerCount("data") === 0) this.#stdin.pause();
		this.#chunks = [];
		this.#skipping = undefined;
		this.#resolveClosed(reason);
		this.onclose?.();
	}
}
