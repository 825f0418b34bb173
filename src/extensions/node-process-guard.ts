/**
 * Keeping a host's process in the host's hands: while a guard is installed, `process.exit`,
 * `process.reallyExit` and `process.abort` throw a `ToolsmithError` (`E_PROCESS_EXIT`) instead of
 * ending the process. Extension code that calls one of them at load time fails to load, in a tool
 * call gets an error result, in a timer becomes a stray error; the host keeps serving. The owner of
 * the process ends it through `exitProcess`, which puts the originals back first.
 *
 * It guards against careless code, not hostile code: a signal (`process.kill(process.pid)`), a
 * native addon or a child process killing its parent still ends the process. Node-only (it patches
 * `process`).
 */
import { ToolsmithError } from "../contract/errors.js";

type ExitFunction = (code?: number | string | null) => never;

/** `process` with the undocumented `reallyExit` that `process.exit` ends in (and code may call directly). */
interface GuardedProcess {
	exit: ExitFunction;
	reallyExit?: ExitFunction;
	abort: () => never;
}

interface Originals {
	readonly exit: ExitFunction;
	readonly reallyExit: ExitFunction | undefined;
	readonly abort: () => never;
	readonly replaced: GuardedProcess;
}

let installs = 0;
let originals: Originals | undefined;

function refusal(call: string): ToolsmithError {
	return new ToolsmithError(
		"E_PROCESS_EXIT",
		`${call} was refused (E_PROCESS_EXIT): an extension may not end the host; throw an error instead.`,
	);
}

function codeText(code: unknown): string {
	return code === undefined ? "" : typeof code === "string" ? JSON.stringify(code) : String(code);
}

/** Whether `error` is what a guarded `process.exit`, `reallyExit` or `abort` threw. */
export function isProcessExitRefusal(error: unknown): boolean {
	try {
		return error instanceof ToolsmithError && error.code === "E_PROCESS_EXIT";
	} catch {
		return false;
	}
}

function restore(): void {
	const saved = originals;
	originals = undefined;
	installs = 0;
	if (!saved) return;
	const proc = process as unknown as GuardedProcess;
	// Only what is still ours goes back: someone who replaced it since keeps theirs.
	if (proc.exit === saved.replaced.exit) proc.exit = saved.exit;
	if (saved.reallyExit && proc.reallyExit === saved.replaced.reallyExit) proc.reallyExit = saved.reallyExit;
	if (proc.abort === saved.replaced.abort) proc.abort = saved.abort;
}

/**
 * Refuse `process.exit`, `process.reallyExit` and `process.abort` until the returned function is
 * called. Installs nest: the functions come back when the last guard is removed. Removing twice is
 * harmless.
 */
export function installExitGuard(): () => void {
	if (installs === 0) {
		const proc = process as unknown as GuardedProcess;
		const replaced: GuardedProcess = {
			exit: (code) => {
				throw refusal(`process.exit(${codeText(code)})`);
			},
			abort: () => {
				throw refusal("process.abort()");
			},
			...(typeof proc.reallyExit === "function"
				? {
						reallyExit: (code: unknown) => {
							throw refusal(`process.reallyExit(${codeText(code)})`);
						},
					}
				: {}),
		};
		originals = { exit: proc.exit, reallyExit: proc.reallyExit, abort: proc.abort, replaced };
		proc.exit = replaced.exit;
		proc.abort = replaced.abort;
		if (replaced.reallyExit) proc.reallyExit = replaced.reallyExit;
	}
	installs++;
	let removed = false;
	return () => {
		if (removed) return;
		removed = true;
		installs--;
		if (installs <= 0) restore();
	};
}

/** End the process with `code` through the original `process.exit`, whatever guards are installed. */
export function exitProcess(code: number): never {
	restore();
	return process.exit(code);
}
