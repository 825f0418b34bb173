/**
 * The search fast paths of SshExecutionEnv (Node only): `fd` and `rg` run on the remote host when
 * it has them, with the steps (flags, glob matching, sorting, the line matching of the files rg
 * lists) the Node env runs with its own; otherwise the walker goes through the env's own methods,
 * with the same result.
 */
import type {
	ExecutionEnv,
	FindFilesRequest,
	FindFilesResult,
	SearchTextRequest,
	SearchTextResult,
	SignalOptions,
} from "../../contract/env.js";
import type { FileError, Result } from "../../contract/result.js";
import { findThroughFd } from "../_node-find.js";
import { rgAgrees, searchThroughRg } from "../_node-grep.js";
import type { PathProgram } from "../_node-process.js";
import { findWithWalker } from "../find.js";
import { type SearchReader, searchWithWalker } from "../grep.js";
import { SshError } from "../ssh-types.js";
import { type AgentPool, request as agentRequest, remoteCaps } from "./agent.js";
import type { SshConnection } from "./connection.js";
import { remoteProgram } from "./run.js";

/** What a search takes from its env: the connection, the helpers, and whether binaries may run. */
export interface SshSearchContext {
	readonly connection: SshConnection | undefined;
	readonly pool: AgentPool | undefined;
	readonly enabled: boolean;
}

/** What `--version` must print for a program found by that name to be the one meant. */
const VERSIONS = { fd: /^fd(find)? \d/, rg: /^ripgrep \d/ } as const;

/** Per helper pool, per program path: whether it reports the right version. */
const checked = new WeakMap<AgentPool, Map<string, Promise<boolean>>>();

/** The remote `fd` or `rg` when the host has it (checked once per connection) and search may use it. */
async function remoteBinary(context: SshSearchContext, which: "fd" | "rg"): Promise<PathProgram | undefined> {
	const { connection, pool } = context;
	if (!context.enabled || !connection || !pool) return undefined;
	const caps = await remoteCaps(pool);
	if (caps instanceof SshError || caps[which] === "") return undefined;
	const file = caps[which];
	let known = checked.get(pool);
	if (!known) {
		known = new Map();
		checked.set(pool, known);
	}
	let verdict = known.get(file);
	if (!verdict) {
		// The helper runs it: a line on an open session, not a session of its own.
		const versions = known;
		verdict = agentRequest(pool, file, ["--version"]).then((reply) => {
			if (reply === "aborted" || reply.ok === "lost") {
				// Not an answer: this search walks, and the next one asks again.
				versions.delete(file);
				return false;
			}
			return reply.ok === true && VERSIONS[which].test(reply.data.toString("utf8"));
		});
		known.set(file, verdict);
	}
	return (await verdict) ? searchRemote.program(connection, file) : undefined;
}

/** Reads a file rg listed through the env (one helper request each), as many at once as it has helpers. */
function envReader(env: ExecutionEnv, pool: AgentPool | undefined, signal: AbortSignal | undefined): SearchReader {
	return {
		read: async (absolutePath) => {
			const bytes = await env.readBinaryFile(absolutePath, signal ? { signal } : {});
			return bytes.ok ? bytes.value : undefined;
		},
		parallel: Math.max(2, pool?.size ?? 4),
	};
}

export const searchRemote = {
	async find(
		env: ExecutionEnv,
		context: SshSearchContext,
		request: FindFilesRequest,
		options: SignalOptions,
	): Promise<Result<FindFilesResult, FileError>> {
		const fd = await remoteBinary(context, "fd");
		if (fd === undefined) return findWithWalker(env, request, options);
		return findThroughFd(env, fd, request, options);
	},
	async text(
		env: ExecutionEnv,
		context: SshSearchContext,
		request: SearchTextRequest,
		options: SignalOptions,
	): Promise<Result<SearchTextResult, FileError>> {
		const rg = rgAgrees(request) ? await remoteBinary(context, "rg") : undefined;
		if (rg === undefined) return searchWithWalker(env, request, options);
		return searchThroughRg(env, rg, request, options, () => envReader(env, context.pool, options.signal));
	},
	/** The remote program a search runs (the seam tests watch to see the fast path taken). */
	program(connection: SshConnection, file: string): PathProgram {
		return remoteProgram(connection, file);
	},
};
