/**
 * Running the packed create-toolsmith as `npm create` would: its tarball installed on its own (as
 * npm does into its exec cache) and its bin run. Each caller installs into its own folder, so test
 * files running at the same time never share a half-written install.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";

export interface Outcome {
	readonly code: number;
	readonly stdout: string;
	readonly stderr: string;
}

export const npmEnv: NodeJS.ProcessEnv = {
	...process.env,
	// The registry is reachable, but what the repository's own install fetched is in the cache.
	npm_config_prefer_offline: "true",
	npm_config_audit: "false",
	npm_config_fund: "false",
	npm_config_update_notifier: "false",
	NO_COLOR: "1",
	FORCE_COLOR: "0",
};

/** Run a program to its end; never rejects (a failure is in `code`). */
export function sh(
	command: string,
	args: readonly string[],
	cwd: string,
	input?: string,
	timeout = 240_000,
): Promise<Outcome> {
	return new Promise((done) => {
		const child = execFile(
			command,
			[...args],
			{ cwd, env: npmEnv, timeout, maxBuffer: 32 * 1024 * 1024 },
			(error, stdout, stderr) => {
				const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
				done({ code, stdout, stderr });
			},
		);
		if (input !== undefined) child.stdin?.end(input);
	});
}

export const show = (outcome: Outcome) => `exit ${outcome.code}\n${outcome.stdout}\n${outcome.stderr}`;

/** Install the create-toolsmith tarball under `work` and return its bin. */
export async function installCreate(tarball: string, work: string): Promise<string> {
	const prefix = join(work, ".create-toolsmith");
	const installed = await sh("npm", ["install", "--prefix", prefix, "--no-save", tarball], work);
	if (installed.code !== 0) throw new Error(`installing ${tarball} failed:\n${show(installed)}`);
	return join(prefix, "node_modules", ".bin", "create-toolsmith");
}
