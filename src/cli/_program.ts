/** The `toolsmith` program: its name, version and commands. */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Program } from "./_command.js";
import { createDevCommand } from "./_dev.js";
import { checkCommand, replaySessionCommand, schemaCommand, testCommand } from "./_harness-commands.js";

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
			if (manifest.name === "toolsmith-sdk" && typeof manifest.version === "string") return manifest.version;
		} catch {
			// no manifest here: keep walking up
		}
		dir = dirname(dir);
	}
	return "0.0.0";
}

export const program: Program = {
	name: "toolsmith",
	version: packageVersion(),
	summary: "write, load, hot-reload and test tools for LLM coding agents",
	commands: [createDevCommand(), testCommand, checkCommand, replaySessionCommand, schemaCommand],
};
