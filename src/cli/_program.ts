/** The `toolsmith` program: its name, version and commands. */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { packageRoot } from "../../create-tool/src/generator.js";
import type { Program } from "../command/node-command.js";
import { createDevCommand } from "./_dev.js";
import { evalCommand } from "./_eval.js";
import { checkCommand, replaySessionCommand, schemaCommand, testCommand } from "./_harness-commands.js";
import { inspectCommand } from "./_inspect.js";
import { mcpCommand } from "./_mcp.js";
import { newCommand } from "./_new.js";

// The same code runs from src/cli (through jiti) and from dist/, so the manifest is found by
// walking up rather than by a fixed relative path.
function packageVersion(): string {
	const root = packageRoot(dirname(fileURLToPath(import.meta.url)), "toolsmith-sdk");
	if (!root) return "0.0.0";
	const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: unknown };
	return typeof manifest.version === "string" ? manifest.version : "0.0.0";
}

export const program: Program = {
	name: "toolsmith",
	version: packageVersion(),
	summary: "write, load, hot-reload and test tools for LLM coding agents",
	commands: [
		createDevCommand(),
		inspectCommand,
		newCommand,
		testCommand,
		checkCommand,
		replaySessionCommand,
		evalCommand,
		schemaCommand,
		mcpCommand,
	],
};
