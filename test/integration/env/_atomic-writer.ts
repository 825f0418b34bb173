/**
 * Child process for the atomic-write test: rewrites one file through an env forever, alternating
 * two fills, until the parent kills it with SIGKILL. The env is NodeExecutionEnv, or with
 * `ssh <host> <config file>` after the size an SshExecutionEnv (connected before it announces).
 */
import type { ExecutionEnv } from "../../../src/contract/env.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { SshExecutionEnv } from "../../../src/env/node-ssh.js";

const [file, size, kind, host, configFile] = process.argv.slice(2);
let env: ExecutionEnv = new NodeExecutionEnv();
if (kind === "ssh") {
	const ssh = new SshExecutionEnv({ destination: host!, configFile: configFile!, cwd: "/" });
	const connected = await ssh.connect();
	if (!connected.ok) {
		process.stderr.write(`${connected.error.message}\n`);
		process.exit(1);
	}
	env = ssh;
}
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
