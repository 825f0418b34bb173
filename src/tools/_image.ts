/** Recognizing images and binary files from their first bytes (the name says nothing reliable). */

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
	if (bytes.length < at + prefix.length) return false;
	for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
	return true;
}

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const GIF87 = [0x47, 0x49, 0x46, 0x38, 0x37, 0x61];
const GIF89 = [0x47, 0x49, 0x46, 0x38, 0x39, 0x61];
const RIFF = [0x52, 0x49, 0x46, 0x46];
const WEBP = [0x57, 0x45, 0x42, 0x50];
const BM = [0x42, 0x4d];
/** Sizes of the BMP info headers in use (core, v1…v5), so a text file starting "BM" is not mistaken. */
const BMP_HEADER_SIZES = new Set([12, 16, 40, 52, 56, 64, 108, 124]);

/** The image MIME type of a file starting with `head`, or `undefined` when it is not a supported image. */
export function sniffImageMime(head: Uint8Array): string | undefined {
	if (startsWith(head, PNG)) return "image/png";
	if (startsWith(head, JPEG)) return "image/jpeg";
	if (startsWith(head, GIF87) || startsWith(head, GIF89)) return "image/gif";
	if (startsWith(head, RIFF) && startsWith(head, WEBP, 8)) return "image/webp";
	if (startsWith(head, BM) && head.length >= 18) {
		const infoSize = (head[14] ?? 0) | ((head[15] ?? 0) << 8) | ((head[16] ?? 0) << 16) | ((head[17] ?? 0) << 24);
		if (BMP_HEADER_SIZES.has(infoSize)) return "image/bmp";
	}
	return undefined;
}

/** How many leading bytes the binary check looks at. */
export const BINARY_SNIFF_BYTES = 8192;

/** Whether the file looks binary: a NUL byte among its first bytes (text files practically never have one). */
export function looksBinary(head: Uint8Array): boolean {
	const end = Math.min(head.length, BINARY_SNIFF_BYTES);
	return head.subarray(0, end).indexOf(0) !== -1;
}
