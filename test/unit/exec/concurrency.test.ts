/** `maxConcurrency`: how many calls of a parallel batch run at once; results keep source order. */
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../../src/runtime.js";
import { call, text, tool } from "./_helpers.js";

async function peakOf(count: number, maxConcurrency?: number, hooked = false) {
	let inFlight = 0;
	let peak = 0;
	const t = tool("slow", async (id) => {
		inFlight++;
		peak = Math.max(peak, inFlight);
		await new Promise((resolve) => setTimeout(resolve, Number(id.slice(1)) % 3));
		inFlight--;
		return text(id);
	});
	const calls = Array.from({ length: count }, (_, i) => call(`c${i}`, "slow"));
	const { results } = await executeToolCalls(calls, {
		tools: [t],
		...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
		...(hooked ? { beforeToolCall: async () => undefined } : {}),
	});
	return { peak, results };
}

describe("maxConcurrency", () => {
	it.each([false, true])("is honored and keeps source order (beforeToolCall %s)", async (hooked) => {
		const { peak, results } = await peakOf(40, 4, hooked);
		expect(peak).toBe(4);
		expect(results.map((r) => (r.content[0]?.type === "text" ? r.content[0].text : ""))).toEqual(
			Array.from({ length: 40 }, (_, i) => `c${i}`),
		);
		expect(results.every((r) => !r.isError)).toBe(true);
	});

	it("defaults to 16", async () => {
		expect((await peakOf(40)).peak).toBe(16);
	});

	it("a value that is not a positive integer fails every call, saying so", async () => {
		const { results } = await executeToolCalls([call("1", "slow")], {
			tools: [tool("slow", async () => text("ran"))],
			maxConcurrency: 0,
		});
		expect(results[0]?.isError).toBe(true);
		const block = results[0]?.content[0];
		expect(block?.type === "text" ? block.text : "").toContain("maxConcurrency must be a positive integer");
	});
});
