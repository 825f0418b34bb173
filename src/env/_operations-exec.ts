/**
 * `exec` of an operations env (`from-operations.ts`): the command handed to the operations'
 * `exec` with its folder, signal, timeout and environment; all output arrives as stdout, an exit
 * code `null` is reported as 137, and the callback's `aborted` / `timeout:<s>` rejections become
 * the env's errors. Without the callback, the fallback env runs it. Runtime-neutral.
 */

import type { ExecOptions, ExecResult } from "../contract/env.js";
import { describeValue, errorMessage } from "../contract/errors.js";
import { type ExecutionError, err, ok, type Result } from "../contract/result.js";
import type { OperationsEnvState } from "./_operations-state.js";
import { commandProblem, execError, isThenable, timeoutProblem } from "./errors.js";
import { resolvePath } from "./path.js";

export async function exec(
	state: OperationsEnvState,
	command: string,
	options: ExecOptions = {},
): Promise<Result<ExecResult, ExecutionError>> {
	const { operations } = state;
	if (!operations.exec) {
		if (state.fallback) return state.fallback.exec(command, options);
		return err(execError("spawn_error", describeValue(command), "these operations have no exec; cannot run"));
	}
	const problem = commandProblem(command) ?? timeoutProblem(options.timeout);
	if (problem) return err(execError("invalid_argument", describeValue(command), problem));
	const signal = options.signal;
	if (signal?.aborted) return err(execError("aborted", command, "aborted before it started"));
	const started = Date.now();
	const capture = options.captureOutput ?? (!options.onStdout && !options.onStderr);
	// A streaming decoder: a chunk may end inside a multi-byte character.
	const decoder = new TextDecoder();
	let stdout = "";
	const onData = (data: Uint8Array) => {
		if (capture) stdout += decoder.decode(data, { stream: true });
		try {
			const pending = options.onStdout?.(data);
			if (isThenable(pending)) Promise.resolve(pending).catch(() => {});
		} catch {
			// a throwing listener never stops the command
		}
	};
	const where = options.cwd ? resolvePath(state.cwd, options.cwd) : state.cwd;
	try {
		const { exitCode } = await operations.exec(command, where, {
			onData,
			...(signal ? { signal } : {}),
			...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
			...(options.env ? { env: options.env } : {}),
		});
		if (signal?.aborted) return err(execError("aborted", command, "aborted"));
		if (capture) stdout += decoder.decode();
		return ok({ exitCode: exitCode ?? 137, stdout, stderr: "", durationMs: Date.now() - started });
	} catch (error) {
		const message = errorMessage(error);
		if (signal?.aborted || message === "aborted") return err(execError("aborted", command, "aborted"));
		if (message.startsWith("timeout:")) {
			return err(execError("timeout", command, `timed out after ${options.timeout} seconds`));
		}
		return err(execError("spawn_error", command, `the operations' exec failed (${message})`));
	}
}
