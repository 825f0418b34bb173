#!/usr/bin/env node
/**
 * The `toolsmith` executable: binds the command framework to the real process (argv, stdio,
 * signals, exit code). Everything else in src/cli works on a `CliIO` and never touches `process`.
 */
import { runProgram } from "./_command.js";
import { processIO } from "./_io.js";
import { program } from "./_program.js";

const io = processIO();

const code = await runProgram(program, process.argv.slice(2), io);
// Let buffered output reach a pipe before exiting; open handles (stdin, watchers) must not keep the
// process alive once the command is done.
process.stdout.write("", () => process.exit(code));
