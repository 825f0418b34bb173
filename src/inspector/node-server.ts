/**
 * The inspector's loopback server: the page (built into `dist/inspector/`), a small JSON API over
 * an extension host, and a Server-Sent Events stream of reloads, diagnostics and call updates.
 * Every request must carry the session token and come with this server's own `Host` (and, when a
 * browser sends one, `Origin`): a page on another site, or one reached through DNS rebinding, is
 * refused with 403. Nothing here runs a command except a registered tool, through the executor.
 * The steps live in `node-server/`: the state and the host's events, calls, requests, fixtures.
 * Node-only.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "../contract/errors.js";
import type { ExtensionHostReady } from "../extensions/node-host.js";
import { isLoopbackHostname } from "../mcp/loopback.js";
import { createHttpServer, listen, RequestError } from "../mcp/node-request.js";
import { createBuiltinTools } from "../tools/builtins.js";
import { followTerminalCalls } from "./node-server/calls.js";
import { defaultAssetsDir, sendJson } from "./node-server/http.js";
import { handleRequest, type RequestGate } from "./node-server/routes.js";
import { createServerState, followHost } from "./node-server/state.js";
import type { InspectorOptions, InspectorServer } from "./node-server/types.js";

export type { InspectorHost, InspectorOptions, InspectorServer } from "./node-server/types.js";
export { toJson, validateForTool } from "./node-server/views.js";

/**
 * Start the inspector on `hostname` (loopback by default) and a free port. Resolves once listening
 * and the host is ready. Rejects when the port cannot be bound, the page is not built, or a
 * non-loopback `hostname` comes without `token`.
 */
export async function startInspector(options: InspectorOptions): Promise<InspectorServer> {
	const hostname = options.hostname ?? "127.0.0.1";
	if (!isLoopbackHostname(hostname) && !options.token) {
		throw new Error(
			`Serving the inspector on ${hostname} lets other machines run your tools: give a token (--token) too, and keep it secret.`,
		);
	}
	for (const [name, value] of [
		["maxEventStreams", options.maxEventStreams],
		["maxUnsentEventBytes", options.maxUnsentEventBytes],
		["maxPendingAnswerBytes", options.maxPendingAnswerBytes],
		["answerTimeoutMs", options.answerTimeoutMs],
	] as const) {
		if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1)) {
			throw new RangeError(`${name} must be a positive integer, not ${String(value)}`);
		}
	}
	const token = options.token ?? randomBytes(24).toString("hex");
	const assetsDir = options.assetsDir ?? defaultAssetsDir();
	const indexHtml = readFileSync(join(assetsDir, "index.html"), "utf8").replaceAll("__TOKEN__", token);
	const assets = new Map<string, { body: Buffer; type: string }>([
		["/app.js", { body: readFileSync(join(assetsDir, "app.js")), type: "text/javascript; charset=utf-8" }],
		["/app.css", { body: readFileSync(join(assetsDir, "app.css")), type: "text/css; charset=utf-8" }],
	]);
	const builtinNames = options.builtinNames ?? createBuiltinTools().map((t) => t.name);
	const ready: ExtensionHostReady = await options.host.ready;

	const state = createServerState(options, builtinNames, ready);
	const heartbeat = setInterval(() => state.streams.broadcast(": keep-alive\n\n"), 15_000);
	heartbeat.unref();
	followHost(state);
	followTerminalCalls(state);

	const http = createHttpServer((req, res) => {
		handleRequest(state, gate, req, res).catch((error: unknown) => {
			const status = error instanceof RequestError ? error.status : 500;
			const message = status === 500 ? `Internal error: ${errorMessage(error)}` : errorMessage(error);
			sendJson(res, status, { error: message }, error instanceof RequestError ? error.headers : {});
		});
	});
	const { port, urlHost } = await listen(http, options.port ?? 0, hostname);
	const url = `http://${urlHost}:${port}/?token=${token}`;
	const gate: RequestGate = {
		token,
		loopback: isLoopbackHostname(hostname),
		hosts: new Set(["127.0.0.1", "localhost", "[::1]", urlHost].map((h) => `${h}:${port}`)),
		indexHtml,
		assets,
		closed: false,
	};

	let closing: Promise<void> | undefined;
	return {
		url,
		port,
		token,
		eventStreams: () => state.streams.size,
		close() {
			closing ??= (async () => {
				gate.closed = true;
				clearInterval(heartbeat);
				for (const off of state.unsubscribe) off();
				for (const abort of state.running.values()) abort();
				state.streams.endAll();
				await new Promise<void>((resolvePromise) => {
					http.close(() => resolvePromise());
					http.closeAllConnections();
				});
			})();
			return closing;
		},
	};
}
