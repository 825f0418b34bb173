/**
 * `toolsmith inspect` and `toolsmith dev --ui` as real processes: usage errors, the address printed,
 * `--open` through `$BROWSER`, shutdown on SIGTERM, and the terminal's calls recorded beside the page's.
 */
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FixtureResponse, InspectorState } from "../../../src/inspector/protocol.js";
import { repoRoot, runCli } from "../cli/_run.js";
import { startInspectCli } from "./_cli.js";

let dir: string;

beforeAll(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-inspect-cli-")));
	cpSync(join(repoRoot, "docs/examples/hello.ts"), join(dir, "hello.ts"));
	cpSync(join(repoRoot, "docs/examples/countdown.ts"), join(dir, "countdown.ts"));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("usage", () => {
	it("documents its options", async () => {
		const run = await runCli(["inspect", "--help"]);
		expect(run.code).toBe(0);
		for (const option of ["--open", "--host", "--port", "--token", "--fixtures", "--env", "--cwd"]) {
			expect(run.stdout).toContain(option);
		}
	});

	it.each([
		[["inspect", "--host", "0.0.0.0"], /--host 0\.0\.0\.0 lets other machines.*--token/],
		[["inspect", "--token", "short"], /--token must be at least 16 characters/],
		[["inspect", "--port", "70000"], /--port takes a number from 0 to 65535/],
		[["dev", "--open"], /--open applies to the page: add --ui/],
		[["dev", "--port", "0"], /--port applies to the page: add --ui/],
	])("%j is a usage error (exit 2)", async (args, message) => {
		const run = await runCli(args);
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(message);
	});
});

describe("toolsmith inspect", () => {
	it("prints the address with its token, opens $BROWSER with it, and stops on SIGTERM", async () => {
		const opened = join(dir, "opened.txt");
		const browser = join(dir, "browser.sh");
		writeFileSync(browser, `#!/bin/sh\nprintf '%s' "$1" > ${JSON.stringify(opened)}\n`);
		chmodSync(browser, 0o755);
		const inspect = await startInspectCli(["inspect", "hello.ts", "--open"], { cwd: dir, env: { BROWSER: browser } });
		try {
			expect(inspect.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}$/);
			expect(inspect.stdout()).toMatch(/toolsmith inspect · 5 tools · node env · cwd \./);
			await expect
				.poll(() => existsSync(opened) && readFileSync(opened, "utf8"), { timeout: 10_000 })
				.toBe(inspect.url);
			const state = (await (
				await fetch(`http://127.0.0.1:${inspect.port}/api/state?token=${inspect.token}`)
			).json()) as InspectorState;
			expect(state.tools.map((t) => t.name)).toContain("hello");
			const refused = await fetch(`http://127.0.0.1:${inspect.port}/api/state`);
			expect(refused.status).toBe(403);
		} finally {
			expect(await inspect.kill("SIGTERM")).toBe(0);
		}
		expect(inspect.stdout()).toMatch(/stopping \(SIGTERM\)/);
	});

	it("takes a fixed token and port from the command line", async () => {
		const token = "a-fixed-token-of-some-length";
		const inspect = await startInspectCli(["inspect", "hello.ts", "--token", token], { cwd: dir });
		try {
			expect(inspect.token).toBe(token);
			expect((await fetch(`http://127.0.0.1:${inspect.port}/api/state?token=${token}`)).status).toBe(200);
		} finally {
			await inspect.kill();
		}
	});
});

describe("toolsmith dev --ui", () => {
	it("serves the page beside the prompt, shows the prompt's calls, aborts them, and records them for the fixture", async () => {
		const dev = await startInspectCli(["dev", "hello.ts", "countdown.ts", "--ui", "--fixtures", "fixtures"], {
			cwd: dir,
		});
		try {
			dev.send('call hello {"name":"Terminal"}');
			await dev.waitFor(/Hello, Terminal\./);
			// The page's history shows the prompt's call too.
			const state = (await (
				await fetch(`http://127.0.0.1:${dev.port}/api/state?token=${dev.token}`)
			).json()) as InspectorState;
			expect(state.calls).toEqual([
				expect.objectContaining({ id: "terminal-1", tool: "hello", status: "ok", args: { name: "Terminal" } }),
			]);

			// A long call made at the prompt can be aborted from the page.
			dev.send('call countdown {"from":50,"intervalMs":100}');
			const api = (path: string, body?: unknown) =>
				fetch(`http://127.0.0.1:${dev.port}${path}?token=${dev.token}`, {
					...(body === undefined
						? {}
						: { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
				}).then((r) => r.json());
			await expect
				.poll(async () => ((await api("/api/state")) as InspectorState).calls.at(-1)?.updates.length ?? 0)
				.toBeGreaterThan(1);
			expect(await api("/api/abort", { id: "terminal-2" })).toEqual({ aborted: true });
			await expect.poll(async () => ((await api("/api/state")) as InspectorState).calls.at(-1)?.status).toBe("aborted");
			await dev.waitFor(/Countdown aborted/);
			const response = await fetch(`http://127.0.0.1:${dev.port}/api/fixture?token=${dev.token}`, {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: JSON.stringify({ name: "from-terminal" }),
			});
			const saved = (await response.json()) as FixtureResponse;
			expect(response.status).toBe(200);
			expect(saved.displayPath).toBe("fixtures/from-terminal.json");
			expect(saved.warnings).toContain("1 call from the terminal included");
			expect(saved.warnings.join("\n")).toMatch(/left out an aborted call of countdown/);
			const run = await runCli(["test", saved.path], { cwd: dir });
			expect(run.code).toBe(0);
			dev.send("exit");
			expect(await dev.exited).toBe(0);
			await expect(fetch(`http://127.0.0.1:${dev.port}/api/state?token=${dev.token}`)).rejects.toThrow();
		} finally {
			await dev.kill();
		}
	});
});
