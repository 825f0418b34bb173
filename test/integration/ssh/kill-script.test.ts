/**
 * The SSH env's tree killer, run here with the local sh (it is what the remote host runs): with a
 * wrapper's nonce it kills a pid only while that pid's parent is still the wrapper carrying the
 * nonce, so a pid the host has given to another process since a connection dropped is left alone.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { KILL_SCRIPT } from "../../../src/env/node-ssh/remote.js";
import { osProcessGone } from "../env/_fixtures.js";

const started: number[] = [];
afterEach(() => {
	for (const pid of started.splice(0)) {
		try {
			process.kill(pid, "SIGKILL");
		} catch {}
	}
});

/** A `sleep` whose parent is a sh whose command line holds `tag`; resolves to the sleep's pid. */
async function sleepUnder(tag: string): Promise<number> {
	const parent = spawn("sh", ["-c", `sleep 30 & echo $!; wait # ${tag}`], { stdio: ["ignore", "pipe", "ignore"] });
	started.push(parent.pid as number);
	const pid = await new Promise<number>((resolve) => parent.stdout.once("data", (d: Buffer) => resolve(Number(d))));
	started.push(pid);
	return pid;
}

const kill = (args: string[]) => spawnSync("sh", ["-c", KILL_SCRIPT, "sh", ...args], { timeout: 10_000 });

describe.skipIf(!existsSync("/proc/self/stat"))("the SSH env's tree killer with a nonce", () => {
	it("kills the command while its parent is the wrapper with that nonce", async () => {
		const pid = await sleepUnder("wrapper-nonce-1234");
		kill([String(pid), "4", "wrapper-nonce-1234"]);
		expect(osProcessGone(pid)).toBe(true);
	});

	it("leaves a pid alone whose parent is not that wrapper", async () => {
		const pid = await sleepUnder("someone-else");
		kill([String(pid), "4", "wrapper-nonce-1234"]);
		expect(osProcessGone(pid)).toBe(false);
		kill([String(pid), "4"]);
		expect(osProcessGone(pid)).toBe(true);
	});
});
