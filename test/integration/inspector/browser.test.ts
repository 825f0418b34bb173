/**
 * The inspector in a real browser: `toolsmith inspect` as a child process over copies of the demo
 * tools, and headless Chromium (the system's, driven by playwright-core) on its page. Skipped, saying
 * why, where no Chromium is installed; `TOOLSMITH_REQUIRE_BROWSER=1` makes that a failure.
 * Writes a screenshot of the page to `.tmp/inspector.png` (and to `docs/images/inspector.png`, the
 * README's, with `TOOLSMITH_UPDATE_SCREENSHOT=1`).
 */

import {
	copyFileSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	realpathSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InspectorState } from "../../../src/inspector/protocol.js";
import { compatibilityReport } from "../../../src/providers/tools.js";
import { TOOL_PROVIDERS } from "../../../src/providers/types.js";
import { repoRoot, runCli } from "../cli/_run.js";
import { findChromium, type LaunchedBrowser, launchChromium } from "./_browser.js";
import { type InspectProcess, startInspectCli } from "./_cli.js";

/** The pixel tool's parameters: a union of literals, which some providers need rewritten. */
const PIXEL_PARAMETERS =
	'Type.Object({ size: Type.Optional(Type.Union([Type.Literal("small"), Type.Literal("large")])) })';
const pixelSchema = Type.Object({ size: Type.Optional(Type.Union([Type.Literal("small"), Type.Literal("large")])) });

/** A 1×1 PNG. */
const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const chromium = findChromium();
if ("missing" in chromium && process.env.TOOLSMITH_REQUIRE_BROWSER === "1") {
	throw new Error(`TOOLSMITH_REQUIRE_BROWSER=1 but ${chromium.missing}`);
}
const skipReason =
	"missing" in chromium ? `the inspector's browser tests need Chromium: ${chromium.missing}` : undefined;
if (skipReason) console.warn(`skipped: ${skipReason}`);

let dir: string;
let inspect: InspectProcess;
let browser: LaunchedBrowser;
let page: Page;

/** The page's server, from the test's side. */
const api = async (path: string): Promise<InspectorState> =>
	(await (await fetch(`http://127.0.0.1:${inspect.port}${path}?token=${inspect.token}`)).json()) as InspectorState;

async function selectTool(name: string): Promise<void> {
	await page.getByTestId("tool-list").locator(`[data-testid="tool-item"][data-tool="${name}"]`).click();
	await expect
		.poll(() => page.locator('[data-testid="tool-item"][aria-current="true"]').getAttribute("data-tool"))
		.toBe(name);
}

/** Click Call and wait for the new call to end; returns its id. */
async function callAndWait(expected = "ok"): Promise<string> {
	const before = await page.getByTestId("history-item").count();
	await page.getByTestId("call-button").click();
	await expect.poll(() => page.getByTestId("history-item").count()).toBe(before + 1);
	const view = page.getByTestId("call-view");
	await expect.poll(() => view.getAttribute("data-status"), { timeout: 10_000 }).toBe(expected);
	return (await view.getAttribute("data-call-id")) ?? "";
}

describe.skipIf(skipReason !== undefined)("the inspector in Chromium", () => {
	beforeAll(async () => {
		dir = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-inspector-browser-")));
		mkdirSync(join(dir, "tools"));
		for (const name of ["hello.ts", "countdown.ts", "todo.ts"]) {
			copyFileSync(join(repoRoot, "docs/examples", name), join(dir, "tools", name));
		}
		copyFileSync(join(repoRoot, "test/fixtures/nested-relay/relay.ts"), join(dir, "tools", "relay.ts"));
		writeFileSync(join(dir, "notes.txt"), "a note\n");
		writeFileSync(
			join(dir, "greet.eval.ts"),
			`export default [
	{ name: "greet ada", prompt: "Say hello to Ada.", expect: { calls: [{ tool: "hello", args: { name: "Ada" } }] } },
	{ name: "greet bob", prompt: "Say hello to Bob.", expect: { calls: [{ tool: "hello", args: { name: "Bob" } }] } },
	{ name: "greet ada slowly", prompt: "Say hello to Ada, slowly.", expect: { calls: [{ tool: "hello", args: { name: "Ada" } }] } },
];
`,
		);
		// Right for Ada; for Bob it sends a field hello does not have; "slowly" takes 300 ms a turn.
		writeFileSync(
			join(dir, "model.ts"),
			`export default async (request, turn) => {
	if (request.messages[0].text.includes("slowly")) await new Promise((resolve) => setTimeout(resolve, 300));
	return turn > 0
		? { text: "Done." }
		: { calls: [{ tool: "hello", args: request.messages[0].text.includes("Ada") ? { name: "Ada" } : { who: "Bob" } }] };
};
`,
		);
		writeFileSync(
			join(dir, "tools", "pixel.ts"),
			`import { defineTool, type ExtensionAPI, Type } from "toolsmith-sdk";
export default function (api: ExtensionAPI) {
	api.registerTool(defineTool({
		name: "pixel",
		label: "Pixel",
		description: "Returns a one-pixel PNG image.",
		parameters: ${PIXEL_PARAMETERS},
		async execute() {
			return { content: [{ type: "text", text: "one pixel" }, { type: "image", mimeType: "image/png", data: ${JSON.stringify(PIXEL)} }], details: {} };
		},
	}));
}
`,
		);
		inspect = await startInspectCli(["inspect", "tools"], { cwd: dir });
		browser = await launchChromium((chromium as { path: string }).path, [
			// DNS rebinding, played for real: this name resolves to the inspector's own address.
			"--host-resolver-rules=MAP rebind.test 127.0.0.1",
		]);
		page = await browser.context.newPage();
		const errors: string[] = [];
		page.on("pageerror", (error) => errors.push(error.message));
		await page.goto(inspect.url);
		await page.waitForSelector('[data-testid="connection"][data-state="open"]');
		if (errors.length > 0) throw new Error(`the page threw: ${errors.join("; ")}`);
	}, 60_000);

	afterAll(async () => {
		await browser?.close();
		await inspect?.kill();
		if (dir) rmSync(dir, { recursive: true, force: true });
	});

	it("lists the tools with their source, mode and kind", async () => {
		const hello = page.locator('[data-testid="tool-item"][data-tool="hello"]');
		await expect.poll(() => hello.textContent()).toContain("tools/hello.ts");
		expect(await hello.getAttribute("data-kind")).toBe("extension");
		expect(await page.locator('[data-testid="tool-item"][data-tool="read"]').getAttribute("data-kind")).toBe("builtin");
		expect(await page.locator('[data-testid="tool-item"][data-tool="countdown"]').getAttribute("data-mode")).toBe(
			"parallel",
		);
		const todo = page.locator('[data-testid="tool-item"][data-tool="todo"]');
		expect(await todo.getAttribute("data-mode")).toBe("sequential");
		expect(await todo.textContent()).toContain("sequential");
	});

	it("fills the form for hello, calls it, and shows the rendered result and the raw JSON", async () => {
		await selectTool("hello");
		await page.locator('[data-field="/name"]').fill("Ada");
		await expect.poll(() => page.getByTestId("validation").getAttribute("data-state")).toBe("ok");
		await callAndWait();
		const view = page.getByTestId("call-view");
		expect(await view.getByTestId("rendered-result").innerText()).toContain("Hello, Ada.");
		// The renderer's colour arrives as HTML, not as escape codes.
		expect(await view.getByTestId("rendered-result").innerHTML()).not.toContain("\u001b");
		expect(await view.getByTestId("rendered-call").innerText()).toContain("Ada");
		const raw = JSON.parse(await view.getByTestId("raw-result").innerText());
		expect(raw).toMatchObject({ content: [{ type: "text", text: "Hello, Ada." }], isError: false });
		expect(JSON.parse(await view.getByTestId("details").innerText())).toEqual({ name: "Ada" });
		expect(await view.getByTestId("duration").innerText()).toMatch(/\d+ ms/);

		await page.getByTestId("raw-toggle").click();
		expect(JSON.parse(await page.getByTestId("raw-json").inputValue())).toEqual({ name: "Ada" });
		await page.getByTestId("raw-toggle").click();

		await mkdir(".tmp");
		const shot = await page.screenshot({ path: join(repoRoot, ".tmp", "inspector.png") });
		if (process.env.TOOLSMITH_UPDATE_SCREENSHOT === "1") {
			writeFileSync(join(repoRoot, "docs", "images", "inspector.png"), shot);
		}
	});

	it("shows image content blocks as images, and re-runs a call from the history", async () => {
		await selectTool("pixel");
		const first = await callAndWait();
		const image = page.getByTestId("call-view").getByTestId("content-blocks").locator("img");
		expect(await image.getAttribute("src")).toBe(`data:image/png;base64,${PIXEL}`);
		expect(await image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(1);
		const before = await page.getByTestId("history-item").count();
		await page.locator(`[data-testid="history-item"][data-call-id="${first}"]`).getByTestId("rerun").click();
		await expect.poll(() => page.getByTestId("history-item").count()).toBe(before + 1);
		await expect.poll(() => page.getByTestId("call-view").getAttribute("data-call-id")).not.toBe(first);
		await expect.poll(() => page.getByTestId("call-view").getAttribute("data-status")).toBe("ok");
		expect(await page.getByTestId("call-view").getByTestId("content-blocks").locator("img").count()).toBe(1);
	});

	it("shows the prompt section and each provider's JSON with its report", async () => {
		await selectTool("countdown");
		await page.getByTestId("tab-prompt").click();
		const prompt = await page.getByTestId("prompt-view").innerText();
		expect(prompt).toBe((await api("/api/state")).prompt);
		expect(prompt).toContain("countdown");
		await page.getByTestId("tab-providers").click();
		const providers = page.getByTestId("providers-view").getByTestId("provider");
		await expect.poll(() => providers.count()).toBe(4);
		const anthropic = providers.and(page.locator('[data-provider="anthropic"]'));
		const json = JSON.parse(await anthropic.getByTestId("provider-json").innerText());
		expect(json).toMatchObject({ name: "countdown", input_schema: { type: "object" } });

		// The rewrite report, provider by provider, as the library computes it for the same schema.
		await page.getByTestId("tab-call").click();
		await selectTool("pixel");
		await page.getByTestId("tab-providers").click();
		await expect.poll(() => page.getByTestId("providers-view").getByTestId("provider").count()).toBe(4);
		let rewritten = 0;
		for (const provider of TOOL_PROVIDERS) {
			const expected = compatibilityReport([{ name: "pixel", description: "", parameters: pixelSchema }], provider)[0]!;
			const shown = await page
				.locator(`[data-testid="provider"][data-provider="${provider}"]`)
				.getByTestId("rewrites")
				.innerText();
			for (const rewrite of expected.rewrites) expect(shown).toContain(rewrite.kind);
			if (expected.rewrites.length === 0) expect(shown).toMatch(/No rewrites/);
			rewritten += expected.rewrites.length;
		}
		expect(rewritten).toBeGreaterThan(0);
		await page.getByTestId("tab-call").click();
	});

	it("shows the validation error of an invalid value before any call", async () => {
		await selectTool("countdown");
		const calls = (await api("/api/state")).calls.length;
		// The empty form is already invalid (from is missing, and its problem names the bounds too):
		// wait for the problem of this value, with the state it came with.
		await page.locator('[data-field="/from"]').fill("500");
		const verdict = async () =>
			`${await page.getByTestId("validation").getAttribute("data-state")} ${(await page.getByTestId("validation-problem").allInnerTexts()).join("\n")}`;
		await expect.poll(verdict).toMatch(/^error .*\/from: .*100.*received 500/s);
		await page.locator('[data-field="/from"]').fill("ten");
		await expect
			.poll(() => page.getByTestId("validation-problem").allInnerTexts())
			.toEqual([expect.stringMatching(/\/from: expected integer.*"ten"/)]);
		expect((await api("/api/state")).calls.length).toBe(calls);
	});

	it("aborts the countdown mid-run, with its partial updates shown as they came", async () => {
		await selectTool("countdown");
		await page.locator('[data-field="/from"]').fill("50");
		await page.locator('[data-include="/intervalMs"]').check();
		await page.locator('[data-field="/intervalMs"]').fill("100");
		await expect.poll(() => page.getByTestId("validation").getAttribute("data-state")).toBe("ok");
		await page.getByTestId("call-button").click();
		const view = page.getByTestId("call-view");
		await expect.poll(() => view.getAttribute("data-status")).toBe("running");
		await expect.poll(() => view.getByTestId("update").count()).toBeGreaterThan(2);
		expect(await view.getByTestId("live-partial").innerText()).toMatch(/\d+ to go/);
		await page.getByTestId("abort-button").click();
		await expect.poll(() => view.getAttribute("data-status")).toBe("aborted");
		const updates = await view.getByTestId("update").count();
		expect(updates).toBeGreaterThan(2);
		expect(updates).toBeLessThan(50);
	});

	it("saves the session as a fixture that toolsmith test passes", async () => {
		await selectTool("read");
		await page.locator('[data-field="/path"]').fill("notes.txt");
		await callAndWait();
		await page.getByTestId("fixture-name").fill("from the browser");
		await page.getByTestId("save-fixture").click();
		const result = page.getByTestId("fixture-result");
		await expect.poll(() => result.innerText()).toContain("test/fixtures/from-the-browser.json");
		expect(await result.innerText()).toMatch(/aborted call of countdown/);
		const file = join(dir, "test/fixtures/from-the-browser.json");
		const fixture = JSON.parse(readFileSync(file, "utf8"));
		expect(fixture.steps.map((s: { calls: { tool: string }[] }) => s.calls[0]?.tool)).toEqual([
			"hello",
			"pixel",
			"pixel",
			"read",
		]);
		const run = await runCli(["test", file], { cwd: dir });
		expect(run.stdout).toMatch(/1 fixture passed/);
		expect(run.code).toBe(0);
	});

	it("draws the calls a tool makes under its call, with their partial updates while they run", async () => {
		await selectTool("relay");
		await page.locator('[data-field="/n"]').fill("4");
		await page.locator('[data-include="/intervalMs"]').check();
		await page.locator('[data-field="/intervalMs"]').fill("300");
		await expect.poll(() => page.getByTestId("validation").getAttribute("data-state")).toBe("ok");
		await page.getByTestId("call-button").click();
		const view = page.getByTestId("call-view");
		await expect.poll(() => view.getAttribute("data-status")).toBe("running");
		const id = (await view.getAttribute("data-call-id")) ?? "";
		const first = view.locator(`[data-testid="nested-call"][data-tool-call-id="${id}/1"]`);
		// While tick runs: its call drawn by its renderer, and its latest partial.
		await expect.poll(() => first.getAttribute("data-status")).toBe("running");
		expect(await first.getAttribute("data-parent-id")).toBe(id);
		expect(await first.getByTestId("nested-rendered-call").innerText()).toBe("tick to 4");
		await expect.poll(() => first.getByTestId("nested-live").innerText()).toMatch(/^… tick [1-4]\/4$/);
		await expect.poll(() => view.getAttribute("data-status"), { timeout: 10_000 }).toBe("ok");
		expect(await first.getAttribute("data-status")).toBe("ok");
		expect(await first.getByTestId("nested-rendered-result").innerText()).toBe("= counted to 4");
		expect(await first.getByTestId("nested-updates").innerText()).toBe("4 updates");
		const second = view.locator(`[data-testid="nested-call"][data-tool-call-id="${id}/2"]`);
		expect(await second.getAttribute("data-status")).toBe("error");
		expect(await second.getByTestId("nested-rendered-result").innerText()).toMatch(/^tick failed: Invalid arguments/);
		expect(await view.getByTestId("nested-call").count()).toBe(2);
		// Under the call's result, and in its raw result the executor's record.
		expect(await view.getByTestId("rendered-result").innerText()).toContain(`${id}/1: counted to 4`);
		expect(JSON.parse(await view.getByTestId("raw-result").innerText()).nestedCalls.calls).toHaveLength(2);
	});

	it("fills booleans, enums, arrays of nested objects and optional fields and sends what the form shows", async () => {
		const rawArgs = async () => {
			await page.getByTestId("raw-toggle").click();
			const value = JSON.parse(await page.getByTestId("raw-json").inputValue());
			await page.getByTestId("raw-toggle").click();
			return value;
		};
		await selectTool("hello");
		await page.locator('[data-field="/name"]').fill("Ada");
		await page.locator('[data-field="/excited"]').check();
		// Setting an optional field includes it.
		expect(await page.locator('[data-include="/excited"]').isChecked()).toBe(true);
		expect(await rawArgs()).toEqual({ name: "Ada", excited: true });
		await page.locator('[data-include="/excited"]').uncheck();
		expect(await rawArgs()).toEqual({ name: "Ada" });

		await selectTool("todo");
		await page.locator('[data-field="/action"]').selectOption("add");
		await page.locator('[data-field="/text"]').fill("water the plants");
		await expect.poll(() => page.getByTestId("validation").getAttribute("data-state")).toBe("ok");
		expect(await rawArgs()).toEqual({ action: "add", text: "water the plants" });
		await callAndWait();
		expect(await page.getByTestId("call-view").getByTestId("content-blocks").innerText()).toContain(
			"[ ] #1 water the plants",
		);

		await selectTool("edit");
		await page.locator('[data-field="/path"]').fill("notes.txt");
		// `edits` needs one item at least, so the form starts with one.
		expect(await page.locator("[data-remove]").count()).toBe(1);
		await page.locator('[data-add="/edits"]').click();
		await expect.poll(() => page.locator("[data-remove]").count()).toBe(2);
		await page.locator('[data-field="/edits/0/oldText"]').fill("a note");
		await page.locator('[data-field="/edits/0/newText"]').fill("an edited note");
		await page.locator('[data-field="/edits/1/oldText"]').fill("to be removed");
		await page.locator('[data-remove="/edits/1"]').click();
		await expect.poll(() => page.locator("[data-remove]").count()).toBe(1);
		await expect.poll(() => page.getByTestId("validation").getAttribute("data-state")).toBe("ok");
		expect(await rawArgs()).toEqual({ path: "notes.txt", edits: [{ oldText: "a note", newText: "an edited note" }] });
		await callAndWait();
		expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("an edited note\n");
	});

	it("runs an eval scenario from the Evals tab and shows each trial's calls and failed expectations", async () => {
		await page.getByTestId("tab-evals").click();
		try {
			await runEvalsOnPage();
		} finally {
			await page.getByTestId("tab-call").click();
		}
	});

	async function runEvalsOnPage(): Promise<void> {
		await expect
			.poll(() => page.getByTestId("eval-scenario").locator("option").allInnerTexts())
			.toEqual(["greet ada", "greet bob", "greet ada slowly"]);
		expect(await page.getByTestId("eval-hint").innerText()).toContain("scripted:<file>");
		await page.getByTestId("eval-model").fill("scripted:model.ts");
		await page.getByTestId("eval-trials").fill("2");
		await page.getByTestId("eval-run").click();
		await expect
			.poll(() => page.getByTestId("eval-summary").innerText(), { timeout: 15_000 })
			.toContain("greet ada: 2/2 passed (100%, goal 100%)");
		expect(await page.getByTestId("eval-trial").count()).toBe(2);
		expect(await page.getByTestId("eval-call").first().innerText()).toMatch(/turn 1\s+hello\s+\{"name":"Ada"\}/);

		await page.getByTestId("eval-scenario").selectOption({ label: "greet bob" });
		await page.getByTestId("eval-trials").fill("1");
		await page.getByTestId("eval-run").click();
		await expect
			.poll(() => page.getByTestId("eval-summary").innerText(), { timeout: 15_000 })
			.toContain("greet bob: 0/1 passed (0%, goal 100%)");
		const call = await page.getByTestId("eval-call").first().innerText();
		expect(call).toContain('{"who":"Bob"}');
		expect(call).toContain("invalid: name");
		expect(await page.getByTestId("eval-failure").first().innerText()).toMatch(/^calls .*hello/);

		// While a run goes on, the page counts the trials that ended (from the event stream).
		await page.getByTestId("eval-scenario").selectOption({ label: "greet ada slowly" });
		await page.getByTestId("eval-trials").fill("3");
		await page.getByTestId("eval-run").click();
		await expect
			.poll(() => page.getByTestId("eval-progress").innerText(), { timeout: 15_000 })
			.toMatch(/Running: [12] of 3 trials ended, [12] passed/);
		await expect
			.poll(() => page.getByTestId("eval-summary").innerText(), { timeout: 15_000 })
			.toContain("greet ada slowly: 3/3 passed (100%, goal 100%)");
		expect(await page.getByTestId("eval-progress").count()).toBe(0);
	}

	it("answers with the new version after an edit on disk, without reloading the page", async () => {
		await page.evaluate(() => {
			(globalThis as unknown as { stillTheSamePage: boolean }).stillTheSamePage = true;
		});
		const file = join(dir, "tools", "hello.ts");
		writeFileSync(file, readFileSync(file, "utf8").replace("`Hello, ", "`Howdy, "));
		await expect
			.poll(() => page.getByTestId("reload-line").last().innerText(), { timeout: 5_000 })
			.toMatch(/reloaded tools\/hello\.ts in \d+ ms · ~hello/);
		await selectTool("hello");
		await page.locator('[data-field="/name"]').fill("Ada");
		await callAndWait();
		expect(await page.getByTestId("call-view").getByTestId("rendered-result").innerText()).toContain("Howdy, Ada.");
		expect(await page.evaluate(() => (globalThis as unknown as { stillTheSamePage?: boolean }).stillTheSamePage)).toBe(
			true,
		);
	});

	it("shows a broken save's diagnostic with file:line:col and keeps the last good version callable", async () => {
		const file = join(dir, "tools", "hello.ts");
		const good = readFileSync(file, "utf8");
		writeFileSync(file, `${good}\nexport const broken = ;\n`);
		await expect
			.poll(() => page.getByTestId("reload-line").last().innerText(), { timeout: 5_000 })
			.toMatch(/reload failed tools\/hello\.ts/);
		await expect
			.poll(() => page.getByTestId("diagnostic").allInnerTexts())
			.toEqual(expect.arrayContaining([expect.stringMatching(/error tools\/hello\.ts:\d+:\d+ /)]));
		await selectTool("hello");
		await page.locator('[data-field="/name"]').fill("Bo");
		await callAndWait();
		expect(await page.getByTestId("call-view").getByTestId("rendered-result").innerText()).toContain("Howdy, Bo.");
		writeFileSync(file, good);
		await expect.poll(() => page.getByTestId("diagnostic").count(), { timeout: 5_000 }).toBe(0);
	});

	it("refuses requests without the token, under a rebound host name and from a foreign origin (403)", async () => {
		const bare = await page.context().newPage();
		try {
			const noToken = await bare.goto(`http://127.0.0.1:${inspect.port}/`);
			expect(noToken?.status()).toBe(403);
			const rebound = await bare.goto(`http://rebind.test:${inspect.port}/?token=${inspect.token}`);
			expect(rebound?.status()).toBe(403);
			expect(await bare.innerText("body")).toMatch(/Host \\"rebind\.test:\d+\\" is not this server/);

			// A page of another origin that knows the token still cannot call a tool.
			const foreign = await serveForeignPage(inspect.port, inspect.token);
			try {
				const calls = (await api("/api/state")).calls.length;
				const answers: number[] = [];
				bare.on("response", (response) => {
					if (response.url().startsWith(`http://127.0.0.1:${inspect.port}/api/call`)) answers.push(response.status());
				});
				await bare.goto(foreign.url);
				await expect.poll(() => bare.url()).toContain("/api/call");
				await expect
					.poll(() => bare.innerText("body"))
					.toMatch(/Origin \\"http:\/\/localhost:\d+\\" is not this server/);
				expect(answers.at(-1)).toBe(403);
				expect((await api("/api/state")).calls.length).toBe(calls);
				expect(existsSync(join(dir, "pwned"))).toBe(false);
			} finally {
				foreign.server.close();
			}
		} finally {
			await bare.close();
		}
	});
});

describe.skipIf(skipReason !== undefined)("the inspector's page across a restart of its server", () => {
	it("shows the connection lost, then reconnects to the new server on the same address and takes its state", async () => {
		const folder = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-inspector-restart-")));
		copyFileSync(join(repoRoot, "docs/examples/hello.ts"), join(folder, "hello.ts"));
		const token = "a-token-that-survives-restarts";
		let first: InspectProcess | undefined = await startInspectCli(["inspect", "hello.ts", "--token", token], {
			cwd: folder,
		});
		let second: InspectProcess | undefined;
		const launched = await launchChromium((chromium as { path: string }).path);
		try {
			const tab = await launched.context.newPage();
			await tab.goto(first.url);
			await tab.waitForSelector('[data-testid="connection"][data-state="open"]');
			await tab.locator('[data-testid="tool-item"][data-tool="hello"]').click();
			await tab.locator('[data-field="/name"]').fill("Ada");
			await tab.getByTestId("call-button").click();
			await expect.poll(() => tab.getByTestId("history-item").count()).toBe(1);

			expect(await first.kill()).toBe(0);
			first = undefined;
			await expect.poll(() => tab.getByTestId("connection").getAttribute("data-state")).toBe("closed");

			second = await startInspectCli(
				["inspect", "hello.ts", "--token", token, "--port", String(new URL(tab.url()).port)],
				{
					cwd: folder,
				},
			);
			await expect
				.poll(() => tab.getByTestId("connection").getAttribute("data-state"), { timeout: 15_000 })
				.toBe("open");
			// The new server's state replaces the old one: a fresh session has no calls.
			await expect.poll(() => tab.getByTestId("history-item").count()).toBe(0);
			await tab.getByTestId("call-button").click();
			await expect.poll(() => tab.getByTestId("history-item").count()).toBe(1);
		} finally {
			await launched.close();
			await first?.kill();
			await second?.kill();
			rmSync(folder, { recursive: true, force: true });
		}
	});
});

async function mkdir(relativeDir: string): Promise<void> {
	mkdirSync(join(repoRoot, relativeDir), { recursive: true });
}

/** A page on another port (another origin) that tries to call `bash` on the inspector with the token. */
async function serveForeignPage(port: number, token: string): Promise<{ url: string; server: Server }> {
	// A JSON request needs a CORS preflight, which the inspector refuses; a form posts without one
	// (the classic cross-site request), and its answer is shown as the next page.
	const target = `http://127.0.0.1:${port}/api/call?token=${token}`;
	const script = `
		fetch(${JSON.stringify(target)}, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ tool: "bash", args: { command: "touch pwned" } }),
		})
			.then((r) => "status " + r.status, (e) => "failed: " + e.message)
			.then((text) => { document.title = "fetch " + text; document.forms[0].submit(); });`;
	const form = `<form method="POST" enctype="text/plain" action="${target}"><input name='{"tool":"bash","args":{"command":"touch pwned"},"x":"' value='"}'></form>`;
	const server = createServer((_req, res) => {
		res.writeHead(200, { "content-type": "text/html" });
		res.end(`<!doctype html><title>foreign</title><body>${form}<script>${script}</script></body>`);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port: own } = server.address() as AddressInfo;
	return { url: `http://localhost:${own}/`, server };
}
