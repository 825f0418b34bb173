import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createReadTool, type ReadToolDetails } from "../../../src/tools/read.js";
import { allToolEnvs, type FixtureFiles, stopToolEnvs, type ToolFixture, textOf } from "./_env.js";

const envs = await allToolEnvs();
afterAll(stopToolEnvs);

const read = createReadTool();

function lines(count: number, make: (i: number) => string = (i) => `line ${i + 1}`): string {
	return Array.from({ length: count }, (_, i) => make(i)).join("\n");
}

// Smallest headers the sniffer accepts, each followed by filler bytes.
const images: Record<string, { bytes: Uint8Array; mime: string }> = {
	"pic.png": {
		bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
		mime: "image/png",
	},
	"pic.jpg": { bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46]), mime: "image/jpeg" },
	"pic.gif": { bytes: new TextEncoder().encode("GIF89a\u0001\u0000\u0001\u0000"), mime: "image/gif" },
	"pic.webp": {
		bytes: new Uint8Array([0x52, 0x49, 0x46, 0x46, 36, 0, 0, 0, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38]),
		mime: "image/webp",
	},
	"pic.bmp": {
		bytes: new Uint8Array([0x42, 0x4d, 70, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0, 1, 0, 0, 0]),
		mime: "image/bmp",
	},
	// A PNG under a misleading name: detection goes by content.
	"not-a-text.txt": {
		bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2]),
		mime: "image/png",
	},
};

describe.each(envs)("read on %s", (_name, make) => {
	let fx: ToolFixture;
	const setup = async (spec: FixtureFiles) => {
		fx = await make(spec);
		return fx;
	};
	afterEach(async () => fx?.cleanup());
	const call = async (args: { path: string; offset?: number; limit?: number }) =>
		read.execute("id", args, undefined, undefined, fx.ctx);

	it("returns a small file as it is, with a final newline as an empty last line", async () => {
		await setup({ files: { "a.txt": "one\ntwo\n", "b.txt": "one\ntwo" } });
		expect(textOf(await call({ path: "a.txt" }))).toBe("one\ntwo\n");
		expect(textOf(await call({ path: "b.txt" }))).toBe("one\ntwo");
		expect(textOf(await call({ path: "a.txt", offset: 3 }))).toBe("");
		await expect(call({ path: "a.txt", offset: 4 })).rejects.toThrow("Offset 4 is beyond end of file (3 lines total)");
		await expect(call({ path: "b.txt", offset: 3 })).rejects.toThrow("Offset 3 is beyond end of file (2 lines total)");
	});

	it("reads an empty file as empty text", async () => {
		await setup({ files: { "empty.txt": "" } });
		expect(textOf(await call({ path: "empty.txt" }))).toBe("");
		await expect(call({ path: "empty.txt", offset: 2 })).rejects.toThrow("(1 lines total)");
	});

	it("keeps CRLF, BOM and unicode text as they are", async () => {
		await setup({ files: { "crlf.txt": "a\r\nb\r\n", "bom.txt": "\uFEFFhej\nvärld", "u.txt": "日本語 😀\nnaïve\n" } });
		expect(textOf(await call({ path: "crlf.txt" }))).toBe("a\r\nb\r\n");
		expect(textOf(await call({ path: "bom.txt" }))).toBe("\uFEFFhej\nvärld");
		expect(textOf(await call({ path: "u.txt", offset: 2, limit: 1 }))).toBe(
			"naïve\n\n[1 more lines in file. Use offset=3 to continue.]",
		);
	});

	it("cuts at 2000 lines and tells the next offset", async () => {
		await setup({ files: { "long.txt": `${lines(2500)}\n` } });
		const result = await call({ path: "long.txt" });
		const text = textOf(result);
		expect(text.endsWith("line 2000\n\n[Showing lines 1-2000 of 2501. Use offset=2001 to continue.]")).toBe(true);
		const details = result.details as ReadToolDetails;
		expect(details.truncation).toMatchObject({ truncatedBy: "lines", outputLines: 2000, totalLines: 2501 });
		const next = textOf(await call({ path: "long.txt", offset: 2001 }));
		expect(next.startsWith("line 2001\n")).toBe(true);
		expect(next.endsWith("line 2500\n")).toBe(true);
	});

	it("a file of exactly 2000 lines is not cut; 2000 lines plus a newline is", async () => {
		await setup({ files: { "exact.txt": lines(2000), "plus.txt": `${lines(2000)}\n` } });
		expect(textOf(await call({ path: "exact.txt" })).endsWith("line 2000")).toBe(true);
		expect(textOf(await call({ path: "plus.txt" }))).toMatch(
			/\[Showing lines 1-2000 of 2001\. Use offset=2001 to continue\.\]$/,
		);
	});

	it("cuts at the byte budget with whole lines", async () => {
		const wide = lines(3000, (i) => `${"x".repeat(60)} ${i + 1}`);
		await setup({ files: { "wide.txt": wide } });
		const result = await call({ path: "wide.txt" });
		const text = textOf(result);
		expect(text.endsWith("\n\n[Showing lines 1-789 of 3000 (50.0KB limit). Use offset=790 to continue.]")).toBe(true);
		const details = result.details as ReadToolDetails;
		expect(details.truncation?.truncatedBy).toBe("bytes");
		expect(details.truncation?.outputBytes).toBeLessThanOrEqual(50 * 1024);
		const shown = text.slice(0, text.indexOf("\n\n["));
		expect(shown.split("\n").every((line) => /^x{60} \d+$/.test(line))).toBe(true);
	});

	it("explains a first line over the byte budget and how to read it", async () => {
		await setup({ files: { "one-line.txt": `${"y".repeat(60_000)}\nshort\n` } });
		const result = await call({ path: "one-line.txt" });
		expect(textOf(result)).toBe(
			"[Line 1 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '1p' one-line.txt | head -c 51200]",
		);
		expect((result.details as ReadToolDetails).truncation?.firstLineExceedsLimit).toBe(true);
		expect(textOf(await call({ path: "one-line.txt", offset: 2 }))).toBe("short\n");
	});

	it("honors limit and reports the lines left", async () => {
		await setup({ files: { "ten.txt": lines(10) } });
		expect(textOf(await call({ path: "ten.txt", offset: 3, limit: 2 }))).toBe(
			"line 3\nline 4\n\n[6 more lines in file. Use offset=5 to continue.]",
		);
		expect(textOf(await call({ path: "ten.txt", offset: 9, limit: 5 }))).toBe("line 9\nline 10");
	});

	it("describes a file too large to count by its size", async () => {
		await setup({ files: { "big.txt": `${lines(5000)}\n` } });
		const small = createReadTool({ countLinesUpTo: 1000 });
		const result = await small.execute("id", { path: "big.txt" }, undefined, undefined, fx.ctx);
		expect(textOf(result)).toMatch(/\[Showing lines 1-2000 of a 4[0-9.]+KB file\. Use offset=2001 to continue\.\]$/);
		const limited = await small.execute("id", { path: "big.txt", limit: 2 }, undefined, undefined, fx.ctx);
		expect(textOf(limited)).toMatch(
			/^line 1\nline 2\n\n\[More lines follow in this [0-9.]+KB file\. Use offset=3 to continue\.\]$/,
		);
		// A deep offset still lands on the right line.
		const deep = await small.execute("id", { path: "big.txt", offset: 4999, limit: 1 }, undefined, undefined, fx.ctx);
		expect(textOf(deep).startsWith("line 4999\n")).toBe(true);
	});

	it("uses the limits it was created with", async () => {
		await setup({ files: { "f.txt": lines(20) } });
		const tiny = createReadTool({ maxLines: 5 });
		expect(textOf(await tiny.execute("id", { path: "f.txt" }, undefined, undefined, fx.ctx))).toBe(
			"line 1\nline 2\nline 3\nline 4\nline 5\n\n[Showing lines 1-5 of 20. Use offset=6 to continue.]",
		);
		expect(tiny.description).toContain("5 lines");
	});

	it("returns images by content, as base64 with their mime type", async () => {
		await setup({ files: Object.fromEntries(Object.entries(images).map(([name, image]) => [name, image.bytes])) });
		for (const [name, image] of Object.entries(images)) {
			const result = await call({ path: name });
			expect(result.content[0]).toEqual({ type: "text", text: `Read image file [${image.mime}]` });
			expect(result.content[1]).toEqual({
				type: "image",
				mimeType: image.mime,
				data: Buffer.from(image.bytes).toString("base64"),
			});
		}
	});

	it("refuses binary files, folders and missing files with the path in the message", async () => {
		await setup({ files: { "blob.bin": new Uint8Array([1, 2, 0, 3, 4]), "BMW.txt": "BMW cars\n" }, dirs: ["folder"] });
		await expect(call({ path: "blob.bin" })).rejects.toThrow("Could not read blob.bin: it is a binary file");
		await expect(call({ path: "folder" })).rejects.toThrow("Could not read folder: it is a folder");
		await expect(call({ path: "nope.txt" })).rejects.toThrow("Could not read nope.txt: the file does not exist.");
		// Text that starts like a BMP signature is still text.
		expect(textOf(await call({ path: "BMW.txt" }))).toBe("BMW cars\n");
	});

	it("follows symlinks, strips a leading @ and accepts absolute paths", async () => {
		await setup({ files: { "dir/real.txt": "target\n" }, symlinks: { "link.txt": "dir/real.txt" } });
		expect(textOf(await call({ path: "link.txt" }))).toBe("target\n");
		expect(textOf(await call({ path: "@dir/real.txt" }))).toBe("target\n");
		expect(textOf(await call({ path: fx.path("dir/real.txt") }))).toBe("target\n");
	});

	it("stops when the signal is already aborted", async () => {
		await setup({ files: { "a.txt": "a" } });
		const controller = new AbortController();
		controller.abort();
		await expect(read.execute("id", { path: "a.txt" }, controller.signal, undefined, fx.ctx)).rejects.toThrow(
			"Operation aborted",
		);
	});
});
