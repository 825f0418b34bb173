/**
 * SshExecutionEnv: the ExecutionEnv of another machine, reached with OpenSSH as the user already
 * configured it (`~/.ssh/config`, the agent, `ProxyJump`, known hosts). Node only
 * (`toolsmith-sdk/node`).
 *
 * The front: it settles its options into a state record and hands each method to the step file
 * that does it. One multiplexed connection per host (`node-ssh/connection.ts`); file operations
 * go to a few long-lived remote helpers over it (`node-ssh/agent.ts`, `node-ssh/files.ts`), so
 * each costs a request on an open session; every command gets a session of its own
 * (`node-ssh/exec.ts`).
 */
import type {
	DirEntry,
	ExecOptions,
	ExecResult,
	ExecutionEnv,
	FileInfo,
	FindFilesRequest,
	FindFilesResult,
	SearchTextRequest,
	SearchTextResult,
	SignalOptions,
} from "../contract/env.js";
import { describeValue, errorMessage } from "../contract/errors.js";
import { type ExecutionError, err, FileError, ok, type Result } from "../contract/result.js";
import { execError } from "./errors.js";
import { setMutationScope } from "./mutation-queue.js";
import { type AgentPool, agentPool, remoteCaps } from "./node-ssh/agent.js";
import { acquireConnection, releaseConnection, type SshConnection, sessionArgs } from "./node-ssh/connection.js";
import { runRemoteCommand } from "./node-ssh/exec.js";
import {
	absoluteIn,
	appendFile,
	canonicalPath,
	createDir,
	createTempDir,
	createTempFile,
	exists,
	fileInfo,
	listDir,
	readBinaryFile,
	readRange,
	readTextFile,
	remove,
	rename,
	type SshFilesState,
	writeFile,
} from "./node-ssh/files.js";
import { searchRemote } from "./node-ssh/search.js";
import { normalizePath } from "./path.js";
import { parseSshTarget, type SshTarget } from "./ssh-target.js";
import { SshError, type SshExecutionEnvOptions } from "./ssh-types.js";

export { SshError, type SshErrorCode, type SshExecutionEnvOptions } from "./ssh-types.js";

/** Per host, one object every env on it queues its mutations in (keyed with the remote canonical path). */
function mutationScopeFor(key: string): object {
	const holder = globalThis as { [key: symbol]: Map<string, object> | undefined };
	const registry = Symbol.for("toolsmith.sshMutationScopes");
	holder[registry] ??= new Map();
	const scopes = holder[registry];
	let scope = scopes.get(key);
	if (!scope) {
		scope = { name: `ssh ${key}` };
		scopes.set(key, scope);
	}
	return scope;
}

/**
 * An ExecutionEnv on a remote host over SSH. Every method settles with a `Result`; none throws or
 * rejects. A lost connection fails the calls in flight (`io_error` with `osCode` `ECONNRESET`
 * for files, `connection_lost` for commands) and the next call reconnects. Call `close()` when
 * done (the last env on a host ends its connection; the process' exit ends it too).
 */
export class SshExecutionEnv implements ExecutionEnv {
	readonly kind = "ssh";
	readonly cwd: string;
	/** The destination as given. */
	readonly destination: string;
	readonly tempDir: string;
	private readonly connection: SshConnection | SshError;
	private readonly files: SshFilesState | undefined;
	private readonly pool: AgentPool | undefined;
	private readonly options: SshExecutionEnvOptions;
	private closed = false;

	constructor(options: SshExecutionEnvOptions) {
		this.options = options;
		this.destination = String(options?.destination ?? "");
		const cwd = typeof options?.cwd === "string" ? options.cwd : "";
		this.cwd = cwd.startsWith("/") ? normalizePath(cwd) : cwd;
		this.tempDir = normalizePath(options?.tempDir ?? "/tmp");
		const problem = optionsProblem(options);
		this.connection = problem ?? acquireConnection(options);
		if (this.connection instanceof SshError) return;
		this.pool = agentPool(this.connection, options.parallel ?? 4);
		this.files = {
			cwd: this.cwd,
			tempDir: this.tempDir,
			connection: this.connection,
			pool: this.pool,
			policy: options.policy,
			roots: undefined,
			created: [],
		};
		// Envs reaching the same host queue their mutations together, however they spell it (an
		// alias, user@address) and whatever else their options say: the host as `ssh -G` resolves it.
		setMutationScope(this, mutationScopeFor(this.connection.host));
	}

	/** Connect now (the first call would otherwise): resolves once the remote side is ready, or says why not. */
	async connect(): Promise<Result<void, SshError>> {
		if (this.connection instanceof SshError) return err(this.connection);
		const caps = await remoteCaps(this.pool as AgentPool);
		return caps instanceof SshError ? err(caps) : ok(undefined);
	}

	/** The remote home folder (connecting if needed), or undefined when the host cannot be reached. */
	async home(): Promise<string | undefined> {
		if (this.connection instanceof SshError) return undefined;
		const caps = await remoteCaps(this.pool as AgentPool);
		return caps instanceof SshError ? undefined : caps.home || undefined;
	}

	/**
	 * The argv that runs `ssh` over this env's own connection (no handshake), ending with the
	 * destination: append a remote command (`[...env.sshArgs(), "uptime"]`). Empty when the env's
	 * options were refused. For what the env does not offer; the connection forwards nothing (no
	 * agent, no X11, no ports). A program that adds the host itself (rsync's `-e`) takes every
	 * element but the last.
	 */
	sshArgs(): readonly string[] {
		return this.connection instanceof SshError ? [] : sessionArgs(this.connection);
	}

	/** Let go of the connection (the last env on the host ends it). Calls after this fail. */
	async close(): Promise<void> {
		if (this.closed || this.connection instanceof SshError) return;
		this.closed = true;
		await releaseConnection(this.connection, Math.max(0, this.options.lingerMs ?? 0));
	}

	async [Symbol.asyncDispose](): Promise<void> {
		await this.close();
	}

	// ---------------------------------------------------------------- FileSystem

	absolutePath(path: string): Result<string, FileError> {
		return absoluteIn(this, path);
	}

	canonicalPath(path: string): Promise<Result<string, FileError>> {
		return this.withFiles(path, (files) => canonicalPath(files, path));
	}

	async exists(path: string): Promise<boolean> {
		return this.files ? exists(this.files, path) : false;
	}

	fileInfo(path: string, options: { readonly followSymlinks?: boolean } = {}): Promise<Result<FileInfo, FileError>> {
		return this.withFiles(path, (files) => fileInfo(files, path, options));
	}

	listDir(path: string): Promise<Result<DirEntry[], FileError>> {
		return this.withFiles(path, (files) => listDir(files, path));
	}

	readTextFile(path: string, options: SignalOptions = {}): Promise<Result<string, FileError>> {
		return this.withFiles(path, (files) => readTextFile(files, path, options));
	}

	readBinaryFile(path: string, options: SignalOptions = {}): Promise<Result<Uint8Array, FileError>> {
		return this.withFiles(path, (files) => readBinaryFile(files, path, options));
	}

	readRange(
		path: string,
		offset: number,
		length: number,
		options: SignalOptions = {},
	): Promise<Result<Uint8Array, FileError>> {
		return this.withFiles(path, (files) => readRange(files, path, offset, length, options));
	}

	writeFile(path: string, data: string | Uint8Array, options: SignalOptions = {}): Promise<Result<void, FileError>> {
		return this.withFiles(path, (files) => writeFile(files, path, data, options));
	}

	appendFile(path: string, data: string | Uint8Array): Promise<Result<void, FileError>> {
		return this.withFiles(path, (files) => appendFile(files, path, data));
	}

	rename(from: string, to: string): Promise<Result<void, FileError>> {
		return this.withFiles(from, (files) => rename(files, from, to));
	}

	remove(path: string, options: { readonly recursive?: boolean } = {}): Promise<Result<void, FileError>> {
		return this.withFiles(path, (files) => remove(files, path, options));
	}

	createDir(path: string, options: { readonly recursive?: boolean } = {}): Promise<Result<void, FileError>> {
		return this.withFiles(path, (files) => createDir(files, path, options));
	}

	createTempFile(
		options: { readonly prefix?: string; readonly suffix?: string } = {},
	): Promise<Result<string, FileError>> {
		return this.withFiles(this.tempDir, (files) => createTempFile(files, options));
	}

	createTempDir(options: { readonly prefix?: string } = {}): Promise<Result<string, FileError>> {
		return this.withFiles(this.tempDir, (files) => createTempDir(files, options));
	}

	// ---------------------------------------------------------------- Shell

	async exec(command: string, options: ExecOptions = {}): Promise<Result<ExecResult, ExecutionError>> {
		if (this.connection instanceof SshError)
			return err(execError("spawn_error", describeValue(command), this.connection.message));
		if (this.closed) return err(execError("spawn_error", describeValue(command), closedMessage(this.destination)));
		try {
			return await runRemoteCommand(command, options ?? {}, {
				cwd: this.cwd,
				connection: this.connection,
				pool: this.pool as AgentPool,
				shell: this.options.shell,
				baseEnv: this.options.env,
				killGraceMs: Math.max(0, this.options.killGraceMs ?? 1000),
				withoutSandbox: this.options.policy ? (this.options.policy.withoutSandbox ?? "refuse") : undefined,
			});
		} catch (error) {
			return err(
				execError("spawn_error", describeValue(command), `Could not run the command (${errorMessage(error)})`),
			);
		}
	}

	// ---------------------------------------------------------------- search

	/** Files matching a glob, through `fd` on the remote host when it has it, else by walking. */
	findFiles(request: FindFilesRequest, options: SignalOptions = {}): Promise<Result<FindFilesResult, FileError>> {
		return searchRemote.find(this, this.searchContext(), request, options);
	}

	/** Lines matching a pattern, through `rg` on the remote host when it has it, else by walking. */
	searchText(request: SearchTextRequest, options: SignalOptions = {}): Promise<Result<SearchTextResult, FileError>> {
		return searchRemote.text(this, this.searchContext(), request, options);
	}

	private searchContext() {
		return {
			connection: this.connection instanceof SshError ? undefined : this.connection,
			pool: this.pool,
			enabled: this.options.searchBinaries !== false && this.options.policy === undefined,
		};
	}

	private async withFiles<T>(
		path: string,
		run: (files: SshFilesState) => Promise<Result<T, FileError>>,
	): Promise<Result<T, FileError>> {
		if (this.connection instanceof SshError)
			return err(new FileError("io_error", String(path), this.connection.message));
		if (this.closed) return err(new FileError("io_error", String(path), closedMessage(this.destination)));
		return run(this.files as SshFilesState);
	}
}

function closedMessage(destination: string): string {
	return `The SSH env for ${destination} was closed; create a new one`;
}

function optionsProblem(options: SshExecutionEnvOptions | undefined): SshError | undefined {
	const destination = String(options?.destination ?? "");
	const target = parseSshTarget(destination);
	if (!target.ok) return new SshError("invalid_argument", destination, target.error);
	if (target.value.destination !== destination)
		return new SshError(
			"invalid_argument",
			destination,
			`destination is the host only (${JSON.stringify(target.value.destination)}); give the folder as cwd`,
		);
	if (typeof options?.cwd !== "string" || !options.cwd.startsWith("/"))
		return new SshError(
			"invalid_argument",
			destination,
			`cwd must be an absolute remote path, got ${describeValue(options?.cwd)} (connectSshEnv resolves relative ones)`,
		);
	return undefined;
}

/**
 * Connect to `target` (`user@host:/path`, `host:relative/path`, `ssh://user@host:2222/path`, or
 * the parsed form) and make its env: a relative folder resolves against the remote home, a missing
 * one is the home, and the folder must exist. Fails with an `SshError` that says what to do.
 */
export async function connectSshEnv(
	target: SshTarget | string,
	options: Omit<SshExecutionEnvOptions, "destination" | "cwd" | "port"> = {},
): Promise<Result<SshExecutionEnv, SshError>> {
	const parsed = typeof target === "string" ? parseSshTarget(target) : ok(target);
	if (!parsed.ok) return err(new SshError("invalid_argument", String(target), parsed.error));
	const { destination, port, path } = parsed.value;
	// A first env at the home folder learns where home is; it shares the connection with the real one.
	const probe = new SshExecutionEnv({ ...options, destination, ...(port !== undefined ? { port } : {}), cwd: "/" });
	const connected = await probe.connect();
	if (!connected.ok) {
		await probe.close();
		return connected;
	}
	const home = (await probe.home()) ?? "/";
	const cwd = normalizePath(path === undefined ? home : path.startsWith("/") ? path : `${home}/${path}`);
	const env = new SshExecutionEnv({ ...options, destination, ...(port !== undefined ? { port } : {}), cwd });
	await probe.close();
	const info = await env.fileInfo(cwd);
	if (!info.ok || info.value.kind !== "directory") {
		await env.close();
		return err(
			new SshError(
				info.ok || info.error.osCode !== "ECONNRESET" ? "no_folder" : "connection_lost",
				destination,
				info.ok
					? `${cwd} on ${destination} is not a folder: give a folder to work in`
					: info.error.osCode === "ECONNRESET"
						? info.error.message
						: info.error.code === "not_found"
							? `${cwd} does not exist on ${destination}: create it, or give a folder that exists`
							: `Cannot use ${cwd} on ${destination}: ${info.error.message}`,
			),
		);
	}
	return ok(env);
}
