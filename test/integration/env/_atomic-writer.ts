/**
 * Child process for the atomic-write test: rewrites one file through NodeExecutionEnv forever,
 * alternating two fills, until the parent kills it with SIGKILL.
 */
import { NodeExecutionEnv } from "../../../src/env/node.js";

const [file, size] = process.argv.slice(2);
const env = new NodeExecutionEnv();
const fills = [new Uint8Array(Number(size)).fill(0x42), new Uint8Array(Number(size)).fill(0x43)];
process.stdout.write("writing\n");
for (let i = 0; ; i++) {
	const written = await env.writeFile(file!, fills[i % 2]!);
	if (!written.ok) {
		process.stderr.write(`${written.error.message}\n`);
		process.exit(1);
	}
	if (i === 0) process.stdout.write("first write done\n");
}
