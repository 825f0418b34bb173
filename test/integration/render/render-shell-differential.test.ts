/**
 * `renderShell` against pi 1.6.0: `renderToolBlock` lays a tool row out as the release's own
 * `ToolExecutionComponent` does (driven without a terminal by test/compat/_tool-row.mjs under the
 * Node the release needs), colors aside: the default frame (padding rows, `outputPad` indent) and
 * `"self"` (the renderers' lines as they are, `outputPad` given to them). Skips when
 * `npm run compat:setup` has not installed the release.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { RenderableTool } from "../../../src/render/renderer.js";
import { renderToolBlock } from "../../../src/render/renderer.js";
import { plainTheme } from "../../../src/render/theme.js";
import { findRelease, nodeFor } from "../../compat/_reference.js";

const release = findRelease("@earendil-works", "1.6.0");
const script = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "compat", "_tool-row.mjs");

interface Case {
	readonly shell: "default" | "self";
	readonly call: string;
	readonly result?: string;
	readonly isError?: boolean;
	readonly width: number;
	readonly outputPad: number;
	/** The call renderer indents by the `outputPad` its context gives (what a "self" renderer does). */
	readonly padCall?: boolean;
}

const cases: Case[] = [
	{ shell: "default", call: "call one", result: "line one\nline two", width: 30, outputPad: 1 },
	{ shell: "self", call: "call one", result: "line one\nline two", width: 30, outputPad: 1 },
	{ shell: "default", call: "call one", width: 30, outputPad: 1 },
	{ shell: "self", call: "call one", width: 30, outputPad: 1 },
	{ shell: "default", call: "call", result: "failed", isError: true, width: 24, outputPad: 3 },
	{ shell: "self", call: "call", result: "out", width: 24, outputPad: 2, padCall: true },
	{ shell: "default", call: "call", result: "out", width: 24, outputPad: 0, padCall: true },
	// A self-framed tool that draws nothing takes no room at all; a framed one keeps its frame.
	{ shell: "self", call: "", width: 20, outputPad: 1 },
	{ shell: "default", call: "", width: 20, outputPad: 1 },
];

/** pi pads every line to the width with its background color; trailing blanks are not compared. */
const trimmed = (lines: readonly string[]): string[] => lines.map((line) => line.trimEnd());

function ours(c: Case): string[] {
	const definition: RenderableTool = {
		name: "tool",
		renderShell: c.shell,
		renderCall: (_args, _theme, context) => `${c.padCall ? " ".repeat(context?.outputPad ?? 0) : ""}${c.call}`,
		renderResult: (result) => (result.content[0]?.type === "text" ? result.content[0].text : ""),
	};
	return renderToolBlock(
		definition,
		{
			args: {},
			...(c.result === undefined
				? {}
				: { result: { content: [{ type: "text", text: c.result }], details: undefined } }),
		},
		plainTheme,
		c.width,
		{ outputPad: c.outputPad, isError: c.isError === true },
	).lines;
}

describe.runIf(release !== undefined)("renderShell: renderToolBlock against pi 1.6.0's tool row", () => {
	it("lays out every case as the release does", () => {
		if (!release) return;
		const child = spawnSync(nodeFor(release), [script, release.dir], {
			input: JSON.stringify(cases),
			encoding: "utf8",
			timeout: 60_000,
		});
		if (child.status !== 0) throw new Error(`the reference script failed: ${child.stderr}`);
		const theirs = JSON.parse(child.stdout) as string[][];
		cases.forEach((c, index) => {
			expect(trimmed(ours(c)), JSON.stringify(c)).toEqual(trimmed(theirs[index] ?? []));
		});
		// Not vacuous: the two shells differ in the reference.
		expect(trimmed(theirs[0] ?? [])).not.toEqual(trimmed(theirs[1] ?? []));
	});
});

it.runIf(release === undefined)("the renderShell differential needs the 1.6.0 release", (context) => {
	context.skip("the 1.6.0 release is not installed (npm run compat:setup)");
});
