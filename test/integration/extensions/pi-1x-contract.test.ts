import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { executeToolCalls } from "../../../src/exec/execute.js";
import type { ToolInfo } from "../../../src/extensions/api.js";
import { type LoadExtensionsResult, loadExtensions } from "../../../src/extensions/node-loader.js";
import { findRelease, type ReferenceSession, referenceSession } from "../../compat/_reference.js";
import { typeCheckAgainstRelease } from "./_pi-typecheck.js";

const fixture = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures", "pi-1x-contract");
const release = findRelease("@earendil-works", "1.6.0");
const OWN = ["word_count", "orchestrate", "quiet_helper", "docs_search", "docs_archive", "internal_probe", "opt_in"];
const docs = { name: "mcp__docs", aliases: ["docs"], description: "Project docs", instructions: "Search first." };

/** What both sides report of the fixture's own tools, in one shape. */
function view(
	tools: readonly Pick<ToolInfo, "name" | "exposure" | "namespace" | "annotations">[],
	reaches: (name: string) => boolean,
	active: readonly string[],
	callable: readonly string[],
	declared: readonly { name: string; description: string }[],
) {
	const own = (name: string) => OWN.includes(name);
	return {
		tools: tools
			.filter((t) => own(t.name))
			.map((t) => ({
				name: t.name,
				exposure: t.exposure,
				namespace: t.namespace,
				annotations: t.annotations,
				reachesTools: reaches(t.name),
			})),
		active: active.filter(own),
		callable: callable.filter(own),
		declared: declared.filter((d) => own(d.name)).map(({ name, description }) => ({ name, description })),
	};
}

describe("a pi 1.x extension using the 1.x tool contract", () => {
	let cwd: string;
	let loaded: LoadExtensionsResult;

	beforeAll(async () => {
		cwd = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-pi-1x-contract-")));
		loaded = await loadExtensions([fixture], { cwd, env: new NodeExecutionEnv({ cwd }) });
	});
	afterAll(() => rmSync(cwd, { recursive: true, force: true }));

	const mine = () => {
		const snap = loaded.registry.snapshot();
		const infos = loaded.registry.infos();
		return view(
			infos,
			(name) => typeof infos.find((i) => i.name === name)?.reachesTools === "function",
			snap.active.map((e) => e.name),
			snap.callable.map((e) => e.name),
			snap.declarations(),
		);
	};

	it("registers every tool, with the 1.x fields in getAllTools()", () => {
		expect(loaded.diagnostics.filter((d) => d.severity !== "info")).toEqual([]);
		const infos = loaded.registry.infos();
		expect(infos.find((i) => i.name === "docs_search")).toMatchObject({
			exposure: "codemode",
			namespace: docs,
			annotations: { readOnlyHint: true },
			active: false,
			callable: true,
		});
		expect(infos.find((i) => i.name === "orchestrate")?.reachesTools?.({ plan: "docs word" })).toEqual([
			"docs",
			"word",
		]);
		expect(loaded.registry.get("word_count")?.definition).toMatchObject({
			renderShell: "self",
			constrainedSampling: { type: "json_schema", strict: "prefer" },
		});
	});

	it("activates, exposes and declares as 1.x says", () => {
		const view = mine();
		expect(view.active).toEqual(["word_count", "orchestrate", "quiet_helper"]);
		expect(view.callable).toEqual(["word_count", "quiet_helper", "docs_search", "docs_archive"]);
		expect(view.declared.map((d) => d.name)).toEqual(["word_count", "orchestrate"]);
		expect(view.declared[1]?.description).toBe(
			"Runs a plan over: bash, docs_archive, docs_search, edit, quiet_helper, read, word_count, write.",
		);
		expect(loaded.registry.buildToolsPrompt()).not.toContain("quiet_helper");
	});

	it("opt_in and codemode tools become active when named; hidden ones never", () => {
		const before = loaded.registry.getActiveTools();
		loaded.registry.setActiveTools([...before, "opt_in", "docs_search", "internal_probe"]);
		expect(loaded.registry.getActiveTools().filter((n) => OWN.includes(n))).toEqual([
			"word_count",
			"orchestrate",
			"quiet_helper",
			"docs_search",
			"opt_in",
		]);
		loaded.registry.setActiveTools(before);
	});

	it("word_count's result carries structuredContent to the message", async () => {
		const { results } = await executeToolCalls(
			[{ type: "toolCall", id: "c1", name: "word_count", arguments: { text: "one two three" } }],
			loaded.registry.executorConfig(),
		);
		expect(results[0]).toMatchObject({
			isError: false,
			content: [{ type: "text", text: "3 words" }],
			details: { chars: 13 },
			structuredContent: { words: 3 },
		});
	});

	it.runIf(release !== undefined)(
		"matches the 1.6.0 release's own session (Node 22)",
		async () => {
			if (!release) return;
			const reference: ReferenceSession = await referenceSession(release, [fixture], cwd, [
				{ name: "word_count", args: { text: "one two three" } },
			]);
			expect(reference.errors).toEqual([]);
			const theirs = view(
				reference.tools.map((t) => ({ ...t, exposure: t.exposure as ToolInfo["exposure"] })),
				(name) => reference.tools.find((t) => t.name === name)?.reachesTools === true,
				reference.active,
				reference.callable,
				reference.declared,
			);
			expect(mine()).toEqual(theirs);
			expect(reference.calls[0]).toMatchObject({ details: { chars: 13 }, structuredContent: { words: 3 } });
		},
		180_000,
	);

	it.runIf(release !== undefined)(
		"type-checks against the 1.6.0 release's own declarations",
		async () => {
			if (!release) return;
			const output = await typeCheckAgainstRelease(release.dir, cwd, [join(fixture, "index.ts")]);
			expect(output).toBe("");
		},
		180_000,
	);
});
