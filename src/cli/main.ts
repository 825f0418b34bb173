#!/usr/bin/env node
/**
 * The `toolsmith` executable: binds the command framework to the real process (argv, stdio,
 * signals, exit code). Everything else in src/cli works on a `CliIO` and never touches `process`.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Program, runProgram } from "./_command.js";
import { createDevCommand } from "./_dev.js";
import { checkCommand, replaySessionCommand, schemaCommand, testCommand } from "./_harness-commands.js";
import type { CliIO } from "./_io.js";

// The same code runs from src/cli (through jiti) and from dist/, so the manifest is found by
// walking up rather than by a fixed relative path.
function packageVersion(): string {
	let dir = dirname(fileURLToPath(import.meta.url));
	for (let i = 0; i < 5; i++) {
		try {
			const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
				name?: unknown;
				version?: unknown;
			};
			if (manifest.name === "toolsmith" && typeof manifest.version === "string") return manifest.version;
		} catch {
			// no manifest here: keep walking up
		}
		dir = dirname(dir);
	}
	return "0.0.0";
}

const program: Program = {
	name: "toolsmith",
	version: packageVersion(),
	summary: "write, load, hot-reload and test tools for LLM coding agents",
	commands: [createDevCommand(), testCommand, checkCommand, replaySessionCommand, schemaCommand],
};

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
