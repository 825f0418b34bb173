import { fileURLToPath } from "node:url";
import { MemoryExecutionEnv } from "toolsmith-sdk";
import { createTestHarness } from "toolsmith-sdk/harness";
import { createExtensionHost } from "toolsmith-sdk/node";
import { describeConformance } from "toolsmith-sdk/vitest";
import { describe, expect, it } from "vitest";

const project = fileURLToPath(new URL("..", import.meta.url));
const entry = fileURLToPath(new URL("../src/index.ts", import.meta.url));

describe("todo", () => {
	it("adds, completes and lists items, in the order of the batch", async () => {
		const harness = await createTestHarness({ extensions: [project], builtins: false });
		expect(harness.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
		const { results } = await harness.batch([
			{ name: "todo", arguments: { action: "add", text: "write the tests" } },
			{ name: "todo", arguments: { action: "add", text: "ship it" } },
			{ name: "todo", arguments: { action: "done", id: 1 } },
		]);
		expect(results.map((result) => result.isError)).toEqual([false, false, false]);
		expect(await harness.call("todo", { action: "list" })).toHaveText("[x] #1 write the tests\n[ ] #2 ship it");
	});

	it("explains a call it cannot do", async () => {
		const harness = await createTestHarness({ extensions: [project], builtins: false });
		expect(await harness.call("todo", { action: "done", id: 7 })).toBeToolError("there is no item #7");
		expect(await harness.call("todo", { action: "add" })).toBeToolError("needs `text`");
	});

	it("keeps the list across a hot reload of the extension", async () => {
		const host = createExtensionHost({ paths: [project], env: new MemoryExecutionEnv(), builtins: false });
		try {
			await host.ready;
			await host.execute([{ type: "toolCall", id: "1", name: "todo", arguments: { action: "add", text: "survive" } }]);
			const [event] = await host.reload(entry);
			expect(event).toMatchObject({ kind: "reload", ok: true });
			const { results } = await host.execute([
				{ type: "toolCall", id: "2", name: "todo", arguments: { action: "list" } },
			]);
			expect(results[0]).toHaveText("[ ] #1 survive");
		} finally {
			await host.close();
		}
	});
});

describeConformance(project);
