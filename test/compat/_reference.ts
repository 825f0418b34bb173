/**
 * The reference releases `npm run compat:setup` installed under test/compat/.cache, and loading
 * extensions with one of them in a child process (under Node 22 when the release needs it).
 */

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import semver from "semver";
import type { ToolNamespace } from "../../src/contract/tool.js";

const here = dirname(fileURLToPath(import.meta.url));
export const cacheDir = join(here, ".cache");
export const node22 = join(cacheDir, "node22", "node_modules", ".bin", "node");

/** One installed release: `@scope/pi-coding-agent@version`, its package folder and its `engines.node`. */
export interface Release {
	readonly scope: "@mariozechner" | "@earendil-works";
	readonly version: string;
	readonly dir: string;
	readonly nodeRange: string | undefined;
}

/** The releases installed in the cache, oldest first. */
export function installedReleases(): Release[] {
	const root = join(cacheDir, "releases");
	if (!existsSync(root)) return [];
	const out: Release[] = [];
	for (const folder of readdirSync(root)) {
		const match = /^(@mariozechner|@earendil-works)\+pi-coding-agent@(.+)$/.exec(folder);
		if (!match) continue;
		const scope = match[1] as Release["scope"];
		const dir = join(root, folder, "node_modules", scope, "pi-coding-agent");
		const manifest = join(dir, "package.json");
		if (!existsSync(manifest)) continue;
		const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { engines?: { node?: string } };
		out.push({ scope, version: match[2] as string, dir, nodeRange: pkg.engines?.node });
	}
	return out.sort((a, b) => semver.compare(a.version, b.version));
}

/** The release `@scope/pi-coding-agent@version`, when installed. */
export function findRelease(scope: Release["scope"], version: string): Release | undefined {
	return installedReleases().find((release) => release.scope === scope && release.version === version);
}

/** The Node that can run `release`: this one when its `engines.node` allows it, else Node 22 from the cache. */
export function nodeFor(release: Release): string {
	if (!release.nodeRange || semver.satisfies(process.versions.node, release.nodeRange)) return process.execPath;
	return node22;
}

/** What the reference's loader registered: the tools and commands of each extension, and its load errors. */
export interface ReferenceLoad {
	readonly extensions: { readonly path: string; readonly tools: string[]; readonly commands: string[] }[];
	readonly errors: { readonly path: string; readonly error: string }[];
	/** The MCP servers the extensions registered (releases without them: empty). */
	readonly mcpServers?: { readonly name: string; readonly config: unknown; readonly extensionPath: string }[];
	/** Per probe tool name (`TOOLSMITH_REFERENCE_RENDER_PROBES`), the lines its call is drawn with. */
	readonly renderedCalls?: Record<string, string[] | null>;
}

/**
 * Run `script` (a plain .mjs file in this folder taking `<release> <result file> <cwd> <paths…>`)
 * under the Node that runs `release`, with an empty home, and parse the JSON it wrote. Rejects when
 * the script could not run, reported `{ failed }`, or did not answer in time.
 */
async function runReferenceScript<T>(
	script: string,
	release: Release,
	paths: readonly string[],
	cwd: string,
	timeoutMs: number,
	env: Readonly<Record<string, string>> = {},
): Promise<T> {
	const work = mkdtempSync(join(tmpdir(), "toolsmith-reference-"));
	const resultFile = join(work, "result.json");
	try {
		const node = nodeFor(release);
		const output = await new Promise<string>((resolve, reject) => {
			const child = spawn(node, [join(here, script), release.dir, resultFile, cwd, ...paths], {
				cwd,
				env: { ...process.env, ...env, HOME: work },
				stdio: ["ignore", "pipe", "pipe"],
			});
			let stderr = "";
			child.stderr.on("data", (chunk: Buffer) => {
				stderr = (stderr + chunk.toString()).slice(-4000);
			});
			child.stdout.resume();
			const timer = setTimeout(() => {
				child.kill("SIGKILL");
				reject(new Error(`${script} did not answer within ${timeoutMs} ms`));
			}, timeoutMs);
			child.on("error", (error) => {
				clearTimeout(timer);
				reject(error);
			});
			child.on("close", (code) => {
				clearTimeout(timer);
				if (!existsSync(resultFile)) reject(new Error(`${script} exited ${code}: ${stderr.trim()}`));
				else resolve(readFileSync(resultFile, "utf8"));
			});
		});
		const parsed = JSON.parse(output) as T | { failed: string };
		if (typeof parsed === "object" && parsed !== null && "failed" in parsed) throw new Error(parsed.failed);
		return parsed as T;
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}

/**
 * Load `paths` (working in `cwd`) with `release`'s `discoverAndLoadExtensions`, in a child process
 * with an empty agent folder. Rejects when the loader could not run or did not answer in time.
 */
export function referenceLoad(
	release: Release,
	paths: readonly string[],
	cwd: string,
	timeoutMs = 120_000,
	env: Readonly<Record<string, string>> = {},
): Promise<ReferenceLoad> {
	return runReferenceScript<ReferenceLoad>("_reference-load.mjs", release, paths, cwd, timeoutMs, env);
}

/** How a pi 1.x session exposes its tools (see `_reference-session.mjs`). */
export interface ReferenceSession {
	readonly tools: {
		readonly name: string;
		readonly exposure: string;
		readonly namespace?: ToolNamespace;
		readonly annotations?: Record<string, boolean>;
		readonly promptGuidelines?: string[];
		readonly reachesTools: boolean;
	}[];
	readonly active: string[];
	readonly callable: string[];
	readonly declared: { readonly name: string; readonly description: string }[];
	readonly calls: {
		readonly name: string;
		readonly content?: unknown;
		readonly details?: unknown;
		readonly structuredContent?: unknown;
		readonly error?: string;
	}[];
	readonly errors: { readonly path: string; readonly error: string }[];
	/** With `turn`: what the agent's turn did. */
	readonly turn?: {
		/** The `tool_execution_*` events, nested calls' included (`parentToolCallId` set on theirs). */
		readonly events: {
			readonly type: string;
			readonly toolCallId: string;
			readonly toolName: string;
			readonly parentToolCallId?: string;
			readonly isError?: boolean;
			readonly durationMs?: number;
			readonly args?: unknown;
			readonly result?: unknown;
		}[];
		/** The turn's tool result messages as the agent keeps them. */
		readonly results: Record<string, unknown>[];
	};
	/** Per `render` probe, the lines of its call and of its result (null where nothing draws it). */
	readonly rendered: { readonly name: string; readonly call: string[] | null; readonly result: string[] | null }[];
}

/** What else `referenceSession` does: a turn of the agent, and renderers to draw. */
export interface ReferenceSessionOptions {
	/** The tool calls pi-ai's scripted model makes in one turn of the session's agent. */
	readonly turn?: readonly { readonly id: string; readonly name: string; readonly args: unknown }[];
	/** Tool calls (and results) to draw with the renderers the session chooses, at `width` columns. */
	readonly render?: readonly {
		readonly name: string;
		readonly args: unknown;
		readonly result?: unknown;
		readonly width: number;
	}[];
	readonly timeoutMs?: number;
}

/**
 * Open an in-memory session of a pi 1.x `release` with the extensions at `paths` (working in
 * `cwd`), in a child process, run `calls` through its tools (and `options.turn` through its agent),
 * draw `options.render`, and report how it exposes its tools.
 */
export function referenceSession(
	release: Release,
	paths: readonly string[],
	cwd: string,
	calls: readonly { readonly name: string; readonly args: unknown }[] = [],
	options: ReferenceSessionOptions = {},
): Promise<ReferenceSession> {
	return runReferenceScript<ReferenceSession>(
		"_reference-session.mjs",
		release,
		paths,
		cwd,
		options.timeoutMs ?? 120_000,
		{
			PI_REFERENCE_CALLS: JSON.stringify(calls),
			...(options.turn ? { PI_REFERENCE_TURN: JSON.stringify(options.turn) } : {}),
			PI_REFERENCE_RENDER: JSON.stringify(options.render ?? []),
		},
	);
}
