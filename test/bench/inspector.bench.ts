/**
 * `npm run bench inspector`: how long a save takes to show on the inspector's page.
 *
 * The built CLI (`dist/cli.js inspect`, plain `node`) serves the page over a folder with the demo
 * `hello` tool; headless Chromium (the system's, through playwright-core) has it open. Each of
 * `EDITS` samples runs from just before `hello.ts` is written to the moment the page shows the new
 * reload line and marks `hello` as changed: chokidar's notice, the debounce, the fresh import, the
 * event stream and the page's render. The goal is the issue's: within a second (p95). The host's own
 * share (the debounce plus the reload it reports) is printed beside it, as the floor the page adds to.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findChromium, launchChromium } from "../integration/inspector/_browser.js";
import { finish, percentile, reportValue } from "./_measure.js";

const EDITS = 30;
const GOAL_MS = 1000;
/** The host's default debounce (`DEFAULT_DEBOUNCE_MS` of toolsmith-sdk/node). */
const { DEFAULT_DEBOUNCE_MS } = await import("toolsmith-sdk/node");

/** The repository: this script runs compiled from `.tmp/bench/<pid>/`, so it is found, not assumed. */
let repo = dirname(fileURLToPath(import.meta.url));
while (!existsSync(join(repo, "docs/examples/hello.ts"))) {
	if (dirname(repo) === repo) throw new Error("run this benchmark inside the toolsmith repository");
	repo = dirname(repo);
}
const chromium = findChromium();
if ("missing" in chromium) {
	console.log(`SKIP  inspector: ${chromium.missing}`);
	process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "toolsmith-bench-inspector-"));
const file = join(dir, "hello.ts");
const source = readFileSync(join(repo, "docs/examples/hello.ts"), "utf8");
writeFileSync(file, source);

const child = spawn(process.execPath, [join(repo, "dist/cli.js"), "inspect", "hello.ts"], {
	cwd: dir,
	env: { ...process.env, NO_COLOR: "1" },
	stdio: ["ignore", "pipe", "inherit"],
});
let out = "";
const url = await new Promise<string>((resolve, reject) => {
	const timer = setTimeout(() => reject(new Error(`toolsmith inspect printed no address: ${out}`)), 30_000);
	child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
		out += chunk;
		const match = /inspector (http:\/\/\S+)/.exec(out);
		if (match) {
			clearTimeout(timer);
			resolve(match[1]!);
		}
	});
});

const browser = await launchChromium(chromium.path);
const page = await browser.context.newPage();
await page.goto(url);
await page.waitForSelector('[data-testid="connection"][data-state="open"]');

const shown: number[] = [];
const hostShare: number[] = [];
const token = new URL(url).searchParams.get("token");
try {
	for (let edit = 1; edit <= EDITS; edit++) {
		const lines = await page.getByTestId("reload-line").count();
		const started = performance.now();
		writeFileSync(file, source.replace("`Hello, ", `\`Hello #${edit}, `));
		// Polled every animation frame in the page (a function, not a string: the page's CSP forbids eval).
		await page.waitForFunction(
			(count) => {
				const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } })
					.document;
				return (
					doc.querySelectorAll('[data-testid="reload-line"]').length > count &&
					doc.querySelectorAll('[data-testid="tool-item"][data-tool="hello"][data-changed="true"]').length > 0
				);
			},
			lines,
			{ timeout: 10_000, polling: "raf" },
		);
		shown.push(performance.now() - started);
		const state = (await (await fetch(new URL(`/api/state?token=${token}`, url))).json()) as {
			reloads: { durationMs: number }[];
		};
		hostShare.push(DEFAULT_DEBOUNCE_MS + (state.reloads.at(-1)?.durationMs ?? Number.NaN));
		// Let the "changed" mark fade so the next sample waits for a fresh one.
		await page.waitForSelector('[data-testid="tool-item"][data-tool="hello"]:not([data-changed])', { timeout: 10_000 });
	}
} finally {
	await browser.close();
	child.kill("SIGTERM");
	rmSync(dir, { recursive: true, force: true });
}

const p50 = percentile(shown, 50);
const p95 = percentile(shown, 95);
reportValue(
	"save → reload line and changed tool on the page, p95",
	p95,
	GOAL_MS,
	"ms",
	`p50 ${p50.toFixed(0)} ms · ${(p95 / GOAL_MS).toFixed(2)}× the goal · the host's share (debounce ${DEFAULT_DEBOUNCE_MS} ms + reload) p50 ${percentile(hostShare, 50).toFixed(0)} ms · ${EDITS} edits`,
);
finish();
