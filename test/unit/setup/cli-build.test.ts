/**
 * The global setup that builds the package's JavaScript before the tests (the CLI tests start
 * dist/cli.js when it is fresh): when it decides to build, on a fake repository layout.
 */
import { mkdtempSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { staleReason } from "../../setup/cli-build.js";
import { writeAt } from "./_fake-repo.js";

let repo: string;

const file = (path: string, seconds: number): void => writeAt(repo, path, seconds);

beforeEach(() => {
	repo = mkdtempSync(join(tmpdir(), "toolsmith-cli-build-"));
	file("src/cli/main.ts", 1_000);
	file("create-tool/src/generator.ts", 1_000);
	file("tsup.config.ts", 1_000);
	file("package.json", 1_000);
	for (const name of ["index", "runtime", "node", "harness", "vitest", "cli"]) file(`dist/${name}.js`, 2_000);
	for (const folder of ["src/cli", "src", "create-tool/src"]) utimesSync(join(repo, folder), 1_000, 1_000);
});

afterEach(() => rmSync(repo, { recursive: true, force: true }));

it("leaves a build newer than its sources alone", () => {
	expect(staleReason(repo)).toBeUndefined();
});

it("builds a fresh clone, whose dist/ is missing", () => {
	rmSync(join(repo, "dist"), { recursive: true });
	expect(staleReason(repo)).toBe("dist/index.js is missing");
});

it("rebuilds when a source, the generator or the build's configuration changed since", () => {
	file("src/cli/main.ts", 3_000);
	expect(staleReason(repo)).toBe("src changed since the last build");
	file("src/cli/main.ts", 1_000);
	utimesSync(join(repo, "src/cli"), 1_000, 1_000);
	file("create-tool/src/generator.ts", 3_000);
	expect(staleReason(repo)).toBe("create-tool/src changed since the last build");
	file("create-tool/src/generator.ts", 1_000);
	utimesSync(join(repo, "create-tool/src"), 1_000, 1_000);
	file("tsup.config.ts", 3_000);
	expect(staleReason(repo)).toBe("tsup.config.ts changed since the last build");
});
