/** Runs the `toolsmith` CLI from source (through jiti) as a real child process. */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const jitiCli = join(dirname(createRequire(import.meta.url).resolve("jiti/package.json")), "lib", "jiti-cli.mjs");
export const cliEntry = join(root, "src/cli/main.ts");
export const repoRoot = root;

export interface CliRun {
	readonly code: number | null;
	readonly stdout: string;
	readonly stderr: string;
}

export function runCli(
	args: readonly string[],
	options: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {},
): Promise<CliRun> {
	const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined };
	Object.assign(env, options.env);
	for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
	return new Promise((resolvePromise, reject) => {
		const child = spawn(process.execPath, [jitiCli, cliEntry, ...args], {
			cwd: options.cwd ?? root,
			env: env as NodeJS.ProcessEnv,
			stdio: ["pipe", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
		child.on("error", reject);
		child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
		child.stdin.end(options.input ?? "");
	});
}

export interface LiveCli {
	/** Send one line to the CLI's stdin. */
	send(line: string): void;
	/** Resolves once stdout (from its start) matches; rejects after `timeoutMs` with what was seen. */
	waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
	/** Close stdin and wait for the exit. */
	end(): Promise<CliRun>;
	stdout(): string;
}

/** Start the CLI and keep its stdin open, for sessions that react to what it prints. */
export function startCli(args: readonly string[], options: { cwd?: string } = {}): LiveCli {
	const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined };
	for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
	const child = spawn(process.execPath, [jitiCli, cliEntry, ...args], {
		cwd: options.cwd ?? root,
		env: env as NodeJS.ProcessEnv,
		stdio: ["pipe", "pipe", "pipe"],
	});
	let stdout = "";
	let stderr = "";
	const waiters = new Set<() => void>();
	child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
		stdout += chunk;
		for (const waiter of waiters) waiter();
	});
	child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
	const exited = new Promise<number | null>((resolvePromise) => child.on("close", resolvePromise));
	return {
		send: (line) => child.stdin.write(`${line}\n`),
		waitFor(pattern, timeoutMs = 30_000) {
			return new Promise((resolvePromise, reject) => {
				const check = () => {
					if (!pattern.test(stdout)) return;
					waiters.delete(check);
					clearTimeout(timer);
					resolvePromise();
				};
				const timer = setTimeout(() => {
					waiters.delete(check);
					reject(new Error(`timed out waiting for ${pattern}; stdout so far:\n${stdout}\nstderr:\n${stderr}`));
				}, timeoutMs);
				waiters.add(check);
				check();
			});
		},
		async end() {
			child.stdin.end();
			const code = await exited;
			return { code, stdout, stderr };
		},
		stdout: () => stdout,
	};
}
