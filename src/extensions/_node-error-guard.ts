/**
 * Keeping a host alive through its extensions' stray errors: a throw in a timer or an event handler
 * an extension set up, or a promise it left without a `catch`, would otherwise end the process.
 * While installed, process-wide `uncaughtException` and `unhandledRejection` handlers turn each
 * into an `E_UNCAUGHT` diagnostic, attributed to the extension whose file is on the error's stack
 * when that can be told. Node-only (it listens on `process`).
 */
import { pathToFileURL } from "node:url";
import { errorMessage } from "../contract/errors.js";
import type { ExtensionDiagnostic, LoadedExtension } from "./api.js";
import { isProcessExitRefusal } from "./node-process-guard.js";

/** What the guard needs of the loaded extensions: each one's entry and the local modules it imported. */
export type GuardedExtension = Pick<LoadedExtension, "path" | "modules">;

/** The stack of a thrown value, or `""` when it has none (or reading it throws). */
function stackOf(value: unknown): string {
	try {
		if (typeof value === "object" && value !== null && "stack" in value) {
			const stack = (value as { stack?: unknown }).stack;
			if (typeof stack === "string") return stack;
		}
	} catch {
		// a getter that throws: no stack to read
	}
	return "";
}

/**
 * The entry path of the extension one of whose files appears first (innermost frame) on `stack`,
 * or `undefined`. Frames name files as paths or as `file://` URLs; both are recognized.
 */
export function attributeStack(stack: string, extensions: readonly GuardedExtension[]): string | undefined {
	const needles: { text: string; owner: string }[] = [];
	for (const extension of extensions) {
		for (const file of [extension.path, ...extension.modules]) {
			needles.push({ text: `${file}:`, owner: extension.path });
			needles.push({ text: `${pathToFileURL(file).href}:`, owner: extension.path });
		}
	}
	for (const line of stack.split("\n")) {
		if (!/^\s+at /.test(line)) continue;
		for (const needle of needles) if (line.includes(needle.text)) return needle.owner;
	}
	return undefined;
}

/** The diagnostic for one stray error. */
export function strayErrorDiagnostic(
	value: unknown,
	kind: "exception" | "rejection",
	extensions: readonly GuardedExtension[],
): ExtensionDiagnostic {
	const owner = attributeStack(stackOf(value), extensions);
	if (isProcessExitRefusal(value)) {
		return {
			severity: "error",
			code: "E_PROCESS_EXIT",
			message: `${owner === undefined ? "Code outside any extension file" : "This extension"} tried to end the process from a timer, event handler or promise: ${errorMessage(value)} The host keeps running.`,
			path: owner ?? "",
		};
	}
	const what = kind === "exception" ? "An uncaught exception" : "An unhandled promise rejection";
	const from = owner === undefined ? " (no extension file is on its stack)" : " in this extension";
	return {
		severity: "error",
		code: "E_UNCAUGHT",
		message: `${what}${from}: ${errorMessage(value)}. The host caught it and keeps running; catch errors in the timers, event handlers and promises the extension starts.`,
		path: owner ?? "",
	};
}

/**
 * Install the process-wide handlers; the returned function removes them. Each stray error goes to
 * `report` (which must not throw: a throw there is dropped).
 */
export function installErrorGuard(
	extensions: () => readonly GuardedExtension[],
	report: (diagnostic: ExtensionDiagnostic) => void,
): () => void {
	const handle = (value: unknown, kind: "exception" | "rejection") => {
		try {
			report(strayErrorDiagnostic(value, kind, extensions()));
		} catch {
			// reporting is best effort: the point is that the process stays up
		}
	};
	const onException = (error: unknown) => handle(error, "exception");
	const onRejection = (reason: unknown) => handle(reason, "rejection");
	process.on("uncaughtException", onException);
	process.on("unhandledRejection", onRejection);
	return () => {
		process.off("uncaughtException", onException);
		process.off("unhandledRejection", onRejection);
	};
}
