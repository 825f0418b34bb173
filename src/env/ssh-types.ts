/**
 * The public types of the SSH env (`ssh.ts`): its options and its error. Runtime-neutral: no
 * `node:` imports.
 */
import type { PathPolicy } from "../contract/env.js";

/** Options for `SshExecutionEnv`: where to connect, how, and the env's own settings. */
export interface SshExecutionEnvOptions {
	/** What `ssh` is given: `host`, `user@host`, or an alias from the ssh config. */
	readonly destination: string;
	/** The remote working folder: absolute, no trailing slash needed. (`connectSshEnv` takes relative ones.) */
	readonly cwd: string;
	/** The port (`ssh -p`). Default: the ssh config's, else 22. */
	readonly port?: number;
	/** The ssh config file (`ssh -F`). Default: the user's `~/.ssh/config`, as `ssh` reads it. */
	readonly configFile?: string;
	/** A private key to log in with (`ssh -i`, with `IdentitiesOnly=yes`). Default: the agent's and the config's. */
	readonly identityFile?: string;
	/**
	 * More ssh options (`-o Name=value`), ahead of the env's own so they win (`ProxyJump`,
	 * `UserKnownHostsFile`, `ServerAliveInterval`, …). Refused: `StrictHostKeyChecking=no` (see
	 * `hostKeys`), `ControlMaster` and `ControlPath` (the env multiplexes its own connection).
	 */
	readonly sshOptions?: Readonly<Record<string, string>>;
	/**
	 * `"strict"` (the default): the host's key must be in known_hosts already. `"accept-new"`: a
	 * host not seen before is trusted on first use and its key recorded. A key that has changed is
	 * refused either way.
	 */
	readonly hostKeys?: "strict" | "accept-new";
	/** Seconds to wait for the connection. Default 15. */
	readonly connectTimeout?: number;
	/** The `ssh` program. Default `ssh` from PATH. */
	readonly sshPath?: string;
	/** The remote folder for `createTempFile` / `createTempDir`. Default `/tmp`. */
	readonly tempDir?: string;
	/** The remote shell commands run in (`<shell> -c <command>`). Default: `bash` when the host has it, else `sh`. */
	readonly shell?: string;
	/** Environment variables set (or, with `undefined`, unset) for every command, over the remote login's. */
	readonly env?: Readonly<Record<string, string | undefined>>;
	/** Milliseconds between SIGTERM and SIGKILL when killing a remote process tree. Default 1000. */
	readonly killGraceMs?: number;
	/**
	 * Whether `findFiles` and `searchText` may run `fd` / `rg` on the remote host when it has them.
	 * Default true. Without them, or under a `policy`, the tree is walked through the env's own
	 * methods; the result is the same either way.
	 */
	readonly searchBinaries?: boolean;
	/**
	 * Confine the env's file operations to the policy's roots, checked on canonical remote paths.
	 * There is no sandbox on the remote side: `exec` is refused, or runs with a warning under
	 * `withoutSandbox: "warn"`.
	 */
	readonly policy?: PathPolicy;
	/** File operations run at the same time, each over its own session of the connection. Default 4. */
	readonly parallel?: number;
	/**
	 * Milliseconds the connection stays open after the last env on it is closed, so that an env
	 * made soon after for the same host (and the same ssh options) reuses it without a new
	 * handshake. Default 0: closing the last env ends the connection at once. A lingering
	 * connection does not keep the process alive.
	 */
	readonly lingerMs?: number;
}

/**
 * Why an SSH env could not connect or lost its connection:
 *
 * - `unreachable`: no connection (no route, refused, timed out, no `ssh` program).
 * - `host_key`: the host's key is unknown (under `hostKeys: "strict"`) or has changed.
 * - `auth`: the host refused the login.
 * - `unsupported_host`: the remote host lacks what the env needs (a POSIX shell, GNU coreutils).
 * - `connection_lost`: the connection ended while calls were in flight; the next call reconnects.
 * - `no_folder`: the remote working folder does not exist or is not a folder.
 * - `invalid_argument`: an option is malformed or refused.
 */
export type SshErrorCode =
	| "unreachable"
	| "host_key"
	| "auth"
	| "unsupported_host"
	| "connection_lost"
	| "no_folder"
	| "invalid_argument";

/** An SSH env's connection failure; the message says what to do about it. */
export class SshError extends Error {
	override readonly name = "SshError";
	readonly code: SshErrorCode;
	/** The destination as given (`user@host`, an alias). */
	readonly destination: string;

	constructor(code: SshErrorCode, destination: string, message: string) {
		super(message);
		this.code = code;
		this.destination = destination;
	}
}
