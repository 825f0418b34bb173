import { describe, expect, it } from "vitest";
import { createSwapGate } from "../../../src/extensions/_swap-gate.js";

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function settled(promise: Promise<void>): () => boolean {
	let done = false;
	void promise.then(() => {
		done = true;
	});
	return () => done;
}

describe("swap gate", () => {
	it("lets a batch through at once while open", async () => {
		const gate = createSwapGate();
		const passed = settled(gate.wait());
		await flush();
		expect(passed()).toBe(true);
	});

	it("holds batches until released; holding twice needs one release", async () => {
		const gate = createSwapGate();
		gate.hold();
		gate.hold();
		const first = settled(gate.wait());
		const second = settled(gate.wait());
		await flush();
		expect([first(), second()]).toEqual([false, false]);
		gate.release();
		await flush();
		expect([first(), second()]).toEqual([true, true]);
		// Releasing an open gate changes nothing.
		gate.release();
		const later = settled(gate.wait());
		await flush();
		expect(later()).toBe(true);
	});

	it("keeps a waiter waiting when the gate closes again before it resumed", async () => {
		const gate = createSwapGate();
		gate.hold();
		const waiter = settled(gate.wait());
		gate.release();
		gate.hold();
		await flush();
		expect(waiter()).toBe(false);
		gate.release();
		await flush();
		expect(waiter()).toBe(true);
	});
});
