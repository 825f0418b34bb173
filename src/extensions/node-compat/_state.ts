/**
 * The env the pi compatibility functions use when the reference API gives them none
 * (`withFileMutationQueue(path, fn)`, `createReadTool(cwd)`). The loader points it at the host's env,
 * so a pi extension's queued writes serialize with the built-in tools of that host.
 */
import { NodeExecutionEnv } from "../../env/node.js";
import type { ExecutionEnv } from "../../env/types.js";

let shared: ExecutionEnv | undefined;

export function setCompatEnv(env: ExecutionEnv): void {
	shared = env;
}

export function compatEnv(): ExecutionEnv {
	shared ??= new NodeExecutionEnv();
	return shared;
}

const byCwd = new Map<string, ExecutionEnv>();

/** The shared env when its cwd is `cwd`, else a Node env for `cwd` (one per folder). */
export function envForCwd(cwd: string): ExecutionEnv {
	const env = compatEnv();
	if (env.cwd === cwd) return env;
	let own = byCwd.get(cwd);
	if (!own) {
		own = new NodeExecutionEnv({ cwd });
		byCwd.set(cwd, own);
	}
	return own;
}
