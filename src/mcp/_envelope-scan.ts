/**
 * What a JSON-RPC message too large to keep says about itself, read as it streams past: whether it
 * is an object, its top-level `id` (a string or a number) and whether it has a `method`. Only the
 * top level's short strings are kept, so reading a message of any size costs a few hundred bytes.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

// Longer keys and ids are not the ones looked for (an id this long is not answered to).
const MAX_KEPT_BYTES = 256;

function isSpace(byte: number): boolean {
	return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** The envelope read so far; `id` is undefined when there is none (or it is not a string or number). */
export interface Envelope {
	readonly isObject: boolean;
	readonly id: string | number | undefined;
	readonly hasId: boolean;
	readonly hasMethod: boolean;
}

export class EnvelopeScanner {
	#depth = 0;
	#started = false;
	#isObject = false;
	#inString = false;
	#escaped = false;
	// At the top level of the object: whether the next string is a key, the key being given a value.
	#expectKey = true;
	#key: string | undefined;
	#kept: number[] = [];
	#keptOverflow = false;
	#scalar = "";
	#idText: string | undefined;
	#hasId = false;
	#hasMethod = false;

	/** Read the next bytes of the message. */
	push(bytes: Uint8Array): void {
		for (let i = 0; i < bytes.length; i++) {
			const byte = bytes[i] as number;
			if (!this.#started) {
				if (isSpace(byte)) continue;
				this.#started = true;
				this.#isObject = byte === OPEN_BRACE;
				if (!this.#isObject) {
					this.#depth = 0;
					return;
				}
				this.#depth = 1;
				continue;
			}
			if (this.#depth === 0) return;
			if (this.#inString) {
				if (this.#escaped) this.#escaped = false;
				else if (byte === BACKSLASH) this.#escaped = true;
				else if (byte === QUOTE) {
					this.#inString = false;
					if (this.#depth === 1) this.#endString();
					continue;
				}
				if (this.#depth === 1) this.#keep(byte);
				continue;
			}
			switch (byte) {
				case QUOTE:
					this.#inString = true;
					this.#kept = [];
					this.#keptOverflow = false;
					break;
				case OPEN_BRACE:
				case OPEN_BRACKET:
					this.#depth += 1;
					break;
				case CLOSE_BRACE:
				case CLOSE_BRACKET:
					if (this.#depth === 1) this.#endValue();
					this.#depth -= 1;
					break;
				case COLON:
					if (this.#depth === 1) {
						this.#expectKey = false;
						if (this.#key === "id") this.#hasId = true;
						if (this.#key === "method") this.#hasMethod = true;
					}
					break;
				case COMMA:
					if (this.#depth === 1) this.#endValue();
					break;
				default:
					if (this.#depth === 1 && !this.#expectKey && !isSpace(byte) && this.#scalar.length < MAX_KEPT_BYTES) {
						this.#scalar += String.fromCharCode(byte);
					}
			}
		}
	}

	/** What the message said about itself, as far as it was read. */
	envelope(): Envelope {
		let id: string | number | undefined;
		const text = this.#idText ?? (this.#key === "id" && this.#scalar !== "" ? this.#scalar : undefined);
		if (text !== undefined) {
			try {
				const value = JSON.parse(text) as unknown;
				if (typeof value === "string" || (typeof value === "number" && Number.isFinite(value))) id = value;
			} catch {
				// not an id one can answer to
			}
		}
		return { isObject: this.#isObject, id, hasId: this.#hasId, hasMethod: this.#hasMethod };
	}

	#keep(byte: number): void {
		if (this.#kept.length < MAX_KEPT_BYTES) this.#kept.push(byte);
		else this.#keptOverflow = true;
	}

	#endString(): void {
		const text = this.#keptOverflow ? undefined : `"${Buffer.from(this.#kept).toString("utf8")}"`;
		if (this.#expectKey) {
			let key: string | undefined;
			try {
				key = text === undefined ? undefined : (JSON.parse(text) as string);
			} catch {
				key = undefined;
			}
			this.#key = key;
		} else if (this.#key === "id") {
			this.#idText = text;
		}
		this.#kept = [];
	}

	#endValue(): void {
		if (this.#key === "id" && this.#idText === undefined && this.#scalar !== "") this.#idText = this.#scalar;
		this.#scalar = "";
		this.#key = undefined;
		this.#expectKey = true;
	}
}
