/**
 * The coercion probe against the reference 1.x, in a process of Node 22 (1.x needs it): the
 * release's outcome for each row of the table of docs/executor.md and its differences from
 * toolsmith over the probe grid, printed as JSON (`CoercionProbe`) for
 * test/integration/exec/pi-coercion-differences.test.ts.
 *
 *   node jiti-cli.mjs _coercion-1x.ts <release node_modules folder>
 */
import { probeReference } from "./_coercion-differences.js";
import { loadReference1x } from "./_executor-differential.js";

const modules = process.argv[2];
if (modules === undefined) {
	console.error("usage: _coercion-1x.ts <release node_modules folder>");
	process.exit(2);
}
const reference = await loadReference1x(modules);
process.stdout.write(JSON.stringify(probeReference(reference.ai, reference.release)));
