/**
 * Runs the `toolsmith` CLI of the current sources as a real child process: the built `dist/cli.js`
 * when it is newer than everything it is built from, else `src/cli/main.ts` through jiti. Both are
 * the same code; the build starts in a tenth of the time (jiti resolves and evaluates some 120
 * source files on every start, seconds of CPU on a loaded two-core machine, and the CLI tests start
 * it a few hundred times). `TOOLSMITH_TEST_CLI=source` forces the sources.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildStaleness } from "../../setup/_package-build.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const jitiCli = join(dirname(createRequire(import.meta.url).resolve("jiti/package.json")), "lib", "jiti-cli.mjs");
export const cliEntry = join(root, "src/cli/main.ts");
export const repoRoot = root;

/** dist/cli.js when it is built from the sources as they are now, else undefined. */
function freshBuild(): string | undefined {
	if (process.env.TOOLSMITH_TEST_CLI === "source") return undefined;
	return buildStaleness(root) === undefined ? join(root, "dist/cli.js") : undefined;
}

/** The arguments to `node` that start the CLI, before the CLI's own. */
export const cliArgs: readonly string[] = ((built) => (built ? [built] : [jitiCli, cliEntry]))(freshBuild());

export interface CliRun {
	readonly code: number | null;
	readonly stdout: string;
	readonly stderr: string;
}

/** The CLI's environment: this process's, without colour settings, with `overrides` (`undefined` unsets). */
function cliEnv(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
	const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined };
	Object.assign(env, overrides);
	for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
	return env as NodeJS.ProcessEnv;
}

export function runCli(
	args: readonly string[],
	options: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {},
): Promise<CliRun> {
	const env = cliEnv(options.env);
	return new Promise((resolvePromise, reject) => {
		const child = spawn(process.execPath, [...cliArgs, ...args], {
			cwd: options.cwd ?? root,
			env,
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
	/**
	 * Resolves once stdout (from its start) matches; rejects after `timeoutMs`, or when the CLI
	 * exits first, with what was seen.
	 */
	waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
	/** Close stdin and wait for the exit. */
	end(): Promise<CliRun>;
	/** Send `signal` (SIGTERM by default) unless the CLI has exited, and resolve with its exit code. */
	kill(signal?: NodeJS.Signals): Promise<number | null>;
	/** Resolves with the exit code once the CLI has exited. */
	readonly exited: Promise<number | null>;
	stdout(): string;
	stderr(): string;
}

/** Start the CLI and keep its stdin open, for sessions that react to what it prints. */
export function startCli(
	args: readonly string[],
	options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): LiveCli {
	const child = spawn(process.execPath, [...cliArgs, ...args], {
		cwd: options.cwd ?? root,
		env: cliEnv(options.env),
		stdio: ["pipe", "pipe", "pipe"],
	});
	let stdout = "";
	let stderr = "";
	let ended = false;
	const waiters = new Set<() => void>();
	child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
		stdout += chunk;
		for (const waiter of [...waiters]) waiter();
	});
	child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
	const exited = new Promise<number | null>((resolvePromise) =>
		child.on("close", (code) => {
			ended = true;
			for (const waiter of [...waiters]) waiter();
			resolvePromise(code);
		}),
	);
	return {
		send: (line) => child.stdin.write(`${line}\n`),
		waitFor(pattern, timeoutMs = 30_000) {
			return new Promise((resolvePromise, reject) => {
				const settle = (error?: Error) => {
					waiters.delete(check);
					clearTimeout(timer);
					if (error) reject(error);
					else resolvePromise();
				};
				const seen = () => `stdout so far:\n${stdout}\nstderr:\n${stderr}`;
				const check = () => {
					if (pattern.test(stdout)) settle();
					else if (ended) settle(new Error(`the CLI exited before ${pattern}; ${seen()}`));
				};
				const timer = setTimeout(() => settle(new Error(`timed out waiting for ${pattern}; ${seen()}`)), timeoutMs);
				waiters.add(check);
				check();
			});
		},
		async end() {
			child.stdin.end();
			const code = await exited;
			return { code, stdout, stderr };
		},
		kill(signal = "SIGTERM") {
			if (child.exitCode === null && child.signalCode === null) child.kill(signal);
			return exited;
		},
		exited,
		stdout: () => stdout,
		stderr: () => stderr,
	};
}
