/**
 * The page's side of `protocol.ts`: requests with the session token (header `x-toolsmith-token`),
 * the event stream (`?token=`), and every refused or failed request as an `ApiError` carrying the
 * server's `{ error }` text.
 */
import type {
	AbortRequest,
	CallRequest,
	CallStarted,
	EvalRunRequest,
	EvalRunResponse,
	EvalScenariosResponse,
	FixtureRequest,
	FixtureResponse,
	InspectorEvent,
	InspectorState,
	ProvidersResponse,
	ValidateRequest,
	ValidateResponse,
} from "../protocol.js";

/** The session token the page was opened with. */
export const token = new URLSearchParams(location.search).get("token") ?? "";

/** A request the server refused or could not answer, or one that never reached it. */
export class ApiError extends Error {
	constructor(
		readonly request: string,
		readonly status: number,
		message: string,
	) {
		super(status > 0 ? `${request}: ${status} ${message}` : `${request}: ${message}`);
		this.name = "ApiError";
	}
}

/** The text to show for what a request (or anything else) threw. */
export function messageOf(error: unknown): string {
	return error instanceof ApiError || error instanceof Error ? error.message : String(error);
}

async function request<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
	const label = `${method} ${path.replace(/\?.*$/, "")}`;
	let response: Response;
	try {
		response = await fetch(path, {
			method,
			headers: {
				"x-toolsmith-token": token,
				...(body === undefined ? {} : { "content-type": "application/json" }),
			},
			...(body === undefined ? {} : { body: JSON.stringify(body) }),
			cache: "no-store",
		});
	} catch (error) {
		throw new ApiError(
			label,
			0,
			`the server did not answer (${error instanceof Error ? error.message : String(error)})`,
		);
	}
	const text = await response.text();
	let parsed: unknown;
	try {
		parsed = text === "" ? undefined : JSON.parse(text);
	} catch {
		parsed = undefined;
	}
	if (!response.ok) {
		const message =
			typeof parsed === "object" && parsed !== null && typeof (parsed as { error?: unknown }).error === "string"
				? (parsed as { error: string }).error
				: text.slice(0, 200) || response.statusText;
		throw new ApiError(label, response.status, message);
	}
	if (parsed === undefined) throw new ApiError(label, response.status, "the answer is not JSON");
	return parsed as T;
}

export const api = {
	state: () => request<InspectorState>("GET", "/api/state"),
	validate: (body: ValidateRequest) => request<ValidateResponse>("POST", "/api/validate", body),
	call: (body: CallRequest) => request<CallStarted>("POST", "/api/call", body),
	abort: (body: AbortRequest) => request<{ aborted: boolean }>("POST", "/api/abort", body),
	providers: (tool: string) => request<ProvidersResponse>("GET", `/api/providers?tool=${encodeURIComponent(tool)}`),
	fixture: (body: FixtureRequest) => request<FixtureResponse>("POST", "/api/fixture", body),
	evals: () => request<EvalScenariosResponse>("GET", "/api/evals"),
	runEval: (body: EvalRunRequest) => request<EvalRunResponse>("POST", "/api/evals/run", body),
};

export interface EventsHandlers {
	readonly onEvent: (event: InspectorEvent) => void;
	readonly onOpen: () => void;
	/** The stream dropped; `everOpened` is false when it never connected (a refused token, say). */
	readonly onClose: (everOpened: boolean) => void;
	/** The server refused to open the stream, saying why (`GET /api/events: 503 Too many event streams…`). */
	readonly onRefused: (message: string) => void;
}

const EVENT_TYPES: readonly InspectorEvent["type"][] = ["hello", "reload", "diagnostic", "call", "update", "dropped"];

/**
 * Why the server refuses the event stream, or undefined when it would open it now. The browser
 * tells a page nothing of a refused `EventSource`, so the same request is made with `fetch`, read
 * as far as its status and error, and cancelled.
 */
async function streamRefusal(): Promise<string | undefined> {
	const controller = new AbortController();
	try {
		const response = await fetch("/api/events", {
			headers: { "x-toolsmith-token": token },
			cache: "no-store",
			signal: controller.signal,
		});
		if (response.ok) return undefined;
		const text = await response.text();
		let message = text.slice(0, 300) || response.statusText;
		try {
			const parsed = JSON.parse(text) as { error?: unknown };
			if (typeof parsed.error === "string") message = parsed.error;
		} catch {
			// not JSON: the text as it is
		}
		return `GET /api/events: ${response.status} ${message}`;
	} catch {
		return undefined;
	} finally {
		controller.abort();
	}
}

/** How long to wait before opening the stream again after the browser gave up on it. */
const RETRY_MS = 2000;

/**
 * Follow `/api/events`. The browser reconnects a stream that ended by itself (the server ends the
 * stream of a page that fell behind, after a `dropped` event); when it gives up (the server refused
 * the stream) the stream is opened again after a pause, and `onRefused` hears why. Returns a
 * function that stops it.
 */
export function followEvents(handlers: EventsHandlers): () => void {
	let source: EventSource | undefined;
	let retry: ReturnType<typeof setTimeout> | undefined;
	let stopped = false;
	let everOpened = false;
	const open = () => {
		source = new EventSource(`/api/events?token=${encodeURIComponent(token)}`);
		source.onopen = () => {
			everOpened = true;
			handlers.onOpen();
		};
		const receive = (message: MessageEvent<string>) => {
			let event: InspectorEvent;
			try {
				event = JSON.parse(message.data) as InspectorEvent;
			} catch {
				return;
			}
			handlers.onEvent(event);
		};
		// One event per `data:` line; named events (`event: call`) are taken too.
		source.onmessage = receive;
		for (const type of EVENT_TYPES) source.addEventListener(type, receive);
		source.onerror = () => {
			handlers.onClose(everOpened);
			if (source?.readyState === EventSource.CLOSED && !stopped) {
				source.close();
				retry = setTimeout(open, RETRY_MS);
				void streamRefusal().then((message) => {
					if (message !== undefined && !stopped) handlers.onRefused(message);
				});
			}
		};
	};
	open();
	return () => {
		stopped = true;
		clearTimeout(retry);
		source?.close();
	};
}
