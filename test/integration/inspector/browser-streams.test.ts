/**
 * The inspector's page in a real browser (headless Chromium) against the event stream's limits:
 * refused at the cap, it says why and connects once a stream leaves; dropped for falling behind
 * (its JavaScript held in the debugger while calls stream their results), it says why, connects
 * again and takes the whole state, the calls it missed included. Skipped, saying why, where no
 * Chromium is installed; `TOOLSMITH_REQUIRE_BROWSER=1` makes that a failure.
 */
import { connect } from "node:net";
import type { Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../mcp/_cli-server.js";
import { requestHead } from "../mcp/_raw-http.js";
import { findChromium, type LaunchedBrowser, launchChromium } from "./_browser.js";
import { eventStream, type Inspected, startInspected } from "./_server.js";

const chromium = findChromium();
if ("missing" in chromium && process.env.TOOLSMITH_REQUIRE_BROWSER === "1") {
	throw new Error(`TOOLSMITH_REQUIRE_BROWSER=1 but ${chromium.missing}`);
}
const skipReason =
	"missing" in chromium ? `the inspector's browser tests need Chromium: ${chromium.missing}` : undefined;
if (skipReason) console.warn(`skipped: ${skipReason}`);

/** A tool whose result is `kib` lines of 1 KiB: each call puts that much on the event stream. */
const BULK = `import { defineTool, type ExtensionAPI, Type } from "toolsmith-sdk";
export default function (api: ExtensionAPI) {
	api.registerTool(defineTool({
		name: "bulk",
		label: "Bulk",
		description: "Returns kib lines of 1 KiB.",
		parameters: Type.Object({ kib: Type.Integer() }),
		async execute(_id, { kib }) {
			return { content: [{ type: "text", text: \`\${"x".repeat(1023)}\\n\`.repeat(kib) }], details: {} };
		},
	}));
}
`;

let inspected: Inspected | undefined;
let browser: LaunchedBrowser | undefined;

afterEach(async () => {
	await browser?.close();
	await inspected?.close();
	browser = undefined;
	inspected = undefined;
});

async function openPage(it_: Inspected): Promise<Page> {
	browser = await launchChromium((chromium as { path: string }).path);
	const page = await browser.context.newPage();
	const errors: string[] = [];
	page.on("pageerror", (error) => errors.push(error.message));
	await page.goto(it_.url("/"));
	await page.waitForSelector('[data-testid="tool-item"]');
	expect(errors).toEqual([]);
	return page;
}

const connection = (page: Page) => page.getByTestId("connection").getAttribute("data-state");
const banner = (page: Page) => page.getByTestId("error-banner").textContent();

describe.skipIf(skipReason !== undefined)("the inspector's page and the event stream's limits", () => {
	it("says why its stream was refused at the cap, and connects once a stream leaves", async () => {
		inspected = await startInspected({ extensions: ["hello.ts"], builtins: false, streams: { maxEventStreams: 1 } });
		const it_ = inspected;
		// Another client holds the one stream.
		const holder = connect(it_.server.port, "127.0.0.1");
		holder.on("error", () => {});
		holder.write(requestHead("GET", `/api/events?token=${it_.server.token}`, `127.0.0.1:${it_.server.port}`, {}));
		await until(() => it_.server.eventStreams() === 1, "the holder's stream");
		const page = await openPage(it_);
		await expect.poll(() => banner(page), { timeout: 20_000 }).toContain("GET /api/events: 503 Too many event streams");
		expect(await connection(page)).toBe("closed");
		// The state came anyway (from /api/state).
		expect(await page.getByTestId("tool-item").count()).toBe(1);
		holder.destroy();
		await expect.poll(() => connection(page), { timeout: 20_000 }).toBe("open");
		expect(it_.server.eventStreams()).toBe(1);
	}, 60_000);

	it("says why its stream was dropped when it fell behind, connects again and takes the state", async () => {
		inspected = await startInspected({
			extensions: ["hello.ts"],
			builtins: false,
			sources: { "bulk.ts": BULK },
			streams: { maxUnsentEventBytes: 64 * 1024 },
		});
		const it_ = inspected;
		const page = await openPage(it_);
		await expect.poll(() => connection(page)).toBe("open");
		const reader = eventStream(it_.url("/api/events"));
		try {
			await reader.next((e) => e.type === "hello");
			expect(it_.server.eventStreams()).toBe(2);
			// Hold the page's JavaScript at its next event: it reads nothing of its stream meanwhile.
			const cdp = await page.context().newCDPSession(page);
			await cdp.send("Debugger.enable");
			await cdp.send("Debugger.pause");
			let calls = 0;
			while (it_.server.eventStreams() === 2) {
				expect(calls, "calls made without the held page being dropped").toBeLessThan(300);
				const response = await fetch(it_.url("/api/call"), {
					method: "POST",
					headers: { "content-type": "application/json" },
					body: JSON.stringify({ tool: "bulk", args: { kib: 512 } }),
				});
				const { id } = (await response.json()) as { id: string };
				await reader.next((e) => e.type === "call" && e.call.id === id && e.call.status !== "running", 30_000);
				calls += 1;
			}
			await cdp.send("Debugger.resume");
			await cdp.send("Debugger.disable");
			await expect
				.poll(() => banner(page), { timeout: 30_000 })
				.toContain("Live events stopped: This page fell more than 64 KiB behind the inspector's live events");
			await expect.poll(() => connection(page), { timeout: 30_000 }).toBe("open");
			// The new stream's hello brought every call, those whose events the page never got included.
			await expect.poll(() => page.getByTestId("history-item").count(), { timeout: 30_000 }).toBe(calls);
		} finally {
			reader.close();
		}
	}, 120_000);
});
