/**
 * The streaming read against a whole-file model: for files that span many chunks, with long lines
 * across chunk boundaries, every page must be what slicing the whole text would give.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReadTool } from "../../../src/tools/read.js";
import { formatSize, truncateHead } from "../../../src/tools/truncate.js";
import { bothEnvs, type ToolFixture, textOf } from "./_env.js";

/** What a read of the whole text returns, computed the simple way. */
function model(all: readonly string[], path: string, offset?: number, limit?: number): string {
	const start = offset ? Math.max(0, offset - 1) : 0;
	if (start >= all.length) return `ERR Offset ${offset} is beyond end of file (${all.length} lines total)`;
	// Lines past 2000 and past 50 KB can never show, so the model stops joining once over both.
	const end = limit !== undefined ? Math.min(start + limit, all.length) : all.length;
	const shown: string[] = [];
	let chars = 0;
	for (let i = start; i < end && shown.length <= 2000 && chars <= 52_000; i++) {
		shown.push(all[i] as string);
		chars += (all[i] as string).length + 1;
	}
	const cut = truncateHead(shown.join("\n"));
	const cutAnyway = start + shown.length < end;
	if (cut.firstLineExceedsLimit) {
		const size = formatSize(new TextEncoder().encode(all[start] ?? "").length);
		return `[Line ${start + 1} is ${size}, exceeds 50.0KB limit. Use bash: sed -n '${start + 1}p' ${path} | head -c 51200]`;
	}
	if (cut.truncated || cutAnyway) {
		const last = start + cut.outputLines;
		const budget = cut.truncatedBy === "bytes" ? " (50.0KB limit)" : "";
		return `${cut.content}\n\n[Showing lines ${start + 1}-${last} of ${all.length}${budget}. Use offset=${last + 1} to continue.]`;
	}
	if (limit !== undefined && end < all.length) {
		return `${cut.content}\n\n[${all.length - end} more lines in file. Use offset=${end + 1} to continue.]`;
	}
	return cut.content;
}

let seed = 12345;
function random(n: number): number {
	seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
	return seed % n;
}

function makeFile(target = 200_000 + random(1_200_000), ascii = false): string {
	const lines: string[] = [];
	let size = 0;
	while (size < target) {
		const kind = random(100);
		// Mostly short lines, some empty, a few long ones that straddle chunk boundaries.
		const length = kind < 2 ? 40_000 + random(1_200_000) : kind < 10 ? 0 : 1 + random(120);
		const line = `${lines.length}:${(ascii ? "e" : "é").repeat(random(3))}${"x".repeat(Math.min(length, target))}`;
		lines.push(line);
		size += line.length + 1;
	}
	return lines.join("\n") + (random(2) ? "\n" : "");
}

/** Exactly `size` bytes of ASCII lines: around the size below which a page is cut from the file's text. */
function asciiOfSize(size: number): string {
	const line = "abcdefghij".repeat(3);
	const text = Array.from({ length: Math.ceil(size / (line.length + 1)) }, (_, i) => `${i} ${line}`).join("\n");
	return text.slice(0, size);
}

const files = [
	...Array.from({ length: 3 }, () => makeFile()),
	// Pure ASCII: small files are paged from their text, larger ones chunk by chunk as strings.
	makeFile(30_000, true),
	makeFile(3_000, false),
	makeFile(300_000, true),
	asciiOfSize(64 * 1024),
	asciiOfSize(64 * 1024 + 1),
	`${asciiOfSize(20_000)}\n\u00e9\n`,
	// Small files with other text: positions in the text are not byte offsets.
	"\u{1F600}\u00e9".repeat(10_000),
	Array.from({ length: 2500 }, (_, i) => `${i} \u{1F600} caf\u00e9`).join("\n"),
	`${"\u00e9".repeat(5000)}\0\nend`,
	// Under 50 KB as characters, over it as bytes: the byte budget must count bytes.
	Array.from({ length: 800 }, (_, i) => `${i}${"\u00e9".repeat(40)}`).join("\n"),
	`${"\u00e9".repeat(30_000)}\nnext`,
	// Small files at the line and byte budgets, with and without a line break at the end.
	Array.from({ length: 2000 }, (_, i) => `${i}`).join("\n"),
	`${Array.from({ length: 2000 }, (_, i) => `${i}`).join("\n")}\n`,
	`${Array.from({ length: 1999 }, (_, i) => `${i}`).join("\n")}\n`,
	Array.from({ length: 2001 }, (_, i) => `${i}`).join("\n"),
	asciiOfSize(50 * 1024),
	asciiOfSize(50 * 1024 + 1),
	`${asciiOfSize(50 * 1024 - 1)}\n`,
	"",
	"\n",
];

describe.each(bothEnvs)("read paging on %s", (_name, make) => {
	let fx: ToolFixture;
	beforeAll(async () => {
		fx = await make({ files: Object.fromEntries(files.map((content, i) => [`f${i}.txt`, content])) });
	});
	afterAll(async () => fx?.cleanup());
	const read = createReadTool();

	it("gives the same pages as slicing the whole text", async () => {
		for (let i = 0; i < files.length; i++) {
			const all = (files[i] as string).split("\n");
			const total = all.length;
			const offsets = [undefined, 2, total, total + 1, ...Array.from({ length: 8 }, () => 1 + random(total))];
			for (const offset of offsets) {
				for (const limit of [undefined, 3, 2500, total - 1, total]) {
					const path = `f${i}.txt`;
					const args = { path, ...(offset !== undefined ? { offset } : {}), ...(limit !== undefined ? { limit } : {}) };
					const actual = await read.execute("id", args, undefined, undefined, fx.ctx).then(
						(r) => textOf(r),
						(e: Error) => `ERR ${e.message}`,
					);
					const expected = model(all, path, offset, limit);
					if (actual !== expected)
						expect({ args, actual: actual.slice(-300) }).toEqual({ args, actual: expected.slice(-300) });
				}
			}
		}
	});
});
