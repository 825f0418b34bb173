/**
 * Every example extension the reference ships (`examples/extensions/` of pi-coding-agent 0.73.1 and
 * 1.6.0, as `npm run compat:setup` installs the releases under test/compat/.cache) loads unmodified
 * under toolsmith: no error diagnostic, the extension's factory ran. Most of them are about UI,
 * sessions or models, which toolsmith accepts as reported no-ops or stubs (warnings are fine here);
 * what their tools do is checked elsewhere (pi-compat.test.ts, pi-examples-operations.test.ts).
 * Skipped, with the reason, where the releases are not installed (CI does not run compat:setup).
 */
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { loadExtensions } from "../../../src/extensions/node-loader.js";
import { findRelease } from "../../compat/_reference.js";

/** Examples that need a package of their own that the release does not install, and which. */
const NEEDS_OWN_DEPENDENCY: Readonly<Record<string, string>> = {
	gondolin: "@earendil-works/gondolin",
	sandbox: "@anthropic-ai/sandbox-runtime",
};

/** The examples of a folder: its `.ts` files and its folders with an `index.ts` or a package.json. */
function examplesIn(dir: string): string[] {
	return readdirSync(dir)
		.filter((name) => {
			const path = join(dir, name);
			if (statSync(path).isDirectory()) {
				return existsSync(join(path, "index.ts")) || existsSync(join(path, "package.json"));
			}
			return name.endsWith(".ts");
		})
		.sort();
}

const cwd = realpathSync(mkdtempSync(join(tmpdir(), "pi-examples-all-")));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

for (const [scope, version, count] of [
	["@mariozechner", "0.73.1", 72],
	["@earendil-works", "1.6.0", 78],
] as const) {
	const release = findRelease(scope, version);
	const dir = release ? join(release.dir, "examples", "extensions") : undefined;

	if (!dir) {
		it.skip(`${scope}/pi-coding-agent@${version}'s examples: not installed here (run npm run compat:setup)`);
		continue;
	}

	describe(`${scope}/pi-coding-agent@${version}'s example extensions load unmodified`, () => {
		const examples = examplesIn(dir);

		it(`finds all ${count} of them`, () => {
			expect(examples.length).toBe(count);
		});

		for (const name of examples) {
			const dependency = NEEDS_OWN_DEPENDENCY[name];
			if (dependency) {
				it.skip(`${name}: needs ${dependency}, which the release does not install (npm install in the example)`);
				continue;
			}
			it(name, async () => {
				const loaded = await loadExtensions([join(dir, name)], { cwd, env: new NodeExecutionEnv({ cwd }) });
				const errors = loaded.diagnostics.filter((d) => d.severity === "error");
				expect(errors.map((d) => d.message)).toEqual([]);
				expect(loaded.extensions.length).toBeGreaterThan(0);
			});
		}
	});
}
