/**
 * When the package's JavaScript (dist/*.js) is fresh: newer than everything tsup bundles into it.
 * Shared by the global setup that builds it (cli-build.ts) and the CLI tests that start dist/cli.js
 * only when it is fresh (test/integration/cli/_run.ts).
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** What tsup bundles into the entries (see tsup.config.ts): a change to any of them makes the build stale. */
export const BUILD_INPUTS = ["src", "create-tool/src", "tsup.config.ts", "package.json"];
/** The entries' JavaScript. */
export const BUILD_OUTPUTS = ["index.js", "runtime.js", "node.js", "harness.js", "vitest.js", "cli.js"].map(
	(name) => `dist/${name}`,
);

/** The latest modification time under `path` (a file or a folder), in milliseconds. */
function newest(path: string): number {
	const info = statSync(path);
	if (!info.isDirectory()) return info.mtimeMs;
	return Math.max(info.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Why the JavaScript of the repository at `repository` must be built, or undefined when it is up to date. */
export function buildStaleness(repository: string): string | undefined {
	let built = Number.POSITIVE_INFINITY;
	for (const output of BUILD_OUTPUTS) {
		try {
			built = Math.min(built, statSync(join(repository, output)).mtimeMs);
		} catch {
			return `${output} is missing`;
		}
	}
	const changed = BUILD_INPUTS.find((input) => newest(join(repository, input)) > built);
	return changed === undefined ? undefined : `${changed} changed since the last build`;
}
