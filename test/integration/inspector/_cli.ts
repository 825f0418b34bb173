/**
 * `toolsmith inspect` / `toolsmith dev --ui` as a real child process, run from source: waits for the
 * page's address line and stops the process with a signal.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { cliEntry, repoRoot } from "../cli/_run.js";
import { jitiCli } from "../mcp/_cli-server.js";

export interface InspectProcess {
	readonly url: string;
	readonly port: number;
	readonly token: string;
	readonly child: ChildProcessWithoutNullStreams;
	stdout(): string;
	stderr(): string;
	/** Resolves when stdout has a line matching `pattern` (checked against what came so far too). */
	waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
	/** Resolves with the exit code once the process ended. */
	exited(): Promise<number | null>;
	/** Send `signal` (SIGTERM by default) and resolve with the exit code. */
	stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Start `toolsmith <args>` and wait for `inspector http://…` on stdout. */
export async function startInspectCli(
	args: readonly string[],
	options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<InspectProcess> {
	const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1", FORCE_COLOR: undefined };
	Object.assign(env, options.env);
	for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
	const child = spawn(process.execPath, [jitiCli, cliEntry, ...args], {
		cwd: options.cwd ?? repoRoot,
		env: env as NodeJS.ProcessEnv,
		stdio: ["pipe", "pipe", "pipe"],
	});
	let stdout = "";
	let stderr = "";
	const listeners = new Set<() => void>();
	child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
		stdout += chunk;
		for (const listener of [...listeners]) listener();
	});
	child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
	const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
	const waitForOutput = (pattern: RegExp, timeoutMs = 20_000) =>
		new Promise<string>((resolve, reject) => {
			const check = () => {
				const match = pattern.exec(stdout);
				if (!match) return false;
				listeners.delete(check);
				clearTimeout(timer);
				resolve(match[0]);
				return true;
			};
			const timer = setTimeout(() => {
				listeners.delete(check);
				reject(new Error(`no ${pattern} in time; stdout:\n${stdout}\nstderr:\n${stderr}`));
			}, timeoutMs);
			if (!check()) listeners.add(check);
			void exited.then(() => {
				if (listeners.has(check)) {
					listeners.delete(check);
					clearTimeout(timer);
					reject(new Error(`the process exited before ${pattern}; stdout:\n${stdout}\nstderr:\n${stderr}`));
				}
			});
		});
	const line = await waitForOutput(/inspector (http:\/\/\S+)/);
	const url = line.slice("inspector ".length);
	const parsed = new URL(url);
	return {
		url,
		port: Number(parsed.port),
		token: parsed.searchParams.get("token") ?? "",
		child,
		stdout: () => stdout,
		stderr: () => stderr,
		waitForOutput,
		exited: () => exited,
		async stop(signal = "SIGTERM") {
			if (child.exitCode === null && child.signalCode === null) child.kill(signal);
			return exited;
		},
	};
}
