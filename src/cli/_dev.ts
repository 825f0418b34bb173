/**
 * `toolsmith dev`: load the built-ins and extensions in the extension host (imported when the
 * command runs, so `--help` stays fast), watch them, and try tools from a prompt (or from piped
 * stdin, one command per line). The loop's state and steps: `_dev-loop-state.ts`, `_dev-call.ts`,
 * `_dev-commands.ts`.
 */
import { resolve } from "node:path";
import { createInterface, type Interface } from "node:readline";
import type { Writable } from "node:stream";
import { UsageError } from "../command/args.js";
import { defineCommand } from "../command/node-command.js";
import { outputWidth } from "../command/node-io.js";
import { formatDiagnostic } from "../extensions/node-event-lines.js";
import type { ExtensionHostReady } from "../extensions/node-host.js";
import type { InspectorServer } from "../inspector/node-server.js";
import { complete, pump } from "./_dev-commands.js";
import {
	connectRemoteEnv,
	type DevHost,
	type DevHostFactory,
	devHostOptions,
	hostLogTo,
	hostOptions,
	loadTimeout,
	startExtensionHost,
	startHost,
	whereToolsRun,
} from "./_dev-host.js";
import { activeTools, createDevLoopState, type DevLoopOptions, extensionCommands, out } from "./_dev-loop-state.js";
import { formatCommandList, formatToolsTable } from "./_format.js";
import {
	type InspectorSettings,
	inspectorLine,
	inspectorOptions,
	inspectorSettings,
	openPageIfAsked,
	startHostWithPage,
} from "./_inspect.js";
import { SSH_HELP, sshWhere } from "./_ssh.js";

export { complete, REPL_HELP } from "./_dev-commands.js";
export type { DevLoopOptions } from "./_dev-loop-state.js";

/**
 * Read commands until `exit`, end of input or a second Ctrl-C; close the host; resolve to the exit
 * code: 0, 1 when a piped command could not be run (unknown command, bad JSON), 130 on Ctrl-C.
 */
export function runDevLoop(host: DevHost, options: DevLoopOptions): Promise<number> {
	const { io, interactive } = options;
	const rl: Interface = createInterface({
		input: io.stdin,
		...(interactive
			? { output: io.stdout as unknown as Writable, terminal: true, completer: (line: string) => complete(host, line) }
			: { terminal: false }),
		prompt: "toolsmith> ",
	});
	const state = createDevLoopState(host, options, rl);
	rl.on("line", (line) => {
		state.queue.push(line);
		void pump(state);
	});
	rl.on("close", () => {
		state.inputClosed = true;
		if (interactive && !state.finished) out(state, "");
		void pump(state);
	});
	if (interactive) rl.prompt();
	return state.exited;
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
			...SSH_HELP,
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
			"toolsmith dev docs/examples --ssh me@buildbox:/srv/app",
			`printf 'call hello {"name":"Ada"}\\n' | toolsmith dev docs/examples/hello.ts`,
		],
		async run({ options, positionals, io, theme, given }) {
			const paths = positionals.map((p) => resolve(io.cwd, p));
			const uiOnly = Object.keys(inspectorOptions).filter((name) => given.has(name));
			if (!options.ui && uiOnly.length > 0) throw new UsageError(`--${uiOnly[0]} applies to the page: add --ui`);
			const settings = options.ui ? inspectorSettings(options, io) : undefined;
			const timeout = loadTimeout(options["load-timeout"]);
			// Connected before any extension loads: a bad host, key or folder ends the command here.
			const remote = await connectRemoteEnv(options, given, io);
			try {
				const cwd = remote?.cwd ?? resolve(io.cwd, options.cwd ?? ".");
				const log = hostLogTo(io.stdout, theme);
				const hostRequest = devHostOptions(options, paths, cwd, remote, timeout, log, given.has("watch"));
				const where = whereToolsRun(remote, options, cwd, io.cwd);
				let started: { host: DevHost; ready: ExtensionHostReady; server?: InspectorServer };
				if (settings) {
					const envKind = remote ? `ssh ${sshWhere(remote)}` : options.env;
					// Over SSH the page's own files (fixtures, eval scenarios) stay on this machine.
					started = await startHostWithPage(factory, hostRequest, settings, envKind, remote ? io.cwd : cwd);
				} else {
					started = await startHost(factory, hostRequest);
				}
				return await greetAndLoop(started, { io, theme, settings, where, paths, watch: hostRequest.watch ?? false });
			} finally {
				await remote?.close();
			}
		},
	});
}

/** The header, the tools, the diagnostics and the page's address; then the loop, to its exit code. */
async function greetAndLoop(
	{ host, ready, server: page }: { host: DevHost; ready: ExtensionHostReady; server?: InspectorServer },
	{
		io,
		theme,
		settings,
		where,
		paths,
		watch,
	}: Pick<DevLoopOptions, "io" | "theme"> & {
		settings: InspectorSettings | undefined;
		where: string;
		paths: readonly string[];
		watch: boolean;
	},
): Promise<number> {
	const { diagnostics, watching } = ready;
	const interactive = io.stdin.isTTY === true && io.stdout.isTTY === true;
	const tools = activeTools(host);
	const extensionCount = tools.filter((t) => t.source.kind === "extension").length;
	io.stdout.write(
		`${theme.bold("toolsmith dev")} · ${tools.length} tools (${extensionCount} from extensions) · ${where}\n`,
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
	else if (paths.length > 0 && watch) status = "not watching: type reload to pick up changes · ";
	io.stdout.write(`${theme.fg("muted", `${status}type help for commands`)}\n`);
	return runDevLoop(host, { io, theme, cwd: io.cwd, interactive });
}
