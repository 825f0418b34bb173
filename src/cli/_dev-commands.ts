/**
 * The `dev` loop's input: each line run as a command (`call`, `tools`, `prompt`, `expand`,
 * `reload`, `help`, `exit`, an extension's `/command`), lines queued and run one at a time, and tab
 * completion.
 */
import { resolve } from "node:path";
import { EXIT_FAILURE, EXIT_OK } from "../command/node-command.js";
import { errorMessage } from "../contract/errors.js";
import { callTool } from "./_dev-call.js";
import type { DevHost } from "./_dev-host.js";
import { activeTools, type DevLoopState, extensionCommands, fail, finish, out, width } from "./_dev-loop-state.js";
import { formatCommandList, formatToolsTable } from "./_format.js";

export const REPL_HELP = `Commands:
  call <tool> [json-args]   Run a tool through the executor, e.g. call read {"path":"README.md"}
  tools                     List the active tools (and the extensions' commands)
  /<command> [args]         Run a command an extension registered
  prompt                    Show the tools section of the system prompt
  expand on|off             Show results in full (on, the default) or as a preview
  reload [path]             Reload one extension, or all of them
  help                      Show this help
  exit                      Close the host and leave (also Ctrl-D; Ctrl-C twice)
Ctrl-C aborts a running call. Lines starting with # are ignored.`;

const REPL_COMMANDS = ["call", "tools", "prompt", "expand", "reload", "help", "exit"];

/** Tab completion: commands first, tool names after `call`, `/commands` of extensions. */
export function complete(host: DevHost, line: string): [string[], string] {
	const call = /^call\s+(\S*)$/.exec(line);
	if (call) {
		const partial = call[1] ?? "";
		return [
			activeTools(host)
				.map((t) => t.name)
				.filter((n) => n.startsWith(partial)),
			partial,
		];
	}
	if (/\s/.test(line)) return [[], line];
	const words = [...REPL_COMMANDS, ...extensionCommands(host).map((c) => `/${c.name}`)];
	return [words.filter((w) => w.startsWith(line)), line];
}

/** `/<name> args`: the rest of the line is the argument string; the handler gets the ctx of its extension. */
async function runExtensionCommand(state: DevLoopState, name: string, args: string): Promise<void> {
	const command = extensionCommands(state.host).find((c) => c.name === name);
	if (!command) {
		fail(state, `unknown command '/${name}': no extension registered it (type tools for the list)`);
		return;
	}
	try {
		await command.handler(args, state.host.runtime.createContext(command.path));
	} catch (error) {
		out(state, state.theme.fg("error", `/${name} failed: ${errorMessage(error)}`));
	}
}

/** Runs one input line; resolves to false when the loop should end. */
async function handleLine(state: DevLoopState, raw: string): Promise<boolean> {
	const { host, theme, cwd, interactive } = state;
	const line = raw.trim();
	if (line === "" || line.startsWith("#")) return true;
	if (!interactive) out(state, theme.fg("muted", `> ${line}`));
	state.armedToExit = false;
	const [word = "", ...restWords] = line.split(/\s+/);
	const rest = line.slice(word.length).trim();
	if (word.startsWith("/") && word.length > 1) {
		await runExtensionCommand(state, word.slice(1), rest);
		return true;
	}
	switch (word) {
		case "call":
			await callTool(state, rest);
			return true;
		case "tools": {
			out(
				state,
				formatToolsTable(activeTools(host), cwd, theme, interactive ? width(state) : undefined, host.extensions()).join(
					"\n",
				),
			);
			const commands = formatCommandList(extensionCommands(host), cwd, theme);
			if (commands.length > 0) out(state, ["", ...commands].join("\n"));
			return true;
		}
		case "prompt":
			out(state, host.buildToolsPrompt());
			return true;
		case "help":
		case "?":
			out(state, REPL_HELP);
			return true;
		case "expand":
			if (rest === "on" || rest === "off") {
				state.expanded = rest === "on";
				out(state, `results are ${state.expanded ? "shown in full" : "shown as a preview"}`);
			} else fail(state, "usage: expand on|off");
			return true;
		case "reload":
			if (!host.reload) {
				fail(state, "reload: this host cannot reload on demand");
				return true;
			}
			try {
				await host.reload(restWords.length > 0 ? resolve(cwd, rest) : undefined);
			} catch (error) {
				out(state, theme.fg("error", `reload failed: ${errorMessage(error)}`));
			}
			return true;
		case "exit":
		case "quit":
			return false;
		default:
			fail(state, `unknown command '${word}' (type help for the list)`);
			return true;
	}
}

/**
 * Runs the queued lines one at a time (a line that arrives meanwhile waits its turn); ends the loop
 * on `exit`, or once the input has ended and the queue is run.
 */
export async function pump(state: DevLoopState): Promise<void> {
	if (state.pumping) return;
	state.pumping = true;
	while (state.queue.length > 0 && !state.finished) {
		const line = state.queue.shift()!;
		let keepGoing = true;
		try {
			keepGoing = await handleLine(state, line);
		} catch (error) {
			out(state, state.theme.fg("error", `internal error: ${errorMessage(error)}`));
		}
		if (!keepGoing) {
			await finish(state, EXIT_OK);
			break;
		}
	}
	state.pumping = false;
	if (state.finished) return;
	if (state.inputClosed) await finish(state, state.inputErrors > 0 && !state.interactive ? EXIT_FAILURE : EXIT_OK);
	else if (state.interactive) state.rl.prompt();
}
