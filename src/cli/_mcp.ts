/**
 * `toolsmith mcp [paths…]`: the tools of extensions served to MCP clients over stdio (the default)
 * or Streamable HTTP (`--http`), hot-reloading as their files change. On stdio, stdout carries
 * protocol messages only: everything else (this command's own lines, the extensions' `console.log`)
 * goes to stderr.
 */
import { resolve } from "node:path";
import { UsageError } from "../command/args.js";
import { CommandError, defineCommand, EXIT_FAILURE, EXIT_OK } from "../command/node-command.js";
import { errorMessage } from "../contract/errors.js";
import { displayPath, formatDiagnostic } from "../extensions/node-event-lines.js";
import { isLoopbackHostname } from "../mcp/loopback.js";
import {
	confinedLabel,
	confinedWatch,
	cwdPolicy,
	limitOption,
	loadTimeout,
	loadTimeoutOption,
	sandboxLimits,
} from "./_dev-host.js";
import { followHostLog } from "./_host-log.js";
import { connectSsh, SSH_CONFINED, SSH_HELP, sshConfinePolicy, sshOptions, sshRequest, sshWhere } from "./_ssh.js";

/** `--http` as given: `port`, `host:port` or `[ipv6]:port`. */
export function parseListenAddress(text: string): { hostname: string; port: number } {
	const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(text.trim());
	const port = match ? Number(match[2]) : Number.NaN;
	if (!match || !Number.isInteger(port) || port > 65_535) {
		throw new UsageError(`--http takes a port or host:port (e.g. 3000 or 127.0.0.1:3000), not ${JSON.stringify(text)}`);
	}
	const host = match[1] ?? "127.0.0.1";
	return { hostname: host.startsWith("[") ? host.slice(1, -1) : host, port };
}

/** A whole number of at least `min` given to `--<flag>`, or a usage error. */
function parseCount(flag: string, text: string, min: number): number {
	const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
	if (!Number.isSafeInteger(value) || value < min) {
		throw new UsageError(`--${flag} takes a whole number of at least ${min}, not ${JSON.stringify(text)}`);
	}
	return value;
}

/** Seconds given to `--<flag>` (a fraction allowed), as milliseconds, or a usage error. */
function parseSeconds(flag: string, text: string): number {
	const value = /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
	const ms = Math.round(value * 1000);
	// Node's timers take at most 2^31 - 1 ms (about 24 days).
	if (!Number.isSafeInteger(ms) || ms > 2_147_483_647) {
		throw new UsageError(`--${flag} takes a number of seconds up to 2147483 (0: never), not ${JSON.stringify(text)}`);
	}
	return ms;
}

export const mcpCommand = defineCommand({
	name: "mcp",
	summary: "Serve the tools of extensions to MCP clients (stdio or Streamable HTTP)",
	description: [
		"Loads the extensions, serves their tools over the Model Context Protocol and reloads them when",
		"their files change (clients get notifications/tools/list_changed; a broken save keeps the last",
		"good tools and prints its diagnostic on stderr). Over stdio (the default) stdout carries protocol",
		"messages only: this command's lines and the extensions' console output go to stderr.",
		"--http serves Streamable HTTP at http://<host>:<port>/mcp instead, bound to 127.0.0.1 unless a",
		"host is given (another host needs --token); requests with a foreign Host or Origin are refused.",
		"--builtins adds read, bash, edit and write; the env is then confined to the working folder",
		"(files outside it refused, bash in an OS sandbox) unless --no-confine is given.",
		"A message over 17 MiB (a stdio line, an HTTP body) is refused with an error and the server",
		"goes on. Over HTTP, a client that drops its connection cancels the calls it was waiting for;",
		"at most --max-sessions sessions are open (a new one closes the least recently used idle one,",
		"or is refused with 503 when all are in use) and a session idle for --session-idle-timeout",
		"seconds is closed.",
		"Stops on SIGINT, SIGTERM or, over stdio, when stdin closes: calls in flight are aborted, the",
		"extensions' session_shutdown handlers run, and stderr says why it stopped.",
		...SSH_HELP,
		"With --builtins and --ssh, give --no-confine for bash to run on the remote host.",
	].join("\n"),
	options: {
		http: {
			type: "string",
			valueName: "[host:]port",
			description: "Serve Streamable HTTP on this port (0: a free one) instead of stdio",
		},
		token: {
			type: "string",
			valueName: "token",
			description: "With --http: require Authorization: Bearer <token> (default: $TOOLSMITH_MCP_TOKEN)",
		},
		"max-sessions": {
			type: "string",
			valueName: "n",
			description: "With --http: most client sessions open at once (default: 100)",
		},
		"session-idle-timeout": {
			type: "string",
			valueName: "seconds",
			description: "With --http: close a session idle this long (default: 1800; 0: never)",
		},
		builtins: { type: "boolean", default: false, description: "Serve the built-in tools too" },
		confine: {
			type: "boolean",
			default: false,
			description: "Confine tools to the working folder (on by default with --builtins)",
		},
		"confine-reads": {
			type: "boolean",
			default: false,
			description:
				"Confine bash's reads too: it sees only the working folder and the system folders (implies --confine)",
		},
		cwd: { type: "string", valueName: "dir", description: "Working folder the tools see (default: the current one)" },
		watch: { type: "boolean", default: true, description: "Reload extensions when their files change" },
		name: { type: "string", valueName: "name", description: "Server name clients see (default: toolsmith)" },
		...limitOption,
		...loadTimeoutOption,
		...sshOptions,
	},
	positionals: [{ name: "paths", variadic: true, description: "Extension files or folders to serve" }],
	examples: [
		"toolsmith mcp ./tools",
		"toolsmith mcp docs/examples --http 3000",
		"toolsmith mcp --builtins --cwd ./project",
		"toolsmith mcp --builtins --no-confine --ssh me@buildbox:/srv/app",
		'claude mcp add my-tools -- npx -y --package toolsmith-sdk toolsmith mcp "$PWD/tools"',
	],
	async run({ options, positionals, io, given, errorTheme, version }) {
		const ssh = sshRequest(options, io, {
			cwd: given.has("cwd") && "give the remote folder in the target instead (host:/path)",
		});
		const paths = positionals.map((p) => resolve(io.cwd, p));
		if (paths.length === 0 && !options.builtins) {
			throw new UsageError("give extension paths to serve, or --builtins for the built-in tools");
		}
		const listen = options.http !== undefined ? parseListenAddress(options.http) : undefined;
		const token = options.token ?? io.env.TOOLSMITH_MCP_TOKEN;
		if (token !== undefined && !listen) throw new UsageError("--token applies to --http only");
		if (token === "") throw new UsageError("--token must not be empty");
		if (listen && !token && !isLoopbackHostname(listen.hostname)) {
			throw new UsageError(
				`--http ${options.http} makes the tools reachable from other machines: give --token (or TOOLSMITH_MCP_TOKEN) too`,
			);
		}
		const maxSessionsText = options["max-sessions"];
		const idleText = options["session-idle-timeout"];
		if (!listen && (maxSessionsText !== undefined || idleText !== undefined)) {
			throw new UsageError("--max-sessions and --session-idle-timeout apply to --http only");
		}
		const maxSessions = maxSessionsText !== undefined ? parseCount("max-sessions", maxSessionsText, 1) : undefined;
		const sessionIdleTimeoutMs = idleText !== undefined ? parseSeconds("session-idle-timeout", idleText) : undefined;
		const confineReads = options["confine-reads"];
		if (confineReads && given.has("confine") && !options.confine) {
			throw new UsageError("--confine-reads confines the env: it cannot go with --no-confine");
		}
		const confine = confineReads || (given.has("confine") ? options.confine : options.builtins);
		const limits = sandboxLimits(options.limit, confine, ssh !== undefined);
		const timeout = loadTimeout(options["load-timeout"]);
		const say = (line: string) => io.stderr.write(`${line}\n`);
		// Connected before any extension loads: a bad host, key or folder ends the command here.
		const remote = ssh ? await connectSsh(ssh, confine ? sshConfinePolicy(confineReads) : undefined) : undefined;
		const cwd = remote?.cwd ?? resolve(io.cwd, options.cwd ?? ".");

		// Over stdio, stdout belongs to the protocol from here on, before any extension code runs.
		const protocolOut = !listen ? (io.reserveStdout?.() ?? undefined) : undefined;

		const [{ createExtensionHost }, { NodeExecutionEnv }, mcp] = await Promise.all([
			import("../extensions/node-host.js"),
			import("../env/node.js"),
			import("../mcp/node-server.js"),
		]);
		const env =
			remote ?? new NodeExecutionEnv({ cwd, ...(confine ? { policy: cwdPolicy(cwd, confineReads, limits) } : {}) });
		const closeEnv = async () => {
			await remote?.close();
		};
		const watching = confinedWatch(paths, cwd, {
			confined: confine && !remote,
			watch: options.watch,
			watchGiven: given.has("watch"),
		});
		if (watching.warning) say(`[warning] ${watching.warning}`);
		const host = createExtensionHost({
			paths,
			cwd,
			env,
			builtins: options.builtins,
			watch: watching.watch,
			...timeout,
			catchStrayErrors: true,
			refuseProcessExit: true,
			log: ({ level, message }) => say(`[${level}] ${message}`),
		});
		let ready: Awaited<typeof host.ready>;
		try {
			ready = await host.ready;
		} catch (error) {
			await host.close();
			await closeEnv();
			throw new CommandError(`could not start the host: ${errorMessage(error)}`);
		}
		for (const diagnostic of ready.diagnostics) say(formatDiagnostic(diagnostic, io.cwd, errorTheme));
		// From here on, reloads and later diagnostics, each shown once.
		const hostLog = followHostLog(host, {
			cwd: io.cwd,
			theme: errorTheme,
			print: (lines) => {
				for (const line of lines) say(line);
			},
		});
		const unsubscribe = [() => hostLog.stop()];

		const serverOptions = {
			host,
			name: options.name ?? "toolsmith",
			version,
			log: (message: string) => say(`[warning] ${message}`),
		};
		const active = host.registry.snapshot().active.length;
		const count = `${active} tool${active === 1 ? "" : "s"}`;
		const where = remote
			? `tools run on ${sshWhere(remote)}${confine ? SSH_CONFINED : ""}`
			: `cwd ${displayPath(cwd, io.cwd)}${confinedLabel(confine, confineReads)}`;

		let stop: () => Promise<void>;
		let exitCode = EXIT_OK;
		let shutdown: (reason: string, failed?: boolean) => void = () => {};
		const stopped = new Promise<void>((resolveStopped) => {
			let stopping = false;
			shutdown = (reason, failed = false) => {
				if (stopping) return;
				stopping = true;
				if (failed) exitCode = EXIT_FAILURE;
				say(`toolsmith mcp · stopping (${reason})`);
				(async () => {
					try {
						await stop();
					} catch (error) {
						say(`[error] closing the MCP server failed: ${errorMessage(error)}`);
					}
					for (const off of unsubscribe) off();
					await host.close();
					await closeEnv();
				})().finally(resolveStopped);
			};
			const offInterrupt = io.onInterrupt(() => shutdown("SIGINT"));
			const offTerminate = io.onTerminate?.(() => shutdown("SIGTERM"));
			// Nothing left to wait for (no connection, no timer) is a way of ending too: say so and
			// close properly, instead of letting Node exit with code 13 behind the handlers' back.
			const offIdle = io.onIdle?.(() => shutdown("nothing left to serve", true));
			unsubscribe.push(offInterrupt, ...(offTerminate ? [offTerminate] : []), ...(offIdle ? [offIdle] : []));
		});

		if (listen) {
			const { serveMcpOverHttp } = await import("../mcp/node-http.js");
			let endpoint: Awaited<ReturnType<typeof serveMcpOverHttp>>;
			try {
				endpoint = await serveMcpOverHttp({
					...serverOptions,
					hostname: listen.hostname,
					port: listen.port,
					...(token !== undefined ? { token } : {}),
					...(maxSessions !== undefined ? { maxSessions } : {}),
					...(sessionIdleTimeoutMs !== undefined ? { sessionIdleTimeoutMs } : {}),
				});
			} catch (error) {
				for (const off of unsubscribe) off();
				await host.close();
				await closeEnv();
				throw new CommandError(`could not serve over HTTP: ${errorMessage(error)}`);
			}
			stop = () => endpoint.close();
			say(
				`toolsmith mcp · ${count} · ${endpoint.url}${token !== undefined ? " (bearer token required)" : ""} · ${where}`,
			);
		} else {
			const { McpStdioTransport } = await import("../mcp/node-stdio.js");
			const server = await mcp.createMcpServer(serverOptions);
			const transport = new McpStdioTransport({
				stdin: io.stdin,
				stdout: protocolOut ?? (io.stdout as never),
				log: (message) => say(`[warning] ${message}`),
			});
			transport.closed.then((reason) => shutdown(reason, reason !== "stdin closed"));
			await server.connect(transport);
			stop = () => server.close();
			say(`toolsmith mcp · ${count} · stdio · ${where}`);
		}
		await stopped;
		return exitCode;
	},
});
