/**
 * Backpressure through the exec listeners, against every env: a listener that returns a promise
 * holds back further chunks of its stream until the promise settles (see ExecOptions.onStdout).
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { ScriptedCommand } from "../../../src/env/memory.js";
import { allEnvs, type Fixture, type FixtureSpec, stopSharedSshd } from "./_fixtures.js";

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/**
 * About 6.9 MB: far more than a pipe and a stream buffer hold together, and than an SSH channel
 * holds on its way (its window is 2 MB).
 */
const LINES = 1_000_000;
const big = `seq 1 ${LINES}; echo tail >&2; exit 3`;
const expected = Array.from({ length: LINES }, (_, i) => `${i + 1}\n`).join("");

/** The memory stand-in: writes the same output in pipe-sized chunks, as fast as it can. */
const bigScript: ScriptedCommand = {
	match: big,
	run: (_command, ctx) => {
		for (let at = 0; at < expected.length; at += 65_536) ctx.stdout(expected.slice(at, at + 65_536));
		ctx.stderr("tail\n");
		return { exitCode: 3 };
	},
};

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const envs = await allEnvs();
afterAll(stopSharedSshd);

describe.each(envs)("exec backpressure: %s", (_name, make) => {
	let fixture: Fixture | undefined;
	const setup = async (spec: FixtureSpec = {}) => {
		fixture = await make(spec);
		return fixture.env;
	};
	afterEach(async () => {
		await fixture?.cleanup();
		fixture = undefined;
	});

	it("delivers no further chunk while a listener's promise is pending, then everything", async () => {
		const env = await setup({ commands: [bigScript] });
		const chunks: string[] = [];
		let stderr = "";
		let release: (() => void) | undefined;
		let done = false;
		const pending = env
			.exec(big, {
				onStdout: (chunk) => {
					chunks.push(decode(chunk));
					if (chunks.length === 1) return new Promise<void>((resolve) => (release = resolve));
				},
				onStderr: (chunk) => {
					stderr += decode(chunk);
				},
			})
			.finally(() => {
				done = true;
			});
		// Wait for the first chunk (a remote session takes a while to start), then give the
		// producer every chance to run ahead; it must be held back instead.
		for (let i = 0; i < 500 && release === undefined; i++) await settle(10);
		await settle(200);
		expect(release).toBeDefined();
		expect(chunks).toHaveLength(1);
		// The command cannot finish: its output is not all read yet.
		expect(done).toBe(false);
		release?.();
		const result = await pending;
		expect(result).toMatchObject({ ok: true, value: { exitCode: 3 } });
		expect(chunks.length).toBeGreaterThan(1);
		expect(chunks.join("")).toBe(expected);
		expect(stderr).toBe("tail\n");
	});

	it("keeps output held back when the shell exits meanwhile, and delivers it all later", async () => {
		const small = "printf 'first\\n'; sleep 0.1; head -c 100000 /dev/zero | tr '\\0' x; exit 4";
		const rest = "x".repeat(100_000);
		const env = await setup({
			commands: [
				{
					match: small,
					chunks: [
						{ stream: "stdout", data: "first\n" },
						{ stream: "stdout", data: rest, delayMs: 100 },
					],
					exitCode: 4,
				},
			],
		});
		let printed = "";
		const result = await env.exec(small, {
			onStdout: (chunk) => {
				const first = printed === "";
				printed += decode(chunk);
				// Held well past the time the env waits for quiet pipes after the shell exited.
				if (first) return settle(800).then(() => undefined);
			},
		});
		expect(result).toMatchObject({ ok: true, value: { exitCode: 4 } });
		expect(printed).toBe(`first\n${rest}`);
	});

	it("swallows rejected listener promises: the command runs on and all output arrives", async () => {
		const env = await setup({ commands: [bigScript] });
		let printed = "";
		let calls = 0;
		const result = await env.exec(big, {
			onStdout: (chunk) => {
				printed += decode(chunk);
				calls++;
				return Promise.reject(new Error(`listener failed on chunk ${calls}`));
			},
		});
		expect(result).toMatchObject({ ok: true, value: { exitCode: 3 } });
		expect(printed).toBe(expected);
	});

	it("times out while a listener holds the output back forever", async () => {
		const env = await setup({ commands: [bigScript] });
		let calls = 0;
		const result = await env.exec(big, {
			timeout: 0.3,
			onStdout: () => {
				calls++;
				return new Promise<void>(() => undefined);
			},
		});
		expect(result.ok ? "ok" : result.error.code).toBe("timeout");
		expect(calls).toBeGreaterThanOrEqual(1);
	});

	it("aborts while a listener holds the output back", async () => {
		const env = await setup({ commands: [bigScript] });
		const controller = new AbortController();
		const result = await env.exec(big, {
			signal: controller.signal,
			onStdout: () => {
				controller.abort();
				return new Promise<void>(() => undefined);
			},
		});
		expect(result.ok ? "ok" : result.error.code).toBe("aborted");
	});
});
