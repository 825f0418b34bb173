/**
 * A real browser for the inspector tests: Chromium from the system (Debian's `chromium`, installed
 * by `.ci/run`) driven by playwright-core. `findChromium` says where it is, or why there is none.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** The browser to drive: `$TOOLSMITH_CHROMIUM`, else the first system Chromium found. */
export function findChromium(): { path: string } | { missing: string } {
	const given = process.env.TOOLSMITH_CHROMIUM;
	if (given) return existsSync(given) ? { path: given } : { missing: `TOOLSMITH_CHROMIUM=${given} does not exist` };
	const found = CANDIDATES.find((path) => existsSync(path));
	return found
		? { path: found }
		: { missing: `no Chromium at ${CANDIDATES.join(", ")} (install Debian's chromium: apt-get install chromium)` };
}

export interface LaunchedBrowser {
	readonly context: BrowserContext;
	close(): Promise<void>;
}

/** Headless Chromium with a fresh profile (`--user-data-dir`) and no background traffic (the CI machine has no network). */
export async function launchChromium(
	executablePath: string,
	extraArgs: readonly string[] = [],
): Promise<LaunchedBrowser> {
	const profile = mkdtempSync(join(tmpdir(), "toolsmith-chromium-"));
	// A persistent context is how playwright takes a profile folder (--user-data-dir).
	const context = await chromium.launchPersistentContext(profile, {
		executablePath,
		headless: true,
		viewport: { width: 1280, height: 800 },
		args: [
			"--headless",
			"--no-sandbox",
			"--disable-gpu",
			"--disable-quic",
			"--no-first-run",
			"--disable-background-networking",
			"--disable-component-update",
			"--disable-sync",
			...extraArgs,
		],
	});
	return {
		context,
		async close() {
			await context.close().catch(() => {});
			rmSync(profile, { recursive: true, force: true });
		},
	};
}
