/**
 * The inspector's requests: the checks every one passes (Host, Origin, the session token), then
 * the page, its assets, the JSON API and the event stream (Node only).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ToolDefinition } from "../../contract/tool.js";
import { RequestError, sameSecret } from "../../mcp/node-request.js";
import type { ProviderTool } from "../../providers/tools.js";
import { TOOL_PROVIDERS } from "../../providers/types.js";
import type { ProvidersResponse } from "../protocol.js";
import { DEFAULT_WIDTH, startCall } from "./calls.js";
import { listScenarios, runScenario } from "./evals.js";
import { saveFixture } from "./fixture.js";
import { isRecord, readJson, send, sendJson } from "./http.js";
import { activeDefinition, pageState, type ServerState } from "./state.js";
import { providerView, toJson, validateForTool } from "./views.js";

/** Who may ask: the token, the names the server answers to, and the page it serves. */
export interface RequestGate {
	readonly token: string;
	/** Bound to loopback: only this machine's names for it are accepted as Host. */
	readonly loopback: boolean;
	/** The Host values accepted on loopback (`127.0.0.1:<port>`, `localhost:<port>`, …). */
	readonly hosts: ReadonlySet<string>;
	/** The page with the token filled in. */
	readonly indexHtml: string;
	/** `/app.js` and `/app.css`. */
	readonly assets: ReadonlyMap<string, { body: Buffer; type: string }>;
	/** Set when the server is closing: every request is then refused with 503. */
	closed: boolean;
}

function toolNamed(state: ServerState, name: unknown): ToolDefinition {
	if (typeof name !== "string") throw new RequestError(400, "Name the tool: { tool: <name> }.");
	const definition = activeDefinition(state, name);
	if (!definition) throw new RequestError(404, `No active tool is named ${JSON.stringify(name)}.`);
	return definition;
}

/**
 * Refuses a request that does not come from the page. DNS rebinding: a foreign page that resolves
 * its own name to this address still sends its own Host. On loopback only this machine's names for
 * it are accepted. Bound to another interface, the server is reached under names it cannot know
 * (its LAN address, a host name): any Host goes, the token guards it, and an Origin must still be
 * the page's own.
 */
function checkRequest(gate: RequestGate, req: IncomingMessage, target: URL): void {
	const hostHeader = req.headers.host ?? "";
	if (gate.loopback ? !gate.hosts.has(hostHeader) : hostHeader === "") {
		throw new RequestError(403, `Forbidden: Host ${JSON.stringify(hostHeader)} is not this server.`);
	}
	const origin = req.headers.origin;
	if (origin !== undefined && origin !== `http://${hostHeader}`) {
		throw new RequestError(403, `Forbidden: Origin ${JSON.stringify(origin)} is not this server.`);
	}
	const header = req.headers["x-toolsmith-token"];
	const given = target.searchParams.get("token") ?? (Array.isArray(header) ? header[0] : header) ?? "";
	if (!sameSecret(given, gate.token)) {
		throw new RequestError(403, "Forbidden: open the address toolsmith printed, with its token.");
	}
	if (gate.closed) throw new RequestError(503, "The inspector is shutting down.");
}

/** Answers one request; what it throws is answered by the caller (a `RequestError` with its status). */
export async function handleRequest(
	state: ServerState,
	gate: RequestGate,
	req: IncomingMessage,
	res: ServerResponse,
): Promise<void> {
	const target = new URL(req.url ?? "/", "http://localhost");
	checkRequest(gate, req, target);
	const route = `${req.method ?? "GET"} ${target.pathname}`;
	switch (route) {
		case "GET /":
		case "GET /index.html":
			return send(res, 200, gate.indexHtml, "text/html; charset=utf-8");
		case "GET /app.js":
		case "GET /app.css": {
			const asset = gate.assets.get(target.pathname)!;
			return send(res, 200, asset.body, asset.type);
		}
		case "GET /api/state":
			return state.answers.answerJson(res, route, () => pageState(state));
		case "GET /api/events":
			// 503 when the cap of streams is reached; a client that falls behind is dropped.
			return state.streams.open(res, () => ({ type: "hello", state: pageState(state) }));
		case "POST /api/validate": {
			const body = await readJson(req, res);
			if (!isRecord(body)) throw new RequestError(400, "Send { tool, args }.");
			return state.answers.answerJson(res, route, () => validateForTool(toolNamed(state, body.tool), body.args));
		}
		case "POST /api/call": {
			const body = await readJson(req, res);
			if (!isRecord(body) || typeof body.tool !== "string") throw new RequestError(400, "Send { tool, args }.");
			const width =
				typeof body.width === "number" && Number.isFinite(body.width)
					? Math.min(400, Math.max(20, Math.floor(body.width)))
					: DEFAULT_WIDTH;
			return sendJson(res, 200, startCall(state, body.tool, toJson(body.args ?? {}), width));
		}
		case "POST /api/abort": {
			const body = await readJson(req, res);
			const id = isRecord(body) && typeof body.id === "string" ? body.id : "";
			const abort = state.running.get(id);
			abort?.();
			return sendJson(res, 200, { aborted: abort !== undefined });
		}
		case "GET /api/providers": {
			const definition = toolNamed(state, target.searchParams.get("tool"));
			const tool: ProviderTool = {
				name: definition.name,
				description: definition.description,
				parameters: definition.parameters,
			};
			const providers = TOOL_PROVIDERS.map((p) => providerView(tool, p));
			return state.answers.answerJson(
				res,
				route,
				() => ({ tool: definition.name, providers }) satisfies ProvidersResponse,
			);
		}
		case "POST /api/fixture": {
			const body = await readJson(req, res);
			const name = isRecord(body) && typeof body.name === "string" ? body.name : undefined;
			return sendJson(res, 200, await saveFixture(state, name));
		}
		case "GET /api/evals": {
			const scenarios = await listScenarios(state);
			return state.answers.answerJson(res, route, () => scenarios);
		}
		case "POST /api/evals/run":
			return sendJson(res, 200, await runScenario(state, await readJson(req, res)));
		default:
			throw new RequestError(
				target.pathname.startsWith("/api/") || target.pathname === "/" ? 405 : 404,
				`No ${route} here.`,
			);
	}
}
