/** ReplayEnv: the memory env a session replay runs on, keeping file texts between calls and answering commands. */

import type { ExecOptions, ExecResult } from "../contract/env.js";
import { type ExecutionError, type FileError, ok, type Result } from "../contract/result.js";
import { encodePooled } from "../env/byte-pool.js";
import { MemoryExecutionEnv, type ScriptedCommand } from "../env/memory.js";
import type { FileLines } from "./_file-lines.js";

/** A file's text as last read or written by the replay, with what has been worked out about it. */
export interface CachedText {
	readonly text: string;
	lines: FileLines | undefined;
	/** Whether the text holds an `UNKNOWN_LINE`, once asked. */
	partial?: boolean;
}

/** A recorded command's answer: what it printed (stdout) and how it exited. */
export interface RecordedAnswer {
	readonly command: string;
	readonly output: string;
	readonly exitCode: number;
}

/**
 * The memory env the replay runs on. It counts changes, so the replay can keep the text of the
 * files it inspects between calls instead of decoding and splitting them again each time, and it
 * answers the one command the replay expects next directly: the scripted shell's machinery (a
 * command log, decoders, an abort controller per command) serves tests that inspect it, which the
 * replay does not. Anything else goes to the scripted shell.
 */
export class ReplayEnv extends MemoryExecutionEnv {
	/**
	 * Texts of files as last read or written by the replay, by absolute path. A write drops its
	 * file's entry; anything that may change other files (a command not answered from the
	 * recording, a rename, a removal) drops them all.
	 */
	readonly texts = new Map<string, CachedText>();
	/** The answer for the next command, not yet handed to the scripted shell. */
	private expected: RecordedAnswer | undefined;
	/** Answers handed to the scripted shell and not used yet, by command. */
	private readonly scripted = new Map<string, number>();
	/** Someone else added scripted commands: every command then goes through the scripted shell. */
	private foreign = false;

	/**
	 * Answer the next exec of exactly `answer.command`, as a scripted command used once would: an
	 * answer left unused stays scripted and answers a later exec of the same command first.
	 */
	expect(answer: RecordedAnswer): void {
		this.scriptPending();
		this.expected = answer;
	}

	/** A scripted command answering exactly `command` once, tried after the existing ones. */
	scriptOnce(command: string, script: Omit<ScriptedCommand, "match" | "once">): void {
		this.scriptPending();
		this.scripted.set(command, (this.scripted.get(command) ?? 0) + 1);
		super.addCommands({ ...script, match: (c) => c === command, once: true });
	}

	override addCommands(...commands: ScriptedCommand[]): void {
		this.scriptPending();
		this.foreign = true;
		super.addCommands(...commands);
	}

	private scriptPending(): void {
		const answer = this.expected;
		this.expected = undefined;
		if (answer) this.scriptOnce(answer.command, { stdout: answer.output, exitCode: answer.exitCode });
	}

	override async exec(command: string, options: ExecOptions = {}): Promise<Result<ExecResult, ExecutionError>> {
		const answer = this.expected;
		const onStdout = options?.onStdout;
		if (
			answer === undefined ||
			answer.command !== command ||
			this.foreign ||
			this.scripted.has(command) ||
			command.includes("\0") ||
			onStdout === undefined ||
			options.captureOutput === true ||
			// A timeout cannot fire before an answer given at once; an invalid one is the shell's to refuse.
			(options.timeout !== undefined && !(Number.isFinite(options.timeout) && options.timeout > 0)) ||
			options.env !== undefined ||
			(options.cwd !== undefined && options.cwd !== this.cwd) ||
			options.signal?.aborted === true ||
			!(this.cwdIsFolder ?? (await this.cwdFolder()))
		) {
			this.scriptPending();
			const result = await this.changingTree(() => super.exec(command, options));
			const used = this.scripted.get(command);
			if (used !== undefined && this.commandLog.at(-1)?.matched === true) {
				if (used > 1) this.scripted.set(command, used - 1);
				else this.scripted.delete(command);
			}
			return result;
		}
		this.expected = undefined;
		const started = Date.now();
		if (answer.output !== "") {
			try {
				// Honor backpressure like any env: wait for a returned promise; a rejection is swallowed.
				await onStdout(encodePooled(answer.output));
			} catch {
				// As in any env: a listener's failure does not change the command's outcome.
			}
		}
		return ok({ exitCode: answer.exitCode, stdout: "", stderr: "", durationMs: Date.now() - started });
	}

	private forget(path: string): void {
		this.cwdIsFolder = undefined;
		const key = this.textKey(path);
		if (key !== undefined) this.texts.delete(key);
		else this.texts.clear();
	}

	/** Absolute paths by given path (the cwd never changes, so neither does the answer). */
	private readonly keys = new Map<string, string | undefined>();

	/** The key of `path` in `texts`: the absolute path, as every caller names the file. */
	textKey(path: string): string | undefined {
		if (typeof path !== "string") return undefined;
		if (this.keys.has(path)) return this.keys.get(path);
		const absolute = this.absolutePath(path);
		const key = absolute.ok ? absolute.value : undefined;
		if (this.keys.size > 4096) this.keys.clear();
		this.keys.set(path, key);
		return key;
	}

	/**
	 * Whether the cwd was a folder when last looked at; dropped by every write, rename, removal and
	 * folder creation. Only a removal or rename can end a folder, so a kept `true` stays right; a
	 * stale `false` only sends a command the slow way.
	 */
	private cwdIsFolder: boolean | undefined;

	private async cwdFolder(): Promise<boolean> {
		if (this.cwdIsFolder === undefined) {
			const info = await this.fileInfo(this.cwd);
			this.cwdIsFolder = info.ok && info.value.kind === "directory";
		}
		return this.cwdIsFolder;
	}

	/** The file's text, read at once (the replay reads many files between its awaits). */
	textNow(path: string): Result<string, FileError> {
		return this.readTextFileNow(path);
	}

	/**
	 * Run a change to one file with its cached text dropped before and after. The memory env
	 * writes before its promise is made, so this needs no await (one promise less per write, and
	 * the replay writes a lot).
	 */
	private changingFile<T>(path: string, change: () => T): T {
		this.forget(path);
		const result = change();
		this.forget(path);
		return result;
	}

	/** Run something that may change any file, with everything cached dropped before and after. */
	private async changingTree<T>(change: () => Promise<T>): Promise<T> {
		this.texts.clear();
		this.cwdIsFolder = undefined;
		try {
			return await change();
		} finally {
			this.texts.clear();
			this.cwdIsFolder = undefined;
		}
	}

	override writeFile(...args: Parameters<MemoryExecutionEnv["writeFile"]>) {
		return this.changingFile(args[0], () => super.writeFile(...args));
	}

	override appendFile(...args: Parameters<MemoryExecutionEnv["appendFile"]>) {
		return this.changingFile(args[0], () => super.appendFile(...args));
	}

	override rename(...args: Parameters<MemoryExecutionEnv["rename"]>) {
		return this.changingTree(() => super.rename(...args));
	}

	override remove(...args: Parameters<MemoryExecutionEnv["remove"]>) {
		return this.changingTree(() => super.remove(...args));
	}

	override createDir(...args: Parameters<MemoryExecutionEnv["createDir"]>) {
		return this.changingTree(() => super.createDir(...args));
	}
}
