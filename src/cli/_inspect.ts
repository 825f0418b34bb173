/**
 * The web inspector from the command line: `toolsmith inspect [paths…]` (the page alone) and the
 * options `toolsmith dev --ui` shares with it. The server itself (`src/inspector/`) is imported when
 * one starts, so `--help` stays fast.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { UsageError } from "../command/args.js";
import { CommandError, defineCommand, EXIT_OK } from "../command/node-command.js";
import type { CliIO } from "../command/node-io.js";
import type { ExecutionEnv } from "../contract/env.js";
import { errorMessage } from "../contract/errors.js";
import type { Theme } from "../contract/render.js";
import { formatDiagnostic } from "../extensions/node-event-lines.js";
import type { ExtensionHostReady } from "../extensions/node-host.js";
import type { RecordingEnv } from "../harness/record.js";
import type { InspectorServer } from "../inspector/node-server.js";
import type { InspectorSession } from "../inspector/session.js";
import { isLoopbackHostname } from "../mcp/loopback.js";
import {
	connectRemoteEnv,
	cwdPolicy,
	type DevHost,
	type DevHostFactory,
	type DevHostOptions,
	devHostOptions,
	hostLogTo,
	hostOptions,
	loadTimeout,
	startExtensionHost,
	startHost,
	whereToolsRun,
} from "./_dev-host.js";
import { followHostLog } from "./_host-log.js";
import { SSH_HELP, sshWhere } from "./_ssh.js";

/** Shortest token accepted from `--token` (the generated one has 48 hex digits). */
const MIN_TOKEN_LENGTH = 16;

/** The options `inspect` and `dev --ui` share. */
export const inspectorOptions = {
	open: { type: "boolean", default: false, description: "Open the page in the browser ($BROWSER, else the system's)" },
	host: {
		type: "string",
		valueName: "address",
		description: "Interface to serve the page on (default 127.0.0.1; any other needs --token)",
	},
	port: { type: "string", valueName: "port", description: "Port of the page (default: a free one)" },
	token: {
		type: "string",
		valueName: "token",
		description: `Session token the page's address carries (default: a random one; $TOOLSMITH_INSPECTOR_TOKEN), at least ${MIN_TOKEN_LENGTH} characters`,
	},
	fixtures: {
		type: "string",
		valueName: "dir",
		description: "Where Save as fixture writes (default: test/fixtures under --cwd)",
	},
	"allow-eval-code": {
		type: "boolean",
		default: false,
		description:
			"Under --confine, let the Evals tab import eval code from the working folder (*.eval.ts, a JSON scenario's extensions, scripted: modules), which the model may have written",
	},
} as const;

/** What the inspector options asked for, checked. */
export interface InspectorSettings {
	readonly hostname: string;
	readonly port: number;
	readonly token?: string;
	readonly open: boolean;
	readonly fixturesDir?: string;
	/** `--allow-eval-code`: import eval code even under a path policy. */
	readonly allowEvalCode: boolean;
}

export function inspectorSettings(
	options: {
		readonly open: boolean;
		readonly host?: string | undefined;
		readonly port?: string | undefined;
		readonly token?: string | undefined;
		readonly fixtures?: string | undefined;
		readonly "allow-eval-code"?: boolean;
		readonly confine?: boolean;
		readonly "confine-reads"?: boolean;
	},
	io: Pick<CliIO, "env" | "cwd">,
): InspectorSettings {
	const hostname = (options.host ?? "127.0.0.1").replace(/^\[(.*)\]$/, "$1");
	if (hostname === "") throw new UsageError("--host needs an address, e.g. 127.0.0.1");
	let port = 0;
	if (options.port !== undefined) {
		port = /^\d{1,5}$/.test(options.port) ? Number(options.port) : Number.NaN;
		if (!Number.isInteger(port) || port > 65_535) {
			throw new UsageError(
				`--port takes a number from 0 to 65535 (0: a free port), not ${JSON.stringify(options.port)}`,
			);
		}
	}
	const token = options.token ?? io.env.TOOLSMITH_INSPECTOR_TOKEN;
	if (token !== undefined && token.length < MIN_TOKEN_LENGTH) {
		throw new UsageError(`--token must be at least ${MIN_TOKEN_LENGTH} characters long (it guards your tools)`);
	}
	if (token !== undefined && !/^[\x21-\x7e]+$/.test(token)) {
		throw new UsageError("--token may hold printable ASCII characters only, no spaces");
	}
	if (!isLoopbackHostname(hostname) && token === undefined) {
		throw new UsageError(
			`--host ${hostname} lets other machines run your tools through the page: give --token (or TOOLSMITH_INSPECTOR_TOKEN) too`,
		);
	}
	const allowEvalCode = options["allow-eval-code"] === true;
	if (allowEvalCode && !options.confine && !options["confine-reads"]) {
		throw new UsageError(
			"--allow-eval-code applies under --confine or --confine-reads: without a path policy the Evals tab imports eval code already",
		);
	}
	return {
		hostname,
		port,
		...(token !== undefined ? { token } : {}),
		open: options.open,
		allowEvalCode,
		...(options.fixtures !== undefined ? { fixturesDir: resolve(io.cwd, options.fixtures) } : {}),
	};
}

/**
 * Open `url` in a browser without waiting for it: `$BROWSER` when set (a program, given the URL as
 * its argument), else `open` (macOS), `start` (Windows) or `xdg-open`. Resolves to an error message
 * when nothing could be started.
 */
function openInBrowser(url: string, env: Readonly<Record<string, string | undefined>>): Promise<string | undefined> {
	const browser = env.BROWSER?.trim();
	const [command, args] = browser
		? [browser, [url]]
		: process.platform === "darwin"
			? ["open", [url]]
			: process.platform === "win32"
				? ["cmd", ["/c", "start", '""', url]]
				: ["xdg-open", [url]];
	return new Promise((resolvePromise) => {
		try {
			const child = spawn(command, args, { detached: true, stdio: "ignore" });
			child.once("error", (error) => resolvePromise(`${command}: ${errorMessage(error)}`));
			child.once("spawn", () => {
				child.unref();
				resolvePromise(undefined);
			});
		} catch (error) {
			resolvePromise(`${command}: ${errorMessage(error)}`);
		}
	});
}

/** A host's execute routed through the session, so what the terminal runs is recorded too. */
function recordedHost(host: DevHost, session: InspectorSession, close: () => Promise<void>): DevHost {
	return {
		ready: host.ready,
		registry: host.registry,
		runtime: host.runtime,
		execute: (calls, options) => session.execute(calls, options ?? {}, "terminal"),
		buildToolsPrompt: () => host.buildToolsPrompt(),
		extensions: () => host.extensions(),
		on: ((event: "reload" | "diagnostic", listener: never) => host.on(event as "reload", listener)) as DevHost["on"],
		close,
		...(host.reload ? { reload: host.reload.bind(host) } : {}),
	};
}

/**
 * The host `dev --ui` and `inspect` run: its env wrapped to record (for Save as fixture), the page
 * served over it, every batch run through the page's session. Its `close` closes the page first.
 * A `CommandError` when the host or the page cannot start (the host is closed then). `pageCwd` is
 * the folder the page shows paths against and saves fixtures under (the host's by default; this
 * machine's when the tools run over SSH).
 */
export async function startHostWithPage(
	factory: DevHostFactory,
	options: Omit<DevHostOptions, "wrapEnv">,
	settings: InspectorSettings,
	envKind: string,
	pageCwd: string = options.cwd,
): Promise<{ host: DevHost; ready: ExtensionHostReady; server: InspectorServer }> {
	const [{ recordingEnv }, { startInspector }, { InspectorSession }] = await Promise.all([
		import("../harness/record.js"),
		import("../inspector/node-server.js"),
		import("../inspector/session.js"),
	]);
	let recorder: RecordingEnv | undefined;
	const wrapEnv = (env: ExecutionEnv) => {
		recorder = recordingEnv(env);
		return recorder;
	};
	const { host: inner, ready } = await startHost(factory, { ...options, wrapEnv });
	const session = new InspectorSession(inner, recorder);
	let server: InspectorServer;
	try {
		server = await startInspector({
			host: inner,
			session,
			cwd: pageCwd,
			envKind,
			extensionPaths: options.paths,
			// Under a policy the page's own folder may hold what the model wrote: eval code needs the opt-in.
			...(options.confine || options.confineReads
				? { policy: cwdPolicy(pageCwd, options.confineReads), allowEvalCode: settings.allowEvalCode }
				: {}),
			hostname: settings.hostname,
			port: settings.port,
			...(settings.token !== undefined ? { token: settings.token } : {}),
			...(settings.fixturesDir !== undefined ? { fixturesDir: settings.fixturesDir } : {}),
		});
	} catch (error) {
		await inner.close();
		throw new CommandError(`could not start the inspector: ${errorMessage(error)}`);
	}
	const host = recordedHost(inner, session, async () => {
		await server.close();
		await inner.close();
	});
	return { host, ready, server };
}

/** `--open`: the page in a browser; a line on stderr when none could be started. */
export async function openPageIfAsked(server: InspectorServer, settings: InspectorSettings, io: CliIO): Promise<void> {
	if (!settings.open) return;
	const problem = await openInBrowser(server.url, io.env);
	if (problem) io.stderr.write(`could not open a browser (${problem}): open the address above yourself\n`);
}

/** The line that gives the page's address (and what to do with it). */
export function inspectorLine(server: InspectorServer, theme: Theme): string {
	return `${theme.bold("inspector")} ${server.url} ${theme.fg("muted", "(the token in the address is your key: do not share it)")}`;
}

export const inspectCommand = defineCommand({
	name: "inspect",
	summary: "Try tools in a local web page: forms, rendered results, live reload, fixtures",
	description: [
		"Loads the built-ins and the extensions, watches them, and serves a page on 127.0.0.1 and a free",
		"port: the tools with their source and diagnostics, a form for each tool's parameters (validated",
		"as the executor validates), calls with their rendered result, content, details and updates,",
		"what each provider receives, and Save as fixture, which writes the calls made so far as a replay",
		"fixture for toolsmith test. The address printed carries a session token every request needs;",
		"requests with another Host or Origin are refused. Stops on Ctrl-C or SIGTERM.",
		"Without paths only the built-in tools are loaded. toolsmith dev --ui starts the same page beside",
		"the terminal prompt.",
		...SSH_HELP,
		"Over SSH, Save as fixture records the calls made on the remote host into a fixture on this machine.",
	].join("\n"),
	options: {
		...hostOptions,
		...inspectorOptions,
	},
	positionals: [{ name: "paths", variadic: true, description: "Extension files or folders to load" }],
	examples: [
		"toolsmith inspect docs/examples",
		"toolsmith inspect ./my-tool.ts --open",
		"toolsmith inspect ./my-tool.ts --ssh me@buildbox:/srv/app",
		"toolsmith dev docs/examples --ui",
	],
	async run({ options, positionals, io, theme, given }) {
		const settings = inspectorSettings(options, io);
		const paths = positionals.map((p) => resolve(io.cwd, p));
		const timeout = loadTimeout(options["load-timeout"]);
		// Connected before any extension loads: a bad host, key or folder ends the command here.
		const remote = await connectRemoteEnv(options, given, io);
		try {
			const cwd = remote?.cwd ?? resolve(io.cwd, options.cwd ?? ".");
			const { host, ready, server } = await startHostWithPage(
				startExtensionHost,
				devHostOptions(options, paths, cwd, remote, timeout, hostLogTo(io.stdout, theme), given.has("watch")),
				settings,
				remote ? `ssh ${sshWhere(remote)}` : options.env,
				// Over SSH the page's own files (fixtures, eval scenarios) stay on this machine.
				remote ? io.cwd : cwd,
			);
			const where = whereToolsRun(remote, options, cwd, io.cwd);
			return await pageUntilStopped(host, ready, server, { io, theme, settings, where });
		} finally {
			await remote?.close();
		}
	},
});

/** Follow the host's log and print the header and the page's address; resolve once stopped. */
async function pageUntilStopped(
	host: DevHost,
	ready: ExtensionHostReady,
	server: InspectorServer,
	{ io, theme, settings, where }: { io: CliIO; theme: Theme; settings: InspectorSettings; where: string },
): Promise<number> {
	const hostLog = followHostLog(host, {
		cwd: io.cwd,
		theme,
		print: (lines) => io.stdout.write(`${lines.join("\n")}\n`),
	});
	// Signals are handled before the address is printed: whoever reads it may stop us at once.
	let stopping = false;
	let resolveStopped!: () => void;
	const stopped = new Promise<void>((r) => {
		resolveStopped = r;
	});
	const stop = (reason: string) => {
		if (stopping) return;
		stopping = true;
		io.stdout.write(`${theme.fg("muted", `toolsmith inspect · stopping (${reason})`)}\n`);
		offInterrupt();
		offTerminate?.();
		hostLog.stop();
		host.close().finally(resolveStopped);
	};
	const offInterrupt = io.onInterrupt(() => stop("SIGINT"));
	const offTerminate = io.onTerminate?.(() => stop("SIGTERM"));
	const tools = host.registry.snapshot().active.length;
	io.stdout.write(`${theme.bold("toolsmith inspect")} · ${tools} tool${tools === 1 ? "" : "s"} · ${where}\n`);
	for (const diagnostic of ready.diagnostics) io.stdout.write(`${formatDiagnostic(diagnostic, io.cwd, theme)}\n`);
	io.stdout.write(`${inspectorLine(server, theme)}\n`);
	await openPageIfAsked(server, settings, io);
	await stopped;
	return EXIT_OK;
}
