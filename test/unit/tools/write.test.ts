import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createWriteTool, type WriteToolDetails } from "../../../src/tools/write.js";
import { allToolEnvs, type FixtureFiles, stopToolEnvs, type ToolFixture, textOf } from "./_env.js";

const envs = await allToolEnvs();
afterAll(stopToolEnvs);

const write = createWriteTool();

describe.each(envs)("write on %s", (_name, make) => {
	let fx: ToolFixture;
	const setup = async (spec: FixtureFiles = {}) => {
		fx = await make(spec);
		return fx;
	};
	afterEach(async () => fx?.cleanup());
	const call = (path: string, content: string, signal?: AbortSignal) =>
		write.execute("id", { path, content }, signal, undefined, fx.ctx);

	it("creates the file and its folders, reporting UTF-8 bytes and the path as given", async () => {
		await setup();
		const result = await call("deep/new/dir/ü.txt", "héllo 😀\r\n");
		expect(textOf(result)).toBe("Successfully wrote 13 bytes to deep/new/dir/ü.txt");
		expect(result.details as WriteToolDetails).toEqual({ bytes: 13, absolutePath: fx.path("deep/new/dir/ü.txt") });
		expect(await fx.text("deep/new/dir/ü.txt")).toBe("héllo 😀\r\n");
	});

	it("replaces an existing file, writes empty content and writes through a symlink to its target", async () => {
		await setup({ files: { "real.txt": "old" }, symlinks: { "link.txt": "real.txt" } });
		await call("@real.txt", "");
		expect(await fx.text("real.txt")).toBe("");
		await call("link.txt", "via link");
		expect(await fx.text("real.txt")).toBe("via link");
		const info = await fx.env.fileInfo(fx.path("link.txt"), { followSymlinks: false });
		expect(info.ok && info.value.kind).toBe("symlink");
	});

	it("serializes parallel writes of one file in call order", async () => {
		await setup({ files: { "a.txt": "start" } });
		await Promise.all([call("a.txt", "first"), call("./a.txt", "second"), call(fx.path("a.txt"), "third")]);
		expect(await fx.text("a.txt")).toBe("third");
	});

	it("an aborted write leaves the old content", async () => {
		await setup({ files: { "a.txt": "keep me" } });
		const controller = new AbortController();
		controller.abort();
		await expect(call("a.txt", "new", controller.signal)).rejects.toThrow("Operation aborted");
		expect(await fx.text("a.txt")).toBe("keep me");
	});

	it("an abort in the middle of a large write leaves the old file or the new one, never a mix", async () => {
		const old = "o".repeat(1 << 20);
		await setup({ files: { "big.txt": old } });
		const content = "n".repeat(8 << 20);
		const controller = new AbortController();
		const pending = call("big.txt", content, controller.signal);
		setTimeout(() => controller.abort(), 1);
		const outcome = await pending.then(
			() => "done",
			(e: Error) => e.message,
		);
		const after = await fx.text("big.txt");
		if (outcome === "done") expect(after === content).toBe(true);
		else {
			expect(outcome).toBe("Operation aborted");
			expect(after === old || after === content).toBe(true);
		}
	});

	it("names the path when the write fails", async () => {
		await setup({ dirs: ["folder"] });
		await expect(call("folder", "x")).rejects.toThrow("Could not write folder:");
	});
});
