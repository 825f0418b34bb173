/**
 * Recording a run into a replay fixture: wrap the env tools use (a NodeExecutionEnv on the real
 * disk, say), run tool calls through it, and get a fixture that replays the same calls offline on a
 * MemoryExecutionEnv — the files they touched as they were before, the commands they ran with
 * their output, and every result as the expectation. Runtime-neutral.
 */
import type { ToolCall, ToolResultMessage } from "../contract/content.js";
import type { DirEntry, ExecOptions, ExecResult, ExecutionEnv, FileInfo, SignalOptions } from "../contract/env.js";
import type { ExecutionError, FileError, Result } from "../contract/result.js";
import { type AgentTool, type ToolDefinition, wrapToolDefinitions } from "../contract/tool.js";
import { mutationScopeOf, setMutationScope } from "../env/mutation-queue.js";
import { executeToolCalls } from "../exec/execute.js";
import type { ExecuteToolCallsConfig, ExecuteToolCallsResult } from "../exec/types.js";
import { headlessContextFactory } from "./_context.js";
import type { FixtureCall, FixtureCommand, FixtureStep, ReplayFixture } from "./fixture.js";

/** One env operation, as the recorder saw it. */
export interface EnvIoEntry {
	readonly op: string;
	/** The path (or command, for `exec`). */
	readonly target: string;
	readonly ok: boolean;
}

/** Options for `recordToolCalls`. */
export interface RecordingOptions {
	/** Files larger than this are not captured (a warning says so). Default 4 MiB. */
	readonly maxFileBytes?: number;
}

/** Options for `fixtureFromRecording`: the fixture's name and description and which expectations to write. */
export interface FixtureFromRecordingOptions {
	readonly name?: string;
	readonly description?: string;
	/** Add the files each step wrote, as they were after it, to its expectations (default true). */
	readonly expectFiles?: boolean;
	/** Add the commands each step ran to its expectations (default true). */
	readonly expectCommands?: boolean;
	/**
	 * The absolute folder the fixture replays in (default `/project`, the replay's own default, so
	 * the fixture does not name the folder it was recorded in). Wherever the recorded env's folder
	 * appears in the fixture (arguments, expected texts, commands and their output, files), it
	 * becomes this one. Pass the env's `cwd` to keep the recorded folder.
	 */
	readonly cwd?: string;
}

/** Where a replay runs when its fixture names no folder (the memory env's default). */
const REPLAY_CWD = "/project";

/**
 * `value` with every occurrence of the folder `from` in its strings (and object keys) replaced by
 * `to`: the folder itself or a path under it, never a longer name that merely starts the same way.
 */
function relocate<T>(value: T, from: string, to: string): T {
	const base = from.length > 1 && from.endsWith("/") ? from.slice(0, -1) : from;
	if (base === to || base === "/") return value;
	const pattern = new RegExp(`${base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w.~@+-])`, "g");
	const swap = (item: unknown): unknown => {
		if (typeof item === "string") return item.replace(pattern, to);
		if (Array.isArray(item)) return item.map(swap);
		if (typeof item === "object" && item !== null) {
			return Object.fromEntries(Object.entries(item).map(([key, inner]) => [swap(key), swap(inner)]));
		}
		return item;
	};
	return swap(value) as T;
}

interface RecordedStep {
	readonly calls: readonly ToolCall[];
	readonly results: readonly ToolResultMessage[];
	readonly commands: readonly string[];
	/** Files the batch wrote, with their content right after it (`null`: gone or not text). */
	readonly written: ReadonlyMap<string, string | null>;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

function textOf(result: ToolResultMessage): string {
	return result.content
		.filter((block) => block.type === "text")
		.map((block) => (block as { text: string }).text)
		.join("\n");
}

/**
 * What a recorded result must be on replay: its error flag, its text and, when its tool called
 * others through `ctx.executeTool`, those calls (tool, id, how each ended, its arguments when the
 * record kept them).
 */
function callExpectation(result: ToolResultMessage): NonNullable<FixtureCall["expect"]> {
	const nested = result.nestedCalls?.calls;
	return {
		isError: result.isError,
		text: textOf(result),
		...(nested && nested.length > 0
			? {
					nestedCalls: nested.map((call) => ({
						id: call.id,
						tool: call.name,
						status: call.status,
						...(call.arguments !== undefined ? { args: call.arguments } : {}),
					})),
				}
			: {}),
	};
}

/**
 * An ExecutionEnv that passes everything to `inner` and remembers what the run depended on.
 * Use it as the tools' env, run batches with `execute` (or report them with `recordBatch`), then
 * call `fixture()`.
 */
export class RecordingEnv implements ExecutionEnv {
	readonly kind: string;
	readonly cwd: string;
	/** Every env operation so far. */
	readonly io: EnvIoEntry[] = [];
	/** What the fixture cannot reproduce (files too large or not text, outside changes, …). */
	readonly warnings: string[] = [];
	private readonly initial = new Map<string, string | null>();
	private readonly maxFileBytes: number;
	private readonly steps: RecordedStep[] = [];
	private readonly commands: FixtureCommand[] = [];
	private stepCommands: string[] = [];
	private stepWrites = new Set<string>();
	private readonly temp = new Set<string>();

	constructor(
		readonly inner: ExecutionEnv,
		options: RecordingOptions = {},
	) {
		this.kind = `recording(${inner.kind})`;
		this.cwd = inner.cwd;
		// Edits through this env and through `inner` (or any env queueing with it) share one queue.
		setMutationScope(this, mutationScopeOf(inner));
		this.maxFileBytes = options.maxFileBytes ?? 4 * 1024 * 1024;
	}

	/** AgentTools for `definitions` whose context is this env (headless: no dialogs). */
	agentTools(definitions: readonly ToolDefinition[], options: { readonly cwd?: string } = {}): AgentTool[] {
		return wrapToolDefinitions(definitions, headlessContextFactory(this, options));
	}

	/** Run a batch through the executor with this env's tools and record it as one step. */
	async execute(toolCalls: readonly ToolCall[], config: ExecuteToolCallsConfig): Promise<ExecuteToolCallsResult> {
		const result = await executeToolCalls([...toolCalls], config);
		await this.recordBatch(toolCalls, result.results);
		return result;
	}

	/**
	 * Record a batch that ran elsewhere (its env I/O went through this env). Call it right after
	 * the batch: the files it wrote are read now, as the step's expectations.
	 */
	async recordBatch(toolCalls: readonly ToolCall[], results: readonly ToolResultMessage[]): Promise<void> {
		const commands = this.stepCommands;
		const writes = [...this.stepWrites];
		this.stepCommands = [];
		this.stepWrites = new Set();
		const written = new Map<string, string | null>();
		for (const path of writes) {
			const now = await this.inner.readTextFile(path);
			written.set(path, now.ok ? now.value : null);
		}
		this.steps.push({ calls: [...toolCalls], results: [...results], commands, written });
	}

	/**
	 * The replay fixture of everything recorded: initial files, scripted commands (in the order they
	 * ran, each answering once) and one step per batch with each result as its expectation.
	 */
	async fixture(options: FixtureFromRecordingOptions = {}): Promise<ReplayFixture> {
		const files: Record<string, string> = {};
		for (const [path, content] of this.initial) if (content !== null) files[this.display(path)] = content;
		const steps: FixtureStep[] = [];
		for (const step of this.steps) {
			const expectFiles: Record<string, string | null> = {};
			if (options.expectFiles !== false) {
				for (const [path, content] of step.written) expectFiles[this.display(path)] = content;
			}
			const expect: NonNullable<FixtureStep["expect"]> = {
				...(Object.keys(expectFiles).length > 0 ? { files: expectFiles } : {}),
				...(options.expectCommands !== false ? { commands: [...step.commands] } : {}),
			};
			steps.push({
				calls: step.calls.map((call, index) => {
					const result = step.results[index];
					return {
						id: call.id,
						tool: call.name,
						args: call.arguments,
						...(result ? { expect: callExpectation(result) } : {}),
					};
				}),
				...(Object.keys(expect).length > 0 ? { expect } : {}),
			});
		}
		const cwd = options.cwd ?? REPLAY_CWD;
		const world = relocate({ files, commands: [...this.commands], steps }, this.cwd, cwd);
		return {
			...(options.name ? { name: options.name } : {}),
			...(options.description ? { description: options.description } : {}),
			...(cwd === REPLAY_CWD ? {} : { cwd }),
			...world,
		};
	}

	private display(path: string): string {
		const prefix = this.cwd.endsWith("/") ? this.cwd : `${this.cwd}/`;
		return path.startsWith(prefix) ? path.slice(prefix.length) : path;
	}

	private log(op: string, target: string, ok: boolean): void {
		this.io.push({ op, target, ok });
	}

	private absolute(path: string): string {
		const resolved = this.inner.absolutePath(path);
		return resolved.ok ? resolved.value : path;
	}

	/** Remember how the file was before the run touched it (once per path). */
	private async capture(path: string): Promise<void> {
		const absolute = this.absolute(path);
		if (this.initial.has(absolute)) return;
		this.initial.set(absolute, null);
		const info = await this.inner.fileInfo(absolute);
		if (!info.ok || info.value.kind !== "file") return;
		if (info.value.size > this.maxFileBytes) {
			this.warnings.push(
				`${absolute}: ${info.value.size} bytes, over the ${this.maxFileBytes}-byte limit; not captured`,
			);
			return;
		}
		const bytes = await this.inner.readBinaryFile(absolute);
		if (!bytes.ok) return;
		try {
			this.initial.set(absolute, decoder.decode(bytes.value));
		} catch {
			this.warnings.push(`${absolute}: not UTF-8 text; fixtures hold text files only, so it was not captured`);
		}
	}

	private async beforeWrite(path: string): Promise<void> {
		await this.capture(path);
		const absolute = this.absolute(path);
		// Temp files get other names in a replay, so they are never expectations.
		if (!this.temp.has(absolute)) this.stepWrites.add(absolute);
	}

	absolutePath(path: string): Result<string, FileError> {
		return this.inner.absolutePath(path);
	}

	async canonicalPath(path: string): Promise<Result<string, FileError>> {
		await this.capture(path);
		return this.inner.canonicalPath(path);
	}

	async exists(path: string): Promise<boolean> {
		await this.capture(path);
		const result = await this.inner.exists(path);
		this.log("exists", path, true);
		return result;
	}

	async fileInfo(path: string, options?: { readonly followSymlinks?: boolean }): Promise<Result<FileInfo, FileError>> {
		await this.capture(path);
		const result = await this.inner.fileInfo(path, options);
		this.log("fileInfo", path, result.ok);
		return result;
	}

	async listDir(path: string): Promise<Result<DirEntry[], FileError>> {
		const result = await this.inner.listDir(path);
		this.log("listDir", path, result.ok);
		if (result.ok && result.value.length > 0) {
			this.warnings.push(
				`${path}: a folder was listed; fixtures hold files only, so its other entries are not captured`,
			);
		}
		return result;
	}

	async readTextFile(path: string, options?: SignalOptions): Promise<Result<string, FileError>> {
		await this.capture(path);
		const result = await this.inner.readTextFile(path, options);
		this.log("readTextFile", path, result.ok);
		return result;
	}

	async readBinaryFile(path: string, options?: SignalOptions): Promise<Result<Uint8Array, FileError>> {
		await this.capture(path);
		const result = await this.inner.readBinaryFile(path, options);
		this.log("readBinaryFile", path, result.ok);
		return result;
	}

	async readRange(
		path: string,
		offset: number,
		length: number,
		options?: SignalOptions,
	): Promise<Result<Uint8Array, FileError>> {
		await this.capture(path);
		const result = await this.inner.readRange(path, offset, length, options);
		this.log("readRange", path, result.ok);
		return result;
	}

	async writeFile(path: string, data: string | Uint8Array, options?: SignalOptions): Promise<Result<void, FileError>> {
		await this.beforeWrite(path);
		const result = await this.inner.writeFile(path, data, options);
		this.log("writeFile", path, result.ok);
		return result;
	}

	async appendFile(path: string, data: string | Uint8Array): Promise<Result<void, FileError>> {
		await this.beforeWrite(path);
		const result = await this.inner.appendFile(path, data);
		this.log("appendFile", path, result.ok);
		return result;
	}

	async rename(from: string, to: string): Promise<Result<void, FileError>> {
		await this.beforeWrite(from);
		await this.beforeWrite(to);
		const result = await this.inner.rename(from, to);
		this.log("rename", `${from} -> ${to}`, result.ok);
		return result;
	}

	async remove(path: string, options?: { readonly recursive?: boolean }): Promise<Result<void, FileError>> {
		await this.beforeWrite(path);
		const result = await this.inner.remove(path, options);
		this.log("remove", path, result.ok);
		return result;
	}

	async createDir(path: string, options?: { readonly recursive?: boolean }): Promise<Result<void, FileError>> {
		const result = await this.inner.createDir(path, options);
		this.log("createDir", path, result.ok);
		return result;
	}

	async createTempFile(options?: {
		readonly prefix?: string;
		readonly suffix?: string;
	}): Promise<Result<string, FileError>> {
		const result = await this.inner.createTempFile(options);
		this.log("createTempFile", result.ok ? result.value : "(temp)", result.ok);
		// A temp file is new: it starts empty in the replay too, so nothing to capture.
		if (result.ok) {
			this.initial.set(result.value, null);
			this.temp.add(result.value);
		}
		return result;
	}

	async createTempDir(options?: { readonly prefix?: string }): Promise<Result<string, FileError>> {
		const result = await this.inner.createTempDir(options);
		this.log("createTempDir", result.ok ? result.value : "(temp)", result.ok);
		return result;
	}

	async exec(command: string, options: ExecOptions = {}): Promise<Result<ExecResult, ExecutionError>> {
		// Chunks are kept in arrival order: tools that merge both streams see the same interleaving.
		const chunks: { stream: "stdout" | "stderr"; data: string }[] = [];
		const decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
		const take = (stream: "stdout" | "stderr", chunk: Uint8Array) => {
			const data = decoders[stream].decode(chunk, { stream: true });
			const last = chunks[chunks.length - 1];
			if (last?.stream === stream) last.data += data;
			else if (data) chunks.push({ stream, data });
		};
		const result = await this.inner.exec(command, {
			...options,
			captureOutput: options.captureOutput ?? !(options.onStdout || options.onStderr),
			onStdout: (chunk) => {
				take("stdout", chunk);
				// pass the listener's promise on, so backpressure reaches the wrapped env
				return options.onStdout?.(chunk);
			},
			onStderr: (chunk) => {
				take("stderr", chunk);
				return options.onStderr?.(chunk);
			},
		});
		for (const stream of ["stdout", "stderr"] as const) {
			const rest = decoders[stream].decode();
			if (rest) chunks.push({ stream, data: rest });
		}
		this.log("exec", command, result.ok);
		this.stepCommands.push(command);
		let exitCode = result.ok ? result.value.exitCode : 1;
		if (!result.ok) {
			this.warnings.push(`${command}: ended with ${result.error.code}; the fixture scripts it as exit code 1`);
		}
		exitCode = Math.min(255, exitCode);
		const streams = new Set(chunks.map((chunk) => chunk.stream));
		const output: Partial<FixtureCommand> =
			streams.size > 1
				? { chunks }
				: {
						...(streams.has("stdout") ? { stdout: chunks.map((c) => c.data).join("") } : {}),
						...(streams.has("stderr") ? { stderr: chunks.map((c) => c.data).join("") } : {}),
					};
		this.commands.push({ match: command, ...output, ...(exitCode !== 0 ? { exitCode } : {}), once: true });
		return result;
	}
}

/** Wrap `env` so the run can be turned into a replay fixture (see `RecordingEnv`). */
export function recordingEnv(env: ExecutionEnv, options: RecordingOptions = {}): RecordingEnv {
	return new RecordingEnv(env, options);
}
