/**
 * `--ssh <target>` (with `--ssh-config` and `--ssh-option`), the options `dev`, `inspect` and `mcp`
 * share to run tools on another machine: the target checked (a malformed one is a usage error),
 * the SSH env connected before any extension loads (an unreachable host, an unknown host key, a
 * missing folder fail the command at once, saying what to do), and how the header names where tools
 * run. Extensions still load from this machine; only the tools' env is remote. The SSH env is
 * imported when a command connects, so `--help` stays fast.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../command/args.js";
import { CommandError } from "../command/node-command.js";
import type { CliIO } from "../command/node-io.js";
import type { PathPolicy } from "../contract/env.js";
import type { SshExecutionEnv } from "../env/node-ssh.js";
import { parseSshTarget, type SshTarget } from "../env/ssh-target.js";

/** The options that run tools over SSH. */
export const sshOptions = {
	ssh: {
		type: "string",
		valueName: "target",
		description:
			"Run the tools on another machine over SSH: user@host:/path, host:relative/path or ssh://user@host:port/path (extensions still load from this machine)",
	},
	"ssh-config": {
		type: "string",
		valueName: "file",
		description: "With --ssh: the ssh config file to use (ssh -F; default: ~/.ssh/config)",
	},
	"ssh-option": {
		type: "string",
		valueName: "Key=Value",
		multiple: true,
		commas: false,
		description: "With --ssh: an ssh option (ssh -o Key=Value), e.g. ProxyJump=bastion",
	},
} as const;

/** Lines for a command's `--help` on what `--ssh` changes. */
export const SSH_HELP = [
	"--ssh runs the tools on another machine: their ctx.env reads, writes and runs commands there",
	"over one multiplexed OpenSSH connection (your ssh config, agent and known hosts apply), while",
	"the extensions themselves still load, and hot-reload, from this machine. The folder in the",
	"target is where they work (default: the remote home). Confined (--confine), file paths are",
	"checked on the remote host, and commands (bash) are refused: no sandbox runs there. A host that",
	"cannot be reached, an unknown host key or a missing folder ends the command before anything",
	"loads (exit code 1). See docs/env.md#ssh.",
];

/** What `--ssh` and its companions asked for, checked. */
export interface SshRequest {
	/** The target as written, for messages. */
	readonly text: string;
	readonly target: SshTarget;
	/** `--ssh-config`, absolute. */
	readonly configFile?: string;
	/** `--ssh-option`s by key. */
	readonly sshOptions?: Readonly<Record<string, string>>;
}

/** The SSH options as parsed by the command framework. */
export interface SshOptionValues {
	readonly ssh?: string | undefined;
	readonly "ssh-config"?: string | undefined;
	readonly "ssh-option": readonly string[];
}

/**
 * `--ssh` and its companions checked: undefined without `--ssh`; a `UsageError` for a malformed
 * target or option, a companion without `--ssh`, or an option `--ssh` cannot go with (`conflicts`
 * names each given one with the reason).
 */
export function sshRequest(
	options: SshOptionValues,
	io: Pick<CliIO, "cwd">,
	conflicts: Readonly<Record<string, string | false | undefined>> = {},
): SshRequest | undefined {
	if (options.ssh === undefined) {
		if (options["ssh-config"] !== undefined) throw new UsageError("--ssh-config applies to --ssh only");
		if (options["ssh-option"].length > 0) throw new UsageError("--ssh-option applies to --ssh only");
		return undefined;
	}
	for (const [option, reason] of Object.entries(conflicts)) {
		if (reason) throw new UsageError(`--ssh cannot go with --${option}: ${reason}`);
	}
	const parsed = parseSshTarget(options.ssh);
	if (!parsed.ok) throw new UsageError(`--ssh: ${parsed.error}`);
	const extra: Record<string, string> = {};
	for (const option of options["ssh-option"]) {
		const match = /^([A-Za-z][A-Za-z0-9]*)\s*=\s*(.*)$/.exec(option.trim());
		if (!match?.[1] || match[2] === undefined || match[2] === "") {
			throw new UsageError(
				`--ssh-option takes Key=Value, as ssh -o does (e.g. ProxyJump=bastion), not ${JSON.stringify(option)}`,
			);
		}
		extra[match[1]] = match[2];
	}
	const configFile = options["ssh-config"] !== undefined ? resolve(io.cwd, options["ssh-config"]) : undefined;
	return {
		text: options.ssh,
		target: parsed.value,
		...(configFile !== undefined ? { configFile } : {}),
		...(Object.keys(extra).length > 0 ? { sshOptions: extra } : {}),
	};
}

/**
 * The SSH env `request` asks for, connected, its folder resolved and checked, with `policy` when
 * given (checked on canonical remote paths; there is no remote sandbox, so `exec` is refused or
 * warned about as the policy's `withoutSandbox` says). A `CommandError` (exit 1) saying what went
 * wrong and what to do when it cannot connect; a `UsageError` when ssh refuses an option.
 */
export async function connectSsh(request: SshRequest, policy?: PathPolicy): Promise<SshExecutionEnv> {
	if (request.configFile !== undefined && !existsSync(request.configFile)) {
		throw new CommandError(`--ssh-config ${request.configFile}: no such file`);
	}
	const { connectSshEnv } = await import("../env/node-ssh.js");
	const connected = await connectSshEnv(request.target, {
		...(request.configFile !== undefined ? { configFile: request.configFile } : {}),
		...(request.sshOptions ? { sshOptions: request.sshOptions } : {}),
		...(policy ? { policy } : {}),
	});
	if (connected.ok) return connected.value;
	const { error } = connected;
	const message = `could not run tools on ${request.text}: ${error.message.replace(/\s*\n\s*/g, " ").trim()}`;
	if (error.code === "invalid_argument") throw new UsageError(message);
	throw new CommandError(message);
}

/** What headers add when `--confine` goes with `--ssh`: paths are checked remotely, commands refused. */
export const SSH_CONFINED = " (confined: commands refused, no remote sandbox)";

/** Where the tools of `env` run, for headers: `user@host:/path`. */
export function sshWhere(env: Pick<SshExecutionEnv, "destination" | "cwd">): string {
	return `${env.destination}:${env.cwd}`;
}

/** The policy of `--confine` over SSH: the remote folder the only root (relative roots resolve against it). */
export function sshConfinePolicy(confineReads: boolean | undefined): PathPolicy {
	return { read: ["."], ...(confineReads ? { confineReads: true } : {}) };
}
