/**
 * vitest's global setup: the inspector's page (dist/inspector/), which the inspector's server
 * serves, built before any test when it is missing or older than what it is built from. So
 * `npm test` passes on a fresh clone with nothing run first, and a page edited since the last build
 * is the one the tests see. When the page is up to date this costs a few stat calls.
 */
import { execFile } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** What scripts/build-inspector.mjs reads: the page's sources, the script, and the locked dependencies it bundles. */
const INPUTS = ["src/inspector/page", "scripts/build-inspector.mjs", "package-lock.json"];
/** What it writes. */
const OUTPUTS = ["index.html", "app.js", "app.css", "THIRD-PARTY-LICENSES.txt"].map((name) => `dist/inspector/${name}`);

/** The latest modification time under `path` (a file or a folder), in milliseconds. */
function newest(path: string): number {
	const info = statSync(path);
	if (!info.isDirectory()) return info.mtimeMs;
	return Math.max(info.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Why the page must be built, or undefined when it is up to date. */
export function staleReason(repository: string = root): string | undefined {
	let built = Number.POSITIVE_INFINITY;
	for (const output of OUTPUTS) {
		try {
			built = Math.min(built, statSync(join(repository, output)).mtimeMs);
		} catch {
			return `${output} is missing`;
		}
	}
	const changed = INPUTS.find((input) => newest(join(repository, input)) > built);
	return changed === undefined ? undefined : `${changed} changed since the last build`;
}

export default async function setup(): Promise<void> {
	const reason = staleReason();
	if (reason === undefined) return;
	console.info(`Building the inspector page (${reason}): node scripts/build-inspector.mjs`);
	await promisify(execFile)(process.execPath, [join(root, "scripts", "build-inspector.mjs")], { cwd: root });
}
