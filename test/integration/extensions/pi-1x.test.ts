/**
 * A tool-only extension written for pi 1.x (test/fixtures/pi-1x: `@earendil-works/*`
 * and TypeBox 1.x imports, `Type.Unsafe` compiled at the top level, `on` returning its remover,
 * `registerEntryRenderer`/`registerToolRenderer`, `parseFrontmatter`, pi-ai's `complete`) loads in
 * toolsmith with its tools working; and, where `npm run compat:setup` installed the
 * `@earendil-works/pi-coding-agent@1.6.0` release, its own loader (Node 22, a child process)
 * registers the same tools.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import type { ExtensionDiagnostic } from "../../../src/extensions/api.js";
import { type LoadExtensionsResult, loadExtensions } from "../../../src/extensions/node-loader.js";
import { findRelease, referenceLoad } from "../../compat/_reference.js";
import { runTool } from "./_run-tool.js";

const fixture = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures", "pi-1x");
const release = findRelease("@earendil-works", "1.6.0");

describe("a pi 1.x extension", () => {
	let cwd: string;
	let loaded: LoadExtensionsResult;
	const heard: ExtensionDiagnostic[] = [];

	beforeAll(async () => {
		cwd = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-pi-1x-")));
		loaded = await loadExtensions([fixture], {
			cwd,
			env: new NodeExecutionEnv({ cwd }),
			builtins: false,
			onDiagnostic: (diagnostic) => heard.push(diagnostic),
		});
	});
	afterAll(() => rmSync(cwd, { recursive: true, force: true }));

	it("loads: only the 1.x member toolsmith does not implement is noted", () => {
		expect(loaded.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
		expect(loaded.diagnostics.map((d) => `${d.code} ${/api\.(\w+)\(\)/.exec(d.message)?.[1] ?? d.message}`)).toEqual([
			"W_UNSUPPORTED_API registerEntryRenderer",
		]);
		expect(
			loaded.registry
				.infos()
				.map((info) => info.name)
				.sort(),
		).toEqual(["note_info", "summarize_note"]);
	});

	it("runs its tool: front matter, language, the Unsafe schema, the removed handler, ctx.mode", async () => {
		const result = await runTool(loaded, "note_info", {
			text: "---\r\ntitle: Groceries\r\ntags: [food, weekly]\r\n---\r\n\r\nMilk\r\nEggs\r\n",
			path: "notes/list.MD",
			flag: false,
		});
		expect(result.isError).toBe(false);
		expect(JSON.parse(result.text ?? "")).toEqual({
			title: "Groceries",
			tags: ["food", "weekly"],
			body: "Milk\nEggs",
			language: "markdown",
			lines: 2,
			flagValid: true,
			mode: "print",
		});
		// The Unsafe union is checked by the executor as well.
		expect((await runTool(loaded, "note_info", { text: "x", flag: { name: "x" } })).isError).toBe(true);
	});

	it("a model call fails with an error saying there is no model, and a warning", async () => {
		const result = await runTool(loaded, "summarize_note", { text: "Milk, eggs." });
		expect(result.isError).toBe(true);
		expect(result.text).toContain("No model is available in toolsmith's headless runtime: complete()");
		const warnings = heard.filter((d) => d.message.includes("called complete() from pi-ai"));
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toMatchObject({
			severity: "warning",
			code: "W_UNSUPPORTED_API",
			path: join(fixture, "index.ts"),
		});
	});

	it.runIf(release !== undefined)(
		"registers the same tools under the 1.6.0 release's own loader (Node 22)",
		async () => {
			if (!release) return;
			const reference = await referenceLoad(release, [fixture], cwd);
			expect(reference.errors).toEqual([]);
			expect(reference.extensions.flatMap((e) => e.tools).sort()).toEqual(["note_info", "summarize_note"]);
		},
		180_000,
	);
});
