/**
 * A scripted OpenAI-compatible server on loopback for the eval provider tests and benchmark:
 * `POST /v1/chat/completions` (and `/chat/completions`) answers from a script given the parsed
 * request, as real SSE chunks when `stream: true` (text in pieces; each tool call's id and name
 * first, its arguments in several pieces; parallel calls by index; a usage chunk when
 * `stream_options.include_usage`), as one JSON body otherwise. It records every request.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One tool call the scripted model makes: its arguments as an object, or a raw string sent as is. */
export interface ScriptedCall {
	readonly name: string;
	readonly arguments: Record<string, unknown> | string;
	readonly id?: string;
}

/** What the scripted model answers to one request. */
export interface ScriptedAnswer {
	readonly text?: string;
	readonly toolCalls?: readonly ScriptedCall[];
	readonly usage?: { readonly prompt_tokens: number; readonly completion_tokens: number; readonly cost?: number };
	/** Wait this long between chunks (streaming only). */
	readonly chunkDelayMs?: number;
	/** Send this HTTP status and error body instead of an answer. */
	readonly status?: number;
	/**
	 * Accept the request and start the answer (the headers and a first chunk, or the start of the
	 * JSON body), then never end it: the response stays open until the client goes away.
	 */
	readonly neverEnd?: boolean;
}

/** A chat completions request as the server parsed it. */
export interface ChatRequest {
	readonly path: string;
	readonly headers: Readonly<Record<string, string | string[] | undefined>>;
	readonly body: {
		readonly model: string;
		readonly messages: readonly Record<string, unknown>[];
		readonly tools?: readonly {
			readonly type: string;
			readonly function: { readonly name: string; readonly description?: string; readonly parameters: unknown };
		}[];
		readonly stream?: boolean;
		readonly stream_options?: { readonly include_usage?: boolean };
		readonly [key: string]: unknown;
	};
}

export type Script = (request: ChatRequest, index: number) => ScriptedAnswer | Promise<ScriptedAnswer>;

export interface ScriptedServer {
	/** `http://127.0.0.1:<port>/v1` */
	readonly baseUrl: string;
	readonly requests: ChatRequest[];
	/** Streams that ended early because the client went away. */
	readonly aborted: number;
	close(): Promise<void>;
}

/** A seeded pseudo-random generator (mulberry32), for scripts that choose with a given probability. */
export function seededRandom(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

function readBody(request: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		request.on("data", (chunk: Buffer) => chunks.push(chunk));
		request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
		request.on("error", reject);
	});
}

function pieces(text: string, count: number): string[] {
	if (text.length === 0) return [];
	const size = Math.max(1, Math.ceil(text.length / count));
	const out: string[] = [];
	for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
	return out;
}

function argumentsText(call: ScriptedCall): string {
	return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function stream(
	response: ServerResponse,
	request: ChatRequest,
	answer: ScriptedAnswer,
	id: string,
	created: number,
): Promise<boolean> {
	response.writeHead(200, {
		"content-type": "text/event-stream",
		"cache-control": "no-cache",
		connection: "keep-alive",
	});
	const base = { id, object: "chat.completion.chunk", created, model: request.body.model };
	const send = async (chunk: Record<string, unknown> | "[DONE]"): Promise<boolean> => {
		if (response.destroyed || response.writableEnded) return false;
		response.write(`data: ${chunk === "[DONE]" ? chunk : JSON.stringify({ ...base, ...chunk })}\n\n`);
		if (answer.chunkDelayMs) await sleep(answer.chunkDelayMs);
		return !response.destroyed;
	};
	const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
		choices: [{ index: 0, delta: d, finish_reason: finish }],
	});
	if (!(await send(delta({ role: "assistant", content: "" })))) return false;
	for (const piece of pieces(answer.text ?? "", 3)) if (!(await send(delta({ content: piece })))) return false;
	const calls = answer.toolCalls ?? [];
	for (const [index, call] of calls.entries()) {
		const head = {
			index,
			id: call.id ?? `call_${index}_${id}`,
			type: "function",
			function: { name: call.name, arguments: "" },
		};
		if (!(await send(delta({ tool_calls: [head] })))) return false;
		for (const piece of pieces(argumentsText(call), 3)) {
			if (!(await send(delta({ tool_calls: [{ index, function: { arguments: piece } }] })))) return false;
		}
	}
	if (!(await send(delta({}, calls.length > 0 ? "tool_calls" : "stop")))) return false;
	if (request.body.stream_options?.include_usage) {
		const usage = answer.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
		const total = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
		if (!(await send({ choices: [], usage: total }))) return false;
	}
	await send("[DONE]");
	response.end();
	return true;
}

function whole(
	response: ServerResponse,
	request: ChatRequest,
	answer: ScriptedAnswer,
	id: string,
	created: number,
): void {
	const calls = answer.toolCalls ?? [];
	const usage = answer.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
	const body = {
		id,
		object: "chat.completion",
		created,
		model: request.body.model,
		choices: [
			{
				index: 0,
				message: {
					role: "assistant",
					content: answer.text ?? null,
					...(calls.length === 0
						? {}
						: {
								tool_calls: calls.map((call, index) => ({
									id: call.id ?? `call_${index}_${id}`,
									type: "function",
									function: { name: call.name, arguments: argumentsText(call) },
								})),
							}),
				},
				finish_reason: calls.length > 0 ? "tool_calls" : "stop",
			},
		],
		usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
	};
	response.writeHead(200, { "content-type": "application/json" });
	response.end(JSON.stringify(body));
}

/** Start the server on 127.0.0.1 (a free port); `script` answers each request. */
export async function startScriptedServer(script: Script): Promise<ScriptedServer> {
	const requests: ChatRequest[] = [];
	let aborted = 0;
	let counter = 0;
	const server = createServer((req, res) => {
		void (async () => {
			const path = (req.url ?? "").split("?")[0] ?? "";
			if (req.method !== "POST" || (path !== "/v1/chat/completions" && path !== "/chat/completions")) {
				res.writeHead(404, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { message: `No route ${req.method} ${path}` } }));
				return;
			}
			const request: ChatRequest = { path, headers: req.headers, body: JSON.parse(await readBody(req)) };
			const index = requests.length;
			requests.push(request);
			const answer = await script(request, index);
			if (answer.status !== undefined && answer.status !== 200) {
				res.writeHead(answer.status, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { message: answer.text ?? "scripted error", type: "scripted" } }));
				return;
			}
			counter += 1;
			const id = `chatcmpl-${counter}`;
			const created = Math.floor(Date.now() / 1000);
			if (answer.neverEnd) {
				const streaming = request.body.stream === true;
				res.writeHead(200, { "content-type": streaming ? "text/event-stream" : "application/json" });
				res.write(
					streaming
						? `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: request.body.model, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] })}\n\n`
						: `{"id":"${id}","object":"chat.completion",`,
				);
				await new Promise<void>((resolve) => res.on("close", () => resolve()));
				aborted += 1;
				return;
			}
			if (request.body.stream === true) {
				if (!(await stream(res, request, answer, id, created))) aborted += 1;
			} else whole(res, request, answer, id, created);
		})().catch((error: unknown) => {
			if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
			res.end(JSON.stringify({ error: { message: String(error) } }));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		get aborted() {
			return aborted;
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** Options of {@link descriptionLedScript}. */
export interface DescriptionLedOptions {
	/** The tool the scripted model calls. */
	readonly tool: string;
	/** When the tool's description matches this, the model always gets the arguments right. */
	readonly clear: RegExp;
	readonly right: Record<string, unknown>;
	readonly wrong: Record<string, unknown>;
	/** How often the model picks the wrong arguments when the description is not clear (0 to 1). */
	readonly wrongRate: number;
	readonly seed: number;
	/** The final answer, once a tool result came back. */
	readonly answer?: string;
}

/**
 * A model led by the tool's description: on a request whose last message is not a tool result it
 * calls `tool`, with the right arguments when the description matches `clear`, otherwise with the
 * wrong ones at `wrongRate` (a seeded choice, so pass rates between 0 and 1 repeat); after a tool
 * result it answers with text.
 */
export function descriptionLedScript(options: DescriptionLedOptions): Script {
	const random = seededRandom(options.seed);
	return (request) => {
		const last = request.body.messages.at(-1);
		if (last?.role === "tool") return { text: options.answer ?? "Done." };
		const tool = request.body.tools?.find((t) => t.function.name === options.tool);
		const clear = options.clear.test(tool?.function.description ?? "");
		const args = clear || random() >= options.wrongRate ? options.right : options.wrong;
		return { toolCalls: [{ name: options.tool, arguments: args }] };
	};
}
