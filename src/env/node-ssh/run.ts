/**
 * A program on the remote host that lists paths (`rg`, `fd`) for the SSH env's search (Node
 * only): run in a session of its own over the connection, its NUL-separated stdout streamed back
 * and cut into paths as on this machine, with the home config pointed away as `listPaths` does.
 * An abort ends the local ssh; the remote side sees its stdin close and kills the program.
 */
import { spawn } from "node:child_process";
import { collectPaths, type ListedPaths, type PathProgram } from "../_node-process.js";
import { ensureMaster, masterLost, type SshConnection, sessionArgs } from "./connection.js";
import { shellQuote } from "./remote.js";

/**
 * Arguments: the folder ("" for none), then the program and its arguments. The program runs in
 * the background while a reader of the session's stdin waits: stdin closes when the local ssh
 * ends (an abort), and the reader then kills the program.
 */
const RUN_SCRIPT = `
d=$1; shift
if [ -n "$d" ]; then cd -- "$d" || exit 125; fi
HOME=/nonexistent-toolsmith-home; XDG_CONFIG_HOME=$HOME; export HOME XDG_CONFIG_HOME; unset RIPGREP_CONFIG_PATH
exec 3<&0
"$@" </dev/null 3<&- & p=$!
( while IFS= read -r _ <&3; do :; done; kill "$p" 2>/dev/null ) >/dev/null 2>&1 & w=$!
exec 3<&-
wait "$p"; s=$?
kill "$w" 2>/dev/null
exit "$s"
`;

/** `file` (an absolute path on the remote host) as a `PathProgram` run over `connection`. */
export function remoteProgram(connection: SshConnection, file: string): PathProgram {
	return { name: file, list: (args, options, onPath) => listRemotePaths(connection, file, args, options, onPath) };
}

async function listRemotePaths(
	connection: SshConnection,
	file: string,
	args: readonly string[],
	options: { readonly cwd?: string; readonly signal: AbortSignal | undefined },
	onPath: (path: string, utf8: boolean) => void,
): Promise<ListedPaths> {
	const { signal } = options;
	const aborted: ListedPaths = { ok: false, why: "aborted", message: "aborted" };
	if (signal?.aborted) return aborted;
	const failure = await ensureMaster(connection);
	if (failure) return { ok: false, why: "spawn", message: failure.message, osCode: "ECONNRESET" };
	if (signal?.aborted) return aborted;
	const command = ["sh", "-c", RUN_SCRIPT, "sh", options.cwd ?? "", file, ...args].map(shellQuote).join(" ");
	const ssh = sessionArgs(connection);
	const child = spawn(ssh[0] as string, [...ssh.slice(1), "--", command], { stdio: ["pipe", "pipe", "pipe"] });
	return collectPaths(child, signal, onPath, {
		failed: (error) => ({
			ok: false,
			why: "spawn",
			message: `could not run ssh: ${error.message}`,
			osCode: "ECONNRESET",
		}),
		// ssh's own failure (neither rg nor fd exits with 255): the session or the connection ended.
		closed: (code, stderr) => {
			if (code !== 255) return undefined;
			const why = stderr.trim().split("\n").pop() || "the session ended";
			return {
				ok: false,
				why: "spawn",
				message:
					masterLost(connection)?.message ?? `The session to ${connection.destination} running ${file} failed (${why})`,
				osCode: "ECONNRESET",
			};
		},
	});
}
