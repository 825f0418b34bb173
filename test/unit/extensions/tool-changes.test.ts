import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../../src/contract/tool.js";
import { signaturesOf, toolChanges, toolSignature } from "../../../src/extensions/_tool-changes.js";
import type { ToolEntry } from "../../../src/extensions/registry.js";

const definition = (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
	name,
	label: name,
	description: `The ${name} tool.`,
	parameters: { type: "object", properties: {} } as unknown as ToolDefinition["parameters"],
	async execute() {
		return { content: [{ type: "text", text: name }], details: {} };
	},
	...extra,
});

describe("toolSignature", () => {
	it("differs when what the model or a UI sees differs, functions by their source", () => {
		const base = toolSignature(definition("t"));
		expect(toolSignature(definition("t"))).toBe(base);
		expect(toolSignature(definition("t", { description: "Other." }))).not.toBe(base);
		expect(toolSignature(definition("t", { executionMode: "sequential" }))).not.toBe(base);
		expect(
			toolSignature(
				definition("t", {
					async execute() {
						return { content: [], details: { changed: true } };
					},
				}),
			),
		).not.toBe(base);
	});
});

describe("signaturesOf and toolChanges", () => {
	const entry = (name: string, path: string | undefined, extra: Partial<ToolDefinition> = {}): ToolEntry => ({
		name,
		definition: definition(name, extra),
		source: path === undefined ? { kind: "builtin" } : { kind: "extension", path },
	});

	it("takes the tools of one extension only", () => {
		const signatures = signaturesOf([entry("read", undefined), entry("a", "/x.ts"), entry("b", "/y.ts")], "/x.ts");
		expect([...signatures.keys()]).toEqual(["a"]);
	});

	it("names the tools added, removed and changed, in the registry's order", () => {
		const before = signaturesOf([entry("keep", "/x.ts"), entry("edit", "/x.ts"), entry("gone", "/x.ts")], "/x.ts");
		const after = signaturesOf(
			[entry("keep", "/x.ts"), entry("edit", "/x.ts", { label: "Edited" }), entry("new", "/x.ts")],
			"/x.ts",
		);
		expect(toolChanges(before, after)).toEqual({ added: ["new"], removed: ["gone"], changed: ["edit"] });
		expect(toolChanges(after, after)).toEqual({ added: [], removed: [], changed: [] });
	});
});
