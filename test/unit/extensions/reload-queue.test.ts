import { describe, expect, it } from "vitest";
import { createReloadQueue, type QueuedJob, type ReloadQueueOptions } from "../../../src/extensions/_reload-queue.js";

function deferred<T>() {
	let resolve!: (value: T) => void;
	const promise = new Promise<T>((res) => {
		resolve = res;
	});
	return { promise, resolve };
}

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function setup(overrides: Partial<ReloadQueueOptions<string>> = {}) {
	const log: string[] = [];
	let closed = false;
	const queue = createReloadQueue<string>({
		closed: () => closed,
		afterEach: (results) => log.push(`after ${JSON.stringify(results)}`),
		onError: (error) => log.push(`error ${(error as Error).message}`),
		...overrides,
	});
	return { queue, log, close: () => (closed = true) };
}

describe("reload queue", () => {
	it("runs one step at a time, in order, each after the previous one finished", async () => {
		const { queue, log } = setup();
		const first = deferred<string[]>();
		const a = queue.enqueue("a", [], false, async () => {
			log.push("a starts");
			return first.promise;
		});
		const b = queue.enqueue("b", [], false, async () => {
			log.push("b starts");
			return ["b done"];
		});
		await tick();
		expect(log).toEqual(["a starts"]);
		first.resolve(["a done"]);
		expect(await a).toEqual(["a done"]);
		expect(await b).toEqual(["b done"]);
		expect(log).toEqual(["a starts", 'after ["a done"]', "b starts", 'after ["b done"]']);
	});

	it("folds a request into a waiting step of the same key: its files, its force, one promise, the first run", async () => {
		const { queue } = setup();
		const gate = deferred<string[]>();
		void queue.enqueue("busy", [], false, () => gate.promise);
		const seen: QueuedJob[] = [];
		const run = (label: string) => async (job: QueuedJob) => {
			seen.push({ key: job.key, files: new Set(job.files), force: job.force });
			return [label];
		};
		const one = queue.enqueue("k", ["x"], false, run("first"));
		const two = queue.enqueue("k", ["y", "x"], true, run("second"));
		expect(two).toBe(one);
		gate.resolve([]);
		expect(await one).toEqual(["first"]);
		expect(seen).toEqual([{ key: "k", files: new Set(["x", "y"]), force: true }]);
	});

	it("queues a new step when the one of that key is already running", async () => {
		const { queue } = setup();
		const gate = deferred<string[]>();
		const runs: string[] = [];
		const one = queue.enqueue("k", ["x"], false, async (job) => {
			runs.push(`one ${[...job.files]}`);
			return gate.promise;
		});
		await tick();
		const two = queue.enqueue("k", ["y"], false, async (job) => {
			runs.push(`two ${[...job.files]}`);
			return ["two"];
		});
		expect(two).not.toBe(one);
		gate.resolve(["one"]);
		expect([await one, await two]).toEqual([["one"], ["two"]]);
		expect(runs).toEqual(["one x", "two y"]);
	});

	it("resolves a step that threw with [] after reporting it, and goes on", async () => {
		const { queue, log } = setup();
		const broken = queue.enqueue("a", [], false, async () => {
			throw new Error("boom");
		});
		const next = queue.enqueue("b", [], false, async () => ["b"]);
		expect(await broken).toEqual([]);
		expect(await next).toEqual(["b"]);
		expect(log).toEqual(["error boom", "after []", 'after ["b"]']);
	});

	it("once closed, answers [] without running, drops waiting steps, and lets the running one finish", async () => {
		const { queue, log, close } = setup();
		const gate = deferred<string[]>();
		const running = queue.enqueue("a", [], false, () => gate.promise);
		let ran = false;
		const waiting = queue.enqueue("b", [], false, async () => {
			ran = true;
			return ["b"];
		});
		await tick();
		close();
		expect(await queue.enqueue("c", [], false, async () => ["c"])).toEqual([]);
		const idle = queue.idle();
		gate.resolve(["a"]);
		await idle;
		expect([await running, await waiting]).toEqual([["a"], []]);
		expect(ran).toBe(false);
		expect(log).toEqual(['after ["a"]']);
	});

	it("is idle at once when nothing runs", async () => {
		const { queue } = setup();
		await expect(queue.idle()).resolves.toBeUndefined();
	});
});
