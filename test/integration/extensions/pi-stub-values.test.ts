/**
 * An extension that uses what stubbed pi functions return (test/fixtures/pi-stub-values), at load
 * and in `execute`, loads and runs under toolsmith: the stubs give inert values instead of
 * `undefined`, and each use is reported once, naming the stub the value came from.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import type { ExtensionDiagnostic } from "../../../src/extensions/api.js";
import { type LoadExtensionsResult, loadExtensions } from "../../../src/extensions/node-loader.js";
import { runTool } from "./_run-tool.js";

const fixture = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures", "pi-stub-values");
const entry = join(fixture, "index.ts");

describe("an extension using the results of stubbed functions", () => {
	let cwd: string;
	let loaded: LoadExtensionsResult;
	const heard: ExtensionDiagnostic[] = [];

	beforeAll(async () => {
		cwd = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-pi-stub-values-")));
		loaded = await loadExtensions([fixture], {
			cwd,
			env: new NodeExecutionEnv({ cwd }),
			builtins: false,
			onDiagnostic: (diagnostic) => heard.push(diagnostic),
		});
	});
	afterAll(() => rmSync(cwd, { recursive: true, force: true }));

	it("loads, its use at load reported naming the stub", () => {
		expect(loaded.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
		expect(loaded.registry.infos().map((info) => info.name)).toEqual(["shrink_image"]);
		const atLoad = heard.filter((d) =>
			d.message.includes("a value that `SessionManager.inMemory` from pi-coding-agent"),
		);
		expect(atLoad).toHaveLength(1);
		expect(atLoad[0]).toMatchObject({ severity: "warning", code: "W_UNSUPPORTED_API", path: entry });
		expect(atLoad[0]?.message).toContain("`SessionManager.inMemory().getHeader`");
	});

	it("runs its tool on the inert values, and reports each stub whose value it used once", async () => {
		const first = await runTool(loaded, "shrink_image", { path: "a.png" });
		expect(first.isError).toBe(false);
		expect(JSON.parse(first.text ?? "")).toEqual({
			path: "a.png",
			size: "x",
			bytes: 0,
			kinds: [],
			startedIn: "",
			entries: 0,
			json: '{"resized":null}',
			wasResized: "yes",
			title: "pick one",
			drawn: [],
		});
		await runTool(loaded, "shrink_image", { path: "b.png" });
		const uses = heard.filter((d) => d.message.includes("a value that `resizeImage` from pi-coding-agent"));
		expect(uses).toHaveLength(1);
		expect(uses[0]).toMatchObject({ severity: "warning", code: "W_UNSUPPORTED_API", path: entry });
		expect(uses[0]?.message).toContain("`resizeImage().width`");
	});
});
