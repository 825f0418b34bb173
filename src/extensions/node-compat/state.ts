/**
 * The env the pi compatibility functions use when the reference API gives them none
 * (`withFileMutationQueue(path, fn)`, `createReadTool(cwd)`). The loader points it at the host's env,
 * so a pi extension's queued writes serialize with the built-in tools of that host.
 */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExecutionEnv } from "../../contract/env.js";
import { NodeExecutionEnv } from "../../env/node.js";
import type { ExtensionDiagnostic } from "../api.js";

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

type Reporter = (diagnostic: ExtensionDiagnostic) => void;
let reporter: Reporter | undefined;

/** Where the compat functions send diagnostics (the loader points it at the runtime that loads). */
export function setCompatReporter(report: Reporter): void {
	reporter = report;
}

const reported = new Set<string>();

/** Raise a diagnostic once per extension and key; without a reporter it goes to `console.warn`. */
export function reportCompat(key: string, diagnostic: ExtensionDiagnostic): void {
	const once = `${diagnostic.path}\0${key}`;
	if (reported.has(once)) return;
	reported.add(once);
	if (reporter) {
		try {
			reporter(diagnostic);
		} catch {
			// a throwing listener is swallowed, like every diagnostic listener
		}
	} else console.warn(`[${diagnostic.code}] ${diagnostic.message}`);
}

const ownRoot = (() => {
	const file = fileURLToPath(import.meta.url);
	const at = Math.max(file.lastIndexOf("/src/"), file.lastIndexOf("/dist/"));
	return at > 0 ? file.slice(0, at) : dirname(file);
})();

/** Files the loader imported as extensions (an extension may live under node_modules: a pi package). */
const extensionFiles = new Set<string>();

/** Remember the files of an extension the loader imported, so `callingExtension` recognizes them. */
export function noteExtensionFiles(files: readonly string[]): void {
	for (const file of files) extensionFiles.add(file);
}

/**
 * The extension file that called into the compat layer, read from the call stack: the first frame
 * outside toolsmith's own code, node's internals and node_modules (except files the loader imported
 * as extensions). `undefined` when none is found.
 */
export function callingExtension(): string | undefined {
	const stack = new Error().stack ?? "";
	for (const line of stack.split("\n").slice(1)) {
		const match = /\(?((?:file:\/\/)?\/[^():]+):\d+:\d+\)?\s*$/.exec(line);
		if (!match?.[1]) continue;
		const file = match[1].startsWith("file://") ? fileURLToPath(match[1]) : match[1];
		if (file.includes("/node_modules/") && !extensionFiles.has(file)) continue;
		if (file.startsWith(`${ownRoot}/src/`) || file.startsWith(`${ownRoot}/dist/`)) continue;
		return file;
	}
	return undefined;
}
