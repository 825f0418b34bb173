/** The `bash` tool: run a shell command, stream its output, keep the tail. */

import { type Static, Type } from "@sinclair/typebox";
import type { ExecutionEnv } from "../contract/env.js";
import { describeValue } from "../contract/errors.js";
import type { Theme } from "../contract/render.js";
import { defineTool, type ToolDefinition } from "../contract/tool.js";
import { throwIfAborted } from "./_paths.js";
import { argText, field, previewLines, resultText, titleLine } from "./_render.js";
import { OutputTail } from "./output-tail.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, type TruncationResult } from "./truncate.js";

/** The TypeBox schema of the `bash` tool's arguments: `command`, and an optional `timeout` in seconds. */
export const bashToolParameters = Type.Object({
	command: Type.String({ description: "The bash command to run" }),
	timeout: Type.Optional(Type.Number({ description: "Seconds before the command is killed (no timeout by default)" })),
});

/** The arguments of a `bash` call. */
export type BashToolParams = Static<typeof bashToolParameters>;

/** The `details` of a `bash` result: exit code, duration, truncation, and the file holding the full output. */
export interface BashToolDetails {
	/** The exit code; undefined in partial updates (the command is still running). */
	readonly exitCode: number | undefined;
	/** Milliseconds since the command started. */
	readonly durationMs: number;
	/** Set when output was cut to the tail. */
	readonly truncation?: TruncationResult;
	/** The file (in the env) holding the complete output, when it was cut. */
	readonly fullOutputPath?: string;
	/** Set when the spill file holds less than the whole output: why (`full output incomplete: …` or `full output truncated at …`). */
	readonly fullOutputIncomplete?: string;
	/**
	 * Set when terminal escape sequences or control characters (other than tab, newline and
	 * carriage return) were removed from the returned text: how many of each. The spill file keeps them.
	 */
	readonly stripped?: { readonly escapeSequences: number; readonly controlCharacters: number };
}

/** Options for `createBashTool`: output budgets, a command prefix, how often updates are sent, and the spill file's name prefix. */
export interface BashToolOptions {
	/** Line budget of the returned tail. Default `DEFAULT_MAX_LINES` (2000). */
	readonly maxLines?: number;
	/** Byte budget of the returned tail. Default `DEFAULT_MAX_BYTES` (50 KB). */
	readonly maxBytes?: number;
	/** Run before every command, on its own line (for example `shopt -s expand_aliases`). */
	readonly commandPrefix?: string;
	/** Minimum milliseconds between partial updates. Default 100 (at most 10 a second). */
	readonly updateIntervalMs?: number;
	/** Name prefix of the spill files. Default `toolsmith-bash-`. */
	readonly tempFilePrefix?: string;
	/**
	 * Most bytes one spill file receives; past it writing stops and the result says
	 * `full output truncated at N`. Default `DEFAULT_MAX_SPILL_BYTES` (100 MB).
	 */
	readonly maxSpillBytes?: number;
	/**
	 * When a command spills, older spill files of this tool (same folder, same prefix, `.log`) not
	 * changed for this many milliseconds are deleted. Default `DEFAULT_SPILL_MAX_AGE_MS` (24 hours);
	 * `Infinity` keeps them.
	 */
	readonly spillMaxAgeMs?: number;
	/**
	 * When a command spills, older spill files of this tool beyond this many bytes in all (newest
	 * kept first) are deleted too, so spill files never fill the disk. Default
	 * `DEFAULT_MAX_SPILL_TOTAL_BYTES` (1 GB); `Infinity` keeps them.
	 */
	readonly maxSpillTotalBytes?: number;
}

/** Default cap on one bash spill file: 100 MB. */
export const DEFAULT_MAX_SPILL_BYTES = 100 * 1024 * 1024;
/** Default age past which old bash spill files are deleted when a command spills: 24 hours. */
export const DEFAULT_SPILL_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** Default cap on the older bash spill files kept, all together, when a command spills: 1 GB. */
export const DEFAULT_MAX_SPILL_TOTAL_BYTES = 1024 * 1024 * 1024;

/**
 * The `bash` tool. Runs the command through `ctx.env.exec` in `ctx.cwd`, streams the current tail
 * through `onUpdate`, and keeps memory bounded: only the tail stays in memory, and output beyond
 * the budget is streamed into a temp file of the env, named in the result.
 */
export function createBashTool(
	options: BashToolOptions = {},
): ToolDefinition<typeof bashToolParameters, BashToolDetails, "bash"> {
	const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
	const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
	const interval = options.updateIntervalMs ?? 100;
	const tempPrefix = options.tempFilePrefix ?? "toolsmith-bash-";
	const maxSpillBytes = options.maxSpillBytes ?? DEFAULT_MAX_SPILL_BYTES;
	const maxAgeMs = options.spillMaxAgeMs ?? DEFAULT_SPILL_MAX_AGE_MS;
	const maxTotal = options.maxSpillTotalBytes ?? DEFAULT_MAX_SPILL_TOTAL_BYTES;
	const sweep =
		maxAgeMs === Number.POSITIVE_INFINITY && maxTotal === Number.POSITIVE_INFINITY
			? undefined
			: (env: ExecutionEnv, created: string) => removeOldSpills(env, created, tempPrefix, maxAgeMs, maxTotal);
	return defineTool({
		name: "bash",
		label: "bash",
		annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
		description: `Run a bash command in the working folder and return its combined stdout and stderr. Only the end of the output is returned: the last ${maxLines} lines or ${formatSize(maxBytes)}, whichever is smaller; when output is cut, the complete output is saved to a temp file whose path is given, so you can read or grep it. There is no timeout unless you pass one (timeout, in seconds); pass one for commands that might hang. A non-zero exit code is reported as an error together with the output.`,
		promptSnippet: "Run shell commands (ls, grep, find, tests, builds…)",
		promptGuidelines: ["Give bash a timeout for commands that might not finish on their own (servers, watchers)."],
		parameters: bashToolParameters,
		async execute(_toolCallId, { command, timeout }, signal, onUpdate, ctx) {
			throwIfAborted(signal);
			// Checked before anything runs, so a bad timeout costs the model nothing but a retry.
			const seconds = timeoutSeconds(timeout);
			const started = Date.now();
			const env = ctx.env;
			const output = new OutputTail(
				env,
				maxLines,
				maxBytes,
				tempPrefix,
				maxSpillBytes,
				sweep && ((created) => sweep(env, created)),
			);
			let timer: ReturnType<typeof setTimeout> | undefined;
			let dirty = false;
			let lastUpdate = 0;
			const emit = () => {
				timer = undefined;
				if (!onUpdate || !dirty) return;
				dirty = false;
				lastUpdate = Date.now();
				const snapshot = output.snapshot(false);
				const path = output.pathIfKnown();
				onUpdate({
					content: [{ type: "text", text: snapshot.content }],
					details: {
						exitCode: undefined,
						durationMs: lastUpdate - started,
						...(snapshot.truncation.truncated ? { truncation: snapshot.truncation } : {}),
						...(path !== undefined ? { fullOutputPath: path } : {}),
						...(snapshot.stripped ? { stripped: snapshot.stripped } : {}),
					},
				});
			};
			// Returns a promise while the spill file lags far behind: the env then stops reading, the
			// command blocks on its full pipe, and memory stays bounded however fast it prints.
			const onChunk = (chunk: Uint8Array): Promise<void> | undefined => {
				output.append(chunk);
				if (onUpdate) {
					dirty = true;
					if (timer === undefined) timer = setTimeout(emit, Math.max(0, interval - (Date.now() - lastUpdate)));
				}
				return output.backlog();
			};
			const script = options.commandPrefix ? `${options.commandPrefix}\n${command}` : command;
			let result: Awaited<ReturnType<typeof ctx.env.exec>>;
			try {
				result = await ctx.env.exec(script, {
					cwd: ctx.cwd,
					...(seconds !== undefined ? { timeout: seconds } : {}),
					...(signal ? { signal } : {}),
					onStdout: onChunk,
					onStderr: onChunk,
				});
			} finally {
				if (timer !== undefined) clearTimeout(timer);
				timer = undefined;
			}
			const closing = output.close();
			if (closing) await closing;
			const durationMs = Date.now() - started;
			const snapshot = output.snapshot(true);
			const spill = output.spilled ? await output.fullOutput() : undefined;
			const fullOutputPath = spill?.path;
			const truncation = snapshot.truncation;
			const incomplete =
				spill?.path === undefined
					? undefined
					: spill.error !== undefined
						? `full output incomplete: the file holds the first ${formatSize(spill.savedBytes)} of ${formatSize(truncation.totalBytes)}, writing it failed: ${spill.error}`
						: spill.capped
							? `full output truncated at ${formatSize(maxSpillBytes)}`
							: undefined;
			const format = (empty: string): string => {
				let text = snapshot.content || empty;
				if (!truncation.truncated) return text;
				const where =
					fullOutputPath === undefined
						? `(not saved: ${spill?.error ?? "unknown error"})`
						: incomplete
							? `${fullOutputPath} (${incomplete})`
							: fullOutputPath;
				const endLine = truncation.totalLines;
				const startLine = endLine - truncation.outputLines + 1;
				if (truncation.lastLinePartial) {
					text += `\n\n[Showing last ${formatSize(truncation.outputBytes)} of line ${endLine} (line is ${formatSize(output.lastLineSize)}). Full output: ${where}]`;
				} else if (truncation.truncatedBy === "lines") {
					text += `\n\n[Showing lines ${startLine}-${endLine} of ${truncation.totalLines}. Full output: ${where}]`;
				} else {
					text += `\n\n[Showing lines ${startLine}-${endLine} of ${truncation.totalLines} (${formatSize(maxBytes)} limit). Full output: ${where}]`;
				}
				return text;
			};
			const withStatus = (text: string, status: string) => `${text ? `${text}\n\n` : ""}${status}`;
			if (!result.ok) {
				const error = result.error;
				if (error.code === "timeout")
					throw new Error(withStatus(format(""), `Command timed out after ${seconds} seconds`));
				if (error.code === "aborted") throw new Error(withStatus(format(""), "Command aborted"));
				throw new Error(withStatus(format(""), `Could not run the command: ${error.message}`));
			}
			const text = format("(no output)");
			const exitCode = result.value.exitCode;
			if (exitCode !== 0) throw new Error(withStatus(text, `Command exited with code ${exitCode}`));
			return {
				content: [{ type: "text", text }],
				details: {
					exitCode,
					durationMs,
					...(truncation.truncated ? { truncation } : {}),
					...(truncation.truncated && fullOutputPath !== undefined ? { fullOutputPath } : {}),
					...(truncation.truncated && incomplete !== undefined ? { fullOutputIncomplete: incomplete } : {}),
					...(snapshot.stripped ? { stripped: snapshot.stripped } : {}),
				},
			};
		},
		renderCall(args, theme: Theme) {
			const command = field(args, "command");
			const timeout = field(args, "timeout");
			const suffix = typeof timeout === "number" ? theme.fg("muted", ` (timeout ${timeout}s)`) : "";
			return titleLine(theme, "$", `${argText(theme, command)}${suffix}`);
		},
		renderResult(result, options, theme, context) {
			const lines = previewLines(theme, resultText(result).trimEnd(), {
				expanded: options.expanded,
				maxLines: 5,
				fromEnd: true,
			});
			const details = result?.details as Partial<BashToolDetails> | undefined;
			const durationMs = details && typeof details.durationMs === "number" ? details.durationMs : undefined;
			if (durationMs !== undefined) {
				lines.push(theme.fg("muted", `${options.isPartial ? "Elapsed" : "Took"} ${(durationMs / 1000).toFixed(1)}s`));
			}
			if (context?.isError) return lines.map((l) => theme.fg("error", l));
			return lines;
		},
	});
}

/**
 * The `timeout` argument as the env takes it: undefined for none (left out, 0, or Infinity, which
 * no command outlives), the seconds otherwise, of any finite size. Negative and NaN throw.
 */
function timeoutSeconds(timeout: unknown): number | undefined {
	if (timeout === undefined || timeout === 0 || timeout === Number.POSITIVE_INFINITY) return undefined;
	if (typeof timeout !== "number" || Number.isNaN(timeout) || timeout < 0) {
		throw new Error(
			`Invalid timeout ${describeValue(timeout)}: give a positive number of seconds, or leave timeout out for no timeout. The command was not run.`,
		);
	}
	return timeout;
}

/**
 * Delete the spill files in `created`'s folder that carry this tool's prefix and `.log` suffix and
 * were not changed for `maxAgeMs`, then, newest first, those past `maxTotal` bytes in all; the file
 * just created is kept. Failures are ignored: a file another process removed first, or one we may
 * not remove, is simply left.
 */
async function removeOldSpills(
	env: ExecutionEnv,
	created: string,
	prefix: string,
	maxAgeMs: number,
	maxTotal: number,
): Promise<void> {
	const slash = created.lastIndexOf("/");
	const folder = slash <= 0 ? "/" : created.slice(0, slash);
	const self = created.slice(slash + 1);
	const listed = await env.listDir(folder);
	if (!listed.ok) return;
	const now = Date.now();
	const kept: { path: string; size: number; mtimeMs: number }[] = [];
	for (const entry of listed.value) {
		if (entry.kind !== "file" || entry.name === self) continue;
		if (!entry.name.startsWith(prefix) || !entry.name.endsWith(".log")) continue;
		const path = folder === "/" ? `/${entry.name}` : `${folder}/${entry.name}`;
		const info = await env.fileInfo(path, { followSymlinks: false });
		if (!info.ok || info.value.kind !== "file") continue;
		if (now - info.value.mtimeMs > maxAgeMs) await env.remove(path);
		else kept.push({ path, size: info.value.size, mtimeMs: info.value.mtimeMs });
	}
	kept.sort((a, b) => b.mtimeMs - a.mtimeMs);
	let total = 0;
	for (const file of kept) {
		total += file.size;
		if (total > maxTotal) await env.remove(file.path);
	}
}
