import { describe, expect, it } from "vitest";
import {
	DEFAULT_MAX_BYTES,
	DEFAULT_MAX_LINES,
	formatSize,
	truncateHead,
	truncateLine,
	truncateTail,
} from "../../../src/tools/truncate.js";

describe("formatSize", () => {
	it("uses B, KB and MB with one decimal", () => {
		expect(formatSize(0)).toBe("0B");
		expect(formatSize(1023)).toBe("1023B");
		expect(formatSize(1024)).toBe("1.0KB");
		expect(formatSize(50 * 1024)).toBe("50.0KB");
		expect(formatSize(1.5 * 1024 * 1024)).toBe("1.5MB");
		expect(formatSize(200 * 1024 * 1024)).toBe("200.0MB");
	});
});

describe("truncateHead", () => {
	it("has the documented defaults", () => {
		expect(DEFAULT_MAX_LINES).toBe(2000);
		expect(DEFAULT_MAX_BYTES).toBe(51_200);
	});

	it("leaves text within both budgets alone, counting lines as split does", () => {
		const result = truncateHead("a\nb\n");
		expect(result).toMatchObject({
			content: "a\nb\n",
			truncated: false,
			truncatedBy: null,
			totalLines: 3,
			totalBytes: 4,
		});
	});

	it("keeps whole lines up to the line budget", () => {
		const result = truncateHead("1\n2\n3\n4", { maxLines: 2 });
		expect(result).toMatchObject({
			content: "1\n2",
			truncated: true,
			truncatedBy: "lines",
			outputLines: 2,
			totalLines: 4,
		});
	});

	it("keeps whole lines up to the byte budget, counting UTF-8 bytes and separators", () => {
		// "é" is 2 bytes: "éé" (4) + "\n" + "éé" (4) = 9 bytes; a third line does not fit in 10.
		const result = truncateHead("éé\néé\néé", { maxBytes: 10 });
		expect(result).toMatchObject({
			content: "éé\néé",
			truncatedBy: "bytes",
			outputLines: 2,
			outputBytes: 9,
			totalBytes: 14,
		});
	});

	it("returns nothing when the first line alone is over the byte budget", () => {
		const result = truncateHead(`${"x".repeat(20)}\nshort`, { maxBytes: 10 });
		expect(result).toMatchObject({ content: "", firstLineExceedsLimit: true, truncatedBy: "bytes", outputLines: 0 });
	});
});

describe("truncateTail", () => {
	it("keeps the last lines within the line budget", () => {
		const result = truncateTail("1\n2\n3\n4\n", { maxLines: 2 });
		expect(result).toMatchObject({ content: "4\n", truncatedBy: "lines", outputLines: 2, totalLines: 5 });
	});

	it("keeps the last lines within the byte budget", () => {
		const result = truncateTail("aaaa\nbbbb\ncccc", { maxBytes: 10 });
		expect(result).toMatchObject({ content: "bbbb\ncccc", truncatedBy: "bytes", outputLines: 2 });
	});

	it("keeps the end of a last line over the byte budget, on a character boundary", () => {
		const result = truncateTail("start\n€€€€", { maxBytes: 7 });
		// Each "€" is 3 bytes: 7 bytes hold two whole ones.
		expect(result).toMatchObject({ content: "€€", lastLinePartial: true, truncatedBy: "bytes", outputBytes: 6 });
	});
});

describe("truncateLine", () => {
	it("cuts long lines and marks the cut", () => {
		expect(truncateLine("short")).toEqual({ text: "short", wasTruncated: false });
		expect(truncateLine("abcdef", 3)).toEqual({ text: "abc... [truncated]", wasTruncated: true });
		expect(truncateLine("x".repeat(600)).text).toBe(`${"x".repeat(500)}... [truncated]`);
	});
});
