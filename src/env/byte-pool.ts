/**
 * UTF-8 encoding of short texts into slices of a shared slab instead of a buffer each: allocating a
 * typed array's own backing store costs more than encoding a line of command output. Each text
 * gets a region of its own that is never reused, so a slice stays valid for as long as anyone
 * holds it (the slab lives while any of its slices does). Longer texts get a buffer of their own.
 */
const SLAB_BYTES = 64 * 1024;
/** Texts up to this many characters (at most three bytes each) are encoded into the slab. */
const POOLED_CHARS = 2048;

const encoder = new TextEncoder();
let slab = new Uint8Array(SLAB_BYTES);
let used = 0;

/** `text` encoded as UTF-8, as a view that nothing else will write to. */
export function encodePooled(text: string): Uint8Array {
	if (text.length > POOLED_CHARS) return encoder.encode(text);
	if (SLAB_BYTES - used < text.length * 3) {
		slab = new Uint8Array(SLAB_BYTES);
		used = 0;
	}
	const { written } = encoder.encodeInto(text, slab.subarray(used));
	const view = slab.subarray(used, used + written);
	used += written;
	return view;
}
