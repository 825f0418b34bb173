/**
 * Types of the host the `dev` loop drives: the part of the extension host (`createExtensionHost`)
 * the loop uses, so tests can drive it with a fake; the factory of the real one, which imports the
 * host and the envs only when a command starts it; and how `dev` and `inspect` start it.
 */

import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../command/args.js";
import { CommandError } from "../command/node-command.js";
import type { CliIO, CliOutput } from "../command/node-io.js";
import type { ExecutionEnv, PathPolicy, SandboxLimits } from "../contract/env.js";
import { errorMessage } from "../contract/errors.js";
import type { Theme } from "../contract/render.js";
import { formatBytes, LIMIT_MINIMUMS } from "../env/node-limits.js";
import type { SshExecutionEnv } from "../env/node-ssh.js";
import { displayPath } from "../extensions/node-event-lines.js";
import type { ExtensionHost, ExtensionHostOptions, ExtensionHostReady } from "../extensions/node-host.js";
import type { RegistrySnapshot } from "../extensions/registry.js";
import type { ExtensionRuntime } from "../extensions/runtime.js";
import {
	connectSsh,
	SSH_CONFINED,
	type SshOptionValues,
	sshConfinePolicy,
	sshOptions,
	sshRequest,
	sshWhere,
} from "./_ssh.js";

/**
 * What `toolsmith dev` uses of an `ExtensionHost` (`registry` and `runtime` narrowed to the one
 * method each it calls); the extension host is one as it is. Without `reload`, the loop's `reload`
 * command says the host cannot reload on demand.
 */
export interface DevHost
	extends Pick<ExtensionHost, "ready" | "execute" | "buildToolsPrompt" | "extensions" | "on" | "close">,
		Partial<Pick<ExtensionHost, "reload">> {
	/**
	 * The active tools with their source and definition (whose renderers show calls and results);
	 * the callable ones too, when known, to draw the calls tools make of tools that are not active.
	 */
	readonly registry: { snapshot(): Pick<RegistrySnapshot, "active"> & Partial<Pick<RegistrySnapshot, "callable">> };
	/** The `ctx` an extension's command runs with; the extensions' tool renderers, when it has them. */
	readonly runtime: Pick<ExtensionRuntime, "createContext"> & Partial<Pick<ExtensionRuntime, "resolveToolRenderers">>;
}

/** The host `toolsmith dev` asks for: its command line, resolved. */
export interface DevHostOptions extends Pick<ExtensionHostOptions, "paths" | "watch" | "log" | "loadTimeoutMs"> {
	/** `node`: the real disk and shell; `memory`: an empty in-memory env. */
	readonly env: "node" | "memory";
	/** The working folder tools see, absolute. */
	readonly cwd: string;
	/** Confine the env to `cwd` (`--confine`): a path policy with `cwd` as the only root, the shell sandboxed. */
	readonly confine?: boolean;
	/** Confine what bash can read too (`--confine-reads`, implies `confine`): see `PathPolicy.confineReads`. */
	readonly confineReads?: boolean;
	/** The shell sandbox's limits under `confine` (`--limit`): see `PathPolicy.limits`. */
	readonly limits?: SandboxLimits;
	/**
	 * An env connected already (the SSH env of `--ssh`, its confinement its own), used instead of one
	 * of `env`'s kind; whoever connected it closes it.
	 */
	readonly connected?: ExecutionEnv;
	/** Wraps the env before the host gets it (the inspector records through a `RecordingEnv`). */
	readonly wrapEnv?: (env: ExecutionEnv) => ExecutionEnv;
}

/** Starts the host for `toolsmith dev`. Rejects when the host cannot start at all. */
export type DevHostFactory = (options: DevHostOptions) => Promise<DevHost>;

/** The host from `factory`, once ready; a `CommandError` when it cannot start. */
export async function startHost(
	factory: DevHostFactory,
	options: DevHostOptions,
): Promise<{ host: DevHost; ready: ExtensionHostReady }> {
	try {
		const host = await factory(options);
		return { host, ready: await host.ready };
	} catch (error) {
		throw new CommandError(`could not start the host: ${errorMessage(error)}`);
	}
}

/** The host's log lines (`[warning] …`) on `out`, styled by level. */
export function hostLogTo(out: CliOutput, theme: Theme): NonNullable<DevHostOptions["log"]> {
	return ({ level, message }) =>
		out.write(`${theme.fg(level === "info" ? "muted" : level, `[${level}]`)} ${message}\n`);
}

/**
 * The extension host over the env asked for. It and the envs are imported when a command starts it, not when
 * the program starts, so `--help` stays fast.
 */
export const startExtensionHost: DevHostFactory = async ({
	env,
	confine,
	confineReads,
	limits,
	connected,
	wrapEnv,
	...options
}) => {
	const { createExtensionHost } = await import("../extensions/node-host.js");
	const policy = confine || confineReads ? { policy: cwdPolicy(options.cwd, confineReads, limits) } : {};
	let executionEnv: ExecutionEnv;
	if (connected) {
		executionEnv = connected;
	} else if (env === "memory") {
		const { MemoryExecutionEnv } = await import("../env/memory.js");
		executionEnv = new MemoryExecutionEnv({ cwd: options.cwd, ...policy });
	} else {
		const { NodeExecutionEnv } = await import("../env/node.js");
		executionEnv = new NodeExecutionEnv({ cwd: options.cwd, ...policy });
	}
	if (wrapEnv) executionEnv = wrapEnv(executionEnv);
	// The dev loop owns its process: an extension's stray error or `process.exit` is a diagnostic (or
	// an error result), not the end of it.
	return createExtensionHost({ ...options, env: executionEnv, catchStrayErrors: true, refuseProcessExit: true });
};

/** The path policy of `--confine` (and `--confine-reads`): `cwd` the only root, with `--limit`'s limits. */
export function cwdPolicy(cwd: string, confineReads = false, limits?: SandboxLimits): PathPolicy {
	return { read: [cwd], ...(confineReads ? { confineReads: true } : {}), ...(limits ? { limits } : {}) };
}

/** `--limit`, which `dev`, `inspect` and `mcp` share. */
export const limitOption = {
	limit: {
		type: "string",
		valueName: "name=value",
		multiple: true,
		description:
			"With --confine, a limit of the shell sandbox: processes=N, memory=SIZE, tmp=SIZE (SIZE: 512M, 2G, …; none lifts it)",
	},
} as const;

const UNITS: Readonly<Record<string, number>> = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };
const LIMIT_NAMES = { processes: "processes", memory: "memoryBytes", tmp: "tmpBytes" } as const;

/**
 * `--limit` values as the policy's limits: undefined when none is given; a usage error for a
 * malformed one, or for limits without a sandbox to hold them (no `--confine`, or over SSH).
 */
export function sandboxLimits(
	values: readonly string[],
	confined: boolean,
	remote: boolean,
): SandboxLimits | undefined {
	if (values.length === 0) return undefined;
	if (!confined) throw new UsageError("--limit limits the shell sandbox of --confine: give --confine too");
	if (remote)
		throw new UsageError("--limit limits the local shell sandbox: over --ssh there is none (commands are refused)");
	const limits: { -readonly [K in keyof SandboxLimits]: number } = {};
	for (const value of values) {
		const match = /^([a-z]+)=(.*)$/.exec(value.trim());
		const name = match?.[1] as keyof typeof LIMIT_NAMES | undefined;
		if (!match || !name || !(name in LIMIT_NAMES)) {
			throw new UsageError(`--limit takes processes=N, memory=SIZE or tmp=SIZE, not ${JSON.stringify(value)}`);
		}
		const text = (match[2] ?? "").trim().toLowerCase();
		let amount: number;
		if (text === "none") amount = Number.POSITIVE_INFINITY;
		else if (name === "processes") {
			amount = /^\d{1,9}$/.test(text) ? Number(text) : Number.NaN;
		} else {
			const size = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/.exec(text);
			amount = size ? Math.floor(Number(size[1]) * (UNITS[size[2] ?? ""] ?? Number.NaN)) : Number.NaN;
		}
		if (amount !== Number.POSITIVE_INFINITY && !Number.isSafeInteger(amount)) amount = Number.NaN;
		if (Number.isNaN(amount)) {
			const what = name === "processes" ? "a whole number" : "a size such as 512M or 2G";
			throw new UsageError(`--limit ${name} takes ${what}, or none, not ${JSON.stringify(match[2])}`);
		}
		const least = LIMIT_MINIMUMS[LIMIT_NAMES[name]];
		if (amount < least) {
			const shown = name === "processes" ? String(least) : formatBytes(least);
			throw new UsageError(
				`--limit ${name} must be at least ${shown} (the sandbox needs that to start a shell), not ${match[2]}`,
			);
		}
		limits[LIMIT_NAMES[name]] = amount;
	}
	return limits;
}

/**
 * Whether the host may watch `paths` when the tools are confined to `cwd` on this machine. An
 * extension under the working folder is code a confined tool can rewrite (or add to, in a
 * watched folder), which a reload would import into the host, unconfined: there watching is off
 * unless `--watch` was given, and either way the user is told. Paths are compared canonically.
 */
export function confinedWatch(
	paths: readonly string[],
	cwd: string,
	options: { readonly confined: boolean; readonly watch: boolean; readonly watchGiven: boolean },
): { readonly watch: boolean; readonly warning?: string } {
	if (!options.confined || !options.watch) return { watch: options.watch };
	const canonical = (path: string) => {
		try {
			return realpathSync(path);
		} catch {
			return resolve(path);
		}
	};
	const root = canonical(cwd);
	const exposed = paths.find((path) => {
		const real = canonical(path);
		return real === root || real.startsWith(root === "/" ? "/" : `${root}/`);
	});
	if (exposed === undefined) return { watch: true };
	const shown = displayPath(exposed, cwd);
	if (options.watchGiven) {
		return {
			watch: true,
			warning: `watching ${shown} inside the working folder under confinement: a confined tool can change code this host imports and runs unconfined`,
		};
	}
	return {
		watch: false,
		warning: `not watching ${shown}: it lies in the working folder, where the confined tools can write, and a reload would run what they wrote in this process, unconfined. Keep the extensions outside the working folder, or pass --watch to reload them anyway`,
	};
}

/** What the header says of the confinement: ` (confined)`, ` (confined, reads too)` or nothing. */
export function confinedLabel(confine: boolean | undefined, confineReads: boolean | undefined): string {
	return confineReads ? " (confined, reads too)" : confine ? " (confined)" : "";
}

/**
 * Where the header says tools run: `node env (confined) · cwd src`, or over SSH
 * `ssh env · tools run on me@host:/srv/app`.
 */
export function whereToolsRun(
	remote: Pick<SshExecutionEnv, "destination" | "cwd"> | undefined,
	options: { readonly env: string; readonly confine: boolean; readonly "confine-reads": boolean },
	cwd: string,
	shownFrom: string,
): string {
	const confined = confinedLabel(options.confine, options["confine-reads"]);
	if (!remote) return `${options.env} env${confined} · cwd ${displayPath(cwd, shownFrom)}`;
	// No sandbox runs on the remote side: a confined SSH env refuses commands.
	return `ssh env${confined ? SSH_CONFINED : ""} · tools run on ${sshWhere(remote)}`;
}

/** The `--load-timeout` option `dev`, `inspect` and `mcp` share. */
export const loadTimeoutOption = {
	"load-timeout": {
		type: "string",
		valueName: "ms",
		description: "Time each extension's module and default export may take to load (default 10000)",
	},
} as const;

/** `--load-timeout` as given, as the host's `loadTimeoutMs` (nothing when it was not given). */
export function loadTimeout(text: string | undefined): { loadTimeoutMs?: number } {
	if (text === undefined) return {};
	const ms = /^\d{1,9}$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
	if (!Number.isInteger(ms) || ms < 1) {
		throw new UsageError(`--load-timeout takes a number of milliseconds (at least 1), not ${JSON.stringify(text)}`);
	}
	return { loadTimeoutMs: ms };
}

/** The options that say which host `dev` and `inspect` start: the env, its folder, watching, confinement, the load time limit, the SSH target. */
export const hostOptions = {
	env: {
		type: "string",
		choices: ["node", "memory"],
		default: "node",
		description: "Run tools on the real disk and shell, or in an empty in-memory env",
	},
	cwd: { type: "string", valueName: "dir", description: "Working folder the tools see (default: the current one)" },
	watch: { type: "boolean", default: true, description: "Reload extensions when their files change" },
	confine: {
		type: "boolean",
		default: false,
		description: "Confine tools to the working folder: files outside it refused, bash in an OS sandbox",
	},
	"confine-reads": {
		type: "boolean",
		default: false,
		description: "Confine bash's reads too: it sees only the working folder and the system folders (implies --confine)",
	},
	...limitOption,
	...loadTimeoutOption,
	...sshOptions,
} as const;

/**
 * `--ssh` of `dev` and `inspect`: the SSH env, connected before any extension loads and confined
 * as `--confine` asks; undefined without `--ssh`. A usage error with `--env` or `--cwd` (the target
 * names the env and its folder).
 */
export async function connectRemoteEnv(
	options: SshOptionValues & { readonly confine: boolean; readonly "confine-reads": boolean },
	given: ReadonlySet<string>,
	io: Pick<CliIO, "cwd">,
): Promise<SshExecutionEnv | undefined> {
	const request = sshRequest(options, io, {
		env: given.has("env") && "the target names the env (it runs tools on that host)",
		cwd: given.has("cwd") && "give the remote folder in the target instead (host:/path)",
	});
	if (!request) return undefined;
	const confine = options.confine || options["confine-reads"];
	return connectSsh(request, confine ? sshConfinePolicy(options["confine-reads"]) : undefined);
}

/**
 * The host `dev` and `inspect` ask for, from their shared options: the extensions at `paths`, the
 * env `--env` names (or the one `--ssh` connected) working in `cwd`, confined as asked.
 */
export function devHostOptions(
	options: {
		readonly env: string;
		readonly watch: boolean;
		readonly confine: boolean;
		readonly "confine-reads": boolean;
		readonly limit: readonly string[];
	},
	paths: readonly string[],
	cwd: string,
	remote: ExecutionEnv | undefined,
	timeout: { readonly loadTimeoutMs?: number },
	log: ExtensionHostOptions["log"],
	watchGiven = false,
): DevHostOptions {
	const confined = options.confine || options["confine-reads"];
	const limits = sandboxLimits(options.limit, confined, remote !== undefined);
	// Files written in a memory env or on a remote host never reach the extensions here.
	const local = remote === undefined && options.env !== "memory";
	const watching = confinedWatch(paths, cwd, { confined: confined && local, watch: options.watch, watchGiven });
	if (watching.warning) log?.({ level: "warning", message: watching.warning });
	return {
		paths,
		env: options.env === "memory" ? "memory" : "node",
		cwd,
		watch: watching.watch,
		confine: options.confine,
		confineReads: options["confine-reads"],
		...(limits ? { limits } : {}),
		...(remote ? { connected: remote } : {}),
		...timeout,
		...(log ? { log } : {}),
	};
}
