/** Small text helpers shared by the envs, the tools and the harness (no Node, no allocation). */

/** Line breaks (`\n`) in `text` from offset `from` up to (not including) `to`. */
export function countLineBreaks(text: string, from = 0, to = text.length): number {
	let count = 0;
	for (let at = text.indexOf("\n", from); at !== -1 && at < to; at = text.indexOf("\n", at + 1)) count++;
	return count;
}

/**
 * Whether one UTF-16 unit is white space as `String.prototype.trim` and a regular expression's
 * `\s` take it (both mean the same set: white space and line terminators).
 */
export function isWhiteSpace(code: number): boolean {
	if (code === 32 || (code >= 9 && code <= 13)) return true;
	if (code < 0xa0) return false;
	return (
		code === 0xa0 ||
		code === 0x1680 ||
		(code >= 0x2000 && code <= 0x200a) ||
		code === 0x2028 ||
		code === 0x2029 ||
		code === 0x202f ||
		code === 0x205f ||
		code === 0x3000 ||
		code === 0xfeff
	);
}
