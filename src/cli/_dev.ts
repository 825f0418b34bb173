/**
 * `toolsmith dev`: load the built-ins and extensions in the extension host (imported when the
 * command runs, so `--help` stays fast), watch them, and try tools from a prompt (or from piped
 * stdin, one command per line).
 */
import { resolve } from "node:path";
import { createInterface, type Interface } from "node:readline";
import type { Writable } from "node:stream";
import { UsageError } from "../command/args.js";
import { defineCommand, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK } from "../command/node-command.js";
import { type CliIO, outputWidth } from "../command/node-io.js";
import type { ToolResultMessage } from "../contract/content.js";
import { errorMessage } from "../contract/errors.js";
import type { ToolExecutionEndEvent, ToolExecutionEvent, ToolExecutionUpdateEvent } from "../contract/events.js";
import type { Theme } from "../contract/render.js";
import type { AgentToolResult } from "../contract/tool.js";
import type { RegisteredCommand } from "../extensions/api.js";
import { displayPath, formatDiagnostic } from "../extensions/node-event-lines.js";
import type { ExtensionHostReady } from "../extensions/node-host.js";
import type { ToolEntry } from "../extensions/registry.js";
import type { InspectorServer } from "../inspector/node-server.js";
import {
	DEFAULT_OUTPUT_PAD,
	type RenderedBlock,
	renderToolCall,
	renderToolResult,
	shellLayout,
	toolRenderersFor,
} from "../render/renderer.js";
import {
	confinedLabel,
	type DevHost,
	type DevHostFactory,
	hostLogTo,
	hostOptions,
	loadTimeout,
	startExtensionHost,
	startHost,
} from "./_dev-host.js";
import { formatCommandList, formatToolsTable } from "./_format.js";
import { followHostLog } from "./_host-log.js";
import { inspectorLine, inspectorOptions, inspectorSettings, openPageIfAsked, startHostWithPage } from "./_inspect.js";

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

export interface DevLoopOptions {
	readonly io: CliIO;
	readonly theme: Theme;
	/** Folder paths are shown relative to. */
	readonly cwd: string;
	/** Prompt, line editing and live partial output (stdin and stdout are terminals). */
	readonly interactive: boolean;
}

/** The live region a running call redraws in place on a terminal. */
const LIVE_LINES = 8;

/** The active tools, built-ins and extension tools, in registry order. */
const activeTools = (host: DevHost): readonly ToolEntry[] => host.registry.snapshot().active;

/** The commands the active extensions registered, in load order. */
const extensionCommands = (host: DevHost): RegisteredCommand[] => host.extensions().flatMap((e) => e.commands);

/**
 * Read commands until `exit`, end of input or a second Ctrl-C; close the host; resolve to the exit
 * code: 0, 1 when a piped command could not be run (unknown command, bad JSON), 130 on Ctrl-C.
 */
export function runDevLoop(host: DevHost, options: DevLoopOptions): Promise<number> {
	const { io, theme, cwd, interactive } = options;
	const out = (text: string) => io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
	const fail = (text: string) => {
		inputErrors++;
		io.stderr.write(`${text}\n`);
	};
	const width = () => outputWidth(io.stdout, io.env);
	const overflow = interactive ? "truncate" : "keep";

	let inputErrors = 0;
	let callCounter = 0;
	let expanded = true;
	let running: AbortController | undefined;
	let liveLines = 0;
	let armedToExit = false;
	let finished = false;
	let resolveExit!: (code: number) => void;
	const exited = new Promise<number>((r) => {
		resolveExit = r;
	});

	const rl: Interface = createInterface({
		input: io.stdin,
		...(interactive
			? { output: io.stdout as unknown as Writable, terminal: true, completer: (line: string) => complete(host, line) }
			: { terminal: false }),
		prompt: "toolsmith> ",
	});

	const clearLive = () => {
		if (liveLines > 0) io.stdout.write(`\x1b[${liveLines}A\r\x1b[J`);
		liveLines = 0;
	};
	// Messages that arrive while the user types (reloads) must not garble the prompt line.
	const printAsync = (lines: readonly string[]) => {
		if (interactive && !running) io.stdout.write("\r\x1b[K");
		if (interactive && running) clearLive();
		out(lines.join("\n"));
		if (interactive && !running && !finished) rl.prompt(true);
	};

	const hostLog = followHostLog(host, { cwd, theme, print: printAsync });

	const finish = async (code: number) => {
		if (finished) return;
		finished = true;
		running?.abort();
		hostLog.stop();
		removeInterrupt();
		rl.close();
		try {
			await host.close();
		} catch (error) {
			io.stderr.write(`closing the host failed: ${errorMessage(error)}\n`);
		}
		resolveExit(code);
	};

	const interrupt = () => {
		if (finished) return;
		if (running && !running.signal.aborted) {
			running.abort();
			armedToExit = true;
			clearLive();
			out(theme.fg("warning", "^C aborting the call (Ctrl-C again to exit)"));
			return;
		}
		if (armedToExit) {
			out("");
			void finish(EXIT_INTERRUPTED);
			return;
		}
		armedToExit = true;
		out(theme.fg("muted", interactive ? "\n(Ctrl-C again to exit, or type exit)" : "(Ctrl-C again to exit)"));
		if (interactive && !running) rl.prompt();
	};
	const removeInterrupt = io.onInterrupt(interrupt);
	rl.on("SIGINT", interrupt);

	const printBlock = (block: RenderedBlock, indent: string) => {
		if (block.lines.length > 0) out(block.lines.map((l) => indent + l).join("\n"));
		if (block.error) out(`${indent}${theme.fg("warning", `! ${block.error}`)}`);
	};

	const call = async (rest: string) => {
		const match = /^(\S+)\s*([\s\S]*)$/.exec(rest.trim());
		if (!match) {
			fail('usage: call <tool> [json-args], e.g. call read {"path":"README.md"}');
			return;
		}
		const name = match[1]!;
		const argsText = match[2]!.trim();
		let args: unknown = {};
		if (argsText !== "") {
			try {
				args = JSON.parse(argsText);
			} catch (error) {
				fail(`call ${name}: the arguments are not valid JSON (${errorMessage(error)}); write them as one JSON object`);
				return;
			}
		}
		const entry = activeTools(host).find((t) => t.name === name);
		// Drawn as the extensions' tool renderers say, for any tool (an MCP server's too).
		const definition = toolRenderersFor(host.runtime, name, entry?.definition);
		const toolCallId = `call-${++callCounter}`;
		const cols = width();
		// Results are indented under the call, unless the tool draws its own frame (renderShell "self").
		const shell = shellLayout(definition, cols, 2);
		const context = { toolCallId, cwd, args, width: shell.width, outputPad: DEFAULT_OUTPUT_PAD };
		printBlock(renderToolCall(definition, args, theme, cols, { ...context, name }, { overflow }), "");

		const controller = new AbortController();
		running = controller;
		armedToExit = false;
		let lastPartial = "";
		const started = performance.now();
		// Calls the tool makes through ctx.executeTool, drawn as each ends (with the arguments it started with).
		const nestedArgs = new Map<string, unknown>();
		/** The last partial line printed of each nested call (piped output prints a line only when it changes). */
		const nestedLast = new Map<string, string>();
		const nestedRenderers = (toolName: string) => {
			const snapshot = host.registry.snapshot();
			const entry = [...snapshot.active, ...(snapshot.callable ?? [])].find((t) => t.name === toolName);
			return toolRenderersFor(host.runtime, toolName, entry?.definition);
		};
		/** A nested call's partial result, shown as the call's own are, at its depth. */
		const drawNestedPartial = (event: ToolExecutionUpdateEvent) => {
			const depth = event.toolCallId.split("/").length - 1;
			const indent = "  ".repeat(depth);
			const inner = Math.max(20, cols - indent.length - 4);
			const nested = { toolCallId: event.toolCallId, cwd, args: nestedArgs.get(event.toolCallId), width: inner };
			const block = renderToolResult(
				nestedRenderers(event.toolName),
				event.partialResult,
				{ expanded, isPartial: true },
				theme,
				inner,
				nested,
				{ overflow },
			);
			if (interactive) {
				clearLive();
				const shown = block.lines
					.slice(-LIVE_LINES)
					.map((l, i) => (i === 0 ? `${indent}  ${theme.fg("muted", "…")} ${l}` : `${indent}    ${l}`));
				if (shown.length > 0) out(shown.join("\n"));
				liveLines = shown.length;
			} else {
				const last = [...block.lines].reverse().find((l) => l.trim() !== "") ?? "";
				if (last !== nestedLast.get(event.toolCallId)) {
					out(`${indent}  ${theme.fg("muted", "…")} ${last} ${theme.fg("muted", `· ${event.toolCallId}`)}`);
				}
				nestedLast.set(event.toolCallId, last);
			}
		};
		const drawNested = (event: ToolExecutionEndEvent) => {
			const depth = event.toolCallId.split("/").length - 1;
			const indent = "  ".repeat(depth);
			const renderers = nestedRenderers(event.toolName);
			const args = nestedArgs.get(event.toolCallId);
			nestedArgs.delete(event.toolCallId);
			nestedLast.delete(event.toolCallId);
			const inner = Math.max(20, cols - indent.length - 4);
			const nested = { toolCallId: event.toolCallId, cwd, args, width: inner };
			clearLive();
			const drawnCall = renderToolCall(
				renderers,
				args,
				theme,
				inner,
				{ ...nested, name: event.toolName },
				{ overflow },
			);
			printBlock({ ...drawnCall, lines: drawnCall.lines.map((l, i) => (i === 0 ? `↳ ${l}` : `  ${l}`)) }, indent);
			const drawnResult = renderToolResult(
				renderers,
				event.result,
				{ expanded, isPartial: false },
				theme,
				inner,
				{ ...nested, isError: event.isError },
				{ overflow },
			);
			printBlock(drawnResult, `${indent}    `);
			const status = event.isError ? theme.fg("error", "✗ error") : theme.fg("success", "✓ ok");
			const ms = event.durationMs === undefined ? "" : ` · ${event.durationMs} ms`;
			out(`${indent}  ${status} ${theme.fg("muted", `· ${event.toolCallId}${ms}`)}`);
		};
		const onEvent = (event: ToolExecutionEvent) => {
			if (finished) return;
			if (event.parentToolCallId !== undefined && event.toolCallId.startsWith(`${toolCallId}/`)) {
				if (event.type === "tool_execution_start") nestedArgs.set(event.toolCallId, event.args);
				else if (event.type === "tool_execution_update") drawNestedPartial(event);
				else drawNested(event);
				return;
			}
			if (event.type !== "tool_execution_update" || event.toolCallId !== toolCallId) return;
			const block = renderToolResult(
				definition,
				event.partialResult,
				{ expanded, isPartial: true },
				theme,
				shell.width,
				context,
				{ overflow },
			);
			if (interactive) {
				clearLive();
				const shown = block.lines.slice(-LIVE_LINES).map((l) => `${shell.indent}${l}`);
				if (shown.length > 0) out(shown.join("\n"));
				liveLines = shown.length;
			} else {
				const last = [...block.lines].reverse().find((l) => l.trim() !== "") ?? "";
				if (last !== lastPartial) out(`  ${theme.fg("muted", "…")} ${last}`);
				lastPartial = last;
			}
		};
		let message: ToolResultMessage | undefined;
		try {
			const outcome = await host.execute([{ type: "toolCall", id: toolCallId, name, arguments: args }], {
				signal: controller.signal,
				onEvent,
			});
			message = outcome.results[0];
		} catch (error) {
			// The executor never rejects; a host that does is reported rather than killing the loop.
			clearLive();
			out(theme.fg("error", `✗ the host failed to run the call: ${errorMessage(error)}`));
			return;
		} finally {
			running = undefined;
			clearLive();
		}
		if (finished) return;
		hostLog.flush();
		const ms = Math.round(performance.now() - started);
		if (!message) {
			out(theme.fg("error", "✗ the host returned no result"));
			return;
		}
		const result: AgentToolResult<unknown> = { content: message.content, details: message.details };
		printBlock(
			renderToolResult(
				definition,
				result,
				{ expanded, isPartial: false },
				theme,
				shell.width,
				{ ...context, isError: message.isError },
				{ overflow },
			),
			shell.indent,
		);
		const status = controller.signal.aborted
			? theme.fg("warning", "✗ aborted")
			: message.isError
				? theme.fg("error", "✗ error")
				: theme.fg("success", "✓ ok");
		out(`${status} ${theme.fg("muted", `· ${ms} ms`)}`);
	};

	// The rest of the line is the argument string; the handler gets the ctx of its extension.
	const runExtensionCommand = async (name: string, args: string) => {
		const command = extensionCommands(host).find((c) => c.name === name);
		if (!command) {
			fail(`unknown command '/${name}': no extension registered it (type tools for the list)`);
			return;
		}
		try {
			await command.handler(args, host.runtime.createContext(command.path));
		} catch (error) {
			out(theme.fg("error", `/${name} failed: ${errorMessage(error)}`));
		}
	};

	/** Runs one input line; resolves to false when the loop should end. */
	const handle = async (raw: string): Promise<boolean> => {
		const line = raw.trim();
		if (line === "" || line.startsWith("#")) return true;
		if (!interactive) out(theme.fg("muted", `> ${line}`));
		armedToExit = false;
		const [word = "", ...restWords] = line.split(/\s+/);
		const rest = line.slice(word.length).trim();
		if (word.startsWith("/") && word.length > 1) {
			await runExtensionCommand(word.slice(1), rest);
			return true;
		}
		switch (word) {
			case "call":
				await call(rest);
				return true;
			case "tools": {
				out(
					formatToolsTable(activeTools(host), cwd, theme, interactive ? width() : undefined, host.extensions()).join(
						"\n",
					),
				);
				const commands = formatCommandList(extensionCommands(host), cwd, theme);
				if (commands.length > 0) out(["", ...commands].join("\n"));
				return true;
			}
			case "prompt":
				out(host.buildToolsPrompt());
				return true;
			case "help":
			case "?":
				out(REPL_HELP);
				return true;
			case "expand":
				if (rest === "on" || rest === "off") {
					expanded = rest === "on";
					out(`results are ${expanded ? "shown in full" : "shown as a preview"}`);
				} else fail("usage: expand on|off");
				return true;
			case "reload":
				if (!host.reload) {
					fail("reload: this host cannot reload on demand");
					return true;
				}
				try {
					await host.reload(restWords.length > 0 ? resolve(cwd, rest) : undefined);
				} catch (error) {
					out(theme.fg("error", `reload failed: ${errorMessage(error)}`));
				}
				return true;
			case "exit":
			case "quit":
				return false;
			default:
				fail(`unknown command '${word}' (type help for the list)`);
				return true;
		}
	};

	const queue: string[] = [];
	let pumping = false;
	let inputClosed = false;
	const pump = async () => {
		if (pumping) return;
		pumping = true;
		while (queue.length > 0 && !finished) {
			const line = queue.shift()!;
			let keepGoing = true;
			try {
				keepGoing = await handle(line);
			} catch (error) {
				out(theme.fg("error", `internal error: ${errorMessage(error)}`));
			}
			if (!keepGoing) {
				await finish(EXIT_OK);
				break;
			}
		}
		pumping = false;
		if (finished) return;
		if (inputClosed) await finish(inputErrors > 0 && !interactive ? EXIT_FAILURE : EXIT_OK);
		else if (interactive) rl.prompt();
	};
	rl.on("line", (line) => {
		queue.push(line);
		void pump();
	});
	rl.on("close", () => {
		inputClosed = true;
		if (interactive && !finished) out("");
		void pump();
	});
	if (interactive) rl.prompt();
	return exited;
}

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

export function createDevCommand(factory: DevHostFactory = startExtensionHost) {
	return defineCommand({
		name: "dev",
		summary: "Try tools at a prompt while their extensions hot-reload",
		description: [
			"Prints the tools and any diagnostics, then watches every extension file (and the local modules",
			"it imports) and prints one line per reload. At the prompt, `call <tool> <json-args>` runs a tool",
			"and shows its renderCall/renderResult output; type `help` for the other commands.",
			"When stdin is not a terminal, the same commands are read from it line by line and the command",
			"exits at the end of input (exit code 1 if a line could not be run).",
			"Without paths only the built-in tools are loaded.",
		].join("\n"),
		options: {
			...hostOptions,
			ui: {
				type: "boolean",
				default: false,
				description: "Also serve the web inspector (as toolsmith inspect does) beside the prompt",
			},
			...inspectorOptions,
		},
		positionals: [{ name: "paths", variadic: true, description: "Extension files or folders to load" }],
		examples: [
			"toolsmith dev docs/examples",
			"toolsmith dev docs/examples --ui --open",
			"toolsmith dev ./my-tool.ts --env memory",
			`printf 'call hello {"name":"Ada"}\\n' | toolsmith dev docs/examples/hello.ts`,
		],
		async run({ options, positionals, io, theme, given }) {
			const cwd = resolve(io.cwd, options.cwd ?? ".");
			const paths = positionals.map((p) => resolve(io.cwd, p));
			const uiOnly = Object.keys(inspectorOptions).filter((name) => given.has(name));
			if (!options.ui && uiOnly.length > 0) throw new UsageError(`--${uiOnly[0]} applies to the page: add --ui`);
			const settings = options.ui ? inspectorSettings(options, io) : undefined;
			const hostRequest = {
				paths,
				env: options.env === "memory" ? ("memory" as const) : ("node" as const),
				cwd,
				watch: options.watch,
				confine: options.confine,
				confineReads: options["confine-reads"],
				...loadTimeout(options["load-timeout"]),
				log: hostLogTo(io.stdout, theme),
			};
			let host: DevHost;
			let ready: ExtensionHostReady;
			let page: InspectorServer | undefined;
			if (settings) {
				({ host, ready, server: page } = await startHostWithPage(factory, hostRequest, settings, options.env));
			} else {
				({ host, ready } = await startHost(factory, hostRequest));
			}
			const { diagnostics, watching } = ready;
			const interactive = io.stdin.isTTY === true && io.stdout.isTTY === true;
			const tools = activeTools(host);
			const extensionCount = tools.filter((t) => t.source.kind === "extension").length;
			io.stdout.write(
				`${theme.bold("toolsmith dev")} · ${tools.length} tools (${extensionCount} from extensions) · ${options.env} env${confinedLabel(options.confine, options["confine-reads"])} · cwd ${displayPath(cwd, io.cwd)}\n`,
			);
			io.stdout.write(
				`${formatToolsTable(tools, io.cwd, theme, interactive ? outputWidth(io.stdout, io.env) : undefined, host.extensions()).join("\n")}\n`,
			);
			const commands = formatCommandList(extensionCommands(host), io.cwd, theme);
			if (commands.length > 0) io.stdout.write(`\n${commands.join("\n")}\n`);
			for (const diagnostic of diagnostics) {
				io.stdout.write(`${formatDiagnostic(diagnostic, io.cwd, theme)}\n`);
			}
			if (page && settings) {
				io.stdout.write(`${inspectorLine(page, theme)}\n`);
				await openPageIfAsked(page, settings, io);
			}
			let status = "";
			if (paths.length > 0 && watching) status = `watching ${paths.length} path${paths.length === 1 ? "" : "s"} · `;
			else if (paths.length > 0 && options.watch) status = "not watching: type reload to pick up changes · ";
			io.stdout.write(`${theme.fg("muted", `${status}type help for commands`)}\n`);
			return runDevLoop(host, { io, theme, cwd: io.cwd, interactive });
		},
	});
}
