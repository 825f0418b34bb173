/** FileLines, the line index of the replay's files, against `split("\n")`, in random access orders. */
import { describe, expect, it } from "vitest";
import { FileLines } from "../../../src/harness/_file-lines.js";

let seed = 4242;
function random(n: number): number {
	seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
	return seed % n;
}

describe("FileLines", () => {
	it("answers like the split text, whatever order lines are asked for in", () => {
		for (let round = 0; round < 200; round++) {
			const count = 1 + random(400);
			const all = Array.from({ length: count }, (_, i) =>
				random(5) === 0 ? "" : `line ${i} ${"y".repeat(random(4))}`,
			);
			const text = all.join("\n");
			const lines = new FileLines(text);
			if (random(2) === 0) expect(lines.length).toBe(count);
			for (let k = 0; k < 60; k++) {
				// Mostly walks forward and back a little, sometimes jumps anywhere (past the end too).
				const index = random(3) === 0 ? random(count + 70) - 5 : Math.min(count + 2, k * 3 + random(5));
				expect(lines.line(index)).toBe(all[index]);
				expect(lines.is(index, all[index] ?? "")).toBe(index >= 0 && index < count);
			}
			expect(lines.length).toBe(count);
			const from = random(count);
			const to = from + 1 + random(count - from);
			expect(lines.slice(from, to)).toBe(all.slice(from, to).join("\n"));
			const replaced = new Map([
				[random(count), "A"],
				[random(count), "B"],
			]);
			const expected = all.map((line, i) => replaced.get(i) ?? line).join("\n");
			expect(new FileLines(text).withLines(replaced)).toBe(expected);
		}
	});

	it("takes over line starts from an earlier version for the lines a change left alone", () => {
		for (let round = 0; round < 200; round++) {
			const count = 1 + random(600);
			const all = Array.from({ length: count }, (_, i) => `l${i}${"z".repeat(random(6))}`);
			const earlier = new FileLines(all.join("\n"));
			earlier.line(random(count)); // index part of it
			earlier.line(count - 1);
			const changedAt = random(count);
			const added = Array.from({ length: random(6) }, (_, i) => `added ${i}`);
			const changed = [...all.slice(0, changedAt), "N".repeat(random(40)), ...added, ...all.slice(changedAt + 1)];
			const lines = FileLines.after(changed.join("\n"), earlier, changedAt);
			for (let k = 0; k < 40; k++) {
				const index = random(changed.length + 3);
				expect(lines.line(index)).toBe(changed[index]);
			}
			expect(lines.length).toBe(changed.length);
		}
	});
});
