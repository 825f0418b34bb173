/**
 * The README's demo tool (docs/examples/hello.ts) as `toolsmith dev` and the inspector draw it:
 * its call is drawn before validation, so an invalid call must still read sensibly.
 */
import { join } from "node:path";
import { expect, it } from "vitest";
import { createTestHarness } from "../../../src/harness/index.js";
import type { Theme } from "../../../src/index.js";
import { plainTheme, renderToolCall, renderToolResult } from "../../../src/render/index.js";

const example = join(import.meta.dirname, "..", "..", "..", "docs", "examples", "hello.ts");

/** The plain theme, with each color role written around its text. */
const tagged: Theme = { ...plainTheme, fg: (color, text) => `<${color}>${text}</${color}>` };

async function hello() {
	const harness = await createTestHarness({ extensions: [example], builtins: false });
	const definition = harness.registry.get("hello")?.definition;
	if (!definition) throw new Error(`hello was not registered: ${JSON.stringify(harness.diagnostics)}`);
	return { harness, definition };
}

it("draws a call without a name as such, never as `hello undefined`", async () => {
	const { definition } = await hello();
	const draw = (args: unknown) => renderToolCall(definition, args, plainTheme, 80).lines.join("\n");
	expect(draw({ name: "Ada" })).toBe("hello Ada");
	expect(draw({})).toBe("hello (no name)");
	expect(draw({ name: 5 })).toBe("hello 5");
	expect(draw({ name: null })).toBe("hello null");
});

it("draws a missing or odd name in the error color", async () => {
	const { definition } = await hello();
	const draw = (args: unknown) => renderToolCall(definition, args, tagged, 80).lines.join("\n");
	expect(draw({ name: "Ada" })).toBe("<toolTitle>hello</toolTitle> <accent>Ada</accent>");
	expect(draw({})).toBe("<toolTitle>hello</toolTitle> <error>(no name)</error>");
});

it("draws the validation error of an invalid call as an error, a greeting as a success", async () => {
	const { harness, definition } = await hello();
	const draw = (result: Awaited<ReturnType<typeof harness.call>>, isError: boolean) =>
		renderToolResult(definition, result, { expanded: false, isPartial: false }, tagged, 80, { isError }).lines;
	const invalid = draw(await harness.call("hello", {}), true);
	expect(invalid[0]).toBe('<error>Invalid arguments for tool "hello":');
	expect(draw(await harness.call("hello", { name: "Ada" }), false)).toEqual(["<success>Hello, Ada.</success>"]);
});
