import { describe, expect, it } from "vitest";
import { encodePooled } from "../../../src/env/byte-pool.js";

describe("encodePooled", () => {
	it("gives every text bytes of its own, across slab boundaries and for long texts", () => {
		const encoder = new TextEncoder();
		const texts = Array.from({ length: 1500 }, (_, i) => `${i}:${"é😀x".repeat(i % 700)}`);
		const views = texts.map(encodePooled);
		// Written long after each other, every view still holds exactly its own text's bytes.
		const wrong = views.filter((view, i) => {
			const expected = encoder.encode(texts[i]);
			return view.length !== expected.length || view.some((byte, k) => byte !== expected[k]);
		});
		expect(wrong.length).toBe(0);
		expect(new TextDecoder().decode(views[777])).toBe(texts[777]);
	});
});
