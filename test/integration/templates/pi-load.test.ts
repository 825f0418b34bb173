/**
 * The pi-facing templates in the pi coding agent itself: a generated `tool` project and a generated
 * `pi-extension` project loaded by the reference's own loader (the benchmark peers, installed by
 * `npm run bench:setup`), which must register the same tools as toolsmith and return the same
 * results for the same call on the same files. Part of `npm run compat:pi`, which requires the peers;
 * elsewhere it is skipped when they are not installed.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { executeToolCalls } from "../../../src/exec/execute.js";
import { loadExtensions } from "../../../src/extensions/node-loader.js";
import { toolSnippet } from "../../../src/prompt/tools-prompt.js";
import { importPeer, peersDir } from "../../bench/_peer.js";
import { packCreateToolsmith, packToolsmith } from "../_pack.js";
import { installCreate, sh, show } from "./_scaffold.js";

const peersInstalled = existsSync(
	join(peersDir, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "index.js"),
);
const required = process.env.TOOLSMITH_REQUIRE_PEERS === "1";

interface PiTool {
	readonly definition: {
		readonly name: string;
		readonly promptSnippet?: string;
		execute(id: string, params: unknown, signal: undefined, onUpdate: undefined, ctx: unknown): Promise<unknown>;
	};
}
interface PiLoaded {
	readonly extensions: { readonly path: string; readonly tools: Map<string, PiTool> }[];
	readonly errors: { readonly path: string; readonly error: string }[];
}
interface PiModule {
	discoverAndLoadExtensions(paths: string[], cwd: string, agentDir?: string): Promise<PiLoaded>;
}

/** Each pi-facing template, and a call to make under both agents. */
const CASES = [
	{ template: "tool", install: true, tool: "word_count", args: { path: "notes.txt" } },
	{ template: "pi-extension", install: false, tool: "slugify", args: { text: "Crème brûlée, 2 ways" } },
] as const;

it.runIf(required && !peersInstalled)("needs the benchmark peers: run npm run bench:setup first", () => {
	expect.fail("the reference package is not installed in test/bench/peers; run `npm run bench:setup`");
});

describe.runIf(peersInstalled)("the pi-facing templates in the pi coding agent", () => {
	let work: string;
	let agentDir: string;
	let pi: PiModule;

	beforeAll(async () => {
		work = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-pi-templates-")));
		agentDir = join(work, ".pi-agent");
		pi = await importPeer<PiModule>("@mariozechner/pi-coding-agent");
		const [toolsmith, create] = await Promise.all([packToolsmith(), packCreateToolsmith()]);
		const bin = await installCreate(create, work);
		for (const c of CASES) {
			const args = [c.template, "--template", c.template, "--yes", "--no-git", "--toolsmith", toolsmith];
			const created = await sh(bin, c.install ? args : [...args, "--no-install"], work);
			if (created.code !== 0) throw new Error(`create-toolsmith failed for ${c.template}:\n${show(created)}`);
			writeFileSync(join(work, c.template, "notes.txt"), "one two\nthree\n");
		}
	}, 400_000);

	afterAll(() => rmSync(work, { recursive: true, force: true }));

	describe.each(CASES)("$template", (c) => {
		it("registers the same tools, with the same prompt snippets, and returns the same result", async () => {
			const dir = join(work, c.template);
			const loaded = await pi.discoverAndLoadExtensions([dir], dir, agentDir);
			expect(loaded.errors).toEqual([]);
			const piTools = loaded.extensions.flatMap((e) => [...e.tools.values()].map((t) => t.definition));

			const ours = await loadExtensions([dir], { cwd: dir, env: new NodeExecutionEnv({ cwd: dir }) });
			expect(ours.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
			const extensionTools = ours.registry.infos().filter((info) => info.source !== "builtin");
			expect(piTools.map((t) => t.name).sort()).toEqual(extensionTools.map((t) => t.name).sort());
			for (const info of extensionTools) {
				const entry = ours.registry.get(info.name);
				const piTool = piTools.find((t) => t.name === info.name);
				if (entry && piTool?.promptSnippet !== undefined)
					expect(piTool.promptSnippet).toBe(toolSnippet(entry.definition));
			}

			const piTool = piTools.find((t) => t.name === c.tool)!;
			const piResult = (await piTool.execute("call-1", c.args, undefined, undefined, {
				cwd: dir,
				hasUI: false,
				ui: {},
			})) as { content: unknown; details: unknown };
			const { results } = await executeToolCalls(
				[{ type: "toolCall", id: "call-1", name: c.tool, arguments: c.args }],
				ours.registry.executorConfig(),
			);
			expect(results[0]?.isError).toBe(false);
			expect(piResult.content).toEqual(results[0]?.content);
			expect(piResult.details).toEqual(results[0]?.details);
		});
	});
});
