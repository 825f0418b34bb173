#!/usr/bin/env node
/**
 * The `toolsmith` executable: binds the command framework to the real process (argv, stdio,
 * signals, exit code). Everything else in src/cli works on a `CliIO` and never touches `process`.
 */
import { runProgram } from "./_command.js";
import type { CliIO } from "./_io.js";
import { program } from "./_program.js";

const io: CliIO = {
	stdout: process.stdout,
	stderr: process.stderr,
	stdin: process.stdin,
	env: process.env,
	cwd: process.cwd(),
	onInterrupt(handler) {
		process.on("SIGINT", handler);
		return () => process.off("SIGINT", handler);
	},
};

const code = await runProgram(program, process.argv.slice(2), io);
// Let buffered output reach a pipe before exiting; open handles (stdin, watchers) must not keep the
// process alive once the command is done.
process.stdout.write("", () => process.exit(code));
