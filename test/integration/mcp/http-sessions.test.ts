/**
 * `toolsmith mcp --http` as a real child process, against clients that misbehave: one that drops
 * its connection while its call runs (the call is aborted), many that open sessions and never close
 * them (at most `--max-sessions` stay open, the least recently used idle one making room; when all
 * are in use a new one is refused with 503), and sessions left idle (closed after
 * `--session-idle-timeout`, unless a call of theirs is in flight). Sessions are counted by asking
 * each one for a ping: a closed session answers 404 (and, in the library, by `sessions()`).
 */
import { type ClientRequest, request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveMcpOverHttp } from "../../../src/mcp/node-http.js";
import { INITIALIZE, makeProject, type Project, type RawServer, startHttp, until } from "./_cli-server.js";

interface Answer {
	readonly status: number;
	readonly body: string;
	readonly sessionId: string | undefined;
}

/** POST one JSON-RPC message; `sent` gets the request, to drop it. */
function post(url: URL, message: object, sessionId?: string, sent?: (req: ClientRequest) => void): Promise<Answer> {
	return new Promise((resolve, reject) => {
		const req = request(
			url,
			{
				method: "POST",
				headers: {
					"content-type": "application/json",
					accept: "application/json, text/event-stream",
					...(sessionId ? { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" } : {}),
				},
			},
			(res) => {
				let body = "";
				res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
				res.on("end", () => {
					const id = res.headers["mcp-session-id"];
					resolve({ status: res.statusCode ?? 0, body, sessionId: Array.isArray(id) ? id[0] : id });
				});
				res.on("error", reject);
			},
		);
		req.on("error", reject);
		req.end(JSON.stringify(message));
		sent?.(req);
	});
}

async function openSession(url: URL): Promise<string> {
	const answer = await post(url, INITIALIZE);
	expect(answer.status).toBe(200);
	expect(answer.sessionId).toBeTruthy();
	return answer.sessionId as string;
}

let pings = 100;
const ping = async (url: URL, sessionId: string): Promise<number> =>
	(await post(url, { jsonrpc: "2.0", id: pings++, method: "ping" }, sessionId)).status;

/** How many of `ids` are open sessions (a closed one answers 404). */
async function openCount(url: URL, ids: readonly string[]): Promise<number> {
	const statuses = await Promise.all(ids.map((id) => ping(url, id)));
	for (const status of statuses) expect([200, 404]).toContain(status);
	return statuses.filter((s) => s === 200).length;
}

/** Start the probe's `wait` tool in `sessionId`; the promise settles when the answer (or a drop) does. */
function startWait(url: URL, sessionId: string, id: number, sent?: (req: ClientRequest) => void): Promise<Answer> {
	return post(
		url,
		{ jsonrpc: "2.0", id, method: "tools/call", params: { name: "wait", arguments: {} } },
		sessionId,
		sent,
	);
}

describe("toolsmith mcp --http: dropped connections, session cap and idle expiry", () => {
	let project: Project;
	// One server with a short idle timeout, one with a small cap and no idle expiry.
	let idling: { server: RawServer; url: URL };
	let capped: { server: RawServer; url: URL };

	beforeAll(async () => {
		project = makeProject();
		[idling, capped] = await Promise.all([
			startHttp([".", "--no-watch", "--session-idle-timeout", "0.5"], project.dir),
			startHttp([".", "--no-watch", "--max-sessions", "2", "--session-idle-timeout", "0"], project.dir),
		]);
	}, 60_000);
	afterAll(async () => {
		for (const started of [idling, capped]) {
			if (!started) continue;
			started.server.kill("SIGTERM");
			expect(await started.server.exited).toBe(0);
		}
		project?.remove();
	});

	it("aborts the call of a client that dropped its connection, and keeps the session", async () => {
		const { url } = idling;
		const sessionId = await openSession(url);
		const before = project.marked().length;
		let req: ClientRequest | undefined;
		const waiting = startWait(url, sessionId, 1, (r) => {
			req = r;
		}).catch(() => "dropped");
		await until(() => project.marked().length > before, "the wait tool to start");
		req?.destroy();
		expect(await waiting).toBe("dropped");
		await until(() => project.marked().slice(before).includes("aborted"), "the call's signal to be aborted", 10_000);
		expect(await ping(url, sessionId)).toBe(200);
	});

	it("closes a session idle for --session-idle-timeout, but not while its call is in flight", async () => {
		const { url, server } = idling;
		const idle = await openSession(url);
		const working = await openSession(url);
		const before = project.marked().length;
		let req: ClientRequest | undefined;
		const waiting = startWait(url, working, 20, (r) => {
			req = r;
		}).catch(() => "dropped");
		await until(() => project.marked().length > before, "the wait tool to start");
		await new Promise((resolve) => setTimeout(resolve, 1_200));
		expect(await ping(url, idle)).toBe(404);
		expect(await ping(url, working)).toBe(200);
		expect(server.stderr()).toMatch(/idle for 500 ms/);
		req?.destroy();
		await waiting;
		// Each ping is a use, so wait without one before looking.
		await new Promise((resolve) => setTimeout(resolve, 1_200));
		expect(await ping(url, working)).toBe(404);
	});

	it("keeps at most --max-sessions open, closing the least recently used idle one for a new one", async () => {
		const { url, server } = capped;
		const ids = [await openSession(url), await openSession(url), await openSession(url)];
		// The first was the least recently used: the third took its place.
		expect(await ping(url, ids[0] as string)).toBe(404);
		// Using the second makes the third the least recently used.
		expect(await ping(url, ids[1] as string)).toBe(200);
		ids.push(await openSession(url));
		expect(await ping(url, ids[2] as string)).toBe(404);
		// Clients that open sessions and never close them: the count stays at the cap.
		for (let i = 0; i < 20; i++) ids.push(await openSession(url));
		expect(await openCount(url, ids)).toBe(2);
		expect(server.stderr()).toMatch(/closed for a new one at the cap of 2/);
	});

	it("refuses a new session with 503 when every session has a call in flight", async () => {
		const { url } = capped;
		const busy = [await openSession(url), await openSession(url)];
		const before = project.marked().filter((m) => m === "started").length;
		const requests: ClientRequest[] = [];
		const waits = busy.map((id, i) => startWait(url, id, 10 + i, (r) => requests.push(r)).catch(() => "dropped"));
		await until(() => project.marked().filter((m) => m === "started").length >= before + 2, "both wait calls to start");
		const refused = await post(url, INITIALIZE);
		expect(refused.status).toBe(503);
		expect(JSON.parse(refused.body)).toMatchObject({
			jsonrpc: "2.0",
			id: null,
			error: { message: expect.stringMatching(/all 2 sessions .* are in use/) },
		});
		expect(await openCount(url, busy)).toBe(2);
		// Once the calls are gone (their clients dropped them), a new session gets in.
		for (const req of requests) req.destroy();
		await Promise.all(waits);
		// (The server hears of the drops a moment after the client made them.)
		await until(async () => (await post(url, INITIALIZE)).status === 200, "a new session to be accepted", 10_000);
	});
});

describe("serveMcpOverHttp: sessions() with abandoned sessions", () => {
	it("stays at maxSessions however many are opened and abandoned, and drops to 0 once they expire", async () => {
		const endpoint = await serveMcpOverHttp({ tools: [], maxSessions: 5, sessionIdleTimeoutMs: 300 });
		try {
			const url = new URL(endpoint.url);
			for (let i = 0; i < 40; i++) await openSession(url);
			expect(endpoint.sessions()).toBe(5);
			await until(() => endpoint.sessions() === 0, "the abandoned sessions to expire", 5_000);
		} finally {
			await endpoint.close();
		}
	});

	it("refuses options out of range", async () => {
		await expect(serveMcpOverHttp({ tools: [], maxSessions: 0 })).rejects.toThrow(/maxSessions/);
		await expect(serveMcpOverHttp({ tools: [], sessionIdleTimeoutMs: 2 ** 31 })).rejects.toThrow(
			/sessionIdleTimeoutMs/,
		);
	});
});
