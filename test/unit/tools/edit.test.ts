import { afterAll, afterEach, describe, expect, it } from "vitest";
import { withFileMutationQueue } from "../../../src/env/mutation-queue.js";
import { createEditTool, type EditToolDetails, prepareEditArguments } from "../../../src/tools/edit.js";
import { allToolEnvs, bothEnvs, type FixtureFiles, stopToolEnvs, type ToolFixture, textOf } from "./_env.js";

const envs = await allToolEnvs();
afterAll(stopToolEnvs);

const edit = createEditTool();
type Edits = { oldText: string; newText: string }[];

describe("prepareEditArguments", () => {
	it("turns the old single-edit form into edits[]", () => {
		expect(prepareEditArguments({ path: "a", oldText: "x", newText: "y" })).toEqual({
			path: "a",
			edits: [{ oldText: "x", newText: "y" }],
		});
	});
	it("parses edits sent as a JSON string", () => {
		expect(prepareEditArguments({ path: "a", edits: '[{"oldText":"x","newText":"y"}]' })).toEqual({
			path: "a",
			edits: [{ oldText: "x", newText: "y" }],
		});
	});
	it("leaves other input for validation to report, without changing the caller's object", () => {
		const input = { path: "a", edits: "not json" };
		expect(prepareEditArguments(input)).toEqual(input);
		expect(prepareEditArguments(null)).toBe(null);
		const legacy = { path: "a", oldText: "x", newText: "y" };
		prepareEditArguments(legacy);
		expect(legacy).toEqual({ path: "a", oldText: "x", newText: "y" });
	});
	it("hands the current shape back as it is (the executor then has no copy to make)", () => {
		const current = { path: "a", edits: [{ oldText: "x", newText: "y" }] };
		expect(prepareEditArguments(current)).toBe(current);
		const mixed = { path: "a", edits: [{ oldText: "x", newText: "y" }], oldText: "p", newText: "q" };
		expect(prepareEditArguments(mixed)).not.toBe(mixed);
	});
});

describe.each(envs)("edit on %s", (_name, make) => {
	let fx: ToolFixture;
	const setup = async (spec: FixtureFiles) => {
		fx = await make(spec);
		return fx;
	};
	afterEach(async () => fx?.cleanup());
	const call = (path: string, edits: Edits, signal?: AbortSignal) =>
		edit.execute("id", { path, edits }, signal, undefined, fx.ctx);

	it("applies several edits located in the original file, with a diff and a patch", async () => {
		await setup({ files: { "a.ts": "const a = 1;\nconst b = 2;\nconst c = 3;\n" } });
		const result = await call("a.ts", [
			{ oldText: "const c = 3;", newText: "const c = 30;" },
			{ oldText: "const a = 1;", newText: "const a = 10;\n// added" },
		]);
		expect(textOf(result)).toBe("Successfully replaced 2 block(s) in a.ts.");
		expect(await fx.text("a.ts")).toBe("const a = 10;\n// added\nconst b = 2;\nconst c = 30;\n");
		const details = result.details as EditToolDetails;
		expect(details.firstChangedLine).toBe(1);
		expect(details.diff).toBe(
			[
				"-1 const a = 1;",
				"+1 const a = 10;",
				"+2 // added",
				" 2 const b = 2;",
				"-3 const c = 3;",
				"+4 const c = 30;",
			].join("\n"),
		);
		expect(details.patch).toBe(
			[
				"--- a.ts",
				"+++ a.ts",
				"@@ -1,3 +1,4 @@",
				"-const a = 1;",
				"+const a = 10;",
				"+// added",
				" const b = 2;",
				"-const c = 3;",
				"+const c = 30;",
				"",
			].join("\n"),
		);
		expect(details.tolerant).toBeUndefined();
	});

	it("keeps CRLF line endings and the BOM", async () => {
		await setup({ files: { "win.txt": "\uFEFFone\r\ntwo\r\nthree\r\n" } });
		await call("win.txt", [{ oldText: "two\nthree", newText: "2\n3\n3.5" }]);
		expect(await fx.text("win.txt")).toBe("\uFEFFone\r\n2\r\n3\r\n3.5\r\n");
	});

	it("leaves mixed line endings outside the edit untouched", async () => {
		await setup({ files: { "mixed.txt": "a\r\nb\nc\r\nd\n" } });
		await call("mixed.txt", [{ oldText: "c", newText: "C" }]);
		expect(await fx.text("mixed.txt")).toBe("a\r\nb\nC\r\nd\n");
	});

	it("edits unicode text and a file without a final newline", async () => {
		await setup({ files: { "u.txt": "naïve 😀\n日本語" } });
		const result = await call("u.txt", [{ oldText: "日本語", newText: "にほんご" }]);
		expect(await fx.text("u.txt")).toBe("naïve 😀\nにほんご");
		expect((result.details as EditToolDetails).patch).toContain("\\ No newline at end of file");
	});

	it("falls back to a tolerant match and changes only the matched region", async () => {
		const original = "say \u201chello\u201d   \nkeep\u00a0this \u2014 and “this”\t\nend\n";
		await setup({ files: { "t.txt": original } });
		const result = await call("t.txt", [{ oldText: 'say "hello"\nkeep', newText: "say 'bye'\nkeep" }]);
		// The typographic quotes and the NBSP elsewhere in the file are still there.
		expect(await fx.text("t.txt")).toBe("say 'bye'\nkeep\u00a0this \u2014 and “this”\t\nend\n");
		expect(textOf(result)).toContain("edits[0] did not match exactly");
		expect((result.details as EditToolDetails).tolerant).toEqual([0]);
	});

	it("maps a tolerant match in a CRLF file back onto the original bytes", async () => {
		await setup({ files: { "w.txt": "a  \r\nb\u2019s\r\nc \u2014 d  \r\n" } });
		await call("w.txt", [{ oldText: "a\nb's", newText: "A\nB" }]);
		expect(await fx.text("w.txt")).toBe("A\r\nB\r\nc \u2014 d  \r\n");
	});

	it("names the edit that is missing and suggests the closest line", async () => {
		await setup({ files: { "a.txt": "alpha\nfunction total(items) {\nomega\n" } });
		const before = await fx.bytes("a.txt");
		const error = await call("a.txt", [
			{ oldText: "alpha", newText: "ALPHA" },
			{ oldText: "function totals(items) {", newText: "x" },
		]).catch((e: Error) => e);
		expect(error).toBeInstanceOf(Error);
		expect((error as Error).message).toContain("Could not find edits[1].oldText in a.txt");
		expect((error as Error).message).toContain('line 2: "function total(items) {"');
		expect(await fx.bytes("a.txt")).toEqual(before);
	});

	it("rejects duplicates with their count and lines, overlaps, empty oldText and no-op edits", async () => {
		await setup({ files: { "d.txt": "x = 1\ny = 2\nx = 1\nz\n" } });
		const before = await fx.bytes("d.txt");
		await expect(call("d.txt", [{ oldText: "x = 1", newText: "x = 2" }])).rejects.toThrow(
			"edits[0].oldText occurs 2 times in d.txt (lines 1, 3)",
		);
		await expect(
			call("d.txt", [
				{ oldText: "y = 2\nx", newText: "a" },
				{ oldText: "x = 1\nz", newText: "b" },
			]),
		).rejects.toThrow("edits[0] and edits[1] overlap in d.txt");
		await expect(call("d.txt", [{ oldText: "", newText: "a" }])).rejects.toThrow("edits[0].oldText is empty in d.txt");
		await expect(call("d.txt", [{ oldText: "y = 2", newText: "y = 2" }])).rejects.toThrow("No changes made to d.txt");
		await expect(call("missing.txt", [{ oldText: "a", newText: "b" }])).rejects.toThrow(
			"Could not edit missing.txt: the file does not exist.",
		);
		expect(await fx.bytes("d.txt")).toEqual(before);
	});

	it("refuses to edit a file that is not valid UTF-8", async () => {
		await setup({ files: { "latin1.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]) } });
		await expect(call("latin1.txt", [{ oldText: "caf", newText: "bar" }])).rejects.toThrow("not valid UTF-8");
	});

	it("lands parallel edits of one file made through different spellings of its path", async () => {
		const count = 12;
		const body = Array.from({ length: count }, (_, i) => `item ${i}`).join("\n");
		await setup({ files: { "dir/list.txt": `${body}\n` }, symlinks: { "alias.txt": "dir/list.txt" } });
		const spellings = ["dir/list.txt", "./dir/list.txt", fx.path("dir/list.txt"), "alias.txt", "dir/../dir/list.txt"];
		await Promise.all(
			Array.from({ length: count }, (_, i) =>
				call(spellings[i % spellings.length] as string, [{ oldText: `item ${i}\n`, newText: `item ${i} done\n` }]),
			),
		);
		const after = await fx.text("dir/list.txt");
		expect(after).toBe(`${Array.from({ length: count }, (_, i) => `item ${i} done`).join("\n")}\n`);
	});

	it("an abort while waiting for the file leaves it untouched", async () => {
		await setup({ files: { "a.txt": "one\ntwo\n" } });
		let release: (() => void) | undefined;
		const held = withFileMutationQueue(fx.env, fx.path("a.txt"), () => new Promise<void>((r) => (release = r)));
		// The file is held once the queue runs the holder (at once in memory, after a request over SSH).
		while (!release) await new Promise((r) => setTimeout(r, 5));
		const controller = new AbortController();
		const pending = call("a.txt", [{ oldText: "one", newText: "1" }], controller.signal);
		await new Promise((r) => setTimeout(r, 10));
		controller.abort();
		release();
		await held;
		await expect(pending).rejects.toThrow("Operation aborted");
		expect(await fx.text("a.txt")).toBe("one\ntwo\n");
	});
});

describe("the closest-line hint of a missing oldText", () => {
	/** Dice similarity over character pairs, written the plain way. */
	function dice(a: string, b: string): number {
		if (a === b) return 1;
		if (a.length < 2 || b.length < 2) return 0;
		const counts = new Map<string, number>();
		for (let i = 1; i < a.length; i++) counts.set(a.slice(i - 1, i + 1), (counts.get(a.slice(i - 1, i + 1)) ?? 0) + 1);
		let shared = 0;
		for (let i = 1; i < b.length; i++) {
			const pair = b.slice(i - 1, i + 1);
			const left = counts.get(pair) ?? 0;
			if (left > 0) {
				counts.set(pair, left - 1);
				shared++;
			}
		}
		return (2 * shared) / (a.length - 1 + (b.length - 1));
	}

	it("names the three most similar lines (at least 0.6 alike), in file order", async () => {
		let seed = 7;
		const random = (n: number) => {
			seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
			return seed % n;
		};
		const needle = "const total = items.reduce((sum, item) => sum + item.price, 0);";
		for (let round = 0; round < 40; round++) {
			// Lines made from the needle by a few random changes (some close, some far) and noise.
			const lines = Array.from({ length: 60 }, () => {
				const chars = [...needle];
				const changes = 11 + random(8);
				for (let k = 0; k < changes; k++) chars[random(chars.length)] = "#@%"[random(3)] as string;
				const kind = random(6);
				if (kind === 2) return `\t  ${chars.join("")} \u00a0`;
				return kind === 0 ? "x".repeat(random(90)) : kind === 1 ? "" : chars.join("");
			});
			// Now and then the last line has no line break after it (it is a line all the same).
			const file = lines.join("\n") + (random(3) === 0 ? "" : "\n");
			const fx = await bothEnvs[1]![1]({ files: { "h.ts": file } });
			const error = await edit
				.execute(
					"id",
					{ path: "h.ts", edits: [{ oldText: `${needle}\n`, newText: "x" }] },
					undefined,
					undefined,
					fx.ctx,
				)
				.catch((e: Error) => e);
			await fx.cleanup();
			expect(error).toBeInstanceOf(Error);
			const named = [...String((error as Error).message).matchAll(/line (\d+): "/g)].map((m) => Number(m[1]));
			const expected = lines
				.map((text, i) => ({ line: i + 1, score: dice(needle, text.trim()) }))
				.filter((s) => s.score >= 0.6)
				.sort((a, b) => b.score - a.score || a.line - b.line)
				.slice(0, 3)
				.map((s) => s.line)
				.sort((a, b) => a - b);
			expect(named).toEqual(expected);
		}
	});
});
