#!/usr/bin/env node
/**
 * The `toolsmith` executable: binds the command framework to the real process (argv, stdio,
 * signals, exit code). Everything else in src/cli works on a `CliIO` and never touches `process`.
 */
import { runProgram } from "../command/node-command.js";
import { processIO } from "../command/node-io.js";
import { exitProcess, installExitGuard } from "../extensions/node-process-guard.js";
import { loadNodeProvisionsWith } from "../extensions/node-provided.js";
import { program } from "./_program.js";

// Extensions the commands load get toolsmith's entries and the MCP client from the Node entry,
// imported the first time one of them is needed.
loadNodeProvisionsWith(() => import("../node.js"));

// The command decides when the process ends: extension code (a tool under `toolsmith test`, an
// extension `dev` or `mcp` serves) that calls `process.exit` gets an E_PROCESS_EXIT error instead.
installExitGuard();
let done = false;
// Whatever still ends the process before the command finished (an exit the guard cannot see, the
// event loop running dry while the command waits) says so instead of leaving without a word.
process.on("exit", (code) => {
	if (done) return;
	const why =
		code === 13
			? "the event loop ran empty while the command waited on a promise that never settles"
			: "the process is ending before the command finished";
	process.stderr.write(`toolsmith: ${why} (exit code ${code}).\n`);
});

const io = processIO();

const code = await runProgram(program, process.argv.slice(2), io);
done = true;
// Let buffered output reach a pipe before exiting; open handles (stdin, watchers) must not keep the
// process alive once the command is done.
process.stdout.write("", () => exitProcess(code));
