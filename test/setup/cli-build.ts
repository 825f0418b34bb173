/**
 * vitest's global setup: the package's JavaScript (dist/*.js), built before any test when it is
 * missing or older than what it is built from. The CLI tests start `toolsmith` as a child process
 * a few hundred times, and start it from dist/cli.js when that is fresh (test/integration/cli/_run.ts):
 * a tenth of the start-up cost of running the sources through jiti. Only the JavaScript is built
 * (about a second), not the declarations, and nothing is removed; `npm run build` makes the full build.
 */
import { fileURLToPath } from "node:url";
import { build } from "tsup";
import config from "../../tsup.config.js";
import { buildStaleness } from "./_package-build.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** Why the JavaScript must be built, or undefined when it is up to date. */
export function staleReason(repository: string = root): string | undefined {
	return buildStaleness(repository);
}

export default async function setup(): Promise<void> {
	if (process.env.TOOLSMITH_TEST_CLI === "source") return;
	const reason = staleReason();
	if (reason === undefined) return;
	console.info(`Building the package's JavaScript for the CLI tests (${reason})`);
	const options = Array.isArray(config) ? config[0] : config;
	if (typeof options !== "object" || options === null) throw new Error("tsup.config.ts must export one options object");
	await build({ ...options, dts: false, clean: false, silent: true });
}
