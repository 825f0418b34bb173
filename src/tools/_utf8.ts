/** UTF-8 and base64 helpers that work without Node's Buffer (tools stay runtime-neutral). */

export { utf8Length, utf8LengthBetween } from "../contract/utf8.js";

const encoder = new TextEncoder();

export function encodeUtf8(text: string): Uint8Array {
	return encoder.encode(text);
}

/** The last `maxBytes` bytes of `text` at most, cut on a character boundary. */
export function utf8Suffix(text: string, maxBytes: number): string {
	const bytes = encoder.encode(text);
	if (bytes.length <= maxBytes) return text;
	let start = bytes.length - maxBytes;
	// Skip continuation bytes so the first character is whole.
	while (start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
	return new TextDecoder().decode(bytes.subarray(start));
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Standard base64 with padding, no line breaks. */
export function toBase64(bytes: Uint8Array): string {
	const parts: string[] = [];
	// Build in slices so no single intermediate string or array gets huge.
	const slice = 3 * 16384;
	for (let start = 0; start < bytes.length; start += slice) {
		const end = Math.min(bytes.length, start + slice);
		let out = "";
		let i = start;
		for (; i + 2 < end; i += 3) {
			const n = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
			out +=
				BASE64.charAt((n >> 18) & 63) +
				BASE64.charAt((n >> 12) & 63) +
				BASE64.charAt((n >> 6) & 63) +
				BASE64.charAt(n & 63);
		}
		const rest = end - i;
		if (rest === 1) {
			const n = (bytes[i] ?? 0) << 16;
			out += `${BASE64.charAt((n >> 18) & 63)}${BASE64.charAt((n >> 12) & 63)}==`;
		} else if (rest === 2) {
			const n = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8);
			out += `${BASE64.charAt((n >> 18) & 63)}${BASE64.charAt((n >> 12) & 63)}${BASE64.charAt((n >> 6) & 63)}=`;
		}
		parts.push(out);
	}
	return parts.join("");
}
