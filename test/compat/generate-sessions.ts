/**
 * Has every installed reference release write a session over the scripted scenarios
 * (_session-scenarios.mjs) into a folder: a fresh one for `npm run compat`, or
 * test/fixtures/sessions/releases/ (`<version>.jsonl`), where
 * test/integration/harness/release-sessions.test.ts replays them in CI.
 *
 * Each release runs in a child process under the Node it needs (_session-driver.mjs), in a fixed
 * folder of the temp directory, so the sessions of two runs differ only in ids, times and the names
 * of the reference's own temp files.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compatDir, listReleases, type Release } from "./_releases.js";

export const sessionsDir = join(compatDir, "..", "fixtures", "sessions", "releases");

export interface GeneratedSession {
	readonly release: Release;
	/** The session file under test/fixtures, when the release wrote one. */
	readonly file?: string;
	/** How it was made: by the release's agent or by calling its tools directly. */
	readonly how?: string;
	readonly calls?: number;
	readonly error?: string;
}

/** Have one release write its session into `outDir` (as `<version>.jsonl`). */
export function generateSession(release: Release, outDir: string): GeneratedSession {
	if (!release.installed) return { release, error: "not installed (run npm run compat:setup)" };
	if (!release.node) return { release, error: "no Node here satisfies its engines (run npm run compat:setup)" };
	const root = join(tmpdir(), "toolsmith-pi-sessions", release.version);
	rmSync(root, { recursive: true, force: true });
	const config = {
		packageDir: release.packageDir,
		aiDir: release.aiDir,
		world: join(root, "world"),
		sessionDir: join(root, "sessions"),
	};
	const child = spawnSync(release.node, [join(compatDir, "_session-driver.mjs"), JSON.stringify(config)], {
		encoding: "utf8",
		timeout: 120_000,
		// The release's agent reads its settings from here, never from the user's home.
		env: { ...process.env, HOME: root, PI_CODING_AGENT_DIR: join(root, "agent") },
	});
	const last = child.stdout.trim().split("\n").at(-1) ?? "";
	if (child.status !== 0 || !last.startsWith("{")) {
		const why = (child.stderr || child.stdout || String(child.error ?? "")).trim().split("\n").slice(-6).join("\n");
		return { release, error: `the driver failed (status ${child.status}): ${why}` };
	}
	const made = JSON.parse(last) as { file?: string; how: string; calls: number };
	if (!made.file) return { release, error: "the release wrote no session file" };
	mkdirSync(outDir, { recursive: true });
	const file = join(outDir, `${release.version}.jsonl`);
	// Later releases put their system prompt (with the paths of their own docs) in the session:
	// those paths name this machine's install, so they are written as a global install's.
	const modules = join(release.packageDir, "..", release.packageDir.includes("/@") ? ".." : "");
	const text = readFileSync(made.file, "utf8")
		.split(JSON.stringify(modules).slice(1, -1))
		.join("/usr/lib/node_modules");
	if (text.includes(JSON.stringify(compatDir).slice(1, -1))) {
		return { release, error: "the session names a path of this checkout that could not be rewritten" };
	}
	writeFileSync(file, text);
	return { release, file, how: made.how, calls: made.calls };
}

export function generateSessions(outDir: string): GeneratedSession[] {
	return listReleases().map((release) => generateSession(release, outDir));
}
