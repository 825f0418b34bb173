/** Built-in tools given hostile values by a model or a broken result: clear errors, and renderers that do not throw. */
import { describe, expect, it } from "vitest";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { plainTheme } from "../../../src/render/theme.js";
import { createBashTool } from "../../../src/tools/bash.js";
import { createEditTool } from "../../../src/tools/edit.js";
import { hostileObjects } from "../contract/_hostile.js";
import { contextFor } from "./_env.js";

describe.each(hostileObjects())("%s", (_name, value) => {
	it("as bash's timeout is refused with a message saying what to give", async () => {
		const bash = createBashTool();
		const ctx = contextFor(new MemoryExecutionEnv());
		await expect(
			bash.execute("id", { command: "true", timeout: value as number }, undefined, undefined, ctx),
		).rejects.toThrow(/^Invalid timeout .*: give a positive number of seconds/);
	});

	it("as an image's mimeType in a result is named by the bash and edit renderers without throwing", () => {
		const result = {
			content: [{ type: "image", data: "", mimeType: value }],
			details: {},
		} as never;
		const options = { expanded: true, isPartial: false };
		for (const tool of [createBashTool(), createEditTool()]) {
			expect(() => tool.renderResult?.(result, options, plainTheme, {})).not.toThrow();
		}
	});
});
