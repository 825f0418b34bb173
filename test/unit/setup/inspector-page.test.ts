/**
 * The global setup that builds the inspector's page before the tests: when it decides the page
 * must be (re)built, on a copy of the repository's layout in a temporary folder.
 */
import { mkdtempSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { staleReason } from "../../setup/inspector-page.js";
import { writeAt } from "./_fake-repo.js";

let repo: string;

const file = (path: string, seconds: number): void => writeAt(repo, path, seconds);

beforeEach(() => {
	repo = mkdtempSync(join(tmpdir(), "toolsmith-page-setup-"));
	file("src/inspector/page/app.ts", 1_000);
	file("src/inspector/page/style.css", 1_000);
	file("scripts/build-inspector.mjs", 1_000);
	file("package-lock.json", 1_000);
	for (const name of ["index.html", "app.js", "app.css", "THIRD-PARTY-LICENSES.txt"]) {
		file(`dist/inspector/${name}`, 2_000);
	}
	// Folders get their own times when files are written into them.
	for (const folder of ["src/inspector/page", "scripts"]) utimesSync(join(repo, folder), 1_000, 1_000);
});

afterEach(() => rmSync(repo, { recursive: true, force: true }));

it("leaves a page built after its sources alone", () => {
	expect(staleReason(repo)).toBeUndefined();
});

it("builds a fresh clone's page, which is missing", () => {
	rmSync(join(repo, "dist"), { recursive: true });
	expect(staleReason(repo)).toBe("dist/inspector/index.html is missing");
});

it("builds when one output is missing", () => {
	rmSync(join(repo, "dist/inspector/app.js"));
	expect(staleReason(repo)).toBe("dist/inspector/app.js is missing");
});

it("rebuilds when a source of the page, the build script or the lockfile changed since", () => {
	file("src/inspector/page/style.css", 3_000);
	expect(staleReason(repo)).toBe("src/inspector/page changed since the last build");
	file("src/inspector/page/style.css", 1_000);
	utimesSync(join(repo, "src/inspector/page"), 1_000, 1_000);
	file("package-lock.json", 3_000);
	expect(staleReason(repo)).toBe("package-lock.json changed since the last build");
});

it("rebuilds when a file was added to the page", () => {
	utimesSync(join(repo, "src/inspector/page"), 3_000, 3_000);
	expect(staleReason(repo)).toBe("src/inspector/page changed since the last build");
});
