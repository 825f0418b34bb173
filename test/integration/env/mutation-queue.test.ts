/**
 * withFileMutationQueue on every env: one queue per canonical file, whatever the spelling.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { withFileMutationQueue } from "../../../src/env/mutation-queue.js";
import { allEnvs, type Fixture, stopSharedSshd } from "./_fixtures.js";

/** Yield to the event loop a few times, long enough for an unqueued mutation to interleave. */
async function busy(): Promise<void> {
	for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 1));
}

const envs = await allEnvs();
afterAll(stopSharedSshd);

describe.each(envs)("withFileMutationQueue on %s", (_name, make) => {
	let fixture: Fixture | undefined;
	afterEach(async () => {
		await fixture?.cleanup();
		fixture = undefined;
	});

	it("serializes mutations of one file through every spelling, in call order", async () => {
		fixture = await make({ files: { "a.txt": "", "dir/b.txt": "" }, symlinks: { "link.txt": "a.txt", d: "dir" } });
		const { env } = fixture;
		const spellings = ["a.txt", "./a.txt", fixture.path("a.txt"), "link.txt", "dir/../a.txt"];
		const events: string[] = [];
		const runs = [];
		for (let i = 0; i < 10; i++) {
			const path = spellings[i % spellings.length]!;
			runs.push(
				withFileMutationQueue(env, path, async () => {
					events.push(`start ${i}`);
					await busy();
					await env.appendFile(path, `${i},`);
					events.push(`end ${i}`);
					return i;
				}),
			);
		}
		expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
		expect(events).toEqual(Array.from({ length: 10 }, (_, i) => [`start ${i}`, `end ${i}`]).flat());
		const written = await env.readTextFile("a.txt");
		expect(written.ok && written.value).toBe("0,1,2,3,4,5,6,7,8,9,");
	});

	it("serializes a file that does not exist yet, and one reached through a linked folder", async () => {
		fixture = await make({ dirs: ["dir"], symlinks: { d: "dir" } });
		const { env } = fixture;
		const events: string[] = [];
		const spellings = ["new.txt", "./new.txt", fixture.path("new.txt"), "dir/x.txt", "d/x.txt"];
		await Promise.all(
			spellings.map((path, i) =>
				withFileMutationQueue(env, path, async () => {
					events.push(`start ${i}`);
					await busy();
					await env.writeFile(path, String(i));
					events.push(`end ${i}`);
				}),
			),
		);
		// new.txt: 0 → 1 → 2 strictly; x.txt: 3 → 4 strictly; the two files may interleave.
		const order = (names: string[]) => events.filter((event) => names.includes(event.split(" ")[1]!));
		expect(order(["0", "1", "2"])).toEqual(["start 0", "end 0", "start 1", "end 1", "start 2", "end 2"]);
		expect(order(["3", "4"])).toEqual(["start 3", "end 3", "start 4", "end 4"]);
	});

	it("lets mutations of different files overlap", async () => {
		fixture = await make({ files: { "a.txt": "", "b.txt": "" } });
		const { env } = fixture;
		let bStarted!: () => void;
		const bHasStarted = new Promise<string>((resolve) => {
			bStarted = () => resolve("overlapped");
		});
		// If b waited for a, a would wait forever for b; the fallback turns that into a failure.
		const first = withFileMutationQueue(env, "a.txt", () =>
			Promise.race([bHasStarted, new Promise<string>((resolve) => setTimeout(() => resolve("serialized"), 5_000))]),
		);
		const second = withFileMutationQueue(env, "b.txt", async () => {
			bStarted();
			return "b";
		});
		expect(await Promise.all([first, second])).toEqual(["overlapped", "b"]);
	});

	it("moves on after a mutation throws, and passes the error to its caller", async () => {
		fixture = await make({ files: { "a.txt": "" } });
		const { env } = fixture;
		const failing = withFileMutationQueue(env, "a.txt", async () => {
			await busy();
			throw new Error("edit failed");
		});
		const next = withFileMutationQueue(env, "./a.txt", async () => "ran");
		await expect(failing).rejects.toThrow("edit failed");
		expect(await next).toBe("ran");
	});
});
