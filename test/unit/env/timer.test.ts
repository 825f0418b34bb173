import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_TIMER_MS, setLongTimeout } from "../../../src/env/_timer.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";

afterEach(() => {
	vi.useRealTimers();
});

describe("setLongTimeout", () => {
	it("fires after delays longer than one setTimeout holds, and not before", () => {
		vi.useFakeTimers();
		const fired = vi.fn();
		setLongTimeout(3_000_000_000, fired);
		vi.advanceTimersByTime(MAX_TIMER_MS);
		expect(fired).not.toHaveBeenCalled();
		vi.advanceTimersByTime(3_000_000_000 - MAX_TIMER_MS - 1);
		expect(fired).not.toHaveBeenCalled();
		vi.advanceTimersByTime(1);
		expect(fired).toHaveBeenCalledTimes(1);
	});

	it("can be cancelled, also between its steps", () => {
		vi.useFakeTimers();
		const fired = vi.fn();
		const cancel = setLongTimeout(3_000_000_000, fired);
		vi.advanceTimersByTime(MAX_TIMER_MS + 5);
		cancel();
		vi.advanceTimersByTime(3_000_000_000);
		expect(fired).not.toHaveBeenCalled();
	});

	it("kills a memory command after 3000000 seconds, not after 1 ms", async () => {
		vi.useFakeTimers();
		const env = new MemoryExecutionEnv({
			commands: [{ match: "hang", chunks: [{ stream: "stdout", data: "x", delayMs: 4_000_000_000 }] }],
		});
		let settled = false;
		const pending = env.exec("hang", { timeout: 3_000_000 }).then((result) => {
			settled = true;
			return result;
		});
		await vi.advanceTimersByTimeAsync(2_999_999_000);
		expect(settled).toBe(false);
		await vi.advanceTimersByTimeAsync(1000);
		const result = await pending;
		expect(result.ok ? "ok" : result.error.message).toContain("Command timed out after 3000000 seconds");
	});
});
