/**
 * The public types of `createOperationsEnv` (`from-operations.ts`): the pi-style operations
 * callbacks an env is built from, and its options.
 */
import type { ExecutionEnv } from "../contract/env.js";

/**
 * The callbacks an operations env is built from: the union of the reference agent's
 * `ReadOperations`, `WriteOperations`, `EditOperations`, `BashOperations`, `LsOperations`,
 * `FindOperations` and `GrepOperations`. Every one is optional; an env method whose callback is
 * missing goes to `fallback`, or fails. Paths handed to the callbacks are absolute and normalized.
 */
export interface EnvOperations {
	/** The whole file (a Node `Buffer` is a `Uint8Array`). Throw (with a `code` such as `ENOENT`) when it cannot be read. */
	readonly readFile?: (absolutePath: string) => Promise<Uint8Array | string>;
	/** Resolve when the path exists and may be read; throw otherwise. */
	readonly access?: (absolutePath: string) => Promise<void>;
	/** Replace the file's content with `content` (text). */
	readonly writeFile?: (absolutePath: string, content: string) => Promise<void>;
	/** Create a folder and its missing parents. */
	readonly mkdir?: (absolutePath: string) => Promise<void>;
	/**
	 * Run `command` in `cwd`, passing output (stdout and stderr alike) to `onData`. Resolves with
	 * the exit code (`null` when killed); rejects with `Error("aborted")` after the signal fired and
	 * `Error("timeout:<seconds>")` after `timeout` seconds, as the reference's operations do.
	 */
	readonly exec?: (
		command: string,
		cwd: string,
		options: {
			readonly onData: (data: Uint8Array) => void;
			readonly signal?: AbortSignal;
			readonly timeout?: number;
			readonly env?: Readonly<Record<string, string | undefined>>;
		},
	) => Promise<{ readonly exitCode: number | null }>;
	/** Optional, ignored by the env (the read tool recognizes images by their bytes). */
	readonly detectImageMimeType?: (absolutePath: string) => Promise<string | null | undefined>;
	/** Whether the path exists (`LsOperations`, `FindOperations`). Used by `exists` before `access`. */
	readonly exists?: (absolutePath: string) => Promise<boolean> | boolean;
	/** Whether the path is a folder; throw when it does not exist (`GrepOperations`). */
	readonly isDirectory?: (absolutePath: string) => Promise<boolean> | boolean;
	/** What the path is; throw when it does not exist (`LsOperations`). */
	readonly stat?: (absolutePath: string) => Promise<{ isDirectory(): boolean }> | { isDirectory(): boolean };
	/** The names in a folder (`LsOperations`). The env tells their kinds with `stat` or `isDirectory`. */
	readonly readdir?: (absolutePath: string) => Promise<readonly string[]> | readonly string[];
	/**
	 * The files under `cwd` whose path matches the glob `pattern`, as absolute paths or paths
	 * relative to `cwd`, at most `options.limit` of them, leaving out what matches `options.ignore`
	 * (`FindOperations`). Makes the env's `findFiles`.
	 */
	readonly glob?: (
		pattern: string,
		cwd: string,
		options: { readonly ignore: string[]; readonly limit: number },
	) => Promise<readonly string[]> | readonly string[];
}

/** Options for `createOperationsEnv`: the working folder, a fallback env, and the `kind` reported. */
export interface OperationsEnvOptions {
	/** Absolute folder relative paths resolve against (and `exec` runs in by default). */
	readonly cwd: string;
	/**
	 * Env for the methods the operations do not cover (listing folders, temp files, renames, and
	 * any of read/write/exec whose callback is missing). Without one those methods fail with an
	 * error naming the missing operation: nothing silently runs anywhere else.
	 */
	readonly fallback?: ExecutionEnv;
	/** `kind` of the env, for messages. Default `"operations"`. */
	readonly kind?: string;
}
