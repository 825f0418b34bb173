import { describe, expect, it } from "vitest";
import { encodePooled } from "../../../src/env/_byte-pool.js";

describe("encodePooled", () => {
	it("gives every text bytes of its own, across slab boundaries and for long texts", () => {
		const decoder = new TextDecoder();
		const texts = Array.from({ length: 3000 }, (_, i) => `${i}:${"é😀x".repeat(i % 700)}`);
		const views = texts.map(encodePooled);
		// Written long after each other, every view still holds its own text.
		views.forEach((view, i) => {
			expect(decoder.decode(view)).toBe(texts[i]);
			expect(view).toEqual(new TextEncoder().encode(texts[i]));
		});
	});
});
