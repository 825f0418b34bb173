/**
 * UTF-8 lengths of JavaScript strings without Node's Buffer. A lone surrogate counts as the 3 bytes
 * of U+FFFD, as encoders write it.
 */

/** Bytes `text.slice(start, end)` takes as UTF-8, counted character by character. */
export function utf8LengthBetween(text: string, start: number, end: number): number {
	let bytes = 0;
	for (let i = start; i < end; i++) {
		const code = text.charCodeAt(i);
		if (code < 0x80) bytes += 1;
		else if (code < 0x800) bytes += 2;
		else if (code >= 0xd800 && code <= 0xdbff && i + 1 < end) {
			const next = text.charCodeAt(i + 1);
			if (next >= 0xdc00 && next <= 0xdfff) {
				bytes += 4;
				i++;
			} else bytes += 3;
		} else bytes += 3;
	}
	return bytes;
}

const encoder = new TextEncoder();
/** Characters encoded per step when measuring a long text; the scratch buffer holds their worst case. */
const MEASURE_CHARS = 16 * 1024;
/** Below this length counting by hand beats a call into the encoder. */
const SHORT = 256;
let scratch: Uint8Array | undefined;

/**
 * Bytes `text` takes as UTF-8. A long text is encoded piece by piece into one reused buffer: no
 * array as large as the text is made (allocating it costs more than the encoding itself).
 */
export function utf8Length(text: string): number {
	if (text.length < SHORT) return utf8LengthBetween(text, 0, text.length);
	scratch ??= new Uint8Array(MEASURE_CHARS * 3);
	let total = 0;
	for (let pos = 0; pos < text.length; ) {
		let end = Math.min(text.length, pos + MEASURE_CHARS);
		// Keep a surrogate pair in one piece, or each half would count as a replacement character.
		const last = text.charCodeAt(end - 1);
		if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
		const piece = pos === 0 && end === text.length ? text : text.slice(pos, end);
		total += encoder.encodeInto(piece, scratch).written;
		pos = end;
	}
	return total;
}
